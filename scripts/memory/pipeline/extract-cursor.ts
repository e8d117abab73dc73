/**
 * The cursor/resume state of one extraction run (extract-run.ts): where it starts (from the session's saved
 * cursor when that still matches the transcript), how far it has finished, where the deadline stopped it, and
 * the cursor it saves for the next run. Pure: the caller passes the transcript's hashes in (state.ts prefixHashes).
 *
 * Deadline protocol. The deadline is asked at every safe point; once spent, the run stops at the first safe
 * point where that moves the cursor forward, so every run makes progress (a resumed batch is not re-read forever):
 * - after this run finished a batch (`finishedBatch`), anywhere: before a chunk read, a batch or a statement;
 * - before that, only while reading lines with no user message (the cursor passes them), or inside the first
 *   batch's reading once no later line can join the batch (it is then finished before the run ends).
 * A run stopped inside a batch or with utterances read but not consolidated sets `resumeAt`: the first user
 * line of that batch and how many of its candidate sentences are done. The next run starts at that line, so
 * its batch holds the same utterances (the classifier looks at a sentence's neighbours in the batch), skips
 * those sentences and, it being that run's first batch, finishes it: a batch is prepared at most twice.
 */
import type { Cursor } from "../store/store-schema.js";
import type { ReadPosition } from "../transcript.js";

/** A transcript position: byte offset of a line's first byte and its 1-based line number. */
export interface LinePos {
  offset: number;
  line: number;
}

/** Where the next run resumes after a stop inside a batch: the batch's first user line and the sentences done. */
export interface ResumeAt extends LinePos {
  skip: number;
}

/** sha256 of the first and last 4 KiB before a byte offset of the transcript (state.ts prefixHashes). */
export type PrefixHasher = (offset: number) => { headHash: string; tailHash: string };

/**
 * Progress of one run. Built from the saved cursor (fromCursor) or from the start of the file; the run loop
 * moves `endOffset`/`endLine` past every complete line it accounts for, and the batch runner updates
 * `recent`/`since` ("scratch that" state), `skipLeft` and `finishedBatch`.
 */
export class RunProgress {
  /** Byte offset the reader starts at (the start of a line). */
  start = 0;
  /** Lines before `start` (the reader numbers lines from 1 after it). */
  startLine = 0;
  /** Resume inside an oversized line starting at `start`: the next byte to scan for its end. */
  scanFrom: number | undefined;
  /** Candidate sentences of the first batch already consolidated by the run the deadline stopped. */
  skipLeft = 0;
  /** The rule added last in this session, and user utterances since (Infinity: none known). */
  recent: string | undefined;
  since = Number.POSITIVE_INFINITY;
  /** Byte after the last complete line accounted for, and its line number. */
  endOffset = 0;
  endLine = 0;
  /** True once this run consolidated a whole batch (from then on the deadline may stop it anywhere). */
  finishedBatch = false;
  /** Set when the deadline stopped the run inside a batch (see the file comment). */
  resumeAt: ResumeAt | undefined;
  /** Set when the deadline stopped the reader before a chunk read. */
  readStop: ReadPosition | undefined;
  /** Set when the reader stopped inside this run's first batch after no later line could join it: finish that batch. */
  finishAtStop = false;
  /** A torn last line already longer than the line cap: the cursor may skip what was scanned of it. */
  tornOversized: { start: number; end: number } | undefined;

  /**
   * The progress of a run over `path` (`size` bytes) given the session's saved cursor: resumes from it when it
   * names the same file and the file's prefix hashes still match; else starts at byte 0 with a warning saying why
   * (shrank, changed). No warning when there is no cursor or it names another file.
   */
  static fromCursor(cur: Cursor | null, path: string, size: number, hashes: PrefixHasher): { progress: RunProgress; warning?: string } {
    const p = new RunProgress();
    if (!cur || cur.transcriptPath !== path) return { progress: p };
    if (size < (cur.scan ?? cur.offset)) return { progress: p, warning: "transcript shrank since the last run; reading it again from the start" };
    const h = hashes(cur.offset);
    if (h.headHash !== cur.headHash || h.tailHash !== cur.tailHash) return { progress: p, warning: "transcript changed since the last run; reading it again from the start" };
    p.start = p.endOffset = cur.offset;
    p.startLine = p.endLine = cur.line;
    p.recent = cur.recent;
    p.since = cur.since ?? Number.POSITIVE_INFINITY;
    p.scanFrom = cur.scan;
    p.skipLeft = cur.skip ?? 0;
    return { progress: p };
  }

  /** Record a deadline stop inside a batch whose first user line is `at`, with `skip` sentences done; returns false (the batch did not finish). */
  stopAt(at: LinePos, skip = this.skipLeft): false {
    this.resumeAt = { offset: at.offset, line: at.line, skip };
    return false;
  }

  /** True when the deadline stopped this run (inside a batch or in the reader). */
  get stopped(): boolean {
    return this.resumeAt !== undefined || this.readStop !== undefined;
  }

  /**
   * Whether the reader may stop for the deadline at `at` (see the file comment). `head` is the first utterance
   * of the batch being filled, if any; `batchSpan` the bytes after it from which a line cannot join it.
   */
  readerMayStop(at: ReadPosition, head: LinePos | undefined, batchSpan: number): boolean {
    if (this.finishedBatch) return true;
    if (head) {
      // The first batch is still filling: lines starting batchSpan after its head cannot join it (an oversized line is skipped, so the next one starts after `pos`).
      if ((at.oversized ? at.pos : at.lineStart) - head.offset < batchSpan) return false;
      this.finishAtStop = true;
      return true;
    }
    // Nothing read waits for consolidation: stop once the cursor moves forward (past lines with no user message, or further into an oversized line).
    return this.skipLeft === 0 && (this.endOffset > this.start || (at.oversized && at.lineStart === this.endOffset && at.pos > (this.scanFrom ?? this.start)));
  }

  /**
   * The cursor this run saves: the end of what was finished (the last complete line read or, stopped inside a
   * batch, that batch's first user line with `skip`), never past anything half-done. `scan` only when the line at
   * the cursor is an oversized one the reader stopped in or the file ended in.
   */
  cursor(sessionId: string, transcriptPath: string, hashes: PrefixHasher): Cursor {
    const r = this.resumeAt;
    const offset = r ? r.offset : this.endOffset;
    const cursor: Cursor = {
      format: "knowledge-triage/cursor",
      version: 1,
      sessionId,
      transcriptPath,
      offset,
      line: r ? r.line - 1 : this.endLine,
      ...hashes(offset),
    };
    if (this.recent !== undefined && Number.isFinite(this.since)) {
      cursor.recent = this.recent;
      cursor.since = this.since;
    }
    if (r && r.skip > 0) cursor.skip = r.skip;
    else if (!r && this.readStop?.oversized && this.readStop.lineStart === this.endOffset) cursor.scan = this.readStop.pos;
    else if (!r && this.tornOversized?.start === this.endOffset) cursor.scan = this.tornOversized.end;
    return cursor;
  }
}
