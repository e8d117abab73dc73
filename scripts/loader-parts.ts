/**
 * What the bundle's loader (withLoader in scripts/build.mjs) carries from scripts/, bundled into it as
 * the global __kt_parts: it runs before any program is compiled. trustedFolder checks the cache
 * folder, readCodeCache and storeCodeCache read and write the code cache, checksumAvailable says
 * whether they can, and startClassifyReadAhead starts reading the model cache for `triage classify`
 * while the loader reads and compiles the program. The programs carry their own copies of these
 * modules; the checksum's compiled module and buffers and the read-ahead are shared between the
 * copies (through Symbol.for slots on globalThis).
 */
export { checksumAvailable } from "./checksum.js";
export { readCodeCache, storeCodeCache } from "./code-cache.js";
export { startClassifyReadAhead } from "./model-cache-read-ahead.js";
export { trustedFolder } from "./trusted-folder.js";
