/**
 * Reading for an extraction run (extract-run.ts): the transcript's raw lines (transcript.ts readLineBatches) turned
 * into scanned lines — a user utterance, or why the line holds none — and the tally of skipped lines that
 * becomes the run's warnings. JSON.parse runs only on lines that can hold the user's own text (cannotBeUser).
 */
import { cannotBeUser, decodeLine, readLineBatches, userUtterance, type RawLine, type ReadOptions, type Utterance } from "../transcript.js";
import { yieldAndCheck, type SignalTrap } from "./interrupt.js";

/** User messages longer than this (characters) are pastes, not rules: skipped before redaction. */
export const MAX_UTTERANCE_CHARS = 100_000;

/**
 * Lines read between two checks for SIGTERM/SIGINT (each check yields one event-loop turn). The reader also
 * checks for a signal and for the deadline before every chunk it reads (every 1 MiB, transcript.ts), so a
 * file with no "\n" in it cannot outrun either.
 */
export const CHECK_EVERY_LINES = 1000;

/** Why a complete line yields no utterance, when that is worth a warning. */
export type LineSkip = "oversized" | "corrupt" | "pasted";

/** One line of the transcript as the run sees it. Offsets in bytes; `line` is the 1-based line number in the file. */
export interface ScannedLine {
  start: number;
  end: number;
  line: number;
  /** False for a torn last line (no "\n"): skipped, and the cursor stays before it. */
  complete: boolean;
  /** A torn line already over the line cap (the cursor may skip the part scanned). */
  oversized: boolean;
  /** The user's utterance on this line, if any. */
  utterance?: Utterance;
  skip?: LineSkip;
  /** The line had invalid UTF-8 (replaced with U+FFFD). */
  invalidUtf8: boolean;
}

/**
 * Classify one raw line (pure): strips a UTF-8 byte order mark at byte 0, skips lines that cannot be user lines
 * without parsing them (counted "corrupt" when not even shaped like one JSON object), parses the rest, and
 * keeps the utterance when it is the user's own text of at most MAX_UTTERANCE_CHARS characters.
 */
export function scanLine(raw: RawLine, lineBase: number): ScannedLine {
  const out: ScannedLine = { start: raw.start, end: raw.end, line: lineBase + raw.index, complete: raw.complete, oversized: raw.bytes === null, invalidUtf8: false };
  if (!raw.complete) return out;
  let bytes = raw.bytes;
  if (bytes === null) {
    out.skip = "oversized";
    return out;
  }
  if (raw.start === 0 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) bytes = bytes.subarray(3);
  if (bytes.length === 0) return out;
  if (cannotBeUser(bytes)) {
    // Not a user line: no JSON.parse. A line that is not even shaped like one object is counted as corrupt.
    if (bytes[0] !== 0x7b || bytes[bytes.length - 1] !== 0x7d) out.skip = "corrupt";
    return out;
  }
  const { text, invalid } = decodeLine(bytes);
  out.invalidUtf8 = invalid;
  let obj: unknown;
  try {
    obj = JSON.parse(text);
  } catch {
    out.skip = "corrupt";
    return out;
  }
  const u = userUtterance(obj);
  if (typeof u === "string") return out;
  // A pasted log or file, not a stated rule: never scanned, never stored.
  if (u.text.length > MAX_UTTERANCE_CHARS) out.skip = "pasted";
  else out.utterance = u;
  return out;
}

/**
 * Scan the lines of a transcript from `opts.start` (see ReadOptions), numbering them after `lineBase`: yields the
 * scanned lines of each chunk read as one array (transcript.ts readLineBatches), to be looped over synchronously.
 * Yields one event-loop turn and checks `trap` every CHECK_EVERY_LINES lines. Throws what readLineBatches throws.
 */
export async function* scanTranscript(path: string, opts: ReadOptions, lineBase: number, trap: SignalTrap): AsyncGenerator<ScannedLine[]> {
  for await (const raws of readLineBatches(path, opts)) {
    const out: ScannedLine[] = [];
    for (const raw of raws) {
      if (raw.index % CHECK_EVERY_LINES === CHECK_EVERY_LINES - 1) await yieldAndCheck(trap);
      out.push(scanLine(raw, lineBase));
    }
    yield out;
  }
}

/** Counts of the lines a run read and skipped, and the warnings they make. */
export class LineTally {
  linesRead = 0;
  linesSkipped = 0;
  corrupt = 0;
  oversized = 0;
  torn = 0;
  invalidUtf8 = 0;
  pasted = 0;

  /** Count one line the run accounted for (a torn line is skipped but not read). */
  add(l: ScannedLine): void {
    if (!l.complete) {
      this.torn++;
      this.linesSkipped++;
      return;
    }
    this.linesRead++;
    if (l.invalidUtf8) this.invalidUtf8++;
    if (l.skip === "pasted") this.pasted++;
    else if (l.skip) {
      this[l.skip]++;
      this.linesSkipped++;
    }
  }

  /** One warning per kind of skipped line (unparseable, oversized, pasted, invalid UTF-8), in that order. */
  warnings(): string[] {
    const w: string[] = [];
    const bad = this.corrupt + this.torn;
    if (bad > 0) w.push(`${bad} unparseable line${bad === 1 ? "" : "s"} skipped${this.torn ? " (including a torn last line)" : ""}`);
    if (this.oversized > 0) w.push(`${this.oversized} oversized line${this.oversized === 1 ? "" : "s"} skipped (tool output or pasted text)`);
    if (this.pasted > 0) w.push(`${this.pasted} user message${this.pasted === 1 ? "" : "s"} over ${MAX_UTTERANCE_CHARS} characters skipped (pasted text)`);
    if (this.invalidUtf8 > 0) w.push(`${this.invalidUtf8} line${this.invalidUtf8 === 1 ? "" : "s"} with invalid UTF-8 (replaced with U+FFFD)`);
    return w;
  }
}
