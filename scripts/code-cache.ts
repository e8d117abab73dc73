/**
 * The V8 code cache files of the bundle's loader (withLoader in scripts/build.mjs), which carries
 * this module through scripts/loader-parts.ts: reading one (checked with our checksum) and storing
 * one (framed, atomically, in a trusted folder, with the caches of other builds pruned). Layout
 * (little-endian): "KTCC", u32 layout, u64 MurmurHash64A (checksum64) of the V8 data after these 16
 * bytes. V8 release builds check only lengths and hashes of the source and flags, and would
 * deserialise a damaged file (a crash at every start); node:v8's --verify-snapshot-checksum flag did
 * what the checksum does, but loading node:v8 cost ~4 ms of every start (references/classifier.md).
 */
import { closeSync, constants, fstatSync, openSync, readdirSync, readSync, statSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { checksum64, hashableBuffer } from "./checksum.js";
import { makeDirs, replaceAtomically } from "./fs-primitives.js";
import { trustedFolder } from "./trusted-folder.js";

const MAGIC = 0x4343544b; // "KTCC" read as a little-endian u32
const LAYOUT = 1;
/** Larger files are not read. */
const MAX_BYTES = 64 * 1024 * 1024;

/**
 * The V8 data of cache file `name` in folder `realDir` (a real path trustedFolder returned): `data`
 * when the file is a regular file of this layout whose checksum matches (read into hashable memory,
 * checked in place), `damaged` when it is one of sane size that is not (rewrite it), neither when
 * there is none (or only something that is not a regular file: opened non-blocking and checked by
 * descriptor, so a FIFO put in its place is never waited on). Never throws.
 */
export function readCodeCache(realDir: string, name: string): { data?: Buffer; damaged: boolean } {
  try {
    const fd = openSync(join(realDir, name), constants.O_RDONLY | constants.O_NONBLOCK);
    try {
      const st = fstatSync(fd);
      const buf = st.isFile() && st.size > 16 && st.size < MAX_BYTES ? hashableBuffer(st.size) : undefined;
      if (!buf) return { damaged: false };
      if (readSync(fd, buf, 0, buf.length, 0) === buf.length && buf.readUInt32LE(0) === MAGIC && buf.readUInt32LE(4) === LAYOUT) {
        const data = buf.subarray(16);
        if (checksum64(data) === buf.readBigUInt64LE(8)) return { data, damaged: false };
      }
      return { damaged: true };
    } finally {
      closeSync(fd);
    }
  } catch {
    return { damaged: false };
  }
}

/**
 * Store the V8 data `data()` makes (asked only once the folder is accepted) as cache file `name` in folder `dir` (made 0700 when missing; used only when
 * trustedFolder accepts it, through its real path), written atomically (0600). Then prunes the folder:
 * of the files ending in `suffix` (this program, command, Node and flags) for other builds or copies
 * of the bundle the newest three stay (two clones sharing the folder would otherwise delete each
 * other's at every run), and code caches named by the scheme before program blocks go. Errors are
 * ignored: the cache only saves time.
 */
export function storeCodeCache(dir: string, name: string, suffix: string, data: () => Uint8Array): void {
  try {
    makeDirs(dir, 0o700);
    const real = trustedFolder(dir);
    if (!real) return;
    const bytes = data();
    const sum = checksum64(bytes);
    if (sum === undefined) return;
    const header = Buffer.alloc(16);
    header.writeUInt32LE(MAGIC, 0);
    header.writeUInt32LE(LAYOUT, 4);
    header.writeBigUInt64LE(sum, 8);
    replaceAtomically(join(real, name), Buffer.concat([header, bytes]), 0o600);
    const others: Array<{ n: string; t: number }> = [];
    for (const n of readdirSync(real)) {
      if (n === name) continue;
      if (/^[0-9a-f]{16}-\d+-\d+-v[0-9.]+-\w+-[a-z-]+\.v8cache$/.test(n)) others.push({ n, t: 0 }); // the scheme before blocks
      else if (n.endsWith(suffix) && /^[0-9a-f]{16}-\d+-\d+-\d+-v/.test(n)) others.push({ n, t: statSync(join(real, n)).mtimeMs });
    }
    for (const o of others.sort((a, b) => b.t - a.t).filter((o, i) => o.t === 0 || i >= 3)) {
      try {
        unlinkSync(join(real, o.n));
      } catch {
        // gone already
      }
    }
  } catch {
    // the cache only saves time
  }
}
