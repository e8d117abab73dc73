/**
 * What the bundle's loader (withLoader in scripts/build.mjs) tells the program: the build id (a
 * content hash of the programs), the start-up cache folder (null when caches are off), whether to
 * print cache hits and misses, and, for the classify fast path (scripts/classify-main.ts), a function
 * that runs the full CLI on the same arguments. Absent under tsx, vitest and the plain bench bundles.
 */
export interface LoaderInfo {
  readonly build: string;
  readonly cacheDir: string | null;
  readonly debug: boolean;
  readonly runFullProgram?: () => void;
}

declare const __kt_loader: LoaderInfo | undefined;

/** The loader's info when running from dist/triage.mjs, else undefined. */
export function loaderInfo(): LoaderInfo | undefined {
  return typeof __kt_loader === "undefined" ? undefined : __kt_loader;
}

/** True for the values that turn a switch off: 0, false, no, off (any case). */
export function isOff(value: string | undefined): boolean {
  return /^(0|false|no|off)$/i.test(value ?? "");
}
