/**
 * Where the project's files are, from this module's own location (one level above scripts/ in
 * development, above dist/ in the bundle), and whether a cache folder is private. Only Node built-ins
 * are imported, so the classify fast path can use it before the rest of the program initialises.
 */
import { statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The project root: the folder holding model/. */
export function projectRoot(): string {
  return resolve(dirname(fileURLToPath(import.meta.url)), "..");
}

/** Default model path: <root>/model/model.json. */
export function defaultModelPath(): string {
  return resolve(projectRoot(), "model", "model.json");
}

/**
 * True when `dir` is a folder this user owns and no one else may write to (no group or other write
 * bit): the only kind the start-up caches read from or write to. Checked right before each use, since
 * a folder missing when the process started could be made by someone else meanwhile. Always true for
 * an existing folder on systems without user ids (Windows). Never throws.
 */
export function isPrivateFolder(dir: string): boolean {
  try {
    const st = statSync(dir);
    return st.isDirectory() && (!process.getuid || (st.uid === process.getuid() && (st.mode & 0o022) === 0));
  } catch {
    return false;
  }
}
