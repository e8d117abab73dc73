/**
 * Writing files: creating folders (mkdir -p), replacing a file atomically, and refusing to overwrite
 * an input or an existing file the user did not ask to replace.
 */
import { existsSync, lstatSync, mkdirSync, readdirSync, readlinkSync, realpathSync, renameSync, rmSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { isInsideDir } from "../paths.js";
import { UsageError, WriteError } from "../errors.js";
import { fsReason } from "./read-files.js";

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

const errCode = (e: unknown): string => (e as NodeJS.ErrnoException)?.code ?? (e as Error)?.message ?? String(e);

/**
 * Write a file atomically: write a temp file beside it, then rename over the target (parent folders
 * are created). Throws WriteError (`cannot write <path>: <errno code>`) on any failure; the temp file
 * is removed and the target left as it was.
 */
export function writeFileAtomic(path: string, data: string | Uint8Array): void {
  try {
    if (statSync(path).isDirectory()) throw new WriteError(path, "EISDIR");
  } catch (e) {
    if (e instanceof WriteError) throw e;
  }
  try {
    makeDirs(dirname(resolve(path)));
  } catch (e) {
    // mkdir -p reports a file in the way of a parent folder as EEXIST: say what it means.
    throw new WriteError(path, fsReason(path, errCode(e) === "EEXIST" ? "ENOTDIR" : e));
  }
  try {
    replaceAtomically(path, data);
  } catch (e) {
    throw new WriteError(path, fsReason(path, e));
  }
}


/** Device + inode of an existing path (symlinks followed), or null when it does not exist. */
function fileIdentity(path: string): string | null {
  try {
    const st = statSync(path);
    return `${st.dev}:${st.ino}`;
  } catch {
    return null;
  }
}

/** True when `a` and `b` name the same file: same resolved path, or same device + inode (symlink, hard link). */
export function sameFile(a: string, b: string): boolean {
  if (resolve(a) === resolve(b)) return true;
  const ia = fileIdentity(a);
  return ia !== null && ia === fileIdentity(b);
}

/** Options of `refuseOverwrite`: the `--force` flag, the command's input files, and existing files it owns. */
export interface OverwriteOptions {
  /** `--force` was given: allow overwriting anything but a folder. */
  force?: boolean;
  /** Input files of the command (never overwritten without --force, even when `owned` accepts them). */
  inputs?: readonly string[];
  /** Existing files the command may replace without --force (its own earlier output, e.g. a retrained model). */
  owned?: (path: string) => boolean;
}

/**
 * The shared "refuse to overwrite" rule of every command that writes a user-named path (the `--force`
 * convention). Throws UsageError naming `path` when it would overwrite one of `inputs`, or an existing
 * file that `owned` does not accept, unless `force`; WriteError (EISDIR) when it is a folder.
 */
export function refuseOverwrite(path: string, opts: OverwriteOptions = {}): void {
  let st: ReturnType<typeof statSync> | null = null;
  try {
    st = statSync(path);
  } catch {
    st = null;
  }
  if (st?.isDirectory()) throw new WriteError(path, "EISDIR");
  if (opts.force) return;
  if ((opts.inputs ?? []).some((i) => i !== "-" && sameFile(i, path))) {
    throw new UsageError(`refusing to overwrite ${path}: it is an input file (use --force to allow)`);
  }
  if (st && !(opts.owned?.(path) ?? false)) throw new UsageError(`refusing to overwrite existing file ${path} (use --force to overwrite)`);
}

/**
 * The real path of `path` as far as it exists: its nearest existing folder with links resolved, plus the part not
 * created yet ("out/new/AGENTS.md" under a missing "out/new" resolves "out" and keeps "new/AGENTS.md").
 */
export function realPathOf(path: string): string {
  const full = resolve(path);
  let dir = full;
  while (!existsSync(dir) && dirname(dir) !== dir) dir = dirname(dir);
  try {
    return join(realpathSync(dir), relative(dir, full));
  } catch {
    return full;
  }
}

/**
 * Where a write to `path` lands: `path` itself when it is not a symbolic link; when it is one, the file it points to
 * (so the link stays a link; a dangling link's target is created), provided that file is inside folder `root` (the
 * project). Throws WriteError `<path>: it is a symbolic link to <target>, outside the project (<command> writes only
 * inside <root>)` otherwise, and WriteError "a loop of symbolic links" for a link that never reaches a file. The rule `triage export` and `compact -o` share.
 */
export function linkTarget(path: string, root: string, command: string): string {
  let isLink = false;
  try {
    isLink = lstatSync(path).isSymbolicLink();
  } catch {
    // missing: created as a plain file
  }
  if (!isLink) return path;
  let target: string;
  try {
    target = realpathSync(path);
  } catch (e) {
    // A loop of links has no file at its end: writing would replace one of the links with a file.
    if ((e as NodeJS.ErrnoException).code === "ELOOP") throw new WriteError(path, "ELOOP");
    try {
      target = resolve(dirname(path), readlinkSync(path)); // a dangling link: its target is created
    } catch (e) {
      throw new WriteError(path, fsReason(path, e));
    }
    // A dangling link may be one of a chain: refuse what cannot be resolved to a plain path inside.
    target = realPathOf(target);
  }
  const realRoot = realPathOf(root);
  if (!isInsideDir(target, realRoot)) {
    throw new WriteError(path, `it is a symbolic link to ${target}, outside the project (${command} writes only inside ${realRoot})`);
  }
  return target;
}

/** True when `path` exists as a name, whatever it is: a dangling link or a loop of links counts (lstat). */
function nameExists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * The topmost folder of `dir` (itself or an ancestor) that does not exist yet, or null when `dir` exists. A symbolic
 * link exists even when it leads nowhere: it is the user's, never taken for a folder this run created (and removed).
 */
function firstMissing(dir: string): string | null {
  let missing: string | null = null;
  for (let cur = resolve(dir); !nameExists(cur); cur = dirname(cur)) {
    missing = cur;
    if (dirname(cur) === cur) break;
  }
  return missing;
}

/** True when process `pid` is alive on this machine (signal 0; EPERM means it exists). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Write `files` ([name, text or bytes] pairs, in that order) into folder `dir` all or nothing: every file goes into a temp folder
 * `<dir>/.decompose-<pid>.tmp` first and is renamed into place only when all were written. On failure the temp
 * folder, and `dir` itself when this run created it, are removed (WriteError names the file). Temp folders left
 * by a killed run (their process is gone) are removed first.
 */
export function writeAllOrNothing(dir: string, files: readonly [string, string | Uint8Array][]): void {
  const created = firstMissing(dir);
  const tmp = join(dir, `.decompose-${process.pid}.tmp`);
  let current = dir;
  let done = false;
  try {
    makeDirs(dir);
    for (const name of readdirSync(dir)) {
      const m = /^\.decompose-(\d+)\.tmp$/.exec(name);
      if (m && !processAlive(Number(m[1]))) rmSync(join(dir, name), { recursive: true, force: true });
    }
    makeDirs(tmp);
    for (const [name, text] of files) {
      current = join(dir, name);
      writeFileSync(join(tmp, name), text);
    }
    for (const [name] of files) {
      current = join(dir, name);
      renameSync(join(tmp, name), join(dir, name));
    }
    done = true;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw typeof code === "string" ? new WriteError(current, fsReason(current, e)) : e;
  } finally {
    // Best effort: where the temp folder could not be made (a file or a link loop in the way), there is nothing to remove.
    for (const d of done || created === null ? [tmp] : [tmp, created]) {
      try {
        rmSync(d, { recursive: true, force: true });
      } catch {
        // not there
      }
    }
  }
}

/**
 * Create `dir` (and its parents, like makeDirs) holding a `.gitignore` with `gitignore` as its text, and return
 * `dir`: for folders of machine-local files that must never reach git. Throws the fs error of makeDirs; the
 * `.gitignore` itself is best effort (never overwritten; another run may write it meanwhile, a folder may be read-only).
 */
export function makeGitIgnoredDir(dir: string, gitignore: string): string {
  makeDirs(dir);
  const ignore = join(dir, ".gitignore");
  if (!existsSync(ignore)) {
    try {
      writeFileSync(ignore, gitignore, { flag: "wx" });
    } catch {
      // written meanwhile by another run, or a read-only folder: nothing to add
    }
  }
  return dir;
}
