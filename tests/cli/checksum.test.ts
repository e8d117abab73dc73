/**
 * The start-up caches' checksum (scripts/checksum.ts): the hand-assembled WebAssembly function must
 * compute MurmurHash64A exactly, for every length and alignment, in place and over a copy.
 */
import { describe, expect, it } from "vitest";
import { checksum64, hashableBuffer } from "../../scripts/checksum.js";

const M = 0xc6a4a7935bd1e995n;
const MASK = (1n << 64n) - 1n;
/** MurmurHash64A with seed 0, written from the published algorithm (SMHasher's MurmurHash2.cpp) with BigInt. */
function reference(buf: Uint8Array): bigint {
  const n = buf.length;
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  let h = (BigInt(n) * M) & MASK;
  const words = n - (n % 8);
  for (let i = 0; i < words; i += 8) {
    let k = view.getBigUint64(i, true);
    k = (k * M) & MASK;
    k ^= k >> 47n;
    k = (k * M) & MASK;
    h ^= k;
    h = (h * M) & MASK;
  }
  if (n % 8) {
    let k = 0n;
    for (let i = n - 1; i >= words; i--) k = (k << 8n) | BigInt(buf[i] as number);
    h ^= k;
    h = (h * M) & MASK;
  }
  h ^= h >> 47n;
  h = (h * M) & MASK;
  h ^= h >> 47n;
  return h;
}

/** Deterministic pseudo-random bytes (xorshift32). */
function bytes(n: number, seed: number): Uint8Array {
  const out = new Uint8Array(n);
  let s = seed || 1;
  for (let i = 0; i < n; i++) {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    out[i] = s & 0xff;
  }
  return out;
}

describe("checksum64", () => {
  it("is MurmurHash64A for every length 0-80 and at every offset 0-8", () => {
    for (let n = 0; n <= 80; n++) {
      for (let off = 0; off <= 8; off++) {
        const data = bytes(n, n * 31 + off + 1);
        const buf = hashableBuffer(off + n) as Buffer;
        buf.set(data, off);
        expect(checksum64(buf.subarray(off, off + n))).toBe(reference(data));
      }
    }
  });

  it("hashes a plain buffer (over a copy) the same as in place, and long inputs too", () => {
    for (const n of [1000, 65_535, 65_536, 65_537, 300_001]) {
      const data = bytes(n, n);
      const inPlace = hashableBuffer(n) as Buffer;
      inPlace.set(data);
      const want = reference(data);
      expect(checksum64(inPlace)).toBe(want);
      expect(checksum64(Buffer.from(data))).toBe(want);
      expect(checksum64(data)).toBe(want);
    }
  });

  it("changes when any one bit of the input flips", () => {
    const data = bytes(4099, 7);
    const base = checksum64(data);
    for (let i = 0; i < data.length; i += 97) {
      for (const bit of [0, 3, 7]) {
        const copy = Uint8Array.from(data);
        copy[i] = (copy[i] as number) ^ (1 << bit);
        expect(checksum64(copy)).not.toBe(base);
      }
    }
  });

  it("hashableBuffer gives zero-filled buffers of the size asked, and refuses bad sizes", () => {
    const b = hashableBuffer(70_000) as Buffer;
    expect(b.length).toBe(70_000);
    expect(b.every((x) => x === 0)).toBe(true);
    expect(hashableBuffer(0)?.length).toBe(0);
    expect(hashableBuffer(-1)).toBeUndefined();
    expect(hashableBuffer(1.5)).toBeUndefined();
    expect(hashableBuffer(65 * 1024 * 1024)).toBeUndefined();
  });
});
