/**
 * What the bundle's loader (withLoader in scripts/build.mjs) carries from scripts/, bundled into it as
 * the global __kt_parts: it runs before any program is compiled. trustedFolder checks the cache
 * folder, checksum64 and hashableBuffer check the code cache, and startClassifyReadAhead starts
 * reading the model cache for `triage classify` while the loader reads and compiles the program. The
 * programs carry their own copies of these modules; the checksum's compiled module and buffers and
 * the read-ahead are shared between the copies (through Symbol.for slots on globalThis).
 */
export { checksum64, checksumAvailable, hashableBuffer } from "./checksum.js";
export { startClassifyReadAhead } from "./model-cache-read-ahead.js";
export { trustedFolder } from "./trusted-folder.js";
