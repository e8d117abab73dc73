// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${SECRET:name} placeholders of the fake corpus, expanded by expandSecrets
/**
 * Issue 13 (secrets in pin): a short token after "auth" and a passphrase given in prose are redacted before the rule file
 * is written; the rest of the rule is kept word for word. Runs the bundle as a user would; the secrets are the fake
 * corpus of tests/fixtures/memory/secrets.ts (no secret-shaped literal here).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { expandSecrets, FAKE_SECRETS } from "../fixtures/memory/secrets.js";
import { tempDir, triage } from "./helpers.js";

const ruleFiles = (rules: string): string =>
  readdirSync(rules).filter((f) => f.endsWith(".md")).map((f) => readFileSync(join(rules, f), "utf8")).join("");

describe("pin: secrets in the rule never reach the rule file", () => {
  it.each([
    ["pin-auth-short", "Use auth ${SECRET:pin-auth-short} for billing.", "- Use auth [REDACTED] for billing.\n"],
    ["phrase-ja-quoted", "パスワードは「${SECRET:phrase-ja-quoted}」です。必ず使うこと。", "パスワードは「[REDACTED]」です。必ず使うこと。"],
    ["phrase-for-colon", "Never share the passphrase for the staging vault: ${SECRET:phrase-for-colon}.", "- Never share the passphrase for the staging vault: [REDACTED].\n"],
  ])("%s", (name, template, want) => {
    const rules = join(tempDir("kt-pinsecret-"), "rules");
    const r = triage(["pin", expandSecrets(template), "--rules-dir", rules, "--type", "constraint", "--model", "/dev/null"]);
    expect(r.code, r.stderr).toBe(0);
    const needle = FAKE_SECRETS.find((s) => s.name === name)?.needle ?? "";
    const text = ruleFiles(rules);
    expect(text).toContain(want);
    for (const w of needle.split(" ").filter((x) => x.length >= 2)) expect(text).not.toContain(w);
    expect(r.stdout).not.toContain(needle);
  });
});
