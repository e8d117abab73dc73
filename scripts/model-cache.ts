/**
 * The model cache: a model file's inference tables (PreparedModel: the term hash table, scales,
 * Int8 weights, biases, stem tables) stored as bytes beside the code cache, so a cold start reads
 * about 1 MB and wraps typed arrays around it instead of parsing 0.7 MB of JSON, validating it,
 * decoding base64 and building the hash table (references/classifier.md, "Cold start", has the
 * numbers). Only the bundle uses it (the loader gives the folder, see runtime.ts); the tables are
 * byte-for-byte those prepareModel builds, so scores are identical with and without it.
 *
 * A cache file is used only for the same model file version and the same program: its key holds
 * the model's device, inode, size, modification and change times in nanoseconds (a rewrite, a
 * `cp`, a `git checkout` or a retrain changes at least one; the change time cannot be set by
 * tools) and the bundle's build id (a new program may lay tables out differently); the payload
 * carries a 64-bit checksum (MurmurHash64A, scripts/checksum.ts: no node:zlib to load at start), so a
 * damaged block is caught, not used. Files are written atomically at a
 * successful exit (mode 0600, folder 0700), and not while the model file is less than 2 s old
 * (isRacilyNew); the newest KEEP stay. Any problem reading or writing one
 * only means loading from model.json.
 */
import { type BigIntStats, readdirSync, statSync, unlinkSync } from "node:fs";
import { basename, join } from "node:path";
import { checksum64, hashableBuffer } from "./checksum.js";
import { LITTLE_ENDIAN, type PreparedModel } from "./engine/model.js";
import { TYPES } from "./engine/types.js";
import { readFileCapped } from "./files.js";
import { makeDirs, replaceAtomically } from "./io.js";
import { MODEL_CACHE_LAYOUT, MODEL_CACHE_MAX_BYTES as MAX_BYTES, modelCacheKey, modelCacheName } from "./model-cache-name.js";
import { trustedFolder } from "./paths.js";
import { takeReadAhead } from "./model-cache-read-ahead.js";

export { MODEL_CACHE_LAYOUT, modelCacheKey, modelCacheName };

const MAGIC = 0x434d544b; // "KTMC" read as a little-endian u32
/** Cache files kept per folder (one per model file version used; the oldest are removed). */
const KEEP = 8;
const K = TYPES.length;

interface Header {
  key: string;
  bits: number;
  n: number;
  bias: number[];
  weightScales: number[];
  temperature: number;
  stems: Array<[string, number]>;
}

const pad8 = (n: number): number => (8 - (n % 8)) % 8;

/** Bytes before the JSON header: magic, layout, header length, zero, checksum. */
const FIXED = 24;

/**
 * Serialise prepared tables under `key`. Layout (little-endian): u32 magic "KTMC", u32 layout, u32
 * header length H, u32 zero, u64 MurmurHash64A (checksum64) of everything after these 24 bytes
 * (header and payload: a damaged bias, scale or stem length is refused like a damaged weight), H
 * bytes of UTF-8 JSON header (key, bits,
 * term count n, bias, weightScales, temperature, stem table byte lengths), zero padding to 8, then the payload:
 * the hash table (Int32 x 2^(bits+1)), the scales (Float64 x n), the weights (Int8 x 5n) padded to 8,
 * and the stem tables as UTF-8. Throws on a big-endian host and where WebAssembly is unavailable
 * (checksum64): the cache is not used there.
 */
export function encodeModelCache(p: PreparedModel, key: string): Buffer {
  if (!LITTLE_ENDIAN) throw new Error("model cache: little-endian hosts only");
  const stems = Object.entries(p.stems).map(([lang, text]) => [lang, Buffer.from(text, "utf8")] as const);
  const u8 = (a: ArrayBufferView): Buffer => Buffer.from(a.buffer, a.byteOffset, a.byteLength);
  const payload = Buffer.concat([u8(p.index.table), u8(p.index.scale), u8(p.weights), Buffer.alloc(pad8(p.weights.byteLength)), ...stems.map(([, b]) => b)]);
  const header: Header = {
    key,
    bits: p.index.bits,
    n: p.index.scale.length,
    bias: Array.from(p.bias),
    weightScales: Array.from(p.weightScales),
    temperature: p.temperature,
    stems: stems.map(([lang, b]) => [lang, b.length]),
  };
  const head = Buffer.from(JSON.stringify(header), "utf8");
  const fixed = Buffer.alloc(FIXED);
  fixed.writeUInt32LE(MAGIC, 0);
  fixed.writeUInt32LE(MODEL_CACHE_LAYOUT, 4);
  fixed.writeUInt32LE(head.length, 8);
  const body = Buffer.concat([head, Buffer.alloc(pad8(FIXED + head.length)), payload]);
  const sum = checksum64(body);
  if (sum === undefined) throw new Error("model cache: no WebAssembly for the checksum");
  fixed.writeBigUInt64LE(sum, 16);
  return Buffer.concat([fixed, body]);
}

/**
 * The prepared tables stored in `bytes`, or undefined when they are not a cache file of this layout
 * for `key`, their lengths do not add up or they fail their checksum (a torn, damaged or foreign
 * file). Checked in place when `bytes` comes from hashableBuffer (scripts/checksum.ts). The typed arrays are views of `bytes` (copied once when it is not 8-byte aligned). Never
 * throws.
 */
export function decodeModelCache(bytes: Buffer, key: string): PreparedModel | undefined {
  try {
    if (!LITTLE_ENDIAN || bytes.length < FIXED || bytes.readUInt32LE(0) !== MAGIC || bytes.readUInt32LE(4) !== MODEL_CACHE_LAYOUT) return undefined;
    const headLength = bytes.readUInt32LE(8);
    if (FIXED + headLength > bytes.length) return undefined;
    // The checksum of header and payload: a damaged block or header value (same length) would
    // otherwise be used as it is — wrong scores, NaN, or a probe loop that never ends in a table
    // without empty slots.
    const sum = checksum64(bytes.subarray(FIXED));
    if (sum === undefined || sum !== bytes.readBigUInt64LE(16)) return undefined;
    const h = JSON.parse(bytes.toString("utf8", FIXED, FIXED + headLength)) as Header;
    if (h.key !== key || !Number.isInteger(h.bits) || h.bits < 4 || h.bits > 28 || !Number.isInteger(h.n) || h.n < 0 || h.n > 1 << (h.bits - 1)) return undefined;
    if (!Array.isArray(h.bias) || h.bias.length !== K || !Array.isArray(h.weightScales) || h.weightScales.length !== K || typeof h.temperature !== "number") return undefined;
    if (!Array.isArray(h.stems) || !h.stems.every((s) => Array.isArray(s) && typeof s[0] === "string" && Number.isInteger(s[1]) && s[1] >= 0)) return undefined;
    const tableStart = FIXED + headLength + pad8(FIXED + headLength);
    const scaleStart = tableStart + (2 << h.bits) * 4;
    const weightStart = scaleStart + h.n * 8;
    const stemStart = weightStart + h.n * K + pad8(h.n * K);
    const end = stemStart + h.stems.reduce((s, [, len]) => s + len, 0);
    if (end !== bytes.length) return undefined;
    const b = bytes.byteOffset % 8 === 0 ? bytes : Buffer.from(bytes);
    const table = new Int32Array(b.buffer, b.byteOffset + tableStart, 2 << h.bits);
    const scale = new Float64Array(b.buffer, b.byteOffset + scaleStart, h.n);
    const weights = new Int8Array(b.buffer, b.byteOffset + weightStart, h.n * K);
    const stems: Record<string, string> = {};
    let at = stemStart;
    for (const [lang, len] of h.stems) {
      stems[lang] = b.toString("utf8", at, at + len);
      at += len;
    }
    return { index: { table, bits: h.bits, scale }, weights, weightScales: Float64Array.from(h.weightScales), bias: Float64Array.from(h.bias), temperature: h.temperature, stems };
  } catch {
    return undefined;
  }
}

/** Outcome of a cache lookup, for TRIAGE_CACHE_DEBUG. */
export type ModelCacheStatus = "hit" | "miss" | "rejected";

/**
 * The prepared tables of the model file at `path`: from `dir`'s cache file when it holds this
 * version of the file for this build, else from `load()` (which reads and validates model.json and
 * throws ModelError), stored for the next start when this process exits with code 0.
 * `report` hears whether the cache was used. Throws only what `load` throws.
 */
export function cachedPreparedModel(path: string, dir: string, build: string, load: () => PreparedModel, report?: (status: ModelCacheStatus, file: string) => void): PreparedModel {
  let st: BigIntStats;
  try {
    st = statSync(path, { bigint: true });
  } catch {
    return load(); // reports the missing or unreadable file
  }
  if (!st.isFile() || !LITTLE_ENDIAN) return load();
  const key = modelCacheKey(st, build);
  const file = join(dir, modelCacheName(key));
  let status: ModelCacheStatus = "miss";
  try {
    const real = trustedFolder(dir);
    if (!real) throw new Error("not a trusted folder (yet)");
    // Only a regular file of sane size (a symlink to /dev/zero or a FIFO would never end): ReadError otherwise.
    const p = decodeModelCache(takeReadAhead(file) ?? readFileCapped(join(real, basename(file)), { maxBytes: MAX_BYTES, alloc: (n) => hashableBuffer(n) ?? Buffer.allocUnsafe(n) }), key);
    if (p) {
      report?.("hit", file);
      return p;
    }
    status = "rejected";
  } catch {
    // no cache file, or not a regular file of at most MAX_BYTES
  }
  const p = load(); // a model file refused here is reported by load alone, not as a cache miss first
  report?.(status, file);
  // Not stored while the model file is "racily" new (see isRacilyNew): a rewrite later in the same
  // timestamp tick could keep the whole key and be served the old tables.
  if (!isRacilyNew(st, Date.now())) {
    process.once("exit", (code) => {
      if (code === 0) storeModelCache(dir, file, p, key);
    });
  }
  return p;
}

/** File systems with coarse timestamps: 1 s (ext4 with 128-byte inodes, ext3, many NFS/SMB servers), 2 s (FAT). */
const RACY_WINDOW_MS = 2_000;

/**
 * True when a model file was changed (modification or change time) less than RACY_WINDOW_MS before
 * `nowMs`, or is dated in the future. On a file system with 1-2 s timestamps, a same-size rewrite in
 * place within the same tick keeps device, inode, size and both times, so a cache stored for the
 * first version would be taken for the second; a cache is therefore only stored once the file's
 * times are safely in the past (git's "racily clean" rule). The next start stores it instead.
 */
export function isRacilyNew(st: BigIntStats, nowMs: number): boolean {
  const now = BigInt(Math.floor(nowMs)) * 1_000_000n;
  const window = BigInt(RACY_WINDOW_MS) * 1_000_000n;
  return now - st.mtimeNs < window || now - st.ctimeNs < window;
}

/**
 * Write one cache file atomically (folder created 0700, file 0600) and remove all but the newest
 * KEEP model caches of the folder. Errors are ignored: the cache only saves time.
 */
export function storeModelCache(dir: string, file: string, p: PreparedModel, key: string): void {
  try {
    makeDirs(dir, 0o700);
    const real = trustedFolder(dir); // made by someone else since this process started: null
    if (!real) return;
    replaceAtomically(join(real, basename(file)), encodeModelCache(p, key), 0o600);
    const caches = readdirSync(real)
      .filter((n) => /^model-[0-9a-f]{16}\.ktmodel$/.test(n))
      .map((n) => ({ n, t: statSync(join(real, n)).mtimeMs }))
      .sort((x, y) => y.t - x.t);
    for (const old of caches.slice(KEEP)) unlinkSync(join(real, old.n));
  } catch {
    // the cache only saves time
  }
}
