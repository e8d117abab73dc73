/**
 * I/O of the extraction state in `<rulesDir>/.state/` (JSON only, never .md, because Claude Code loads
 * every `.md` under `.claude/rules/` recursively, references/claude-code.md §3): the rule store
 * `rules.json`, per-session cursors `sessions/<id>.json`, and the lock (`lock/`, see acquireLock). Writes are atomic
 * (temp file + rename in the same folder) and skipped when the bytes would not change.
 */
import { createHash, randomBytes } from "node:crypto";
import { closeSync, existsSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, readlinkSync, readSync, realpathSync, renameSync, rmSync, statSync, unlinkSync, utimesSync, writeFileSync } from "node:fs";
import { homedir, hostname } from "node:os";
import { dirname, join, resolve, sep } from "node:path";
import { CursorSchema, StoreSchema, emptyStore, type Cursor, type Store } from "./store-schema.js";
import { fsReason, INPUT_MAX_BYTES, readFileCapped } from "../../io/read-files.js";
import { makeDirs, makeGitIgnoredDir, processAlive, replaceAtomically } from "../../io/write-files.js";
import { LockBusyError, OutsideProjectError, StateError, TriageError } from "../../errors.js";
import { isInsideDir, stateDir } from "../../paths.js";

/** Re-exported: the classes live with the other error classes in scripts/errors.ts. */
export { LockBusyError, StateError };

/**
 * True when `rulesDir` is inside the user-level rules folder (`$CLAUDE_CONFIG_DIR/rules` or `~/.claude/rules`),
 * where Claude Code ignores `paths:` frontmatter (references/claude-code.md §3; references/cases.md BL-30).
 */
export function isUserRulesDir(rulesDir: string): boolean {
  const cfg = process.env.CLAUDE_CONFIG_DIR || join(homedir(), ".claude");
  const base = resolve(cfg, "rules");
  const r = resolve(rulesDir);
  return isInsideDir(r, base);
}

export { stateDir };

/**
 * The boundary writes into `rulesDir` must stay inside: for the default layout `<project>/.claude/rules/knowledge-triage`
 * the project folder, else the rules folder itself (a folder the user named explicitly).
 */
export function writeRoot(rulesDir: string): string {
  const r = resolve(rulesDir);
  const tail = join(".claude", "rules", "knowledge-triage");
  return r.endsWith(sep + tail) ? r.slice(0, r.length - tail.length - 1) || sep : r;
}

/** Real path of `p`, or null when it does not exist (a dangling link counts as existing: its target is reported). */
function realOrNull(p: string): string | null {
  try {
    lstatSync(p);
  } catch {
    return null;
  }
  try {
    return realpathSync(p);
  } catch {
    return resolve(dirname(p), readlinkSync(p));
  }
}

/**
 * Refuse to write through a symbolic link that leaves `root` (default writeRoot(rulesDir)): every existing folder
 * from `root` down to `rulesDir`, the state folder with its `sessions/`, `hooks/` and `lock/`, and the hook log
 * (appended to, so a link would be followed) must resolve to
 * a path inside the real path of `root`. Links that stay inside are fine, as are links above `root` (`/tmp` on
 * macOS). Throws OutsideProjectError naming the link and where it leads; reads only.
 */
export function assertInsideRoot(rulesDir: string, root: string = writeRoot(rulesDir)): void {
  const top = resolve(root);
  const r = resolve(rulesDir);
  const st = stateDir(r);
  const chain: string[] = [];
  for (let d = r; d.startsWith(top) && d !== dirname(d); d = dirname(d)) {
    chain.push(d);
    if (d === top) break;
  }
  assertResolveInside([...chain.reverse(), st, join(st, "sessions"), join(st, "hooks"), join(st, "lock"), join(st, "hook.log")], r, top);
}

/**
 * Throw OutsideProjectError when one of `paths` exists and resolves (symbolic links followed) outside the real path of
 * `root`; `writingInto` names the folder in the message. Paths that do not exist yet pass. Reads only.
 */
export function assertResolveInside(paths: readonly string[], writingInto: string, root: string): void {
  const top = resolve(root);
  const realTop = realOrNull(top) ?? top;
  for (const p of paths) {
    const real = realOrNull(p);
    if (real !== null && !isInsideDir(real, realTop)) {
      throw new OutsideProjectError(`refusing to write into ${writingInto}: ${p} leads to ${real}, outside ${top} (a symbolic link)`);
    }
  }
}

/** Text of the `.gitignore` written into the state folder: none of it (cursors with absolute transcript paths, the hook log, the lock) belongs in git, even when a team commits `.claude/rules/`. */
export const STATE_GITIGNORE = "# Written by knowledge-triage: machine-local state (cursors, hook log, lock); never commit it.\n*\n";

/**
 * Create the state folder of `rulesDir` (and its parents) with its `.gitignore` (STATE_GITIGNORE) and return its
 * path. Only the writers that keep something there call it (not the lock), so a run that keeps nothing can remove
 * the folder again. Throws the fs error of makeDirs; the `.gitignore` itself is best effort.
 */
export function ensureStateDir(rulesDir: string): string {
  return makeGitIgnoredDir(stateDir(rulesDir), STATE_GITIGNORE);
}
/**
 * Write `data` to `path` atomically (temp file `<path>.<pid>.<n>.tmp` in the same folder, then rename).
 * Returns false (and writes nothing) when the file already holds exactly these bytes.
 */
export function writeIfChanged(path: string, data: string): boolean {
  try {
    // Capped, regular files only: a FIFO in the way must not block the comparison forever.
    if (readFileCapped(path, { maxBytes: INPUT_MAX_BYTES }).toString("utf8") === data) return false;
  } catch {
    // missing or not a regular file: write it
  }
  replaceAtomically(path, data);
  return true;
}

/** Stable JSON (2-space indent, trailing newline). Key order is the insertion order of the built objects. */
export function toJson(v: unknown): string {
  return `${JSON.stringify(v, null, 2)}\n`;
}

/**
 * The last `rules.json` text this process validated with StoreSchema (read by loadStore or made by storeJson) and
 * the store it holds. A hook reads the store up to four times (the extraction, its final save, the two pinned-rule
 * listings of hook-output.ts); a text already validated is not parsed by zod again (tens of ms each in a fresh
 * process), only copied. Keyed by the whole text, so any other bytes on disk are parsed in full.
 */
let validated: { text: string; store: Store } | undefined;

/** Load `rules.json` (empty store when missing). Throws StateError when it exists but is invalid. */
export function loadStore(rulesDir: string): Store {
  const p = join(stateDir(rulesDir), "rules.json");
  if (!existsSync(p)) return emptyStore();
  try {
    const text = readFileSync(p, "utf8");
    if (validated?.text === text) return structuredClone(validated.store);
    const store = StoreSchema.parse(JSON.parse(text));
    validated = { text, store: structuredClone(store) };
    return store;
  } catch (e) {
    throw new StateError(`${p} is not a valid knowledge-triage store (${(e as Error).message.split("\n")[0]}); fix or delete it`);
  }
}

/**
 * Load `rules.json` for an extraction run: like loadStore, but a corrupt store is not an error. It is moved
 * aside to `rules.json.corrupt-<UTC time>` (kept, never deleted; with `keepAside` false it is left in place, for
 * dry runs) and an empty store is returned, which the run rebuilds from the rule files as when the state folder
 * is missing (rule-files.ts recoverFromFiles). `now` names the file. Returns the store and, then, a warning.
 */
export function loadStoreForRun(rulesDir: string, keepAside: boolean, now: Date = new Date()): { store: Store; warning?: string } {
  try {
    return { store: loadStore(rulesDir) };
  } catch (e) {
    if (!(e instanceof StateError)) throw e;
    const p = join(stateDir(rulesDir), "rules.json");
    if (!keepAside) return { store: emptyStore(), warning: `${p} is corrupt; rebuilding the rules from the rule files` };
    const aside = `${p}.corrupt-${now.toISOString().replace(/[:.]/g, "-")}`;
    renameSync(p, aside);
    return { store: emptyStore(), warning: `${p} was corrupt: kept as ${aside}; rules rebuilt from the rule files` };
  }
}

/** The bytes saveStore writes for `store` (validated with StoreSchema first; throws its error). */
export function storeJson(store: Store): string {
  const text = toJson(StoreSchema.parse(store));
  validated = { text, store: JSON.parse(text) as Store };
  return text;
}

/** Save `rules.json` atomically if changed (validated with StoreSchema first, or the text of storeJson). Returns true when written. */
export function saveStore(rulesDir: string, store: Store | string): boolean {
  const dir = ensureStateDir(rulesDir);
  return writeIfChanged(join(dir, "rules.json"), typeof store === "string" ? store : storeJson(store));
}

/** True when `rules.json` already holds exactly `text` (storeJson of a store). */
export function storeSaved(rulesDir: string, text: string): boolean {
  try {
    return readFileSync(join(stateDir(rulesDir), "rules.json"), "utf8") === text;
  } catch {
    return false;
  }
}

/**
 * Save the in-flight store of a run (crash consistency, store-schema.ts `pending`/`prev`) atomically: `store`
 * with `pending`. Not parsed with StoreSchema (about 100 ms for a few hundred rules): it was parsed on load and
 * changed only by our own typed code, and the run's final saveStore parses it; a bad journal would fail that
 * parse on the next load, which then rebuilds from the rule files (loadStoreForRun).
 */
export function saveJournal(rulesDir: string, store: Store, pending: Cursor): void {
  const dir = ensureStateDir(rulesDir);
  writeIfChanged(join(dir, "rules.json"), toJson({ ...store, pending }));
}

function cursorPath(rulesDir: string, sessionId: string): string {
  const safe = sessionId.replace(/[^A-Za-z0-9._-]/g, "_").slice(0, 120) || "session";
  return join(stateDir(rulesDir), "sessions", `${safe}.json`);
}

/** Load a session cursor, or null when missing or invalid (an invalid cursor means: start again). */
export function loadCursor(rulesDir: string, sessionId: string): Cursor | null {
  try {
    return CursorSchema.parse(JSON.parse(readFileSync(cursorPath(rulesDir, sessionId), "utf8")));
  } catch {
    return null;
  }
}

/** Save a session cursor atomically if changed. */
export function saveCursor(rulesDir: string, c: Cursor): boolean {
  const p = cursorPath(rulesDir, c.sessionId);
  makeDirs(join(ensureStateDir(rulesDir), "sessions"));
  return writeIfChanged(p, toJson(CursorSchema.parse(c)));
}

/** Bytes hashed at each end of the read prefix to recognise the same file. */
export const PREFIX_PROBE = 4096;

/**
 * sha256 of the first and of the last PREFIX_PROBE bytes of `[0, offset)` of a file (reads at most 8 KiB).
 * Together with `size >= offset` this detects a truncated, rewritten or different transcript.
 */
export function prefixHashes(path: string, offset: number): { headHash: string; tailHash: string } {
  const fd = openSync(path, "r");
  try {
    const read = (start: number, len: number): Buffer => {
      const b = Buffer.alloc(len);
      const n = readSync(fd, b, 0, len, start);
      return b.subarray(0, n);
    };
    const headLen = Math.min(PREFIX_PROBE, offset);
    const tailStart = Math.max(0, offset - PREFIX_PROBE);
    const h = (b: Buffer): string => createHash("sha256").update(b).digest("hex");
    return { headHash: h(read(0, headLen)), tailHash: h(read(tailStart, offset - tailStart)) };
  } finally {
    closeSync(fd);
  }
}

/** Temp files of replaceAtomically (`<name>.<pid>.<n>.tmp`, write-files.ts). */
const TEMP_RE = /^.+\.(\d+)\.\d+\.tmp$/;

/**
 * Remove temp files a killed writer left in the rules folder, the state folder and its `sessions/` (names of
 * replaceAtomically's form whose pid is no longer alive; another live process's file is left alone). Call it
 * holding the lock. Returns how many were removed; never throws.
 */
export function removeStrayTemps(rulesDir: string): number {
  let n = 0;
  const st = stateDir(rulesDir);
  for (const dir of [rulesDir, st, join(st, "sessions")]) {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      continue;
    }
    for (const name of names) {
      const m = TEMP_RE.exec(name);
      if (!m || (Number(m[1]) !== process.pid && processAlive(Number(m[1])))) continue;
      try {
        unlinkSync(join(dir, name));
        n++;
      } catch {
        // gone meanwhile, or not ours to remove
      }
    }
  }
  return n;
}

/** Default time (ms) `acquireLock` waits for a busy lock: the CLI's budget; hooks pass HOOK_LOCK_WAIT_MS. */
export const LOCK_WAIT_MS = 30_000;
/** Lock wait of a hook (ms): well inside Claude Code's 30 s hook timeout (references/claude-code.md §1.4). */
export const HOOK_LOCK_WAIT_MS = 10_000;
/** A lock folder without a readable owner file older than this (ms) is stale (its holder died before writing it). */
export const LOCK_STALE_NO_OWNER_MS = 3_000;
/** A lock whose owner file was not refreshed for this long (ms) is stale even if its pid is alive (pid reuse, other host). */
export const LOCK_STALE_HEARTBEAT_MS = 30_000;
/** How often (ms) the holder refreshes its owner file's mtime. */
export const LOCK_HEARTBEAT_MS = 1_000;

/** Owner record written into `<state>/lock/owner.json` by the holder. */
interface LockOwner {
  pid: number;
  host: string;
  token: string;
}

function readOwner(lockDir: string): { owner: LockOwner | null; mtimeMs: number } | null {
  let mtimeMs: number;
  try {
    mtimeMs = statSync(lockDir).mtimeMs;
  } catch {
    return null; // gone: free
  }
  try {
    const file = join(lockDir, "owner.json");
    const o = JSON.parse(readFileSync(file, "utf8")) as LockOwner;
    if (typeof o.pid !== "number" || typeof o.token !== "string") return { owner: null, mtimeMs };
    return { owner: o, mtimeMs: statSync(file).mtimeMs };
  } catch {
    return { owner: null, mtimeMs };
  }
}

/**
 * True when a lock is stale: its holder's pid is dead (same host), its owner file was not refreshed for
 * LOCK_STALE_HEARTBEAT_MS, or it has no owner file and is older than LOCK_STALE_NO_OWNER_MS (a holder
 * killed between mkdir and writing the owner, or a lock left by an older version).
 */
export function lockIsStale(info: { owner: LockOwner | null; mtimeMs: number }, now = Date.now()): boolean {
  if (!info.owner) return now - info.mtimeMs > LOCK_STALE_NO_OWNER_MS;
  if (info.owner.host === hostname() && !processAlive(info.owner.pid)) return true;
  return now - info.mtimeMs > LOCK_STALE_HEARTBEAT_MS;
}

/** Move a stale lock aside (atomic rename, so only one waiter wins) and delete it; true when it was removed. */
function breakStaleLock(lockDir: string, seen: LockOwner | null): boolean {
  const aside = `${lockDir}.stale.${process.pid}.${randomBytes(4).toString("hex")}`;
  try {
    renameSync(lockDir, aside);
  } catch {
    return false; // another waiter moved it first, or it was released
  }
  const moved = readOwner(aside);
  if ((moved?.owner?.token ?? null) !== (seen?.token ?? null)) {
    // It changed hands between our check and the rename: give it back if the place is still free.
    try {
      renameSync(aside, lockDir);
      return false;
    } catch {
      // someone else holds the lock now; the moved one is dropped below
    }
  }
  rmSync(aside, { recursive: true, force: true });
  return true;
}

/** The lock could not be taken because the run was interrupted while waiting. */
function abortedError(signal?: AbortSignal): Error {
  const r = signal?.reason;
  return r instanceof Error ? r : new TriageError("interrupted while waiting for the rules folder lock", "INTERRUPTED", 1);
}

const sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((res) => {
    const t = setTimeout(done, ms);
    function done(): void {
      clearTimeout(t);
      signal?.removeEventListener("abort", done);
      res();
    }
    signal?.addEventListener("abort", done, { once: true });
  });

/**
 * Take the rules-folder lock `<state>/lock` (a folder made with mkdir, atomic; an `owner.json` inside holds
 * pid, host and a random token, its mtime refreshed every LOCK_HEARTBEAT_MS). A busy lock is retried with
 * exponential backoff (25 ms x 1.5, max 500 ms, jittered) for up to `waitMs` (default LOCK_WAIT_MS); a stale
 * lock (lockIsStale: dead pid, or no heartbeat) is broken at once. Returns the release function (idempotent;
 * removes the lock only while it is still ours). Throws LockBusyError after `waitMs`, the abort reason of
 * `signal`, or TriageError RULES_DIR_UNWRITABLE / LOCK_FAILED.
 */
export async function acquireLock(rulesDir: string, opts: { waitMs?: number; signal?: AbortSignal } = {}): Promise<() => Promise<void>> {
  const dir = stateDir(rulesDir);
  try {
    makeDirs(dir);
  } catch (e) {
    throw new TriageError(`cannot write the rules folder ${rulesDir}: ${fsReason(dir, e)}`, "RULES_DIR_UNWRITABLE", 1);
  }
  const lockDir = join(dir, "lock");
  const deadline = Date.now() + (opts.waitMs ?? LOCK_WAIT_MS);
  let delay = 25;
  for (;;) {
    if (opts.signal?.aborted) throw abortedError(opts.signal);
    try {
      mkdirSync(lockDir);
      const owner: LockOwner = { pid: process.pid, host: hostname(), token: randomBytes(8).toString("hex") };
      const ownerFile = join(lockDir, "owner.json");
      writeFileSync(ownerFile, `${JSON.stringify(owner)}\n`);
      const beat = setInterval(() => {
        try {
          const t = new Date();
          utimesSync(ownerFile, t, t);
        } catch {
          // lock broken by someone else: release will notice
        }
      }, LOCK_HEARTBEAT_MS);
      beat.unref();
      let released = false;
      return async () => {
        if (released) return;
        released = true;
        clearInterval(beat);
        const cur = readOwner(lockDir);
        if (cur?.owner?.token !== owner.token) return; // taken over as stale: not ours to remove
        rmSync(lockDir, { recursive: true, force: true });
      };
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === "ENOENT") {
        // A run that kept nothing removed the empty state folder meanwhile: make it again and retry.
        try {
          makeDirs(dir);
          continue;
        } catch {
          // fall through to LOCK_FAILED
        }
      }
      if (code !== "EEXIST") throw new TriageError(`cannot lock ${dir}: ${fsReason(lockDir, e)}`, "LOCK_FAILED", 1);
    }
    const info = readOwner(lockDir);
    if (info === null) continue; // released in between: try again at once
    if (lockIsStale(info) && breakStaleLock(lockDir, info.owner)) continue;
    const left = deadline - Date.now();
    if (left <= 0) throw new LockBusyError(`rules folder is locked by another triage process (${lockDir}${info.owner ? `, pid ${info.owner.pid}` : ""}); try again`);
    await sleep(Math.min(left, delay * (0.75 + Math.random() * 0.5)), opts.signal);
    delay = Math.min(500, delay * 1.5);
  }
}
