/**
 * The extraction pipeline (I/O): lock -> cursor check -> stream new transcript lines -> user utterances
 * -> redact -> sentences -> judge -> consolidate -> write rule files + sidecar + cursor -> unlock.
 * Loaded lazily by api.ts so the CLI's cold start does not pay for secretlint.
 */
import { existsSync, rmdirSync, statSync } from "node:fs";
import { basename, dirname, resolve } from "node:path";
import { UsageError } from "../../errors.js";
import type { ExtractOptions, ExtractReport } from "./extract-api.js";
import { applyStatement } from "../consolidate.js";
import { dropSecretClauses, judge, toStatement, type Candidate, type Verdict } from "../extract.js";
import { deadlineMessage } from "./deadline.js";
import { DURABLE_THRESHOLD } from "../durability.js";
import { trapSignals, yieldAndCheck } from "./interrupt.js";
import { askLlm } from "./llm-review.js";
import { redactSync, redactTexts } from "../redact.js";
import { reconcile, recoverFromFiles, syncRuleFiles } from "../store/rule-files.js";
import { splitSentences } from "../sentences.js";
import { acquireLock, isUserRulesDir, stateDir, loadCursor, loadStore, prefixHashes, saveCursor, saveStore } from "../store/state.js";
import { cannotBeUser, decodeLine, readLines, userUtterance, type ReadPosition, type Utterance } from "../transcript.js";
import type { Cursor, RuleSource } from "../store/store-schema.js";

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

/** User messages longer than this (characters) are pastes, not rules: skipped before redaction. */
export const MAX_UTTERANCE_CHARS = 100_000;

/**
 * User utterances per batch (redaction, classification, consolidation). A run always finishes the first batch
 * it starts, whatever its deadline (runExtract), so the batch size bounds both how far a run can overshoot its
 * budget and the work a run resumed inside a batch repeats. 256 short user messages take about 0.2 s with a
 * small store and 1 s with 10,000 rules, mostly consolidation, on a 2-core machine (references/memory.md, Deadline).
 */
export const BATCH_UTTERANCES = 256;

/**
 * Characters of user text (before redaction) that end a batch: the utterance that reaches this many is the
 * batch's last, so with MAX_UTTERANCE_CHARS a batch holds under BATCH_CHARS + MAX_UTTERANCE_CHARS characters
 * however long its messages are.
 */
export const BATCH_CHARS = 128 * 1024;

/**
 * A batch ends before the first line that starts this many bytes (or more) after the batch's first user line.
 * A run that must finish its first batch keeps reading to fill it: this bounds that reading (tool output, a
 * huge line with no newline) to 32 MiB. It depends only on the transcript, so resumed runs batch the same way.
 */
export const BATCH_SPAN_BYTES = 32 * 1024 * 1024;

/**
 * Lines read between two checks for SIGTERM/SIGINT (each check yields one event-loop turn). The reader also
 * checks for a signal and for the deadline before every chunk it reads (every 1 MiB, transcript.ts), so a
 * file with no "\n" in it cannot outrun either.
 */
export const CHECK_EVERY_LINES = 1000;

/**
 * Statements consolidated between two event-loop turns, so a SIGTERM/SIGINT handler can run during a long
 * consolidation (the flag itself is checked before every statement). Each statement costs at most
 * CANDIDATE_CAP candidate rules (consolidate.ts), so 256 of them take milliseconds, not seconds.
 */
export const CHECK_EVERY_STATEMENTS = 256;

/** Borderline band around the threshold in which `--llm` is asked (score units). */
export const LLM_BAND = 1.5;

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
 * Run one extraction. See api.ts extractTranscript for the contract. With a deadline, the run stops at the first
 * safe point after the budget is spent where the cursor it saves is ahead of the one it started from: it always
 * finishes the first batch of user messages it starts (so it consolidates at least one new statement when any is
 * left), and before that it may stop only while reading lines with no user message. Overshoot: at most one batch
 * (BATCH_UTTERANCES, BATCH_CHARS), the reading that fills it (BATCH_SPAN_BYTES) and, with `llm`, its calls.
 */
export async function runExtract(opts: ExtractOptions, tuning: RunTuning = {}): Promise<ExtractReport> {
  const report: ExtractReport = { linesRead: 0, linesSkipped: 0, candidates: 0, kept: 0, added: 0, updated: 0, retired: 0, files: [], warnings: [] };
  const path = resolve(opts.transcriptPath);
  let size: number;
  try {
    const st = statSync(path);
    if (!st.isFile()) throw new UsageError(`cannot read ${opts.transcriptPath}: not a file`);
    size = st.size;
  } catch (e) {
    if (e instanceof UsageError) throw e;
    throw new UsageError(`cannot read ${opts.transcriptPath}: no such file`);
  }
  if (size === 0) {
    report.warnings.push("no transcript content (empty file); nothing written");
    return report;
  }
  const sessionId = opts.sessionId ?? basename(path).replace(/\.jsonl$/i, "");
  const rulesDir = resolve(opts.rulesDir);
  const trap = trapSignals();
  let release: (() => Promise<void>) | null = null;
  // Folders this run would create (state folder upwards): removed again when the run has nothing to keep.
  const created = opts.dryRun ? [] : missingFolders(stateDir(rulesDir));
  let keepNothing = false;
  try {
    release = opts.dryRun ? null : await acquireLock(rulesDir, { waitMs: opts.lockWaitMs, signal: trap.signal });
    const store = loadStore(rulesDir);
    const recovered = recoverFromFiles(rulesDir, store);
    if (recovered > 0) report.warnings.push(`state folder was missing: ${recovered} rule(s) recovered from the existing rule files`);
    let start = 0;
    let lineNo = 0;
    let recent: string | undefined;
    let since = Number.POSITIVE_INFINITY;
    // Left by a run stopped at its deadline: resume inside an oversized line, or skip the sentences it consolidated.
    let scanFrom: number | undefined;
    let skipLeft = 0;
    const cur = loadCursor(rulesDir, sessionId);
    if (cur && cur.transcriptPath === path) {
      if (size < (cur.scan ?? cur.offset)) report.warnings.push("transcript shrank since the last run; reading it again from the start");
      else {
        const h = prefixHashes(path, cur.offset);
        if (h.headHash === cur.headHash && h.tailHash === cur.tailHash) {
          start = cur.offset;
          lineNo = cur.line;
          recent = cur.recent;
          since = cur.since ?? Number.POSITIVE_INFINITY;
          scanFrom = cur.scan;
          skipLeft = cur.skip ?? 0;
        } else report.warnings.push("transcript changed since the last run; reading it again from the start");
      }
    }

    // Deadline. It is asked at every safe point; once spent, the run stops at the first safe point where that
    // moves the cursor forward, so every run makes progress (a resumed batch is not re-read forever):
    // - after this run finished a batch (`finishedBatch`), anywhere: before a chunk read, a batch or a statement;
    // - before that, only while reading lines with no user message (the cursor passes them), or inside the
    //   first batch's reading once no later line can join the batch (it is then finished before the run ends).
    // A run stopped inside a batch or with utterances read but not consolidated sets `resumeAt`: the first user
    // line of that batch and how many of its candidate sentences are done. The next run starts at that line, so
    // its batch holds the same utterances (the classifier looks at a sentence's neighbours in the batch), skips
    // those sentences and, it being that run's first batch, finishes it: a batch is prepared at most twice.
    const timeUp = (): boolean => opts.deadline?.expired() === true;
    let finishedBatch = false;
    let resumeAt: { offset: number; line: number; skip: number } | undefined;
    const stopAt = (x: { offset: number; line: number }, skip = skipLeft): false => {
      resumeAt = { offset: x.offset, line: x.line, skip };
      return false;
    };
    let readStop: ReadPosition | undefined;
    // Offset of the utterance whose sentences were consolidated last (-1: none yet in this run).
    let lastUtterance = -1;

    let utterances: Array<{ u: Utterance; line: number; offset: number }> = [];
    // Utterances are processed in batches in transcript order, so memory stays bounded on huge transcripts.
    let scopedToUser = 0;
    const userLevel = isUserRulesDir(rulesDir);
    const redactWarnings = new Set<string>();
    let consolidated = 0;
    /** Redact, judge and consolidate one batch; false when the deadline stopped it (resumeAt says where). */
    const processBatch = async (batch: typeof utterances): Promise<boolean> => {
      const first = batch[0];
      if (first === undefined) return true;
      if (timeUp() && finishedBatch) return stopAt(first);
      // Redact whole utterances first (secrets can span sentence ends), then split.
      const red = await redactTexts(batch.map((x) => x.u.text));
      for (const w of red.warnings) redactWarnings.add(w);
      const cands: Candidate[] = [];
      batch.forEach((x, i) => {
        const src: RuleSource = { session: x.u.sessionId ?? sessionId, line: x.line, offset: x.offset };
        // Provenance time is the line's own timestamp (so reruns write the same bytes); the clock only as a fallback.
        if (x.u.timestamp) src.at = x.u.timestamp;
        else if (opts.now) src.at = opts.now().toISOString();
        splitSentences(red.texts[i] as string).forEach((s, n) => {
          cands.push({ text: dropSecretClauses(s), source: n === 0 ? src : { ...src, n } });
        });
      });
      const verdicts = judge(cands, opts.classifier, DURABLE_THRESHOLD, { classifyAll: Boolean(opts.llm), folders: opts.folders });
      // Sentences that a run stopped at its deadline consolidated: skipped, with the state they left.
      const skip = Math.min(skipLeft, verdicts.length);
      skipLeft -= skip;
      const todo = skip > 0 ? verdicts.slice(skip) : verdicts;
      report.candidates += todo.length;
      if (opts.llm && timeUp() && finishedBatch) return stopAt(first);
      if (opts.llm) await askLlm(opts.llm, todo, DURABLE_THRESHOLD, LLM_BAND, report.warnings, opts.llmTimeoutMs);
      if (tuning.verdicts) for (const v of todo) tuning.verdicts.push(v);
      if (userLevel) {
        // User-level rules ignore paths: (BL-30): keep such rules, unscoped (their text still names the path).
        for (const v of todo) {
          if (v.keep && v.globs.length > 0) {
            v.globs = [];
            scopedToUser++;
          }
        }
      }
      if (skip > 0) lastUtterance = (verdicts[skip - 1] as Verdict).source.offset;
      for (let k = skip; k < verdicts.length; k++) {
        const v = verdicts[k] as Verdict;
        // Out of time: stop before this sentence; the ones before it are consolidated, the rest wait for the next run.
        if (timeUp() && finishedBatch) return stopAt(first, k);
        if (v.source.offset !== lastUtterance) {
          lastUtterance = v.source.offset;
          since++;
        }
        if (!v.keep) continue;
        // Interrupted mid-batch: stop before this statement; the store is only in memory, nothing is written.
        trap.check();
        // A bare "scratch that" retracts the rule added in the previous user turn or the same one.
        let res = applyStatement(store, toStatement(v), since <= 1 ? recent : undefined);
        if (res.action === "no-target" && v.score >= DURABLE_THRESHOLD) res = applyStatement(store, { ...toStatement(v), kind: "rule" });
        consolidated++;
        tuning.onConsolidated?.(consolidated);
        if (consolidated % CHECK_EVERY_STATEMENTS === 0) await yieldAndCheck(trap);
        if (res.action === "no-target") continue;
        if (res.action === "duplicate-source") continue;
        report.kept++;
        if (res.action === "added" || res.action === "refined") report.added++;
        else if (res.action === "merged" || res.action === "reworded") report.updated++;
        if (res.action === "retired" && res.ruleId) report.added++;
        report.retired += res.retired.length;
        if (res.ruleId && res.action !== "retired") {
          recent = res.ruleId;
          since = 0;
        }
      }
      finishedBatch = true;
      return true;
    };

    let endOffset = start;
    let endLine = lineNo;
    let corrupt = 0;
    let oversized = 0;
    let torn = 0;
    let invalidUtf8 = 0;
    let pasted = 0;
    // A torn last line already longer than maxLineBytes: skipped whatever follows, so the cursor can skip what was scanned of it.
    let tornOversized: { start: number; end: number } | undefined;
    const batchSize = tuning.batch ?? BATCH_UTTERANCES;
    const batchChars = tuning.batchChars ?? BATCH_CHARS;
    const batchSpan = tuning.batchSpan ?? BATCH_SPAN_BYTES;
    let chars = 0;
    const seenUuids = new Set<string>();
    // Set when the reader stopped inside this run's first batch after no later line could join it: that batch is finished after the loop.
    let finishAtStop = false;
    /** Whether the reader may stop for the deadline at `at` (see "Deadline" above). */
    const readerMayStop = (at: ReadPosition): boolean => {
      if (finishedBatch) return true;
      const head = utterances[0];
      if (head) {
        // The first batch is still filling: lines starting BATCH_SPAN_BYTES after its head cannot join it (an oversized line is skipped, so the next one starts after `pos`).
        if ((at.oversized ? at.pos : at.lineStart) - head.offset < batchSpan) return false;
        finishAtStop = true;
        return true;
      }
      // Nothing read waits for consolidation: stop once the cursor moves forward (past lines with no user message, or further into an oversized line).
      return skipLeft === 0 && (endOffset > start || (at.oversized && at.lineStart === endOffset && at.pos > (scanFrom ?? start)));
    };
    // Checked before every chunk read: a signal, then the deadline (a line with no "\n" yields nothing to check between).
    const stop = (at: ReadPosition): boolean => {
      trap.check();
      if (!timeUp() || !readerMayStop(at)) return false;
      readStop = at;
      return true;
    };
    /** Process the utterances read so far as one batch and start the next; false when the deadline stopped it. */
    const flush = async (): Promise<boolean> => {
      if (!(await processBatch(utterances))) return false;
      utterances = [];
      chars = 0;
      await yieldAndCheck(trap);
      return true;
    };
    for await (const raw of readLines(path, { start, scanFrom, chunkSize: tuning.chunkSize, maxLineBytes: tuning.maxLineBytes, stop })) {
      const line = lineNo + raw.index;
      if (raw.index % CHECK_EVERY_LINES === CHECK_EVERY_LINES - 1) await yieldAndCheck(trap);
      if (!raw.complete) {
        // A torn last line: skip it now, and keep the cursor before it so a completed line is read next time.
        torn++;
        report.linesSkipped++;
        if (raw.bytes === null) tornOversized = { start: raw.start, end: raw.end };
        continue;
      }
      // A line this far after the batch's first user line ends the batch (before it).
      if (utterances[0] && raw.start - utterances[0].offset >= batchSpan && !(await flush())) break;
      endOffset = raw.end;
      endLine = line;
      report.linesRead++;
      if (raw.bytes === null) {
        oversized++;
        report.linesSkipped++;
        continue;
      }
      if (raw.start === 0 && raw.bytes[0] === 0xef && raw.bytes[1] === 0xbb && raw.bytes[2] === 0xbf) raw.bytes = raw.bytes.subarray(3);
      if (raw.bytes.length === 0) continue;
      if (cannotBeUser(raw.bytes)) {
        // Not a user line: no JSON.parse. A line that is not even shaped like one object is counted as corrupt.
        if (raw.bytes[0] !== 0x7b || raw.bytes[raw.bytes.length - 1] !== 0x7d) {
          corrupt++;
          report.linesSkipped++;
        }
        continue;
      }
      const { text, invalid } = decodeLine(raw.bytes);
      if (invalid) invalidUtf8++;
      let obj: unknown;
      try {
        obj = JSON.parse(text);
      } catch {
        corrupt++;
        report.linesSkipped++;
        continue;
      }
      const u = userUtterance(obj);
      if (typeof u === "string") continue;
      // Stream transcripts repeat lines (same uuid) around compactions: a replay is read once.
      if (u.uuid !== undefined && seenUuids.has(u.uuid)) continue;
      if (u.uuid !== undefined) seenUuids.add(u.uuid);
      if (u.text.length > MAX_UTTERANCE_CHARS) {
        // A pasted log or file, not a stated rule: never scanned, never stored.
        pasted++;
        continue;
      }
      utterances.push({ u, line, offset: raw.start });
      chars += u.text.length;
      if ((utterances.length >= batchSize || chars >= batchChars) && !(await flush())) break;
    }
    if (!resumeAt) {
      // The end of the file, or this run's first batch, complete where the reader stopped: consolidate it.
      if (!readStop || finishAtStop) await processBatch(utterances);
      // Stopped while reading after a finished batch: the utterances read since were not consolidated.
      else if (utterances[0]) stopAt(utterances[0]);
    }
    const stopped = resumeAt !== undefined || readStop !== undefined;
    await yieldAndCheck(trap);
    report.warnings.push(...redactWarnings);
    if (scopedToUser) {
      report.warnings.push(`${scopedToUser} path-scoped rule(s) written unscoped: Claude Code ignores paths: in user-level rules; use the project's .claude/rules for scoped rules`);
    }
    if (corrupt + torn > 0) report.warnings.push(`${corrupt + torn} unparseable line${corrupt + torn === 1 ? "" : "s"} skipped${torn ? " (including a torn last line)" : ""}`);
    if (oversized > 0) report.warnings.push(`${oversized} oversized line${oversized === 1 ? "" : "s"} skipped (tool output)`);
    if (pasted > 0) report.warnings.push(`${pasted} user message${pasted === 1 ? "" : "s"} over ${MAX_UTTERANCE_CHARS} characters skipped (pasted text)`);
    if (invalidUtf8 > 0) report.warnings.push(`${invalidUtf8} line${invalidUtf8 === 1 ? "" : "s"} with invalid UTF-8 (replaced with U+FFFD)`);

    // The cursor goes to the end of what was finished: the last complete line read, or (stopped at the
    // deadline) the first user line of the batch not finished, with `skip`; never past anything half-done.
    const doneOffset = resumeAt ? resumeAt.offset : endOffset;
    const cursor: Cursor = {
      format: "knowledge-triage/cursor",
      version: 1,
      sessionId,
      transcriptPath: path,
      offset: doneOffset,
      line: resumeAt ? resumeAt.line - 1 : endLine,
      ...prefixHashes(path, doneOffset),
    };
    if (recent !== undefined && Number.isFinite(since)) {
      cursor.recent = recent;
      cursor.since = since;
    }
    if (resumeAt && resumeAt.skip > 0) cursor.skip = resumeAt.skip;
    else if (!resumeAt && readStop?.oversized && readStop.lineStart === endOffset) cursor.scan = readStop.pos;
    else if (!resumeAt && tornOversized?.start === endOffset) cursor.scan = tornOversized.end;
    if (stopped) {
      report.stoppedAt = { offset: cursor.scan ?? cursor.offset, size };
      // First, so a caller that shows only the first few warnings (the hook log) shows this one.
      report.warnings.unshift(deadlineMessage(opts.deadline?.budgetMs ?? 0, report.stoppedAt.offset, size));
    }
    if (opts.dryRun) {
      const r = reconcile(rulesDir, store);
      report.files = r.plan.map((p) => resolve(rulesDir, p.name));
      report.warnings.push(...r.warnings);
    } else if (!stopped && store.rules.length === 0 && Object.keys(store.files).length === 0 && created.length > 0) {
      // No rule yet and no state before this run: write nothing (no rules folder, no .state, no cursor).
      // A run stopped at its deadline writes its cursor even so, or the next run would start again from scratch.
      keepNothing = true;
    } else {
      const sync = syncRuleFiles(rulesDir, store);
      report.files = sync.files;
      report.retired += sync.retired;
      report.warnings.push(...sync.warnings);
      saveStore(rulesDir, store);
      saveCursor(rulesDir, cursor);
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
