/**
 * Issue 14 (pin): a rule with the same words in another order is not "already pinned" — "Use spaces, not tabs." reverses
 * "Use tabs, not spaces." and replaces it, saying so; a restatement (case, spacing, punctuation) is "already pinned" and
 * the message names the rule that is there. Runs the bundle as a user would.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir, triage } from "./helpers.js";

const pin = (rules: string, text: string) => triage(["pin", text, "--rules-dir", rules, "--type", "constraint", "--model", "/dev/null"]);
const ruleFiles = (rules: string): string =>
  readdirSync(rules).filter((f) => f.endsWith(".md")).map((f) => readFileSync(join(rules, f), "utf8")).join("");

describe("pin: word order matters", () => {
  it.each([
    ["Use tabs, not spaces.", "Use spaces, not tabs."],
    ["Run migrations before deploy.", "Run deploy before migrations."],
  ])("%s then %s: the reversed rule replaces the first", (first, second) => {
    const rules = join(tempDir("kt-pinrev-"), "rules");
    expect(pin(rules, first).code).toBe(0);
    const r = pin(rules, second);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`pinned: ${second}\n`);
    expect(r.stderr).toContain(`replaces the earlier rule "${first}"`);
    const text = ruleFiles(rules);
    expect(text).toContain(`- ${second}\n`);
    expect(text).not.toContain(first);
  });

  it("a restatement differing in case, spacing and punctuation is already pinned, named by the existing rule's text", () => {
    const rules = join(tempDir("kt-pinsame-"), "rules");
    expect(pin(rules, "Never use eval().").code).toBe(0);
    const r = pin(rules, "never use  EVAL()!");
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe("already pinned: Never use eval().\n");
    expect(ruleFiles(rules).match(/eval/gi)?.length).toBe(1);
  });

  it("a rule with another word is not already pinned", () => {
    const rules = join(tempDir("kt-pinword-"), "rules");
    expect(pin(rules, "Never use eval().").code).toBe(0);
    const r = pin(rules, "Never use eval(x).");
    expect(r.stdout).not.toMatch(/^already pinned/);
    expect(ruleFiles(rules)).toContain("- Never use eval(x).\n");
  });
});
