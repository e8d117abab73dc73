/**
 * The extraction deadline (scripts/memory/deadline.ts, extract-run.ts): a run whose budget is spent stops at a
 * safe point, writes the rules of the part it finished, and moves its cursor only to the end of that part; the
 * next run continues there, and the runs together write the same bytes as one run without a deadline. Every
 * run moves the cursor forward, however small its budget: it finishes the first batch it starts. Time is
 * injected: each test's clock counts statements consolidated, verdicts judged, or the deadline checks
 * themselves, so a stop happens at the same place on every machine (no timing is measured here; speed is in
 * `npm run bench:hooks`).
 */
import { appendFileSync, statSync, truncateSync, writeFileSync } from "node:fs";
import fc from "fast-check";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { type Classifier, regexClassifier } from "../../scripts/engine/classify.js";
import type { ExtractReport } from "../../scripts/memory/pipeline/extract-api.js";
import { type Deadline, deadlineAfter, deadlineMessage } from "../../scripts/memory/pipeline/deadline.js";
import { BATCH_UTTERANCES, type RunTuning } from "../../scripts/memory/pipeline/extract-run.js";
import type { Verdict } from "../../scripts/memory/extract.js";
import { InterruptedError } from "../../scripts/memory/pipeline/interrupt.js";
import { loadCursor, loadStore } from "../../scripts/memory/store/state.js";
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

/** Where a cursor says the next run starts, as [offset, sentences to skip there, scan position]; [0, 0, 0] before the first run. */
function position(rulesDir: string): [number, number, number] {
  const c = loadCursor(rulesDir, "session-1");
  return c ? [c.offset, c.skip ?? 0, c.scan ?? c.offset] : [0, 0, 0];
}

/** True when cursor position `b` is ahead of `a` (a later offset, or the same one with more done in it). */
function ahead(b: readonly number[], a: readonly number[]): boolean {
  for (let i = 0; i < 3; i++) if (b[i] !== a[i]) return (b[i] as number) > (a[i] as number);
  return false;
}

/**
 * Run with a fresh deadline from `make` until a run finishes; returns every report. Every run that stops must
 * move the cursor forward (no livelock), so a lack of progress fails at once, not after 200 runs.
 */
async function untilDone(p: { transcript: string; rulesDir: string }, make: () => { deadline: Deadline; tuning?: RunTuning }, tuning: RunTuning = {}, classifier: Classifier = regexClassifier): Promise<ExtractReport[]> {
  const reports: ExtractReport[] = [];
  for (let i = 0; i < 200; i++) {
    const before = position(p.rulesDir);
    const { deadline, tuning: t } = make();
    const r = await extractText(p, null, { deadline, classifier }, { ...tuning, ...t });
    reports.push(r);
    if (!r.stoppedAt) return reports;
    const after = position(p.rulesDir);
    if (!ahead(after, before)) throw new Error(`no progress: run ${i + 1} stopped at its deadline with the cursor at ${before.join("/")} again`);
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

  it("a run with no budget at all still finishes the first batch it starts, so a short session is done in one run", async () => {
    const p = tempProject();
    writeFileSync(p.transcript, jsonl([assistant("hello"), user("Never push to main."), assistant("ok")]));
    const r = await extractText(p, null, { deadline: deadlineAfter(0) });
    expect(r.stoppedAt).toBeUndefined();
    expect(r.added).toBe(1);
    expect(activeRules(p.rulesDir)).toEqual(["Never push to main."]);
  });

  it("a run stopped before its first statement (only assistant lines read) in a fresh project still saves its cursor past them (and no rule file)", async () => {
    const p = tempProject();
    const replies = Array.from({ length: 30 }, (_, i) => assistant(`Reply ${i}: done, the build is green.`));
    const body = jsonl([...replies, user("Never push to main."), assistant("ok")]);
    writeFileSync(p.transcript, body);
    // Chunks of 1 KiB: the deadline is asked again before the second chunk, with only assistant lines read.
    const r = await extractText(p, null, { deadline: deadlineAfter(0) }, { chunkSize: 1024 });
    const offset = loadCursor(p.rulesDir, "session-1")?.offset ?? 0;
    expect(offset).toBeGreaterThan(0);
    expect(offset).toBeLessThanOrEqual(1024);
    expect(r.stoppedAt).toEqual({ offset, size: Buffer.byteLength(body) });
    expect(filesUnder(p.rulesDir)).toEqual([".state/.gitignore", ".state/rules.json", ".state/sessions/session-1.json"]);
    const next = await extractText(p, null);
    expect(next.added).toBe(1);
    expect(activeRules(p.rulesDir)).toEqual(["Never push to main."]);
  });

  it("with no budget at all, each run does exactly one batch, and the runs end with the same bytes as one run", async () => {
    const body = jsonl(ruleTurns(distinctRules(30)));
    const full = tempProject();
    await extractText(full, body, { classifier: batchSensitive }, { batch: 4 });
    const p = tempProject();
    writeFileSync(p.transcript, body);
    const reports = await untilDone(p, () => ({ deadline: deadlineAfter(0) }), { batch: 4 }, batchSensitive);
    // 30 rules in batches of 4: 8 runs, each adding one batch (the last one 2) and stopping before the next.
    expect(reports.map((r) => r.added)).toEqual([4, 4, 4, 4, 4, 4, 4, 2]);
    const lines = body.split("\n");
    expect(reports[0]?.stoppedAt?.offset).toBe(Buffer.byteLength(lines.slice(0, 8).map((l) => `${l}\n`).join("")));
    expect(state(p.rulesDir)).toEqual(state(full.rulesDir));
  });

  it("a run resumed inside a batch whose budget goes on re-reading and re-judging that batch still finishes it (no livelock)", async () => {
    // The shape of the bug: a 4.3 MB transcript of 20,000 rule turns, `--max-seconds 1`, and every run after
    // the first stopped at the same byte with the same `skip` and added nothing, because re-reading, redacting
    // and classifying the batch it resumed in used up the whole budget. Here the batches hold 8 utterances.
    const rules = distinctRules(36);
    const body = jsonl(ruleTurns(rules));
    const full = tempProject();
    await extractText(full, body, { classifier: batchSensitive }, { batch: 8 });
    const p = tempProject();
    writeFileSync(p.transcript, body);
    // The first run stops after 12 statements: the first batch and 4 sentences of the second.
    const { deadline, tuning } = afterStatements(12);
    await extractText(p, null, { deadline, classifier: batchSensitive }, { ...tuning, batch: 8 });
    const lines = body.split("\n");
    const secondBatch = Buffer.byteLength(lines.slice(0, 16).map((l) => `${l}\n`).join(""));
    expect(loadCursor(p.rulesDir, "session-1")).toMatchObject({ offset: secondBatch, skip: 4 });
    // Every later run's budget is spent once it has judged its first batch (the clock counts verdicts).
    const spentOnceJudged = (): { deadline: Deadline; tuning: RunTuning } => {
      const verdicts: Verdict[] = [];
      return { deadline: deadlineAfter(1, { clock: () => verdicts.length, startMs: 0 }), tuning: { verdicts } };
    };
    const reports = await untilDone(p, spentOnceJudged, { batch: 8 }, batchSensitive);
    // The resumed run finishes the second batch (4 left), then one batch per run; each stops before the next.
    expect(reports.map((r) => r.added)).toEqual([4, 8, 8, 4]);
    expect(reports.map((r) => r.stoppedAt?.offset)).toEqual([
      Buffer.byteLength(lines.slice(0, 32).map((l) => `${l}\n`).join("")),
      Buffer.byteLength(lines.slice(0, 48).map((l) => `${l}\n`).join("")),
      Buffer.byteLength(lines.slice(0, 64).map((l) => `${l}\n`).join("")),
      undefined,
    ]);
    expect(state(p.rulesDir)).toEqual(state(full.rulesDir));
  });

  it("for random sessions and budgets, runs stopped at their deadline until done write the same bytes as one run", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.nat(POOL.length - 1), { minLength: 1, maxLength: 14 }),
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 1, max: 4 }),
        fc.boolean(),
        fc.constantFrom(undefined, 60),
        fc.constantFrom(undefined, 700),
        async (picks, budget, batch, byChecks, batchChars, batchSpan) => {
          const lines = picks.flatMap((k, i) => [user(POOL[k] as string), ...(i % 3 === 0 ? toolPair("Always use --force.") : [assistant("ok")])]);
          // Batches also end by characters of user text and by bytes from their first user line.
          const tuning: RunTuning = { batch, chunkSize: 1024, batchChars, batchSpan };
          const full = tempProject();
          writeFileSync(full.transcript, jsonl(lines));
          await extractText(full, null, { classifier: batchSensitive }, tuning);
          const p = tempProject();
          writeFileSync(p.transcript, jsonl(lines));
          // Either the clock counts statements, or every check (chunk reads and batches too, so stops also
          // happen while reading); untilDone fails if a run stops without moving the cursor forward.
          const make = byChecks ? () => ({ deadline: afterChecks(budget) }) : () => afterStatements(budget);
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

  it("a user line followed by a huge line with no newline: a run with no budget finishes the user line's batch inside it, and each run gets further", async () => {
    const p = tempProject();
    const rule = `${user("Never push to main.")}\n`;
    writeFileSync(p.transcript, rule);
    truncateSync(p.transcript, 64 * 2 ** 30);
    const chunk = 64 * 1024;
    // A line starting 4 chunks after a batch's first user line ends the batch: once the reader is that far
    // into the huge line, no later line can join the batch, so it is consolidated and the run stops there.
    const tuning: RunTuning = { chunkSize: chunk, maxLineBytes: chunk, batchSpan: 4 * chunk };
    const r1 = await extractText(p, null, { deadline: deadlineAfter(0) }, tuning);
    expect(r1.added).toBe(1);
    expect(activeRules(p.rulesDir)).toEqual(["Never push to main."]);
    expect(r1.stoppedAt).toEqual({ offset: 4 * chunk, size: 64 * 2 ** 30 });
    expect(loadCursor(p.rulesDir, "session-1")).toMatchObject({ offset: Buffer.byteLength(rule), line: 1, scan: 4 * chunk });
    // Nothing waits for consolidation now: a run with no budget reads one chunk further into the line and stops.
    const r2 = await extractText(p, null, { deadline: deadlineAfter(0) }, tuning);
    expect(r2.stoppedAt).toEqual({ offset: 5 * chunk, size: 64 * 2 ** 30 });
    expect(loadCursor(p.rulesDir, "session-1")).toMatchObject({ offset: Buffer.byteLength(rule), line: 1, scan: 5 * chunk });
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
    expect(done.warnings).toContain("1 oversized line skipped (tool output or pasted text)");
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

  it("stops at the deadline (counted from process start) after its first batch, exits 0 with the stop as a warning, and the next run continues", () => {
    const p = tempProject();
    const rules = distinctRules(BATCH_UTTERANCES + 20);
    const lines = jsonl(ruleTurns(rules)).split("\n");
    writeFileSync(p.transcript, lines.join("\n"));
    const args = ["extract", p.transcript, "--rules-dir", p.rulesDir, "--model", "/dev/null", "--json"];
    // 1 ms after process start has passed before the bundle is even loaded: the run finishes its first batch
    // (every run does, so every run gets further) and stops before the second.
    const r = triage([...args, "--max-seconds", "0.001"], { cwd: p.dir });
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout) as ExtractReport;
    const batchEnd = Buffer.byteLength(lines.slice(0, 2 * BATCH_UTTERANCES).map((l) => `${l}\n`).join(""));
    expect(report.stoppedAt).toEqual({ offset: batchEnd, size: statSync(p.transcript).size });
    expect(report.added).toBe(BATCH_UTTERANCES);
    expect(r.stderr.split("\n")[0]).toMatch(new RegExp(`^triage: stopped at the 1 ms deadline: .* of the transcript done \\(\\d+%\\); the next run continues at byte ${batchEnd}$`));
    expect(activeRules(p.rulesDir)).toEqual(rules.slice(0, BATCH_UTTERANCES));
    const next = triage(args, { cwd: p.dir });
    expect(next.code).toBe(0);
    expect(JSON.parse(next.stdout)).toMatchObject({ added: 20 });
    expect((JSON.parse(next.stdout) as ExtractReport).stoppedAt).toBeUndefined();
    expect(activeRules(p.rulesDir)).toEqual(rules);
  });

  it.each(["0", "-1", "abc", "", "Infinity"])("rejects --max-seconds '%s' with one line, writing nothing", (v) => {
    const p = tempProject();
    writeFileSync(p.transcript, jsonl([user("Never push to main.")]));
    const r = triage(["extract", p.transcript, "--rules-dir", join(p.dir, "rules"), "--model", "/dev/null", "--max-seconds", v], { cwd: p.dir });
    expect(expectOneLineError(r)).toBe(v === "" ? "triage: --max-seconds is empty: give a value" : `triage: --max-seconds must be a positive number of seconds, got '${v}'`);
    expect(filesUnder(p.dir)).toEqual(["session-1.jsonl"]);
  });
});
