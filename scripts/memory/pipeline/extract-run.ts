/**
 * The extraction pipeline (I/O): lock -> cursor check -> stream new transcript lines -> user utterances
 * -> redact -> sentences -> judge -> consolidate -> write rule files + sidecar + cursor -> unlock.
 * Reading lives in extract-read.ts, batching in extract-batch.ts, the cursor/resume state in extract-cursor.ts.
 * Loaded lazily by extract-api.ts so the CLI's cold start does not pay for secretlint.
 */
import { existsSync, rmdirSync, statSync, type Stats } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { ReadError } from "../../errors.js";
import { fileKind, fsReason } from "../../io/read-files.js";
import type { Verdict } from "../extract.js";
import type { ExtractOptions, ExtractReport } from "./extract-api.js";
import { BATCH_CHARS, BATCH_SPAN_BYTES, BATCH_UTTERANCES, Batch, BatchRunner } from "./extract-batch.js";
import { RunProgress, type PrefixHasher } from "./extract-cursor.js";
import { LineTally, scanTranscript } from "./extract-read.js";
import { deadlineMessage } from "./deadline.js";
import { trapSignals, yieldAndCheck } from "./interrupt.js";
import { redactSync } from "../redact.js";
import { readOrNull, reconcile, recoverFromFiles, syncRuleFiles } from "../store/rule-files.js";
import { acquireLock, assertInsideRoot, isUserRulesDir, stateDir, loadCursor, loadStoreForRun, prefixHashes, removeStrayTemps, saveCursor, saveJournal, saveStore, storeJson, storeSaved } from "../store/state.js";
import type { ReadPosition } from "../transcript.js";

/** Re-exported: the constants live with the stage they tune (tests and the bench import them from here). */
export { BATCH_CHARS, BATCH_SPAN_BYTES, BATCH_UTTERANCES, CHECK_EVERY_STATEMENTS, LLM_BAND } from "./extract-batch.js";
export { CHECK_EVERY_LINES, MAX_UTTERANCE_CHARS } from "./extract-read.js";

/** Options for tests and the bench: reader and batch sizes. */
export interface RunTuning {
  chunkSize?: number;
  maxLineBytes?: number;
  /** Utterances per batch (default BATCH_UTTERANCES). */
  batch?: number;
  /** Characters of user text that end a batch (default BATCH_CHARS). */
  batchChars?: number;
  /** Bytes from a batch's first user line after which a line ends the batch (default BATCH_SPAN_BYTES). */
  batchSpan?: number;
  /** Collect every verdict (for --explain and the bench). */
  verdicts?: Verdict[];
  /** Called after each statement is consolidated, with the number consolidated so far in this run (tests send a signal from it). */
  onConsolidated?: (statements: number) => void;
}

/** The folders from `dir` upwards that do not exist yet (deepest first; stops at the first existing one). */
function missingFolders(dir: string): string[] {
  const out: string[] = [];
  for (let d = resolve(dir); !existsSync(d); d = dirname(d)) {
    out.push(d);
    if (dirname(d) === d) break;
  }
  return out;
}

/** Remove the given folders (deepest first) while they are empty; stops at the first that is not. */
function removeEmptyFolders(dirs: readonly string[]): void {
  for (const d of dirs) {
    try {
      rmdirSync(d);
    } catch {
      return;
    }
  }
}

/**
 * Size in bytes of the transcript at `path`; ReadError naming `shown` when it is missing, not a regular file,
 * or cannot be reached (a file on the way, a loop of symbolic links: said in words, read-files.ts fsReason).
 */
function transcriptSize(path: string, shown: string): number {
  let st: Stats;
  try {
    st = statSync(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new ReadError(shown, code === "ENOENT" ? "no such file" : fsReason(shown === "-" ? path : shown, e), code);
  }
  if (st.isDirectory()) throw new ReadError(shown, "is a directory", "EISDIR");
  if (!st.isFile()) throw new ReadError(shown, `not a regular file (${fileKind(st)})`);
  return st.size;
}

/**
 * Run one extraction. See extract-api.ts extractTranscript for the contract. With a deadline, the run stops at
 * the first safe point after the budget is spent where the cursor it saves is ahead of the one it started from
 * (extract-cursor.ts): it always finishes the first batch of user messages it starts (so it consolidates at
 * least one new statement when any is left), and before that it may stop only while reading lines with no user
 * message. Overshoot: at most one batch (BATCH_UTTERANCES, BATCH_CHARS), the reading that fills it
 * (BATCH_SPAN_BYTES) and, with `llm`, its calls.
 */
export async function runExtract(opts: ExtractOptions, tuning: RunTuning = {}): Promise<ExtractReport> {
  const report: ExtractReport = { linesRead: 0, linesSkipped: 0, candidates: 0, kept: 0, added: 0, updated: 0, retired: 0, files: [], changed: [], warnings: [] };
  const path = resolve(opts.transcriptPath);
  const size = transcriptSize(path, opts.transcriptPath);
  if (size === 0) {
    report.warnings.push("no transcript content (empty file); nothing written");
    return report;
  }
  const sessionId = opts.sessionId ?? basename(path).replace(/\.jsonl$/i, "");
  const rulesDir = resolve(opts.rulesDir);
  const hashes: PrefixHasher = (offset) => prefixHashes(path, offset);
  // Never write through a symbolic link that leads out of the project (or out of a rules folder named explicitly).
  if (!opts.dryRun) assertInsideRoot(rulesDir, opts.root);
  const trap = trapSignals();
  let release: (() => Promise<void>) | null = null;
  // Folders this run would create (state folder upwards): removed again when the run has nothing to keep.
  const created = opts.dryRun ? [] : missingFolders(stateDir(rulesDir));
  let keepNothing = false;
  try {
    release = opts.dryRun ? null : await acquireLock(rulesDir, { waitMs: opts.lockWaitMs, signal: trap.signal });
    // Temp files of a run killed mid-write (never loaded by Claude Code: not .md, but clutter).
    if (!opts.dryRun) removeStrayTemps(rulesDir);
    // A corrupt store is set aside and rebuilt from the rule files, like a missing one (never a dead end).
    const { store, warning: corrupt } = loadStoreForRun(rulesDir, !opts.dryRun, opts.now?.());
    if (corrupt) report.warnings.push(corrupt);
    const recovered = recoverFromFiles(rulesDir, store);
    if (recovered > 0) report.warnings.push(`${corrupt ? "state was corrupt" : "state folder was missing"}: ${recovered} rule(s) recovered from the existing rule files`);
    // A cursor a killed run saved with its rules but not in its own file yet (crash consistency, store-schema.ts).
    const pending = store.pending;
    delete store.pending;
    if (pending && !opts.dryRun) saveCursor(rulesDir, pending);
    const saved = pending?.sessionId === sessionId ? pending : loadCursor(rulesDir, sessionId);
    const { progress: pr, warning } = RunProgress.fromCursor(saved, path, size, hashes);
    if (warning) report.warnings.push(warning);

    const timeUp = (): boolean => opts.deadline?.expired() === true;
    const batch = new Batch({ size: tuning.batch ?? BATCH_UTTERANCES, chars: tuning.batchChars ?? BATCH_CHARS, span: tuning.batchSpan ?? BATCH_SPAN_BYTES });
    const runner = new BatchRunner({ opts, store, report, progress: pr, trap, sessionId, userLevel: isUserRulesDir(rulesDir), verdicts: tuning.verdicts, onConsolidated: tuning.onConsolidated });
    const tally = new LineTally();
    // Checked before every chunk read: a signal, then the deadline (a line with no "\n" yields nothing to check between).
    const stop = (at: ReadPosition): boolean => {
      trap.check();
      if (!timeUp() || !pr.readerMayStop(at, batch.head, batch.limits.span)) return false;
      pr.readStop = at;
      return true;
    };
    /** Process the utterances read so far as one batch and start the next; false when the deadline stopped it. */
    const flush = async (): Promise<boolean> => {
      if (!(await runner.run(batch.items))) return false;
      batch.clear();
      await yieldAndCheck(trap);
      return true;
    };
    const seenUuids = new Set<string>();
    const read = { start: pr.start, scanFrom: pr.scanFrom, chunkSize: tuning.chunkSize, maxLineBytes: tuning.maxLineBytes, stop };
    reading: for await (const lines of scanTranscript(path, read, pr.startLine, trap)) {
      for (const l of lines) {
        if (!l.complete) {
          // A torn last line: skip it now, and keep the cursor before it so a completed line is read next time.
          tally.add(l);
          if (l.oversized) pr.tornOversized = { start: l.start, end: l.end };
          continue;
        }
        // A line this far after the batch's first user line ends the batch (before it).
        if (batch.spanEnds(l.start) && !(await flush())) break reading;
        pr.endOffset = l.end;
        pr.endLine = l.line;
        tally.add(l);
        // Stream transcripts repeat lines (same uuid) around compactions: a replay is read once.
        const uuid = l.utterance?.uuid;
        if (uuid !== undefined && seenUuids.has(uuid)) continue;
        if (uuid !== undefined) seenUuids.add(uuid);
        if (l.utterance && batch.push({ u: l.utterance, line: l.line, offset: l.start }) && !(await flush())) break reading;
      }
    }
    if (!pr.resumeAt) {
      // The end of the file, or this run's first batch, complete where the reader stopped: consolidate it.
      if (!pr.readStop || pr.finishAtStop) await runner.run(batch.items);
      // Stopped while reading after a finished batch: the utterances read since were not consolidated.
      else if (batch.head) pr.stopAt(batch.head);
    }
    await yieldAndCheck(trap);
    report.linesRead = tally.linesRead;
    report.linesSkipped = tally.linesSkipped;
    report.warnings.push(...runner.redactWarnings);
    if (runner.scopedToUser) {
      report.warnings.push(`${runner.scopedToUser} path-scoped rule(s) written unscoped: Claude Code ignores paths: in user-level rules; use the project's .claude/rules for scoped rules`);
    }
    report.warnings.push(...tally.warnings());

    const cursor = pr.cursor(sessionId, path, hashes);
    const stopped = pr.stopped;
    if (stopped) {
      report.stoppedAt = { offset: cursor.scan ?? cursor.offset, size };
      // First, so a caller that shows only the first few warnings (the hook log) shows this one.
      report.warnings.unshift(deadlineMessage(opts.deadline?.budgetMs ?? 0, report.stoppedAt.offset, size));
    }
    if (opts.dryRun) {
      const r = reconcile(rulesDir, store);
      report.files = r.plan.map((p) => resolve(rulesDir, p.name));
      report.changed = r.plan.filter((p) => readOrNull(resolve(rulesDir, p.name)) !== p.content).map((p) => resolve(rulesDir, p.name));
      report.warnings.push(...r.warnings);
    } else if (!stopped && store.rules.length === 0 && Object.keys(store.files).length === 0 && created.length > 0) {
      // No rule yet and no state before this run: write nothing (no rules folder, no .state, no cursor).
      // A run stopped at its deadline writes its cursor even so, or the next run would start again from scratch.
      keepNothing = true;
    } else {
      // Crash consistency: the store, with the cursor it goes with, is saved before any rule file changes
      // (rule-files.ts records what each file may hold until then); then the files, the cursor, the final store.
      // A kill between any two steps leaves a folder the next run finishes the same way.
      let journaled = false;
      const journal = (s: typeof store): void => {
        journaled = true;
        saveJournal(rulesDir, s, cursor);
      };
      const sync = syncRuleFiles(rulesDir, store, journal);
      report.files = sync.files;
      report.changed = sync.written.map((name) => join(rulesDir, name));
      report.retired += sync.retired;
      report.warnings.push(...sync.warnings);
      const final = storeJson(store);
      if (!journaled && !storeSaved(rulesDir, final)) journal(store);
      saveCursor(rulesDir, cursor);
      saveStore(rulesDir, final);
    }
    report.warnings = report.warnings.map(redactSync);
    return report;
  } finally {
    if (release) await release().catch(() => undefined);
    trap.dispose();
    // Folders this run made and left empty (nothing to keep, interrupted, failed) go again.
    if (keepNothing || created.length > 0) removeEmptyFolders(created);
  }
}
