import { describe, expect, it } from "vitest";
import { redactSync, redactTexts, REDACTED } from "../../scripts/memory/redact.js";
import { expandSecrets, FAKE_SECRETS, NOT_SECRETS } from "../fixtures/memory/secrets.js";

describe("redact: every fake secret shape is removed, the sentence kept", () => {
  it.each(FAKE_SECRETS.map((s) => [s.name, s]))("%s", async (_n, s) => {
    const { texts } = await redactTexts([s.text]);
    const out = texts[0] as string;
    expect(out).not.toContain(s.needle);
    // A multi-word passphrase leaks if any of its words is left ("passphrase=[REDACTED] horse battery staple").
    for (const w of s.needle.split(" ").filter((x) => x.length >= 4)) expect(out).not.toContain(w);
    expect(out).toContain(REDACTED);
    // Redaction is idempotent.
    expect((await redactTexts([out])).texts[0]).toBe(out);
    // Our own patterns alone catch it too: log lines and error messages use redactSync (no secretlint).
    expect(redactSync(s.text)).not.toContain(s.needle);
    for (const w of s.needle.split(" ").filter((x) => x.length >= 4)) expect(redactSync(s.text)).not.toContain(w);
  });
  it("has at least 60 shapes, each name once", () => {
    expect(FAKE_SECRETS.length).toBeGreaterThanOrEqual(60);
    expect(new Set(FAKE_SECRETS.map((s) => s.name)).size).toBe(FAKE_SECRETS.length);
  });
});

describe("redact: the words around a secret are kept", () => {
  it.each([
    ["aws-pair-space", "backup user keys: [REDACTED] [REDACTED]"],
    ["aws-pair-colon", "S3 creds [REDACTED]:[REDACTED] for the nightly sync"],
    ["prose-en-login", "log in as deploy, password is [REDACTED]"],
    ["prose-en-pass", "user deploy pass [REDACTED] on the jump host"],
    ["prose-de", "Das Passwort für den Staging-Server lautet [REDACTED]"],
    ["prose-ru", "логин deploy, пароль от стейджинга — [REDACTED]"],
    ["prose-ja", "ログインは deploy / [REDACTED] です"],
    ["prose-ko", "아이디는 deploy, 비번은 [REDACTED]"],
    ["password-flag", "run the seeder with --password [REDACTED]"],
  ])("%s", async (name, want) => {
    const s = FAKE_SECRETS.find((x) => x.name === name);
    expect((await redactTexts([s?.text ?? ""])).texts[0]).toBe(want);
  });
});

describe("redact: sentences without a secret come out byte for byte (7 languages)", () => {
  it.each(NOT_SECRETS.map((t) => [t]))("%s", async (text) => {
    expect((await redactTexts([text])).texts[0]).toBe(text);
    expect(redactSync(text)).toBe(text);
  });
});

describe("redact: ordinary rules are left alone", () => {
  it.each([
    "Never run `terraform apply` without a saved plan file.",
    "set max_tokens: 4096 in every request",
    "the auth token is required for every call",
    "pin the base image to commit 3f2a9c1d0b7e6f5a4c3b2a1908f7e6d5c4b3a291",
    "Run `pnpm -w test:int -- --runInBand --reporter=dot`",
    "Go errors are always wrapped with `fmt.Errorf(\"...: %w\", err)`.",
    "In packages/api, always validate request bodies with zod schemas.",
    "The password field must never be logged.",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a literal shell placeholder is the input under test
    "use the TOKEN=${GITHUB_TOKEN} env var in CI",
  ])("%s", async (text) => {
    expect((await redactTexts([text])).texts[0]).toBe(text);
    expect(redactSync(text)).toBe(text);
  });
});

describe("redact: batch mapping", () => {
  it("maps secretlint ranges back to the right text in a batch", async () => {
    const gh = FAKE_SECRETS.find((s) => s.name === "github");
    const { texts } = await redactTexts(["first is clean", `second has ${gh?.needle} inside`, "third is clean"]);
    expect(texts).toEqual(["first is clean", "second has [REDACTED] inside", "third is clean"]);
  });
});

describe("redact: pathological input terminates (no catastrophic backtracking)", () => {
  it.each([
    ["dotted run", `${"a.".repeat(40_000)}x`],
    ["dashed run", `${"token-".repeat(15_000)}x`],
    ["base64 run", "QUJD".repeat(20_000)],
    ["at signs", `${"a@".repeat(20_000)}`],
    ["colons", "a:1:".repeat(20_000)],
    ["login words", "user deploy ".repeat(10_000)],
    ["command lines", "mysql docker login ".repeat(5_000)],
    ["qualified words", "токен деплоя ".repeat(10_000)],
  ])("%s", async (_n, text) => {
    const { texts } = await redactTexts([text]);
    expect(typeof texts[0]).toBe("string");
  });
});

describe("redact: a secret never spans a line break (issue 13)", () => {
  it("keeps a .env of names, a path and a heading-then-command byte for byte", async () => {
    const text = "SECRET_PATH=/etc/app/secret\nPASSWORD_MIN_LENGTH=12\n## Rotate the token\ndeploy.sh --env=prod\n";
    expect((await redactTexts([text])).texts[0]).toBe(text);
    expect(redactSync(text)).toBe(text);
  });
  it("keeps a rule on the line after a password word", async () => {
    const text = "Never log the password\nPASSWORD_MIN_LENGTH=12 must stay in config.";
    expect((await redactTexts([text])).texts[0]).toBe(text);
  });
  it("still redacts the secrets on their own lines of the same text", async () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: ${SECRET:name} placeholders of the fake corpus, expanded by expandSecrets
    const text = expandSecrets("## Rotate the token\nDB_PASSWORD=${SECRET:db-env}\nPASSWORD_MIN_LENGTH=12\nthe database password is ${SECRET:dbPassword} locally");
    const out = (await redactTexts([text])).texts[0];
    expect(out).toBe("## Rotate the token\nDB_PASSWORD=[REDACTED]\nPASSWORD_MIN_LENGTH=12\nthe database password is [REDACTED] locally");
  });
});

describe("redact: a short token after auth, at the end of a sentence (issue 13)", () => {
  it.each(["auth-short", "auth-is-short", "pin-auth-short"])("%s followed by a full stop", async (name) => {
    const s = FAKE_SECRETS.find((x) => x.name === name);
    const out = redactSync(`${s?.text ?? ""}. Never share it outside the team.`);
    expect(out).not.toContain(s?.needle);
    expect(out).toContain(`${REDACTED}`);
  });
});
