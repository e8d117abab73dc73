/**
 * Thousands of near-identical rules that differ only in an identifier ("never push to main number N",
 * "Never deploy version 1.2.3.") or in one made-up word: consolidation keeps each one as its own rule,
 * merges restatements, and looks at a bounded number of earlier rules per statement (CANDIDATE_CAP), so a
 * 20 MB transcript of such turns no longer runs for minutes (speed: `npm run bench:extract`). A SIGTERM
 * during consolidation stops the run before the next statement and writes nothing.
 */
import { appendFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { isMainThread } from "node:worker_threads";
import { describe, expect, it } from "vitest";
import { CANDIDATE_CAP, contentTerms } from "../../scripts/memory/consolidate.js";
import { CHECK_EVERY_STATEMENTS } from "../../scripts/memory/pipeline/extract-run.js";
import { loadStore } from "../../scripts/memory/store/state.js";
import { jsonl, user } from "../fixtures/memory/jsonl.js";
import { madeUpWords, numberedRules, ruleTurns, versionRules } from "../fixtures/memory/many-rules.js";
import { extractText, filesUnder, ruleFilesText, snapshot, tempProject } from "./helpers.js";

/** The bullet texts of every rule file, sorted (files are split and named by part, so order is by name). */
const bullets = (rulesDir: string): string[] =>
  ruleFilesText(rulesDir)
    .split("\n")
    .filter((l) => l.startsWith("- "))
    .map((l) => l.slice(2))
    .sort();

describe("numbered near-identical rules are distinct rules, restatements merge", { timeout: 120_000 }, () => {
  it("3,000 'never push to main number N' turns give 3,000 rules, each written once; restating all of them merges", async () => {
    const rules = numberedRules(3000);
    // Every two share 3 of their 4 content terms (Jaccard 0.6): each is a near-duplicate candidate of every other.
    expect(contentTerms(rules[99] as string)).toEqual(["100", "main", "number", "push"]);
    const p = tempProject();
    const first = await extractText(p, jsonl(ruleTurns(rules)));
    expect(first).toMatchObject({ kept: 3000, added: 3000, updated: 0, retired: 0 });
    let store = loadStore(p.rulesDir);
    expect(store.rules.map((r) => r.text)).toEqual(rules);
    expect(store.rules.every((r) => r.status === "active" && r.count === 1)).toBe(true);
    expect(new Set(store.rules.map((r) => r.id)).size).toBe(3000);
    expect(bullets(p.rulesDir)).toEqual([...rules].sort());

    // Second session, appended: every rule again, a different rule sharing 2 terms with each, and a restatement
    // of a single-digit one (its terms equal those of numbers 1-9; only the identifier tells them apart).
    appendFileSync(p.transcript, jsonl([...ruleTurns(rules, "s2"), user("Never push to main on Fridays.", "s2"), user("Never push to main number 7!", "s2")]));
    const second = await extractText(p, null);
    expect(second).toMatchObject({ kept: 3002, added: 1, updated: 3001, retired: 0 });
    store = loadStore(p.rulesDir);
    expect(store.rules.map((r) => r.text)).toEqual([...rules, "Never push to main on Fridays."]);
    const count = new Map(store.rules.map((r) => [r.text, r.count]));
    expect(count.get("never push to main number 7")).toBe(3);
    expect(count.get("never push to main number 8")).toBe(2);
    expect(count.get("never push to main number 3000")).toBe(2);
    expect(count.get("Never push to main on Fridays.")).toBe(1);
    expect(bullets(p.rulesDir)).toEqual([...rules, "Never push to main on Fridays."].sort());
  });

  it("729 rules with the same content terms and different versions stay 729 rules with short, unique ids", async () => {
    const rules = versionRules();
    expect(new Set(rules.map((r) => contentTerms(r).join(" "))).size).toBe(1);
    const p = tempProject();
    // Restatements: word for word, and with more words (a near-duplicate naming the same version).
    await extractText(p, jsonl([...ruleTurns(rules), user("Never deploy version 4.5.6!", "s2"), user("Never deploy version 4.5.7 on Fridays.", "s2")]));
    const store = loadStore(p.rulesDir);
    expect(store.rules.map((r) => r.text)).toEqual(rules);
    const twice = store.rules.filter((r) => r.count === 2).map((r) => r.text);
    expect(twice).toEqual(["Never deploy version 4.5.6.", "Never deploy version 4.5.7."]);
    const ids = store.rules.map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    // One id base for all 729: "r" + 10 hex, then "x" ... "xxxxxxxx", then "x9", "x10", ... (it used to grow by one "x" per rule).
    expect(ids[1]).toBe(`${ids[0]}x`);
    expect(Math.max(...ids.map((id) => id.length))).toBeLessThanOrEqual(19);
  });

  it("with more than CANDIDATE_CAP template rules in between, a restatement still merges into a rule stated before them and one stated after", async () => {
    const words = madeUpWords(CANDIDATE_CAP + 500);
    const flood = words.map((w) => `Never let the ${w} team touch production.`);
    // Distinct rules (a template substitution each), all sharing 3 terms with the restatements below.
    expect(new Set(flood.map((r) => contentTerms(r).join(" "))).size).toBe(flood.length);
    const p = tempProject();
    const before = "Never let the core team touch production.";
    const after = "Never let the platform team touch production.";
    await extractText(
      p,
      jsonl([user(before), ...flood.map((r) => user(r)), user(after), user("Never let the core team touch production servers."), user("Never let the platform team touch production servers.")]),
    );
    const store = loadStore(p.rulesDir);
    expect(store.rules.length).toBe(flood.length + 2);
    expect(store.rules.find((r) => r.text === before)?.count).toBe(2);
    expect(store.rules.find((r) => r.text === after)?.count).toBe(2);
    expect(store.rules.every((r) => r.status === "active")).toBe(true);
  });
});

describe("SIGTERM during consolidation", { timeout: 120_000 }, () => {
  it("stops before the next statement, exits like any interrupt (143) and leaves no file in a fresh project", async () => {
    const p = tempProject();
    const seen: number[] = [];
    // 3,000 turns: one batch of 2,000 utterances; the signal comes at statement 500, inside that batch.
    const run = extractText(p, jsonl(ruleTurns(numberedRules(3000))), {}, {
      onConsolidated: (n) => {
        seen.push(n);
        if (n === 500) process.emit("SIGTERM", "SIGTERM");
      },
    });
    await expect(run).rejects.toMatchObject({ code: "INTERRUPTED", exitCode: 143 });
    expect(seen.at(-1)).toBe(500);
    expect(filesUnder(p.dir)).toEqual(["session-1.jsonl"]);
  });

  it("leaves an existing rules folder byte-identical and releases the lock; the next run picks up every rule", async () => {
    const p = tempProject();
    await extractText(p, jsonl([user("Never commit secrets to the repo."), user("Always run `make check` before pushing.")]));
    const before = snapshot(p.rulesDir);
    appendFileSync(p.transcript, jsonl(ruleTurns(numberedRules(3000), "s2")));
    const run = extractText(p, null, {}, { onConsolidated: (n) => (n === 1000 ? process.emit("SIGTERM", "SIGTERM") : undefined) });
    await expect(run).rejects.toMatchObject({ code: "INTERRUPTED", exitCode: 143 });
    expect(snapshot(p.rulesDir)).toEqual(before);
    expect(existsSync(join(p.rulesDir, ".state", "lock"))).toBe(false);
    const next = await extractText(p, null);
    expect(next.added).toBe(3000);
    expect(loadStore(p.rulesDir).rules.length).toBe(3002);
  });

  // A real signal is delivered on an event-loop turn: the run yields every CHECK_EVERY_STATEMENTS statements.
  // Only in a process of its own (vitest's default forks pool): in a worker thread the signal would reach the runner.
  it.skipIf(!isMainThread)("a real SIGTERM sent mid-consolidation is handled within CHECK_EVERY_STATEMENTS statements", async () => {
    const p = tempProject();
    let last = 0;
    const run = extractText(p, jsonl(ruleTurns(numberedRules(3000))), {}, {
      onConsolidated: (n) => {
        last = n;
        if (n === 300) process.kill(process.pid, "SIGTERM");
      },
    });
    await expect(run).rejects.toMatchObject({ code: "INTERRUPTED", exitCode: 143 });
    expect(last).toBeGreaterThanOrEqual(300);
    expect(last).toBeLessThanOrEqual(300 + CHECK_EVERY_STATEMENTS);
    expect(filesUnder(p.dir)).toEqual(["session-1.jsonl"]);
  });
});
