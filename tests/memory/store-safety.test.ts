/**
 * The rules store on bad ground (issue 14, items 5 and 6): a corrupt `.state/rules.json` is set aside under a
 * dated name and rebuilt from the rule files (as a missing one is), and the state folder carries a `.gitignore`
 * so a team that commits `.claude/rules/` never commits cursors, the hook log or the lock.
 */
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { assistant, jsonl, user } from "../fixtures/memory/jsonl.js";
import { activeRules, extractText, ruleFilesText, tempProject } from "./helpers.js";

const body = jsonl([user("Never push to main."), user("In packages/api, always validate input with zod."), assistant("Noted.")]);

describe("a corrupt rules.json", { timeout: 30_000 }, () => {
  it.each([
    ["truncated JSON", (s: string) => s.slice(0, s.length / 2)],
    ["valid JSON of the wrong shape", () => '{"format":"something-else"}\n'],
    ["binary garbage", () => "\u0000\u0001\u00ff"],
  ])("(%s) is kept aside under a dated name and rebuilt from the rule files", async (_name, spoil) => {
    const p = tempProject();
    await extractText(p, body);
    const files = ruleFilesText(p.rulesDir);
    const rules = activeRules(p.rulesDir);
    const store = join(p.rulesDir, ".state", "rules.json");
    const bad = spoil(readFileSync(store, "utf8"));
    writeFileSync(store, bad);
    const r = await extractText(p, `${body}${jsonl([user("Always run the linter before committing.")])}`, { now: () => new Date("2026-12-01T10:20:30.456Z") });
    expect(r.warnings.join("\n")).toMatch(/rules\.json was corrupt: kept as .*rules\.json\.corrupt-2026-12-01T10-20-30-456Z/);
    expect(readFileSync(`${store}.corrupt-2026-12-01T10-20-30-456Z`, "utf8")).toBe(bad);
    // Nothing duplicated, nothing frozen: the files are the old ones plus the new rule.
    expect(r.warnings.join("\n")).not.toMatch(/by hand/);
    expect(activeRules(p.rulesDir).sort()).toEqual([...rules, "Always run the linter before committing."].sort());
    expect(ruleFilesText(p.rulesDir)).toContain("- Always run the linter before committing.");
    expect(ruleFilesText(p.rulesDir).split("Never push to main.").length).toBe(files.split("Never push to main.").length);
  });
  it("a dry run rebuilds in memory and moves nothing", async () => {
    const p = tempProject();
    await extractText(p, body);
    const store = join(p.rulesDir, ".state", "rules.json");
    writeFileSync(store, "{");
    const r = await extractText(p, null, { dryRun: true });
    expect(r.warnings.join("\n")).toMatch(/is corrupt; rebuilding/);
    expect(readdirSync(join(p.rulesDir, ".state")).filter((f) => f.includes("corrupt"))).toEqual([]);
    expect(readFileSync(store, "utf8")).toBe("{");
  });
});

describe("the state folder", () => {
  it("is ignored by git: committing .claude/rules/ commits the rule files and nothing of .state", async () => {
    const p = tempProject();
    await extractText(p, body);
    expect(readFileSync(join(p.rulesDir, ".state", ".gitignore"), "utf8")).toMatch(/^\*$/m);
    const git = (...a: string[]): string => execFileSync("git", ["-C", p.dir, ...a], { encoding: "utf8" });
    git("init", "-q");
    git("add", ".claude");
    const staged = git("diff", "--cached", "--name-only").trim().split("\n").sort();
    expect(staged).toEqual(readdirSync(p.rulesDir).filter((f) => f.endsWith(".md")).map((f) => `.claude/rules/knowledge-triage/${f}`).sort());
  });
});

describe("rules.json read again in one process (state.ts loadStore keeps the last text it validated)", { timeout: 30_000 }, () => {
  it("gives a fresh copy each time, and parses any other bytes in full", async () => {
    const { loadStore, storeJson } = await import("../../scripts/memory/store/state.js");
    const p = tempProject();
    await extractText(p, body);
    const store = join(p.rulesDir, ".state", "rules.json");
    const text = readFileSync(store, "utf8");
    const a = loadStore(p.rulesDir);
    // The same bytes as storeJson of what was loaded: the copy holds exactly what the file holds.
    expect(storeJson(a)).toBe(text);
    a.rules.length = 0;
    expect(loadStore(p.rulesDir).rules.length).toBeGreaterThan(0);
    // Bytes that differ by one character are validated again: a bad rule type is refused.
    writeFileSync(store, text.replace('"type": "constraint"', '"type": "belief"'));
    expect(() => loadStore(p.rulesDir)).toThrow(/not a valid knowledge-triage store/);
    writeFileSync(store, text);
    expect(loadStore(p.rulesDir)).toEqual(JSON.parse(text));
  });
});
