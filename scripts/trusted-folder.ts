/**
 * The one rule for where the start-up caches may live. Imports only Node built-ins: the bundle's
 * loader (scripts/build.mjs, withLoader) carries this very function, bundled from this file, because it
 * must check the code cache folder before any program is compiled.
 */
import { lstatSync, realpathSync } from "node:fs";
import { dirname, resolve } from "node:path";

/**
 * The real path of `dir` when the start-up caches may use it, else null: a folder this user owns that
 * no one else may write to, reached through folders that each belong to root or this user and that
 * others may write to only with the sticky bit (as /tmp), and through no symbolic link that another
 * user made: otherwise
 * another user could plant bytecode or model tables, or swap the folder between this check and its
 * use (the rule OpenSSH applies to its configuration files). Callers use the returned real path, so a
 * symbolic link swapped in later is not followed; they check again right before each use, since a
 * folder missing when the process started could be made by someone else meanwhile. Without user ids
 * (Windows) only "an existing folder" is checked. Never throws.
 */
export function trustedFolder(dir: string): string | null {
  try {
    const real = realpathSync(dir);
    const uid = process.getuid?.();
    const own = lstatSync(real);
    if (!own.isDirectory()) return null;
    if (uid === undefined) return real;
    // A symbolic link on the way that someone else made (in a shared /tmp, say) could point anywhere.
    for (let p = resolve(dir); ; p = dirname(p)) {
      const st = lstatSync(p);
      if (st.isSymbolicLink() && st.uid !== 0 && st.uid !== uid) return null;
      if (p === dirname(p)) break;
    }
    if (own.uid !== uid || (own.mode & 0o022) !== 0) return null;
    for (let d = dirname(real); ; d = dirname(d)) {
      const st = lstatSync(d);
      if ((st.uid !== 0 && st.uid !== uid) || ((st.mode & 0o022) !== 0 && (st.mode & 0o1000) === 0)) return null;
      if (d === dirname(d)) return real;
    }
  } catch {
    return null;
  }
}
