/**
 * Read-ahead of the model cache file for the classify fast path. scripts/classify-main.ts starts it
 * before the rest of the program initialises, so the ~1 MB file that cachedPreparedModel
 * (scripts/model-cache.ts) will look for is read on libuv's thread pool, page faults included,
 * while the main thread initialises the program, instead of on the main thread afterwards (about
 * 4.5 ms of a cold `triage classify` on the 2-core VM; references/classifier.md, "Cold start").
 * The bytes are checked exactly like a file read in place (decodeModelCache: layout, key, lengths,
 * checksum), and any problem here only means reading the file in place, as without read-ahead.
 */
import { close, closeSync, constants, fstatSync, openSync, read, statSync } from "node:fs";
import { basename, join } from "node:path";
import { checksumAvailable, hashableBuffer } from "./checksum.js";
import { MODEL_CACHE_MAX_BYTES as MAX_BYTES, modelCacheKey, modelCacheName } from "./model-cache-name.js";
import { isOff } from "./runtime.js";
import { trustedFolder } from "./trusted-folder.js";

interface ReadAhead {
  file: string;
  bytes?: Buffer;
  done: Promise<void>;
}
/**
 * The read-ahead of this process, shared by every copy of this module: the bundle's loader starts it
 * (before it even reads the program) and the program's copy takes the bytes.
 */
const slot = Symbol.for("knowledge-triage.model-read-ahead");
const shared = globalThis as Record<symbol, ReadAhead | undefined>;

/**
 * Start reading the cache file of the model at `modelPath` for program build `build` from cache
 * folder `dir`, when the folder is trusted (trustedFolder) and the file is a regular file of at most
 * MODEL_CACHE_MAX_BYTES (opened non-blocking and checked by its descriptor, so nothing else put in
 * its place is read). Never throws; does nothing when started twice.
 */
export function startModelCacheReadAhead(modelPath: string, dir: string, build: string): void {
  if (shared[slot]) return;
  const real = trustedFolder(dir);
  if (!real) return;
  let file: string;
  try {
    const st = statSync(modelPath, { bigint: true });
    if (!st.isFile()) return;
    file = join(dir, modelCacheName(modelCacheKey(st, build)));
  } catch {
    return;
  }
  // Opened and checked here (microseconds); only the read goes to the thread pool, as one request,
  // so it proceeds while this thread is busy (a chain of callbacks would wait for it at each step).
  let fd: number;
  let size: number;
  try {
    fd = openSync(join(real, basename(file)), constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    return;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || st.size > MAX_BYTES) throw new Error("not a regular file of sane size");
    size = st.size;
  } catch {
    closeSync(fd);
    return;
  }
  const entry: ReadAhead = { file, done: Promise.resolve() };
  entry.done = new Promise<void>((settle) => {
    // Straight into hashable memory: decodeModelCache checks it in place (scripts/checksum.ts).
    const buf = hashableBuffer(size) ?? Buffer.allocUnsafe(size);
    const finish = (bytes?: Buffer): void => {
      entry.bytes = bytes;
      close(fd, () => settle());
    };
    const next = (at: number): void => {
      if (at === buf.length) finish(buf);
      else read(fd, buf, at, buf.length - at, at, (err, n) => (err || n === 0 ? finish() : next(at + n)));
    };
    next(0);
  });
  shared[slot] = entry;
}

/**
 * Start the read-ahead `triage classify` with these arguments (those after the command) will use: the
 * bundled model at `modelPath`, with the start-up caches on (`cacheDir` given) and checkable
 * (checksumAvailable), TRIAGE_MODEL_CACHE not off and no --model option (an explicit model is read
 * when it is used). The bundle's loader calls it
 * before reading the program, the fast path's first module again (a no-op then). Never throws.
 */
export function startClassifyReadAhead(args: readonly string[], cacheDir: string | null | undefined, build: string, modelPath: string): void {
  if (cacheDir && classifyUsesModelCache(args, process.env.TRIAGE_MODEL_CACHE) && checksumAvailable()) startModelCacheReadAhead(modelPath, cacheDir, build);
}

/** True when `triage classify` with these arguments (after the command) uses the bundled model's cache: no --model option, and TRIAGE_MODEL_CACHE (its value given) not off. */
export function classifyUsesModelCache(args: readonly string[], modelCacheSwitch: string | undefined): boolean {
  return !isOff(modelCacheSwitch) && !args.some((a) => a.startsWith("--model"));
}

/** Resolves once a started read-ahead has finished (at once when none was started). */
export function modelCacheReadAheadDone(): Promise<void> {
  return shared[slot]?.done ?? Promise.resolve();
}

/**
 * The bytes read ahead for cache file `file`, handed out once, when that read has finished; else
 * undefined (the caller reads the file itself).
 */
export function takeReadAhead(file: string): Buffer | undefined {
  const ahead = shared[slot];
  if (!ahead || ahead.file !== file || !ahead.bytes) return undefined;
  const bytes = ahead.bytes;
  ahead.bytes = undefined;
  return bytes;
}
