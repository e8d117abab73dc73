/**
 * Reading user-named files and folders without hanging: whole-file reads refuse devices, sockets and
 * (unless asked) FIFOs, and stop at a size cap, so `/dev/zero` or `/dev/urandom` fails at once instead
 * of reading forever; the folder walk skips FIFOs and devices with a warning and never enters a folder
 * twice, so a symbolic-link loop is walked once. The only module that reads whole files for the CLI.
 */
import { closeSync, constants, fstatSync, openSync, readdirSync, readSync, statSync, type Stats } from "node:fs";
import { dirname, join } from "node:path";
import { plainReason, ReadError, UsageError } from "../errors.js";

/**
 * Largest model file read, in bytes (64 MiB). The bundled model/model.json is 0.69 MB; a model
 * trained on many times the bundled corpus stays far below, while a wrong file or a device fails fast.
 */
export const MODEL_MAX_BYTES = 64 * 1024 * 1024;

/**
 * Largest text input read whole, in bytes (256 MiB): memory files, stdin, labelled data, rule files.
 * Memory files are kilobytes; 256 MiB of UTF-8 decodes to at most 2^28 UTF-16 units, below V8's
 * longest string (2^29 - 24 units in Node 20), so a capped input never fails halfway through decoding.
 */
export const INPUT_MAX_BYTES = 256 * 1024 * 1024;

/**
 * Why `path` could not be read or written, in words, from the fs error `e` (or its code): ENOTDIR names the part
 * of the path that is a file ("notes.md is a file, not a folder"); other codes get plainReason()'s words (ELOOP
 * "a loop of symbolic links", EACCES "permission denied", ...). Never throws.
 */
export function fsReason(path: string, e: unknown): string {
  const code = typeof e === "string" ? e : ((e as NodeJS.ErrnoException | undefined)?.code ?? (e as Error | undefined)?.message ?? String(e));
  if (code === "ENOTDIR") {
    for (let p = dirname(path); ; p = dirname(p)) {
      try {
        if (!statSync(p).isDirectory()) return `${p} is a file, not a folder`;
      } catch {
        // missing or unreadable: look further up
      }
      if (dirname(p) === p) break;
    }
  }
  return plainReason(code);
}

/** The reason of a ReadError for the fs error `e` on `path`: "no such file" for ENOENT, else fsReason(). */
const readReason = (path: string, e: unknown): string => ((e as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : fsReason(path, e));

/** Block the thread for `ms` milliseconds (a retry pause in synchronous I/O loops). */
export function sleepMs(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** What a non-regular file is, for messages: "FIFO", "socket", "character device", ... */
export function fileKind(st: Stats): string {
  if (st.isFile()) return "regular file";
  if (st.isDirectory()) return "folder";
  if (st.isFIFO()) return "FIFO";
  if (st.isSocket()) return "socket";
  if (st.isCharacterDevice()) return "character device";
  if (st.isBlockDevice()) return "block device";
  return "special file";
}

/** The error for an input past its cap: "cannot read <name>: larger than 64 MiB, the limit for this input". */
const tooLarge = (name: string, maxBytes: number): ReadError => new ReadError(name, `larger than ${Math.round(maxBytes / (1024 * 1024))} MiB, the limit for this input`);

/**
 * All bytes of the open descriptor `fd` up to end of input. `sizeHint` (bytes, e.g. a regular file's
 * st.size) sizes the first buffer, so a regular file is read with one read call plus the one that sees
 * the end. EAGAIN (a non-blocking pipe with no data yet) is retried after 1 ms. Throws ReadError
 * (`cannot read <name>: larger than <cap> MiB, ...`) as soon as more than `maxBytes` bytes arrive, and
 * rethrows other read errors as ErrnoException.
 */
export function readFd(fd: number, name: string, maxBytes: number, sizeHint = 0): Buffer {
  let buf = Buffer.allocUnsafe(Math.min(Math.max(sizeHint, 1 << 16) + 1, maxBytes + 1));
  let total = 0;
  for (;;) {
    if (total === buf.length) {
      if (total > maxBytes) throw tooLarge(name, maxBytes);
      const next = Buffer.allocUnsafe(Math.min(buf.length * 2, maxBytes + 1));
      buf.copy(next, 0, 0, total);
      buf = next;
    }
    let n: number;
    try {
      n = readSync(fd, buf, total, buf.length - total, null);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === "EAGAIN") {
        sleepMs(1);
        continue;
      }
      if (code === "EOF") break; // Windows: end of a pipe
      throw e;
    }
    if (n === 0) break;
    total += n;
  }
  if (total > maxBytes) throw tooLarge(name, maxBytes);
  return buf.subarray(0, total);
}

/** Options of `readFileCapped`. */
export interface ReadCappedOptions {
  /** Most bytes accepted (MODEL_MAX_BYTES, INPUT_MAX_BYTES); more gives ReadError. */
  maxBytes: number;
  /** Also accept a FIFO or pipe (`<(cmd)`, /dev/stdin from a pipe): read to its end, under the same cap. */
  pipes?: boolean;
}

/**
 * The bytes of the file at `path`, which must be a regular file (or, with `opts.pipes`, a FIFO) of at
 * most `opts.maxBytes` bytes. Throws ReadError, one line `cannot read <path>: <reason>`, reason one of
 * "no such file", "is a directory", "not a regular file (character device)" (FIFO, socket, ...),
 * "larger than 64 MiB, the limit for this input" or an errno code. Opened non-blocking when pipes are
 * refused, so even a FIFO swapped in after the stat cannot block the open.
 */
export function readFileCapped(path: string, opts: ReadCappedOptions): Buffer {
  const errno = (e: unknown): ReadError => {
    const code = (e as NodeJS.ErrnoException).code;
    return new ReadError(path, readReason(path, e), code);
  };
  const check = (st: Stats): void => {
    if (st.isDirectory()) throw new ReadError(path, "is a directory", "EISDIR");
    if (!st.isFile() && !(opts.pipes && st.isFIFO())) throw new ReadError(path, `not a regular file (${fileKind(st)})`);
    if (st.isFile() && st.size > opts.maxBytes) throw tooLarge(path, opts.maxBytes);
  };
  let st: Stats;
  try {
    st = statSync(path);
  } catch (e) {
    throw errno(e);
  }
  check(st);
  let fd: number;
  try {
    fd = openSync(path, opts.pipes ? constants.O_RDONLY : constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (e) {
    throw errno(e);
  }
  try {
    const fst = fstatSync(fd);
    check(fst); // the path may have been replaced between stat and open
    return readFd(fd, path, opts.maxBytes, fst.isFile() ? fst.size : 0);
  } catch (e) {
    throw e instanceof ReadError ? e : errno(e);
  } finally {
    closeSync(fd);
  }
}

/**
 * Check, without reading it, that `readFileCapped(path, opts)` could open `path`: it exists, is a regular file
 * (or with `opts.pipes` a FIFO) within `opts.maxBytes`, and a regular file opens for reading. Throws the same
 * ReadError readFileCapped would. A FIFO is not opened (that would consume its writer). For commands that
 * stream their output, so a bad later argument fails before anything is written.
 */
export function checkReadable(path: string, opts: ReadCappedOptions): void {
  let st: Stats;
  try {
    st = statSync(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new ReadError(path, readReason(path, e), code);
  }
  if (st.isDirectory()) throw new ReadError(path, "is a directory", "EISDIR");
  if (!st.isFile() && !(opts.pipes && st.isFIFO())) throw new ReadError(path, `not a regular file (${fileKind(st)})`);
  if (!st.isFile()) return;
  if (st.size > opts.maxBytes) throw tooLarge(path, opts.maxBytes);
  try {
    closeSync(openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0)));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new ReadError(path, readReason(path, e), code);
  }
}

/** Options of `walkFiles`. */
export interface WalkOptions {
  /** Walk sub-folders (default true); false lists only each folder's own files. */
  recursive?: boolean;
  /** Whether to enter the sub-folder named `name` (default: every one). */
  enterDir?: (name: string) => boolean;
  /** Whether a file named `name` found in a folder is wanted (default: every one). */
  wantFile?: (name: string) => boolean;
}

/** Files found by `walkFiles`, in walk order, and one warning per entry skipped for a reason worth saying. */
export interface WalkResult {
  files: string[];
  warnings: string[];
}

/**
 * The files under `paths`: a path naming a file is taken as is (whatever its kind: reading it decides);
 * a folder is walked in sorted name order, depth first. Symbolic links are followed, but every folder
 * and file is taken once, by device + inode, so a link loop or a link to a folder already walked adds
 * nothing. Wanted entries that are not regular files (FIFO, socket, device) are skipped with a warning,
 * as are sub-folders that cannot be listed; dangling links are skipped silently. Throws UsageError for
 * a path that does not exist or a top folder that cannot be listed.
 */
export function walkFiles(paths: readonly string[], opts: WalkOptions = {}): WalkResult {
  const files: string[] = [];
  const warnings: string[] = [];
  const seen = new Set<string>();
  const firstVisit = (st: Stats): boolean => {
    const id = `${st.dev}:${st.ino}`;
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  };
  const walk = (dir: string, top: boolean): void => {
    let names: string[];
    try {
      names = readdirSync(dir).sort();
    } catch (e) {
      const why = `cannot read folder ${dir}: ${fsReason(dir, e)}`;
      if (top) throw new UsageError(why);
      warnings.push(`skipped: ${why}`);
      return;
    }
    for (const name of names) {
      const p = join(dir, name);
      let st: Stats;
      try {
        st = statSync(p);
      } catch {
        continue; // a dangling link, or one in a loop of links
      }
      if (st.isDirectory()) {
        if (opts.recursive !== false && (opts.enterDir?.(name) ?? true) && firstVisit(st)) walk(p, false);
      } else if (opts.wantFile?.(name) ?? true) {
        if (!st.isFile()) warnings.push(`skipped ${p}: not a regular file (${fileKind(st)})`);
        else if (firstVisit(st)) files.push(p);
      }
    }
  };
  for (const p of paths) {
    let st: Stats;
    try {
      st = statSync(p);
    } catch {
      throw new UsageError(`no such file or folder: ${p}`);
    }
    if (!firstVisit(st)) continue;
    if (st.isDirectory()) walk(p, true);
    else files.push(p);
  }
  return { files, warnings };
}

/** Bytes read from the start of a file to tell whether it is a Claude Code transcript at all (64 KiB). */
export const TRANSCRIPT_SNIFF_BYTES = 64 * 1024;

/**
 * Whether the file at `path` looks like a Claude Code transcript: true when a line in its first TRANSCRIPT_SNIFF_BYTES
 * is a JSON object with a string `type` (every transcript line has one: references/claude-code.md), false when none
 * is, null when the file is blank or cannot be read (left to the caller). Opens `path`, so a FIFO blocks until written:
 * callers that must not wait check for a regular file first. Never throws.
 */
export function looksLikeTranscript(path: string): boolean | null {
  let head = "";
  let cut = false;
  try {
    const fd = openSync(path, "r");
    try {
      const buf = Buffer.alloc(TRANSCRIPT_SNIFF_BYTES);
      const n = readSync(fd, buf, 0, TRANSCRIPT_SNIFF_BYTES, 0);
      cut = n === TRANSCRIPT_SNIFF_BYTES;
      head = buf.subarray(0, n).toString("utf8");
    } finally {
      closeSync(fd);
    }
  } catch {
    return null;
  }
  if (head.trim() === "") return null;
  const lines = head.split("\n");
  const partial = cut ? lines.pop() : undefined; // a line cut by the sniff window
  for (const line of lines) {
    try {
      const v = JSON.parse(line) as unknown;
      if (v !== null && typeof v === "object" && typeof (v as { type?: unknown }).type === "string") return true;
    } catch {
      // not JSON: look further
    }
  }
  // A first line longer than the window (a pasted log in the first message): the start of a transcript line's object.
  if (lines.every((l) => l.trim() === "") && partial !== undefined && /^\s*\{"/.test(partial) && /"(?:type|sessionId|parentUuid)":/.test(partial)) return true;
  return false;
}
