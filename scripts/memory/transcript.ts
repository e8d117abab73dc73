/**
 * Streaming reader for Claude Code transcripts (JSONL, references/claude-code.md §2) and the pure
 * filter that turns one parsed line into a user utterance or a skip reason.
 * The reader never holds the file in one string: it reads fixed-size byte chunks, splits on "\n",
 * and discards (without buffering) any line longer than `maxLineBytes` (e.g. multi-MB tool_result
 * bodies or base64 images).
 */
import { open } from "node:fs/promises";

/** One complete line of the file (terminated by "\n"), or the torn tail (no "\n", `complete: false`). */
export interface RawLine {
  /** Byte offset of the line's first byte. */
  start: number;
  /** Byte offset just after the line's "\n" (or end of file for a torn tail). */
  end: number;
  /** 1-based line number counted from the first byte the reader was started at. */
  index: number;
  /**
   * Line bytes without "\n" (and without a trailing "\r"); null when the line exceeded maxLineBytes. Often a view
   * of the reader's buffer: valid only until the next line is asked for (copy it to keep it).
   */
  bytes: Buffer | null;
  /** False for a last line with no "\n" (torn write or still being written). */
  complete: boolean;
}

/** Reader options. Sizes in bytes. */
export interface ReadOptions {
  /** Byte offset to start at (must be the start of a line). Default 0. */
  start?: number;
  /** Read chunk size in bytes. Default 1 MiB (tests use 4096 to exercise chunk boundaries). */
  chunkSize?: number;
  /** Lines longer than this are skipped without being buffered. Default 1 MiB. */
  maxLineBytes?: number;
  /**
   * Resume inside an oversized line: the line starts at `start` and is already known to exceed
   * `maxLineBytes`, and `[start, scanFrom)` holds no "\n" (ReadPosition of an earlier stop). Reading begins at
   * `scanFrom`, skipping until the line's "\n". Must be >= `start`.
   */
  scanFrom?: number;
  /**
   * Asked before every chunk read, so every `chunkSize` bytes even inside a line with no "\n" (a huge line,
   * a sparse file). Returning true ends the iteration there: the line being read is not yielded (torn or
   * not). It may throw (e.g. InterruptedError); the error ends the iteration and the file is closed.
   */
  stop?: (at: ReadPosition) => boolean;
}

/** Where the reader is between two chunk reads (what `ReadOptions.stop` is shown). Offsets in bytes. */
export interface ReadPosition {
  /** Start of the line being read: every line before it was yielded. */
  lineStart: number;
  /** The next byte to read. */
  pos: number;
  /** True when the line being read already exceeded maxLineBytes (it is skipped whatever follows). */
  oversized: boolean;
}

/**
 * Stream the lines of a file from `start`, yielding each as bytes. Memory stays O(chunkSize + maxLineBytes)
 * whatever the file or line size. Ends early when `opts.stop` says so. Throws on I/O errors (ENOENT, EACCES)
 * and whatever `opts.stop` throws. For many lines prefer readLineBatches (one await per chunk, not per line).
 */
export async function* readLines(path: string, opts: ReadOptions = {}): AsyncGenerator<RawLine> {
  for await (const batch of readLineBatches(path, opts)) yield* batch;
}

/**
 * readLines by chunk: yields the lines that end in each chunk read (often none inside a long line), then the torn
 * tail. The consumer loops over each array synchronously: an async generator step per line cost more than the
 * read itself on transcripts of many short lines (two nested generators: about 5 µs a line in a fresh process).
 * Line bytes that are views of the read buffer stay valid until the next batch is asked for.
 */
export async function* readLineBatches(path: string, opts: ReadOptions = {}): AsyncGenerator<RawLine[]> {
  const chunkSize = opts.chunkSize ?? 1 << 20;
  const maxLine = opts.maxLineBytes ?? 1 << 20;
  const fh = await open(path, "r");
  try {
    const buf = Buffer.allocUnsafe(chunkSize);
    let lineStart = opts.start ?? 0;
    let pos = Math.max(lineStart, opts.scanFrom ?? lineStart);
    let index = 0;
    let parts: Buffer[] = [];
    let partLen = 0;
    let oversized = pos > lineStart;
    for (;;) {
      if (opts.stop?.({ lineStart, pos, oversized })) return;
      const { bytesRead } = await fh.read(buf, 0, chunkSize, pos);
      if (bytesRead === 0) break;
      let from = 0;
      const batch: RawLine[] = [];
      while (from < bytesRead) {
        const nl = buf.indexOf(10, from);
        const stop = nl === -1 || nl >= bytesRead ? bytesRead : nl;
        if (!oversized) {
          const len = stop - from;
          if (partLen + len > maxLine) {
            oversized = true;
            parts = [];
            partLen = 0;
          } else if (len > 0 && stop === bytesRead) {
            // The line goes on past this chunk: keep a copy of its part (the buffer is reused for the next read).
            parts.push(Buffer.from(buf.subarray(from, stop)));
            partLen += len;
          }
        }
        if (stop === bytesRead) break;
        index++;
        const end = pos + nl + 1;
        // A line wholly inside this chunk is passed on as a view of the read buffer, not a copy.
        const bytes = oversized ? null : parts.length === 0 ? buf.subarray(from, nl) : Buffer.concat([...parts, buf.subarray(from, nl)], partLen + nl - from);
        batch.push({ start: lineStart, end, index, bytes: bytes && stripCR(bytes), complete: true });
        lineStart = end;
        parts = [];
        partLen = 0;
        oversized = false;
        from = nl + 1;
      }
      pos += bytesRead;
      if (batch.length > 0) yield batch;
    }
    if (pos > lineStart) {
      index++;
      yield [{ start: lineStart, end: pos, index, bytes: oversized ? null : stripCR(Buffer.concat(parts, partLen)), complete: false }];
    }
  } finally {
    await fh.close();
  }
}

function stripCR(b: Buffer): Buffer {
  return b.length > 0 && b[b.length - 1] === 13 ? b.subarray(0, b.length - 1) : b;
}

const utf8 = new TextDecoder("utf-8", { fatal: true });
const utf8Lenient = new TextDecoder("utf-8", { fatal: false });

/** Decode line bytes as UTF-8; invalid sequences become U+FFFD and `invalid` is true. Never throws. */
export function decodeLine(bytes: Uint8Array): { text: string; invalid: boolean } {
  try {
    return { text: utf8.decode(bytes), invalid: false };
  } catch {
    return { text: utf8Lenient.decode(bytes), invalid: true };
  }
}

/** A user utterance found on a transcript line. */
export interface Utterance {
  text: string;
  uuid?: string;
  timestamp?: string;
  sessionId?: string;
}

/** Why a parsed line yields no utterance (for counting). */
export type SkipReason =
  | "not-user"
  | "meta"
  | "sidechain"
  | "compact-summary"
  | "command-wrapper"
  | "tool-result"
  | "no-text"
  | "not-object";

const WRAPPER_RE = /^\s*<(command-name|command-message|command-args|local-command-[\w-]+|bash-input|bash-stdout|bash-stderr|system-reminder|user-prompt-submit-hook)>/;
const REMINDER_START_RE = /^\s*<system-reminder>/;
/** A <system-reminder> span (closed, or running to the end of the text when never closed). */
const REMINDER_SPAN_RE = /<system-reminder>[\s\S]*?(?:<\/system-reminder>|$)/g;

/** `text` without its <system-reminder> spans (Claude Code's own additions to a user turn). */
function withoutReminders(text: string): string {
  return text.includes("<system-reminder>") ? text.replace(REMINDER_SPAN_RE, "") : text;
}

/**
 * Pure: the user text of one parsed transcript line, or why there is none. Only `type:"user"` lines with
 * string content or `text` blocks count; tool results, `isMeta`, `isSidechain`, `isCompactSummary`,
 * `isVisibleInTranscriptOnly` and `<command-name>`/`<local-command-…>` wrappers are skipped (references/claude-code.md §2).
 */
export function userUtterance(obj: unknown): Utterance | SkipReason {
  if (obj === null || typeof obj !== "object" || Array.isArray(obj)) return "not-object";
  const o = obj as Record<string, unknown>;
  if (o.type !== "user") return "not-user";
  if (o.isMeta === true) return "meta";
  if (o.isSidechain === true) return "sidechain";
  if (o.isCompactSummary === true || o.isVisibleInTranscriptOnly === true) return "compact-summary";
  const msg = o.message as Record<string, unknown> | undefined;
  if (!msg || typeof msg !== "object") return "no-text";
  if (msg.role !== undefined && msg.role !== "user") return "not-user";
  const content = msg.content;
  let text = "";
  if (typeof content === "string") {
    if (WRAPPER_RE.test(content) && !REMINDER_START_RE.test(content)) return "command-wrapper";
    text = withoutReminders(content);
    if (text.trim() === "" && content.trim() !== "") return "command-wrapper";
  } else if (Array.isArray(content)) {
    // Each block on its own: Claude Code adds a <system-reminder> block (an opened file, a selection, CLAUDE.md
    // contents) before or after what the user typed; it is not the user's, and it must not hide the user's block.
    const texts: string[] = [];
    let sawTool = false;
    let sawWrapper = false;
    for (const b of content) {
      if (!b || typeof b !== "object") continue;
      const blk = b as Record<string, unknown>;
      if (blk.type === "text" && typeof blk.text === "string") {
        const own = WRAPPER_RE.test(blk.text) && !REMINDER_START_RE.test(blk.text) ? "" : withoutReminders(blk.text);
        if (own.trim() === "") sawWrapper = true;
        else texts.push(own);
      } else if (blk.type === "tool_result") sawTool = true;
    }
    if (texts.length === 0) return sawTool ? "tool-result" : sawWrapper ? "command-wrapper" : "no-text";
    text = texts.join("\n");
  } else return "no-text";
  if (text.trim() === "") return "no-text";
  const u: Utterance = { text };
  if (typeof o.uuid === "string") u.uuid = o.uuid;
  if (typeof o.timestamp === "string") u.timestamp = o.timestamp;
  if (typeof o.sessionId === "string") u.sessionId = o.sessionId;
  return u;
}

/**
 * Byte patterns that, unescaped in a `"type":"user"` line, mean it holds no text of the user's own: only a tool
 * result, or a meta, sidechain or compact-summary line (userUtterance skips all of them). Inside the user's text
 * every `"` is escaped as `\"`, so these can only be the line's own JSON structure. The tool-result patterns are
 * the two key orders Claude Code writes (research/integration.md §3).
 */
const NOT_USER_TEXT = ['"content":[{"tool_use_id"', '"content":[{"type":"tool_result"', '"isMeta":true', '"isSidechain":true', '"isCompactSummary":true', '"isVisibleInTranscriptOnly":true'];
/**
 * The structural `"type":` tokens of a raw line, found in one scan: whether it has `"type":"user"` (or `"type": "user"`),
 * `"type":"assistant"` (or spaced), and a text block `{"type":"text","text":` (with its `"text":` key, so the
 * `"toolUseResult":{"type":"text","file":…}` of a Read result does not count). Inside a JSON string every `"` is
 * escaped as `\"`, so `"type":` there never matches: these are the line's own structure. One scan instead of one
 * search per pattern: proving a 20 kB tool result holds no text block (and, for the archive index, no assistant
 * token) read it once per pattern.
 */
export interface TypeTokens {
  user: boolean;
  assistant: boolean;
  textBlock: boolean;
}

const TYPE_KEY = Buffer.from('"type":');
const USER_VALUE = Buffer.from('"user"');
const ASSISTANT_VALUE = Buffer.from('"assistant"');
/** What follows the key in a text block (TypeTokens.textBlock), unspaced as Claude Code writes it. */
const TEXT_VALUE = Buffer.from('"text","text":');

/** True when `b` holds `v` at byte `at`. */
function holdsAt(b: Buffer, at: number, v: Buffer): boolean {
  return at + v.length <= b.length && b.compare(v, 0, v.length, at, at + v.length) === 0;
}

/** The type tokens of raw line bytes (see TypeTokens). Pure; one indexOf scan over the line. */
export function typeTokens(b: Buffer): TypeTokens {
  const t: TypeTokens = { user: false, assistant: false, textBlock: false };
  // `"type":` cannot overlap itself (its only other `"` is followed by ':'), so each hit starts after the previous key.
  for (let at = b.indexOf(TYPE_KEY); at !== -1; at = b.indexOf(TYPE_KEY, at + TYPE_KEY.length)) {
    const v = at + TYPE_KEY.length;
    const spaced = b[v] === 0x20 ? v + 1 : v;
    if (holdsAt(b, spaced, USER_VALUE)) t.user = true;
    else if (holdsAt(b, spaced, ASSISTANT_VALUE)) t.assistant = true;
    else if (spaced === v && b[at - 1] === 0x7b && holdsAt(b, v, TEXT_VALUE)) t.textBlock = true;
  }
  return t;
}

/**
 * Cheap pre-check on raw line bytes: true when the line cannot be a user utterance (no `"type":"user"` token; or a
 * tool-result line with no text block; or a meta, sidechain or compact-summary line). Lets the reader skip decoding
 * and JSON.parse for assistant and tool lines, about half a real transcript's bytes. False means "parse it".
 * `tokens` are the line's typeTokens when the caller has them already.
 */
export function cannotBeUser(bytes: Uint8Array, tokens?: TypeTokens): boolean {
  const b = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const t = tokens ?? typeTokens(b);
  if (!t.user) return true;
  for (const p of NOT_USER_TEXT) {
    // A text block may sit beside a tool result: then the line is parsed after all.
    if (b.indexOf(p) !== -1) return p.startsWith('"content"') ? !t.textBlock : true;
  }
  return false;
}
