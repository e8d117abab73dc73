/**
 * The two file-system primitives the project writes with: creating folders (mkdir -p) and replacing
 * a file atomically. Imports only Node built-ins.
 */
import { mkdirSync, renameSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";

/**
 * Create a folder and its missing parents, like `mkdir -p`; an existing folder is fine. Not
 * fs.mkdirSync's recursive mode: Node 20's loops forever where mkdir answers ENOENT although the
 * parent exists (any path under /proc, e.g. with HOME=/proc). `mode` applies to the folders created.
 * Throws the first error (EACCES, ENOTDIR, ENOENT, ...) as an ErrnoException.
 */
export function makeDirs(dir: string, mode?: number): void {
  const missing: string[] = [];
  let cur = resolve(dir);
  for (;;) {
    let st: ReturnType<typeof statSync> | undefined;
    try {
      st = statSync(cur);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
    }
    if (st) {
      if (st.isDirectory()) break;
      throw Object.assign(new Error(`ENOTDIR: not a directory, mkdir '${cur}'`), { code: "ENOTDIR", path: cur });
    }
    missing.push(cur);
    const parent = dirname(cur);
    if (parent === cur) break;
    cur = parent;
  }
  for (const d of missing.reverse()) {
    try {
      mkdirSync(d, mode === undefined ? {} : { mode });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
    }
  }
}

let tmpCounter = 0;
/**
 * Replace `path` with `data` (text as UTF-8, or bytes) atomically: write `<path>.<pid>.<n>.tmp` in
 * the same folder (created with `mode` when given, e.g. 0o600), then rename over the target (readers
 * see the old or the new bytes, never a torn file). On failure the temp file is removed and the raw
 * fs error is rethrown. The one atomic-write primitive of the project.
 */
export function replaceAtomically(path: string, data: string | Uint8Array, mode?: number): void {
  const tmp = `${path}.${process.pid}.${++tmpCounter}.tmp`;
  try {
    writeFileSync(tmp, data, mode === undefined ? undefined : { mode });
    renameSync(tmp, path);
  } catch (e) {
    try {
      unlinkSync(tmp);
    } catch {
      // nothing to clean
    }
    throw e;
  }
}
