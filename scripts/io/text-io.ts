/**
 * Text I/O at the edge: reading a file or stdin as decoded text, writing stdout and one-line stderr messages.
 * The engine never imports this module.
 */
import { isUtf8 } from "node:buffer";
import { writeSync } from "node:fs";
import { plainReason, UsageError, WriteError } from "../errors.js";
import { INPUT_MAX_BYTES, readFd, readFileCapped, sleepMs } from "./read-files.js";
import { visibleName } from "../terminal.js";

/** Decoded text of a file or stdin plus warnings (invalid UTF-8, NUL bytes). */
export interface DecodedInput {
  name: string;
  text: string;
  warnings: string[];
  /** True when invalid byte sequences were replaced with U+FFFD (the text is not the file's bytes). */
  lossy?: boolean;
  /** Set when the bytes were UTF-16 after a byte-order mark (the mark is not in `text`): which byte order. */
  utf16?: "utf-16le" | "utf-16be";
}

/** `text` in the encoding `like` was read in: UTF-8, or UTF-16 in its byte order with its byte-order mark. */
export function encodeLike(text: string, like: Pick<DecodedInput, "utf16">): Buffer {
  if (!like.utf16) return Buffer.from(text, "utf8");
  const le = Buffer.from(`\uFEFF${text}`, "utf16le");
  return like.utf16 === "utf-16le" ? le : le.swap16();
}


/**
 * Write text to standard output synchronously, straight to file descriptor 1. Creating
 * process.stdout loads Node's stream modules (several ms of a ~250 ms cold start), and a synchronous
 * write also means nothing is lost when the process exits. Partial writes are continued; a
 * non-blocking pipe that is full (EAGAIN) is retried after 1 ms; a closed reader (EPIPE, as in
 * `triage classify ... | head`) ends the output quietly. Other errors (ENOSPC on /dev/full, a closed
 * descriptor) throw WriteError("cannot write standard output: CODE").
 */
export function writeStdout(text: string): void {
  const bytes = Buffer.from(text, "utf8");
  let off = 0;
  while (off < bytes.length) {
    try {
      off += writeSync(1, bytes, off, bytes.length - off);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === "EPIPE") return;
      if (code !== "EAGAIN") throw new WriteError("standard output", code ?? (e as Error).message);
      sleepMs(1);
    }
  }
}

/**
 * Write one diagnostic line to standard error: `triage: <text>\n`, with `text` passed through
 * visibleName() (it often quotes a file name or the user's text; a line feed in it is escaped, so it
 * stays one line). E.g. stderrLine(`warning: ${w}`).
 */
export function stderrLine(text: string): void {
  process.stderr.write(`triage: ${visibleName(text)}\n`);
}

/**
 * `produced` (text with "\n" line breaks, no byte-order mark, as the operators write it) in the form of
 * `original`: a leading U+FEFF when the original had one, and "\r\n" line breaks when every line break of
 * the original was "\r\n". So `compact --ratio 1` gives back the input's bytes, and a Windows file stays one.
 */
export function inFormOf(original: string, produced: string): string {
  const lf = original.split("\n").length - 1;
  const crlf = original.split("\r\n").length - 1;
  let out = lf > 0 && crlf === lf ? produced.replace(/\r?\n/g, "\r\n") : produced;
  if (original.startsWith("\uFEFF") && !out.startsWith("\uFEFF")) out = `\uFEFF${out}`;
  return out;
}

// ignoreBOM: a UTF-8 byte-order mark stays in the text (segment() skips it; inFormOf and redact give it back). A UTF-16
// one is dropped: what we write is UTF-8.
const strict = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const lenient = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });

/**
 * Decode bytes as UTF-8, or as UTF-16 when they start with a UTF-16 byte-order mark (FF FE little-,
 * FE FF big-endian). Invalid sequences become U+FFFD with a warning; never throws.
 * Input: raw bytes and a display name. Output: text (a UTF-8 BOM kept, the segmenter skips it; a UTF-16 BOM dropped).
 */
export function decodeBytes(bytes: Uint8Array, name: string): DecodedInput {
  const warnings: string[] = [];
  let text: string;
  // A UTF-16 byte-order mark (Windows tools such as PowerShell's `>` write UTF-16LE): decode as
  // UTF-16 in that byte order. Everything else is UTF-8.
  const utf16 = bytes[0] === 0xff && bytes[1] === 0xfe ? "utf-16le" : bytes[0] === 0xfe && bytes[1] === 0xff ? "utf-16be" : null;
  try {
    text = utf16 ? new TextDecoder(utf16, { fatal: true }).decode(bytes) : strict.decode(bytes);
  } catch {
    text = utf16 ? new TextDecoder(utf16).decode(bytes) : lenient.decode(bytes);
    warnings.push(`${name}: not valid ${utf16 ? utf16.toUpperCase() : "UTF-8"}; invalid bytes replaced with U+FFFD`);
    if (text.includes("\u0000")) warnings.push(`${name}: contains NUL bytes (binary file?)`);
    return utf16 ? { name, text, warnings, lossy: true, utf16 } : { name, text, warnings, lossy: true };
  }
  if (text.includes("\u0000")) warnings.push(`${name}: contains NUL bytes (binary file?)`);
  return utf16 ? { name, text, warnings, utf16 } : { name, text, warnings };
}

/** Input for line-by-line use (classify): UTF-8 bytes kept as they are, or the decoded text of UTF-16 input. */
export interface LineInput {
  name: string;
  /** UTF-8 bytes (BOM kept; engine/units.ts segmentBatches strips it), or text decoded from UTF-16. */
  source: string | Uint8Array;
  warnings: string[];
}

/**
 * Like readInput, but UTF-8 input is not decoded into one string: its bytes are returned (a 50 MB file is 50 MB
 * of bytes but, with one character outside Latin-1, 100 MB of UTF-16 string) with the same warnings readInput
 * gives (invalid UTF-8, checked without decoding; NUL bytes). UTF-16 input (a byte-order mark) comes decoded.
 * Throws what readInput throws.
 */
export function readInputLines(path: string): LineInput {
  const bytes = path === "-" ? readStdin() : readFileCapped(path, { maxBytes: INPUT_MAX_BYTES, pipes: true });
  if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff)) {
    const d = decodeBytes(bytes, path);
    return { name: d.name, source: d.text, warnings: d.warnings };
  }
  const warnings: string[] = [];
  if (!isUtf8(bytes)) warnings.push(`${path}: not valid UTF-8; invalid bytes replaced with U+FFFD`);
  if (bytes.includes(0)) warnings.push(`${path}: contains NUL bytes (binary file?)`);
  return { name: path, source: bytes, warnings };
}

/**
 * All of standard input as bytes (a pipe, a file or a terminal), at most INPUT_MAX_BYTES. Throws
 * UsageError for a folder on stdin, for more than INPUT_MAX_BYTES (`yes | triage classify -` stops
 * with a message instead of filling memory) and for other read errors.
 */
export function readStdin(): Buffer {
  try {
    return readFd(0, "-", INPUT_MAX_BYTES);
  } catch (e) {
    if (e instanceof UsageError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    throw new UsageError(`cannot read -: ${plainReason(code ?? (e as Error).message)}`);
  }
}

/**
 * Read a file path, or stdin for "-", as decoded text. The path must be a regular file or a pipe
 * (`<(cmd)`), at most INPUT_MAX_BYTES: a device such as /dev/zero is refused, not read forever.
 * Throws UsageError (one line, `cannot read <path>: <why>`) when the path cannot be read.
 */
export function readInput(path: string): DecodedInput {
  if (path === "-") return decodeBytes(readStdin(), "-");
  return decodeBytes(readFileCapped(path, { maxBytes: INPUT_MAX_BYTES, pipes: true }), path);
}

/**
 * readInput for a command that writes the text back out (compact, decompose): rules are kept byte for byte, which
 * bytes that are not valid UTF-8 (or UTF-16 after its byte-order mark) cannot be, so such input is refused with
 * UsageError (`<path>: not valid UTF-8 ...`, or `not valid UTF-16LE ...` naming the byte order found) instead of being written back with U+FFFD in their place.
 */
export function readInputExact(path: string, command: string): DecodedInput {
  const input = readInput(path);
  if (input.lossy) {
    // Name the encoding the bytes claimed: a UTF-16 byte-order mark followed by invalid UTF-16 is not "not UTF-8".
    const encoding = input.utf16 ? `${input.utf16.toUpperCase()} (the file starts with its byte-order mark)` : "UTF-8";
    throw new UsageError(`${path}: not valid ${encoding}; ${command} keeps rules byte for byte and cannot keep these bytes (convert the file to UTF-8 first)`);
  }
  return input;
}
