/**
 * File and stdin I/O at the edge: byte-safe decoding, atomic writes, model loading.
 * The engine never imports this module.
 */
import { existsSync, writeSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { UsageError, WriteError } from "./errors.js";
import { makeDirs, replaceAtomically } from "./fs-primitives.js";
import { INPUT_MAX_BYTES, readFd, readFileCapped, sleepMs } from "./files.js";
import { visibleName } from "./terminal.js";
import { defaultModelPath } from "./paths.js";

/** Re-exported: the class lives with the other error classes in scripts/errors.ts. */
export { WriteError };
/** Re-exported: they live in scripts/fs-primitives.ts, which the bundle's loader carries too. */
export { makeDirs, replaceAtomically };

/** Decoded text of a file or stdin plus warnings (invalid UTF-8, NUL bytes). */
export interface DecodedInput {
  name: string;
  text: string;
  warnings: string[];
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

const strict = new TextDecoder("utf-8", { fatal: true });
const lenient = new TextDecoder("utf-8", { fatal: false });

/**
 * Decode bytes as UTF-8, or as UTF-16 when they start with a UTF-16 byte-order mark (FF FE little-,
 * FE FF big-endian). Invalid sequences become U+FFFD with a warning; never throws.
 * Input: raw bytes and a display name. Output: text (BOM kept; the segmenter strips it).
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
  }
  if (text.includes("\u0000")) warnings.push(`${name}: contains NUL bytes (binary file?)`);
  return { name, text, warnings };
}

/**
 * All of standard input as bytes (a pipe, a file or a terminal), at most INPUT_MAX_BYTES. Throws
 * UsageError for a folder on stdin, for more than INPUT_MAX_BYTES (`yes | triage classify -` stops
 * with a message instead of filling memory) and for other read errors.
 */
function readStdin(): Buffer {
  try {
    return readFd(0, "-", INPUT_MAX_BYTES);
  } catch (e) {
    if (e instanceof UsageError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    throw new UsageError(`cannot read -: ${code === "EISDIR" ? "is a directory" : (code ?? (e as Error).message)}`);
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


const errCode = (e: unknown): string => (e as NodeJS.ErrnoException)?.code ?? (e as Error)?.message ?? String(e);

/**
 * Write a file atomically: write a temp file beside it, then rename over the target (parent folders
 * are created). Throws WriteError (`cannot write <path>: <errno code>`) on any failure; the temp file
 * is removed and the target left as it was.
 */
export function writeFileAtomic(path: string, data: string): void {
  try {
    if (statSync(path).isDirectory()) throw new WriteError(path, "EISDIR");
  } catch (e) {
    if (e instanceof WriteError) throw e;
  }
  try {
    makeDirs(dirname(resolve(path)));
  } catch (e) {
    // mkdir -p reports a file in the way of a parent folder as EEXIST: say what it means.
    throw new WriteError(path, errCode(e) === "EEXIST" ? "ENOTDIR" : errCode(e));
  }
  try {
    replaceAtomically(path, data);
  } catch (e) {
    throw new WriteError(path, errCode(e));
  }
}


/** Device + inode of an existing path (symlinks followed), or null when it does not exist. */
function fileIdentity(path: string): string | null {
  try {
    const st = statSync(path);
    return `${st.dev}:${st.ino}`;
  } catch {
    return null;
  }
}

/** True when `a` and `b` name the same file: same resolved path, or same device + inode (symlink, hard link). */
export function sameFile(a: string, b: string): boolean {
  if (resolve(a) === resolve(b)) return true;
  const ia = fileIdentity(a);
  return ia !== null && ia === fileIdentity(b);
}

/** Options of `refuseOverwrite`: the `--force` flag, the command's input files, and existing files it owns. */
export interface OverwriteOptions {
  /** `--force` was given: allow overwriting anything but a folder. */
  force?: boolean;
  /** Input files of the command (never overwritten without --force, even when `owned` accepts them). */
  inputs?: readonly string[];
  /** Existing files the command may replace without --force (its own earlier output, e.g. a retrained model). */
  owned?: (path: string) => boolean;
}

/**
 * The shared "refuse to overwrite" rule of every command that writes a user-named path (the `--force`
 * convention). Throws UsageError naming `path` when it would overwrite one of `inputs`, or an existing
 * file that `owned` does not accept, unless `force`; WriteError (EISDIR) when it is a folder.
 */
export function refuseOverwrite(path: string, opts: OverwriteOptions = {}): void {
  let st: ReturnType<typeof statSync> | null = null;
  try {
    st = statSync(path);
  } catch {
    st = null;
  }
  if (st?.isDirectory()) throw new WriteError(path, "EISDIR");
  if (opts.force) return;
  if ((opts.inputs ?? []).some((i) => i !== "-" && sameFile(i, path))) {
    throw new UsageError(`refusing to overwrite ${path}: it is an input file (use --force to allow)`);
  }
  if (st && !(opts.owned?.(path) ?? false)) throw new UsageError(`refusing to overwrite existing file ${path} (use --force to overwrite)`);
}

export { defaultModelPath, projectRoot } from "./paths.js";

export { existsSync };

import type { Classifier } from "./engine/classify.js";
import { regexClassifier } from "./engine/classify.js";
import { loadModelClassifier } from "./model-file.js";

/**
 * Load the classifier for `--model PATH`: "/dev/null" (NUL on Windows) selects the regex tier, by
 * name; no path selects the bundled model/model.json. Throws ModelError for a missing, empty,
 * corrupt or mismatched model file, a file that is not regular (/dev/zero) or one over MODEL_MAX_BYTES.
 */
export function loadClassifier(modelPath?: string): Classifier {
  if (modelPath === "/dev/null" || modelPath === "NUL") return regexClassifier;
  return loadModelClassifier(modelPath ?? defaultModelPath());
}
