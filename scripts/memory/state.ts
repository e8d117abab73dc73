/**
 * I/O of the extraction state in `<rulesDir>/.state/` (JSON only, never .md, because Claude Code loads
 * every `.md` under `.claude/rules/` recursively, research/integration.md §4): the rule store
 * `rules.json`, per-session cursors `sessions/<id>.json`, and the lock. Writes are atomic
 * (temp file + rename in the same folder) and skipped when the bytes would not change.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync, openSync, readSync, closeSync, unlinkSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve, sep } from "node:path";
import { TriageError } from "../errors.js";
import { CursorSchema, StoreSchema, emptyStore, type Cursor, type Store } from "./schema.js";

/**
 * True when `rulesDir` is inside the user-level rules folder (`$CLAUDE_CONFIG_DIR/rules` or `~/.claude/rules`),
 * where Claude Code ignores `paths:` frontmatter (anthropics/claude-code#22170, #57722; cases.md BL-30).
 */
export function isUserRulesDir(rulesDir: string): boolean {
  const cfg = process.env.CLAUDE_CONFIG_DIR || join(homedir(), ".claude");
  const base = resolve(cfg, "rules");
  const r = resolve(rulesDir);
  return r === base || r.startsWith(base + sep);
}

/** The state folder of a rules folder: `<rulesDir>/.state`. */
export function stateDir(rulesDir: string): string {
  return join(rulesDir, ".state");
}

/** The lock could not be taken in time (another session is extracting). Exit 1; hooks log it and exit 0. */
export class LockBusyError extends TriageError {
  constructor(message: string) {
    super(message, "LOCK_BUSY", 1);
  }
}

/** A state file exists but does not parse (it is left untouched and not overwritten). */
export class StateError extends TriageError {
  constructor(message: string) {
    super(message, "STATE_INVALID", 1);
  }
}

/**
 * Write `data` to `path` atomically (temp file `<path>.<pid>.<n>.tmp` in the same folder, then rename).
 * Returns false (and writes nothing) when the file already holds exactly these bytes.
 */
let tmpCounter = 0;
export function writeIfChanged(path: string, data: string): boolean {
  try {
    if (readFileSync(path, "utf8") === data) return false;
  } catch {
    // missing: write it
  }
  const tmp = `${path}.${process.pid}.${++tmpCounter}.tmp`;
  try {
    writeFileSync(tmp, data);
    renameSync(tmp, path);
  } catch (e) {
    try {
      unlinkSync(tmp);
    } catch {
      // nothing to clean
    }
    throw e;
  }
  return true;
}

/** Stable JSON (2-space indent, trailing newline). Key order is the insertion order of the built objects. */
export function toJson(v: unknown): string {
  return `${JSON.stringify(v, null, 2)}\n`;
}

/** Load `rules.json` (empty store when missing). Throws StateError when it exists but is invalid. */
export function loadStore(rulesDir: string): Store {
  const p = join(stateDir(rulesDir), "rules.json");
  if (!existsSync(p)) return emptyStore();
  try {
    return StoreSchema.parse(JSON.parse(readFileSync(p, "utf8")));
  } catch (e) {
    throw new StateError(`${p} is not a valid knowledge-triage store (${(e as Error).message.split("\n")[0]}); fix or delete it`);
  }
}

/** Save `rules.json` atomically if changed (validated with StoreSchema first). Returns true when written. */
export function saveStore(rulesDir: string, store: Store): boolean {
  const dir = stateDir(rulesDir);
  mkdirSync(dir, { recursive: true });
  return writeIfChanged(join(dir, "rules.json"), toJson(StoreSchema.parse(store)));
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
  mkdirSync(join(stateDir(rulesDir), "sessions"), { recursive: true });
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

/**
 * Take the rules-folder lock (proper-lockfile on `<state>/lock`), retrying for about 1.5 s in total so a
 * hook never stalls (BL-29); a lock older than 10 s is stale (its holder died). Returns the release function.
 * Throws LockBusyError when another process holds it.
 */
export async function acquireLock(rulesDir: string): Promise<() => Promise<void>> {
  const dir = stateDir(rulesDir);
  try {
    mkdirSync(dir, { recursive: true });
  } catch (e) {
    throw new TriageError(`cannot write the rules folder ${rulesDir}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, "RULES_DIR_UNWRITABLE", 1);
  }
  const { default: lockfile } = await import("proper-lockfile");
  try {
    return await lockfile.lock(dir, {
      lockfilePath: join(dir, "lock"),
      realpath: false,
      stale: 10_000,
      update: 2_000,
      retries: { retries: 12, factor: 1.3, minTimeout: 40, maxTimeout: 200, randomize: true },
      onCompromised: () => {
        // The lock was taken over as stale; our atomic writes keep files whole either way.
      },
    });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ELOCKED") throw new LockBusyError(`rules folder is locked by another triage process (${dir}/lock); try again`);
    throw new TriageError(`cannot lock ${dir}: ${code ?? (e as Error).message}`, "LOCK_FAILED", 1);
  }
}
