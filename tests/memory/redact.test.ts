import { describe, expect, it } from "vitest";
import { redactSync, redactTexts, REDACTED } from "../../scripts/memory/redact.js";
import { FAKE_SECRETS } from "../fixtures/memory/secrets.js";

describe("redact: every fake secret shape is removed, the sentence kept", () => {
  it.each(FAKE_SECRETS.map((s) => [s.name, s]))("%s", async (_n, s) => {
    const { texts } = await redactTexts([s.text]);
    const out = texts[0] as string;
    expect(out).not.toContain(s.needle);
    expect(out).toContain(REDACTED);
    // Redaction is idempotent.
    expect((await redactTexts([out])).texts[0]).toBe(out);
  });
  it("has at least 30 shapes", () => expect(FAKE_SECRETS.length).toBeGreaterThanOrEqual(30));
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
  ])("%s", async (_n, text) => {
    const { texts } = await redactTexts([text]);
    expect(typeof texts[0]).toBe("string");
  });
});
