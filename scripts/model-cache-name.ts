/**
 * Naming of model cache files (scripts/model-cache.ts), in a module of its own with no imports, so
 * the classify fast path can find the file before the rest of the program initialises
 * (scripts/model-cache-read-ahead.ts).
 */
import type { BigIntStats } from "node:fs";

/** Larger model cache files are not read (a model with 30,000 terms caches to about 1 MB). */
export const MODEL_CACHE_MAX_BYTES = 64 * 1024 * 1024;

/** Bump when the byte layout of a model cache file changes (encodeModelCache). */
export const MODEL_CACHE_LAYOUT = 4;

/** The cache key of one version of a model file for one program build. */
export function modelCacheKey(st: BigIntStats, build: string): string {
  return `${MODEL_CACHE_LAYOUT}|${build}|${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`;
}

/** File name of a key's cache: "model-" + 16 hex digits (two FNV-1a 32-bit hashes) + ".ktmodel". */
export function modelCacheName(key: string): string {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ 0x5bd1e995;
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x01000193) ^ (b >>> 15);
  }
  return `model-${(a >>> 0).toString(16).padStart(8, "0")}${(b >>> 0).toString(16).padStart(8, "0")}.ktmodel`;
}
