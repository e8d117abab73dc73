/**
 * A rule pinned by hand is taken back only by a withdrawal that names it: cancelling a request ("Actually, forget it,
 * don't deploy.") must not retire "Never deploy on Fridays." (found by a fresh-user pass), while "forget the Friday
 * deploy rule" still does. Runs the bundle on real-shaped transcript lines.
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir, triage } from "./helpers.js";

const line = (uuid: string, session: string, content: string): string =>
  JSON.stringify({ type: "user", uuid, sessionId: session, timestamp: "2026-11-29T10:00:00Z", message: { role: "user", content } });

describe("withdrawals and hand-pinned rules", () => {
  it("a cancelled request leaves the pinned rule; a withdrawal naming it retires it", () => {
    const dir = tempDir("kt-pinwd-");
    const rules = join(dir, "rules");
    expect(triage(["pin", "Never deploy on Fridays.", "--rules-dir", rules, "--type", "constraint", "--model", "/dev/null"]).code).toBe(0);
    const t1 = join(dir, "t1.jsonl");
    writeFileSync(t1, `${line("u1", "s1", "Can you deploy the new build to staging?")}\n${line("u2", "s1", "Actually, forget it, don't deploy.")}\n`);
    const r1 = triage(["extract", t1, "--rules-dir", rules]);
    expect(r1.code, r1.stderr).toBe(0);
    expect(readFileSync(join(rules, "constraints.md"), "utf8")).toContain("- Never deploy on Fridays.\n");
    const t2 = join(dir, "t2.jsonl");
    writeFileSync(t2, `${line("u3", "s2", "We can deploy on Fridays again, forget the Friday deploy rule.")}\n`);
    const r2 = triage(["extract", t2, "--rules-dir", rules]);
    expect(r2.code, r2.stderr).toBe(0);
    const left = readdirSync(rules).filter((f) => f.endsWith(".md")).map((f) => readFileSync(join(rules, f), "utf8")).join("");
    expect(left).not.toContain("Never deploy on Fridays.");
  });
});

describe("third fresh-user pass", () => {
  it("a transcript whose first line is longer than the sniff window is still a transcript; its rules are read", () => {
    const dir = tempDir("kt-bigfirst-");
    const t = join(dir, "t.jsonl");
    writeFileSync(t, `${line("u1", "s1", `Never push to main. ${"y".repeat(66_000)}`)}\n${line("u2", "s1", "Always run the tests before merging.")}\n`);
    const r = triage(["extract", t, "--rules-dir", join(dir, "rules")]);
    expect(r.code, r.stderr).toBe(0);
    const text = readdirSync(join(dir, "rules")).filter((f) => f.endsWith(".md")).map((f) => readFileSync(join(dir, "rules", f), "utf8")).join("");
    expect(text).toContain("Always run the tests before merging.");
  });

  it("pin refuses text that was not UTF-8 instead of storing U+FFFD", () => {
    const dir = tempDir("kt-pinfffd-");
    const r = triage(["pin", "Never deploy \uFFFDt\uFFFD.", "--rules-dir", join(dir, "rules"), "--type", "constraint", "--model", "/dev/null"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^triage: pin: the rule holds bytes that are not valid UTF-8/);
  });

  it("export --out into a folder not created yet writes there (no false symbolic-link refusal)", () => {
    const dir = tempDir("kt-exportnew-");
    const rules = join(dir, "rules");
    expect(triage(["pin", "Never deploy on Fridays.", "--rules-dir", rules, "--type", "constraint", "--model", "/dev/null"]).code).toBe(0);
    const out = join(dir, "newdir");
    const r = triage(["export", "--format", "agents", "--rules-dir", rules, "--out", out]);
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(join(out, "AGENTS.md"), "utf8")).toContain("- Never deploy on Fridays.");
  });
});
