/**
 * The start-up caches' integrity check: MurmurHash64A (Austin Appleby, SMHasher, public domain; seed
 * 0) of a byte range, computed by a 245-byte WebAssembly function (the bytes below, listed
 * instruction by instruction) over bytes read straight into its linear memory. Imports only node:fs:
 * the bundle's loader (scripts/build.mjs, withLoader) carries this module too, because it must check the
 * code cache before any program is compiled.
 *
 * Why not a library: the checksum used to be node:zlib's crc32 for the model cache and V8's own
 * checksum (node:v8's --verify-snapshot-checksum flag) for the code cache, and loading those two
 * modules (and the stream modules both pull in) took ~7 ms of every cold start, 3% of a cold
 * `triage classify` at its 2x-of-`node -e 0` floor. This function costs ~1 ms to compile at first use
 * and ~1-3 ms to hash the 1 MB model cache in a cold process (references/classifier.md, "Cold
 * start"). The hash is for damage (a torn write, a flipped bit), not for an attacker: the cache
 * folders are trusted by trustedFolder. tests/cli/checksum.test.ts checks it against a BigInt
 * implementation of the published algorithm for every length and alignment.
 */

import { readFileSync } from "node:fs";

/* The function h(p: i32, n: i32) -> i64 over memory[p, p + n) (memory imported as m.mem):
 *   h = n * m                                   (m = 0xc6a4a7935bd1e995, r = 47)
 *   for each 8-byte little-endian word k:  k *= m; k ^= k >>> r; k *= m; h ^= k; h *= m
 *   if n % 8 > 0:  h ^= the remaining bytes as a little-endian integer; h *= m
 *   h ^= h >>> r; h *= m; h ^= h >>> r
 * (MurmurHash64A with seed 0; all arithmetic modulo 2^64.) */
const WASM = new Uint8Array([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, // magic, version 1
  0x01, 0x07, 0x01, 0x60, 0x02, 0x7f, 0x7f, 0x01, 0x7e, // type section: (i32, i32) -> i64
  0x02, 0x0a, 0x01, 0x01, 0x6d, 0x03, 0x6d, 0x65, 0x6d, 0x02, 0x00, 0x00, // import section: memory "m" "mem", min 0 pages
  0x03, 0x02, 0x01, 0x00, // function section: one function of type 0
  0x07, 0x05, 0x01, 0x01, 0x68, 0x00, 0x00, // export section: function 0 as "h"
  0x0a, 0xca, 0x01, 0x01, 0xc7, 0x01, 0x02, 0x02, 0x7e, 0x02, 0x7f, // code section: one body; locals h, k: i64; end, t: i32
  0x20, 0x01, // local.get n
  0xad, // i64.extend_i32_u
  0x42, 0x95, 0xd3, 0xc7, 0xde, 0xb5, 0xf2, 0xa9, 0xd2, 0x46, // i64.const m
  0x7e, // i64.mul
  0x21, 0x02, // local.set h
  0x20, 0x00, // local.get p
  0x20, 0x01, // local.get n
  0x41, 0x78, // i32.const -8
  0x71, // i32.and
  0x6a, // i32.add
  0x21, 0x04, // local.set end
  0x02, 0x40, // block
  0x03, 0x40, //   loop (8-byte words)
  0x20, 0x00, // local.get p
  0x20, 0x04, // local.get end
  0x4f, // i32.ge_u
  0x0d, 0x01, // br_if 1 (done)
  0x20, 0x00, // local.get p
  0x29, 0x00, 0x00, // i64.load align=1
  0x42, 0x95, 0xd3, 0xc7, 0xde, 0xb5, 0xf2, 0xa9, 0xd2, 0x46, // i64.const m
  0x7e, // i64.mul
  0x22, 0x03, // local.tee k
  0x20, 0x03, // local.get k
  0x42, 0x2f, // i64.const 47
  0x88, // i64.shr_u
  0x85, // i64.xor
  0x42, 0x95, 0xd3, 0xc7, 0xde, 0xb5, 0xf2, 0xa9, 0xd2, 0x46, // i64.const m
  0x7e, // i64.mul
  0x20, 0x02, // local.get h
  0x85, // i64.xor
  0x42, 0x95, 0xd3, 0xc7, 0xde, 0xb5, 0xf2, 0xa9, 0xd2, 0x46, // i64.const m
  0x7e, // i64.mul
  0x21, 0x02, // local.set h
  0x20, 0x00, // local.get p
  0x41, 0x08, // i32.const 8
  0x6a, // i32.add
  0x21, 0x00, // local.set p
  0x0c, 0x00, // br 0 (next word)
  0x0b, //   end loop
  0x0b, // end block
  0x20, 0x01, // local.get n
  0x41, 0x07, // i32.const 7
  0x71, // i32.and
  0x22, 0x05, // local.tee t
  0x04, 0x40, // if (1-7 bytes left)
  0x42, 0x00, // i64.const 0
  0x21, 0x03, // local.set k
  0x02, 0x40, // block
  0x03, 0x40, //   loop (tail bytes, last first)
  0x20, 0x05, // local.get t
  0x45, // i32.eqz
  0x0d, 0x01, // br_if 1 (done)
  0x20, 0x03, // local.get k
  0x42, 0x08, // i64.const 8
  0x86, // i64.shl
  0x20, 0x04, // local.get end
  0x20, 0x05, // local.get t
  0x41, 0x01, // i32.const 1
  0x6b, // i32.sub
  0x22, 0x05, // local.tee t
  0x6a, // i32.add
  0x2d, 0x00, 0x00, // i32.load8_u
  0xad, // i64.extend_i32_u
  0x84, // i64.or
  0x21, 0x03, // local.set k
  0x0c, 0x00, // br 0
  0x0b, //   end loop
  0x0b, // end block
  0x20, 0x02, // local.get h
  0x20, 0x03, // local.get k
  0x85, // i64.xor
  0x42, 0x95, 0xd3, 0xc7, 0xde, 0xb5, 0xf2, 0xa9, 0xd2, 0x46, // i64.const m
  0x7e, // i64.mul
  0x21, 0x02, // local.set h
  0x0b, // end if
  0x20, 0x02, // local.get h
  0x20, 0x02, // local.get h
  0x42, 0x2f, // i64.const 47
  0x88, // i64.shr_u
  0x85, // i64.xor
  0x42, 0x95, 0xd3, 0xc7, 0xde, 0xb5, 0xf2, 0xa9, 0xd2, 0x46, // i64.const m
  0x7e, // i64.mul
  0x22, 0x02, // local.tee h
  0x20, 0x02, // local.get h
  0x42, 0x2f, // i64.const 47
  0x88, // i64.shr_u
  0x85, // i64.xor
  0x0b, // end function
]);

/** The members of the WebAssembly JS API used here (tsconfig's lib has no DOM types). */
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Memory: new (descriptor: { initial: number }) => { buffer: ArrayBuffer };
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
}
/** Node's global WebAssembly, absent under `node --jitless`. */
const wasm = (globalThis as { WebAssembly?: WasmApi }).WebAssembly;

type HashFn = (p: number, n: number) => bigint;
/**
 * State shared by every copy of this module in the process (the loader carries one, each program
 * another): the compiled module, once, and the hash function of each buffer made by hashableBuffer,
 * by its memory's ArrayBuffer, so a buffer the loader filled is hashed in place by the program.
 */
interface Shared {
  compiled?: object | null;
  /** Set when a memory could not be reserved: not tried again (each failed try costs 15-90 ms). */
  refused?: boolean;
  hashers: WeakMap<ArrayBuffer, HashFn>;
}
const slot = Symbol.for("knowledge-triage.checksum");
const shared: Shared = ((globalThis as Record<symbol, Shared | undefined>)[slot] ??= { hashers: new WeakMap() });
const hashers = shared.hashers;

/**
 * V8 reserves ~10 GiB of address space for each WebAssembly memory (guard regions for its bounds
 * checks), so under an address-space limit (`ulimit -v`) every reservation fails, after garbage
 * collections that cost 15-90 ms each. Linux states the limit in /proc/self/limits: below 64 GiB the
 * module is not even compiled (no start-up cache, at no cost). Elsewhere the first failure is
 * remembered. Source of the 10 GiB: V8's wasm::kFullGuardSize on 64-bit hosts.
 */
function addressSpaceLimited(): boolean {
  if (process.platform !== "linux") return false;
  try {
    const line = readFileSync("/proc/self/limits", "latin1").match(/^Max address space\s+(\S+)/m);
    return line !== null && line[1] !== "unlimited" && Number(line[1]) < 64 * 1024 ** 3;
  } catch {
    return false;
  }
}

/** The compiled module, or null where WebAssembly is unavailable (node --jitless) or refuses it. */
function hashModule(): object | null {
  if (shared.compiled === undefined) {
    try {
      shared.compiled = wasm && !addressSpaceLimited() ? new wasm.Module(WASM) : null;
    } catch {
      shared.compiled = null;
    }
  }
  return shared.compiled;
}

/**
 * True when checksum64 can work in this process (WebAssembly present, its module compiled, no memory
 * refused so far). The caches are neither read nor written without it. Never throws.
 */
export function checksumAvailable(): boolean {
  return hashModule() !== null && !shared.refused;
}

/**
 * A zero-filled buffer of `size` bytes (0 to 64 MiB) that checksum64 hashes where it lies (it is
 * WebAssembly linear memory): read a file into it to check it without a copy. Undefined when
 * WebAssembly is unavailable or the memory cannot be reserved (a tight `ulimit -v`). Never throws.
 */
export function hashableBuffer(size: number): Buffer | undefined {
  const mod = hashModule();
  if (!wasm || !mod || shared.refused || !Number.isInteger(size) || size < 0 || size > 64 * 1024 * 1024) return undefined;
  try {
    const mem = new wasm.Memory({ initial: Math.max(1, Math.ceil(size / 65536)) });
    const instance = new wasm.Instance(mod, { m: { mem } });
    hashers.set(mem.buffer, instance.exports.h as HashFn);
    return Buffer.from(mem.buffer, 0, size);
  } catch {
    shared.refused = true;
    return undefined;
  }
}

/**
 * MurmurHash64A (seed 0) of `bytes` as an unsigned 64-bit bigint: in place when `bytes` lies in a
 * buffer from hashableBuffer, else over a copy. Undefined when WebAssembly is unavailable (then the
 * caches are not used). Never throws.
 */
export function checksum64(bytes: Uint8Array): bigint | undefined {
  let h = hashers.get(bytes.buffer as ArrayBuffer);
  let at = bytes.byteOffset;
  if (!h) {
    const copy = hashableBuffer(bytes.length);
    if (!copy) return undefined;
    copy.set(bytes);
    h = hashers.get(copy.buffer as ArrayBuffer) as HashFn;
    at = 0;
  }
  try {
    return BigInt.asUintN(64, h(at, bytes.length));
  } catch {
    return undefined;
  }
}
