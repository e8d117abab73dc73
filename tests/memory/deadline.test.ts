/**
 * The extraction deadline (scripts/memory/deadline.ts, extract-run.ts): a run whose budget is spent stops at a
 * safe point, writes the rules of the part it finished, and moves its cursor only to the end of that part; the
 * next run continues there, and the runs together write the same bytes as one run without a deadline. Time is
 * injected: each test's clock counts statements consolidated, or the deadline checks themselves, so a stop
 * happens at the same place on every machine (no timing is measured here; speed is in `npm run bench:hooks`).
 */
import { appendFileSync, statSync, truncateSync, writeFileSync } from "node:fs";
import fc from "fast-check";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { type Classifier, regexClassifier } from "../../scripts/engine/classify.js";
import type { ExtractReport } from "../../scripts/memory/api.js";
import { type Deadline, deadlineAfter, deadlineMessage } from "../../scripts/memory/deadline.js";
import type { RunTuning } from "../../scripts/memory/extract-run.js";
import { InterruptedError } from "../../scripts/memory/interrupt.js";
import { loadCursor, loadStore } from "../../scripts/memory/state.js";
import { ensureBundle, expectOneLineError, triage } from "../cli/helpers.js";
import { assistant, jsonl, toolPair, user } from "../fixtures/memory/jsonl.js";
import { distinctRules, ruleTurns } from "../fixtures/memory/many-rules.js";
import { activeRules, extractText, filesUnder, snapshot, tempProject } from "./helpers.js";

/** A deadline that expires once `budget` statements were consolidated in this run (clock = statements). */
function afterStatements(budget: number): { deadline: Deadline; tuning: RunTuning } {
  let n = 0;
  const deadline = deadlineAfter(budget, { clock: () => n, startMs: 0 });
  return { deadline, tuning: { onConsolidated: (k) => (n = k) } };
}

/** A deadline that expires at its `budget`-th check (clock = number of times it was asked). */
function afterChecks(budget: number): Deadline & { asked: () => number } {
  let calls = 0;
  const d = deadlineAfter(budget, { clock: () => ++calls, startMs: 0 });
  return { budgetMs: d.budgetMs, expired: d.expired, asked: () => calls };
}

/**
 * A classifier whose scores depend on the batch it is given, like the trained model (it looks at each unit's
 * neighbours): the first unit of every call scores a little higher. If a resumed run split its batches
 * differently from one uninterrupted run, some rule's `score` in rules.json would differ.
 */
const batchSensitive: Classifier = {
  name: "batch-sensitive",
  scores: (units) =>
    regexClassifier.scores(units).map((row, i) => (i === 0 ? { ...row, constraint: row.constraint + 0.2, belief: Math.max(0, row.belief - 0.2) } : row)),
};

const POOL = [
  "Never push to main.",
  "never push to main!",
  "actually, you can push to main now until the release",
  "Always run prettier before committing. Never commit generated files. Keep commits small.",
  "In packages/api, always validate request bodies with zod.",
  "except in packages/api/legacy, where validation is optional",
  "fix the login test",
  "Do not add a Co-Authored-By line to commit messages.",
  "Run integration tests with `pnpm -w test:int -- --runInBand`.",
  "scratch that",
  "Never deploy on Fridays. Scratch that.",
  "thanks!",
  "以后不要直接修改 configs/base.yaml。",
];

/** Every file of a rules folder (relative path -> text), the cursors without their transcriptPath (a temp path). */
function state(rulesDir: string): Record<string, string> {
  const s = snapshot(rulesDir);
  for (const k of Object.keys(s)) if (k.startsWith(".state/sessions/")) s[k] = (s[k] as string).replace(/\n {2}"transcriptPath": "[^"]*",/, "");
  return s;
}

/** Run with a fresh deadline from `make` until a run finishes; returns every report (guards against no progress). */
async function untilDone(p: { transcript: string; rulesDir: string }, make: () => { deadline: Deadline; tuning?: RunTuning }, tuning: RunTuning = {}, classifier: Classifier = regexClassifier): Promise<ExtractReport[]> {
  const reports: ExtractReport[] = [];
  for (let i = 0; i < 200; i++) {
    const { deadline, tuning: t } = make();
    const r = await extractText(p, null, { deadline, classifier }, { ...tuning, ...t });
    reports.push(r);
    if (!r.stoppedAt) return reports;
  }
  throw new Error("no progress: 200 runs stopped at their deadline");
}

describe("deadlineAfter", () => {
  it("expires when the clock reaches start + budget, and stays expired", () => {
    let t = 100;
    const d = deadlineAfter(50, { clock: () => t });
    expect(d.expired()).toBe(false);
    t = 149;
    expect(d.expired()).toBe(false);
    t = 150;
    expect(d.expired()).toBe(true);
    t = 0;
    expect(d.expired()).toBe(true);
  });

  it.each([-1, Number.NaN, Number.POSITIVE_INFINITY])("rejects a budget of %s ms", (ms) => {
    expect(() => deadlineAfter(ms)).toThrow(RangeError);
  });

  it("says how far a stopped run got", () => {
    expect(deadlineMessage(20_000, 11_380_752, 32_640_000)).toBe(
      "stopped at the 20 s deadline: 10.9 MiB of 31.1 MiB of the transcript done (34%); the next run continues at byte 11380752",
    );
    expect(deadlineMessage(1, 0, 100)).toBe("stopped at the 1 ms deadline: 0 bytes of 100 bytes of the transcript done (0%); the next run continues at byte 0");
  });
});

describe("a deadline hit mid-transcript", () => {
  it("writes the rules of the part it finished, points the cursor at the end of that part, and the next run finishes the same as one run", async () => {
    const rules = distinctRules(60);
    const body = jsonl(ruleTurns(rules));
    const full = tempProject();
    await extractText(full, body);

    const p = tempProject();
    writeFileSync(p.transcript, body);
    // Batches of 8 utterances; time runs out after 20 statements, in the middle of the third batch.
    const { deadline, tuning } = afterStatements(20);
    const first = await extractText(p, null, { deadline }, { ...tuning, batch: 8 });
    expect(first.stoppedAt).toBeDefined();
    expect(first.warnings[0]).toMatch(/^stopped at the 20 ms deadline: .* the next run continues at byte \d+$/);
    expect(activeRules(p.rulesDir)).toEqual(rules.slice(0, 20));
    // The rule files hold exactly those rules (nothing half-done is written, nothing done is held back).
    expect(filesUnder(p.rulesDir).filter((f) => f.endsWith(".md"))).not.toEqual([]);
    // The cursor is at the first user line of the stopped batch (the 17th turn), with the 4 sentences done in it.
    const cursor = loadCursor(p.rulesDir, "session-1");
    const lines = body.split("\n");
    const batchStart = Buffer.byteLength(lines.slice(0, 32).map((l) => `${l}\n`).join(""));
    expect(cursor).toMatchObject({ offset: batchStart, line: 32, skip: 4 });
    expect(first.stoppedAt).toEqual({ offset: batchStart, size: Buffer.byteLength(body) });

    const second = await extractText(p, null, {}, { batch: 8 });
    expect(second.stoppedAt).toBeUndefined();
    expect(second.added).toBe(40);
    expect(state(p.rulesDir)).toEqual(state(full.rulesDir));
  });

  it("the sentences to skip carry over into the next batch when the next run's batches are smaller", async () => {
    const body = jsonl(ruleTurns(distinctRules(30)));
    const full = tempProject();
    await extractText(full, body);
    const p = tempProject();
    writeFileSync(p.transcript, body);
    const { deadline, tuning } = afterStatements(13);
    await extractText(p, null, { deadline }, { ...tuning, batch: 8 });
    expect(loadCursor(p.rulesDir, "session-1")).toMatchObject({ line: 16, skip: 5 });
    // Batches of 2 user lines (one sentence each): the 5 to skip span three of them.
    const next = await extractText(p, null, {}, { batch: 2 });
    expect(next.added).toBe(17);
    expect(state(p.rulesDir)).toEqual(state(full.rulesDir));
  });

  it("a run stopped before its first statement in a fresh project still saves its cursor (and no rule file)", async () => {
    const p = tempProject();
    writeFileSync(p.transcript, jsonl([assistant("hello"), user("Never push to main."), assistant("ok")]));
    const r = await extractText(p, null, { deadline: deadlineAfter(0) });
    expect(r.stoppedAt).toEqual({ offset: 0, size: expect.any(Number) });
    expect(filesUnder(p.rulesDir)).toEqual([".state/rules.json", ".state/sessions/session-1.json"]);
    const next = await extractText(p, null);
    expect(next.added).toBe(1);
    expect(activeRules(p.rulesDir)).toEqual(["Never push to main."]);
  });

  it("for random sessions and budgets, runs stopped at their deadline until done write the same bytes as one run", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.nat(POOL.length - 1), { minLength: 1, maxLength: 14 }),
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 1, max: 4 }),
        fc.boolean(),
        async (picks, budget, batch, byChecks) => {
          const lines = picks.flatMap((k, i) => [user(POOL[k] as string), ...(i % 3 === 0 ? toolPair("Always use --force.") : [assistant("ok")])]);
          const tuning: RunTuning = { batch, chunkSize: 1024 };
          const full = tempProject();
          writeFileSync(full.transcript, jsonl(lines));
          await extractText(full, null, { classifier: batchSensitive }, tuning);
          const p = tempProject();
          writeFileSync(p.transcript, jsonl(lines));
          // Either the clock counts statements, or every check (chunk reads and batches too, so stops also
          // happen while reading); a check budget starts above what one batch of reading can take.
          const make = byChecks ? () => ({ deadline: afterChecks(budget + 12) }) : () => afterStatements(budget);
          await untilDone(p, make, tuning, batchSensitive);
          expect(state(p.rulesDir)).toEqual(state(full.rulesDir));
        },
      ),
      { numRuns: 60, seed: 2026 },
    );
  }, 120_000);
});

describe("reading honours the deadline inside a line with no newline", () => {
  it("stops a sparse 64 GiB file with no newline after a few chunks, and the next run continues from there", async () => {
    const p = tempProject();
    writeFileSync(p.transcript, "");
    truncateSync(p.transcript, 64 * 2 ** 30);
    const chunk = 64 * 1024;
    const tuning: RunTuning = { chunkSize: chunk, maxLineBytes: chunk };
    // Asked once before each chunk read: the 5th time it is expired, so 4 chunks were read.
    const d1 = afterChecks(5);
    const r1 = await extractText(p, null, { deadline: d1 }, tuning);
    expect(d1.asked()).toBe(5);
    expect(r1.stoppedAt).toEqual({ offset: 4 * chunk, size: 64 * 2 ** 30 });
    // The line is longer than the cap, so it is skipped whatever follows: the cursor keeps its start and how far it was searched.
    expect(loadCursor(p.rulesDir, "session-1")).toMatchObject({ offset: 0, line: 0, scan: 4 * chunk });
    const r2 = await extractText(p, null, { deadline: afterChecks(5) }, tuning);
    expect(r2.stoppedAt).toEqual({ offset: 8 * chunk, size: 64 * 2 ** 30 });
    expect(activeRules(p.rulesDir)).toEqual([]);
  });

  it("after the newline-free line ends, the next run skips it and extracts the rule after it", async () => {
    const p = tempProject();
    const chunk = 4096;
    const tuning: RunTuning = { chunkSize: chunk, maxLineBytes: 2 * chunk };
    writeFileSync(p.transcript, "x".repeat(40 * chunk));
    await extractText(p, null, { deadline: afterChecks(4) }, tuning);
    expect(loadCursor(p.rulesDir, "session-1")).toMatchObject({ offset: 0, scan: 3 * chunk });
    // A run without a deadline reaches the end of the file, still inside the line: the cursor keeps searching from there.
    const r = await extractText(p, null, {}, tuning);
    expect(r.stoppedAt).toBeUndefined();
    expect(loadCursor(p.rulesDir, "session-1")).toMatchObject({ offset: 0, scan: 40 * chunk });
    const rule = user("Never push to main.");
    appendFileSync(p.transcript, `\n${rule}\n`);
    const done = await extractText(p, null, {}, tuning);
    expect(done.warnings).toContain("1 oversized line skipped (tool output)");
    expect(activeRules(p.rulesDir)).toEqual(["Never push to main."]);
    const cursor = loadCursor(p.rulesDir, "session-1");
    expect(cursor).toMatchObject({ offset: 40 * chunk + 1 + Buffer.byteLength(rule) + 1, line: 2 });
    expect(cursor?.scan).toBeUndefined();
    expect(loadStore(p.rulesDir).rules[0]?.sources[0]).toMatchObject({ line: 2, offset: 40 * chunk + 1 });
  });

  it("a SIGTERM inside a newline-free line stops the read at the next chunk and writes nothing", async () => {
    const p = tempProject();
    writeFileSync(p.transcript, "");
    truncateSync(p.transcript, 64 * 2 ** 30);
    let asked = 0;
    // Never expires; the signal arrives while the 3rd chunk is read and is acted on before the 4th.
    const deadline: Deadline = {
      budgetMs: 1,
      expired: () => {
        if (++asked === 3) process.emit("SIGTERM", "SIGTERM");
        return false;
      },
    };
    await expect(extractText(p, null, { deadline }, { chunkSize: 65536, maxLineBytes: 65536 })).rejects.toBeInstanceOf(InterruptedError);
    expect(asked).toBe(3);
    expect(filesUnder(p.dir)).toEqual(["session-1.jsonl"]);
  });
});

describe("triage extract --max-seconds", { timeout: 60_000 }, () => {
  beforeAll(ensureBundle);

  it("stops at the deadline (counted from process start), exits 0 with the stop as a warning, and the next run continues", () => {
    const p = tempProject();
    writeFileSync(p.transcript, jsonl([user("Never push to main."), assistant("ok"), user("Always sign release tags.")]));
    const args = ["extract", p.transcript, "--rules-dir", p.rulesDir, "--model", "/dev/null", "--json"];
    // 1 ms after process start has passed before the bundle is even loaded: the run stops before the first byte.
    const r = triage([...args, "--max-seconds", "0.001"], { cwd: p.dir });
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout) as ExtractReport;
    expect(report.stoppedAt).toEqual({ offset: 0, size: statSync(p.transcript).size });
    expect(report.added).toBe(0);
    expect(r.stderr.split("\n")[0]).toMatch(/^triage: stopped at the 1 ms deadline: 0 bytes of \d+ bytes of the transcript done \(0%\); the next run continues at byte 0$/);
    expect(filesUnder(p.rulesDir).filter((f) => f.endsWith(".md"))).toEqual([]);
    const next = triage(args, { cwd: p.dir });
    expect(next.code).toBe(0);
    expect(JSON.parse(next.stdout)).toMatchObject({ added: 2 });
    expect((JSON.parse(next.stdout) as ExtractReport).stoppedAt).toBeUndefined();
    expect(activeRules(p.rulesDir)).toEqual(["Never push to main.", "Always sign release tags."]);
  });

  it.each(["0", "-1", "abc", "", "Infinity"])("rejects --max-seconds '%s' with one line, writing nothing", (v) => {
    const p = tempProject();
    writeFileSync(p.transcript, jsonl([user("Never push to main.")]));
    const r = triage(["extract", p.transcript, "--rules-dir", join(p.dir, "rules"), "--model", "/dev/null", "--max-seconds", v], { cwd: p.dir });
    expect(expectOneLineError(r)).toBe(`triage: --max-seconds must be a positive number of seconds, got '${v}'`);
    expect(filesUnder(p.dir)).toEqual(["session-1.jsonl"]);
  });
});
