/**
 * Transcript archive: a byte-exact copy of each session's Claude Code transcript under
 * `<rulesDir>/archive/<session>/` (git-ignored by `archive/.gitignore`), kept up to date incrementally (transcripts are
 * append-only, references/claude-code.md §2), plus the redacted search index that `triage dig` reads (dig-index.ts).
 * The first copy is a copy-on-write clone where the file system has them (COPYFILE_FICLONE: btrfs, XFS, APFS) and a
 * plain copy otherwise; later runs append only the new bytes. A hard link is not used: it is the same file, so it
 * would not keep the transcript "as it was", and a rewrite in place would take the archive with it.
 * Retention: whole sessions, oldest first, by age and total size (ArchiveSettings, `archive/settings.json`); only folders
 * the archiver wrote (a valid `state.json`), never anything else a user keeps in the folder.
 * Every write stays inside the project: a symbolic link on the way out (the archive folder, a session folder, a file in
 * it) is refused before anything is written (state.ts assertResolveInside).
 */
import { closeSync, constants, copyFileSync, existsSync, fstatSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, readSync, rmSync, statSync, unlinkSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import * as z from "zod/mini";
import { makeGitIgnoredDir, replaceAtomically } from "../../io/write-files.js";
import { assertInsideRoot, assertResolveInside, writeRoot } from "../store/state.js";
import { updateIndex } from "./dig-index.js";

/** Folder name of the archive inside the rules folder. */
export const ARCHIVE_DIRNAME = "archive";
/** `.gitignore` of the archive folder: transcripts hold everything said and read in a session; never commit them. */
export const ARCHIVE_GITIGNORE = "# Written by knowledge-triage: raw session transcripts (may hold secrets); never commit them.\n*\n";

/**
 * Retention settings (`<rulesDir>/archive/settings.json`, all fields optional). Defaults: 1024 MB in total and 90
 * days since a session was last archived; 90 days is three times Claude Code's own transcript cleanup default
 * (cleanupPeriodDays 30, references/claude-code.md), so the archive outlives the originals.
 */
export const ArchiveSettingsSchema = z.object({
  maxMegabytes: z._default(z.number().check(z.positive()), 1024),
  maxDays: z._default(z.number().check(z.positive()), 90),
});
export type ArchiveSettings = z.infer<typeof ArchiveSettingsSchema>;

/** Per-session archive state (`archive/<session>/state.json`): which file is current and how far it was copied and indexed. */
const SessionStateSchema = z.object({
  file: z.string().check(z.regex(/^transcript(-\d+)?\.jsonl$/)),
  copied: z.int().check(z.nonnegative()),
  indexed: z.int().check(z.nonnegative()),
});
type SessionState = z.infer<typeof SessionStateSchema>;

/** What one archive run did. Sizes in bytes. */
export interface ArchiveReport {
  session: string;
  /** "cloned" (first copy), "appended", "unchanged", "restarted" (the transcript no longer matched: new file), "busy" (another run holds the lock). */
  copy: "cloned" | "appended" | "unchanged" | "restarted" | "busy";
  bytes: number;
  indexedMessages: number;
  removedSessions: string[];
}

/** Retention runs at most this often (ms): one hour. */
export const RETENTION_EVERY_MS = 3_600_000;

/** The archive folder of a rules folder. */
export const archiveDir = (rulesDir: string): string => join(rulesDir, ARCHIVE_DIRNAME);

/** Folder name of a session: its id with anything but [A-Za-z0-9_-] replaced, at most 100 chars. */
export const sessionDirName = (sessionId: string): string => sessionId.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 100) || "unknown";

/** Read and validate `archive/settings.json`; defaults when missing. Throws a one-line Error when it is invalid. */
export function loadArchiveSettings(rulesDir: string): ArchiveSettings {
  const p = join(archiveDir(rulesDir), "settings.json");
  if (!existsSync(p)) return ArchiveSettingsSchema.parse({});
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(p, "utf8"));
  } catch (e) {
    throw new Error(`${p}: not JSON (${(e as Error).message})`);
  }
  const r = ArchiveSettingsSchema.safeParse(raw);
  if (!r.success) throw new Error(`${p}: ${r.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`);
  return r.data;
}

function loadState(dir: string): SessionState | null {
  try {
    return SessionStateSchema.parse(JSON.parse(readFileSync(join(dir, "state.json"), "utf8")));
  } catch {
    return null;
  }
}

/**
 * Throw OutsideProjectError when a write of this session's archive would leave the project (writeRoot) through a
 * symbolic link: the rules folder chain and state folder (assertInsideRoot), the archive folder, its `.gitignore` and
 * retention marker, the session folder and every entry in it. Reads only.
 */
function assertArchiveInside(rulesDir: string, session: string): void {
  assertInsideRoot(rulesDir);
  const root = archiveDir(rulesDir);
  const dir = join(root, session);
  const paths = [root, join(root, ".gitignore"), join(root, ".retention"), dir];
  assertResolveInside(paths, root, writeRoot(rulesDir));
  let entries: string[] = [];
  try {
    entries = readdirSync(dir);
  } catch {
    entries = [];
  }
  assertResolveInside(entries.map((f) => join(dir, f)), root, writeRoot(rulesDir));
}

/** Create the archive folder with its `.gitignore` and return its path. */
function ensureArchiveDir(rulesDir: string): string {
  return makeGitIgnoredDir(archiveDir(rulesDir), ARCHIVE_GITIGNORE);
}

/** True when `dst` (of `len` bytes) equals the first `len` bytes of `src`, checked on the last 4 KiB. */
function samePrefix(src: number, dst: number, len: number): boolean {
  const n = Math.min(len, 4096);
  const a = Buffer.alloc(n);
  const b = Buffer.alloc(n);
  return readSync(src, a, 0, n, len - n) === n && readSync(dst, b, 0, n, len - n) === n && a.equals(b);
}

/** Append src[from, to) to the file descriptor `out`, in 1 MiB chunks. */
function appendRange(src: number, out: number, from: number, to: number): void {
  const buf = Buffer.allocUnsafe(1 << 20);
  let pos = from;
  while (pos < to) {
    const n = readSync(src, buf, 0, Math.min(buf.length, to - pos), pos);
    if (n === 0) break;
    writeSync(out, buf, 0, n);
    pos += n;
  }
}

/** A lock younger than this (ms) is respected; an older one is left over from a killed run and taken over. */
const LOCK_STALE_MS = 120_000;

function tryLock(file: string): boolean {
  try {
    writeFileSync(file, `${process.pid}\n`, { flag: "wx" });
    return true;
  } catch {
    try {
      if (Date.now() - statSync(file).mtimeMs < LOCK_STALE_MS) return false;
      unlinkSync(file);
      writeFileSync(file, `${process.pid}\n`, { flag: "wx" });
      return true;
    } catch {
      return false;
    }
  }
}

/**
 * Bring the archive of one session up to date with its transcript: clone or copy it the first time, append the new
 * bytes later (after checking the archived bytes still match the transcript; when they do not, the old copy is kept
 * and a new file `transcript-N.jsonl` starts), index the new complete lines (redacted), then apply retention.
 * Never waits: when another run holds the session's lock it returns `copy: "busy"`. Throws fs errors and an invalid
 * settings file; OutsideProjectError (written nothing) when a symbolic link would take a write out of the project
 * (assertArchiveInside). The hook logs them and exits 0.
 */
export async function archiveTranscript(opts: { transcriptPath: string; rulesDir: string; sessionId: string; now?: Date }): Promise<ArchiveReport> {
  const session = sessionDirName(opts.sessionId);
  assertArchiveInside(opts.rulesDir, session);
  const settings = loadArchiveSettings(opts.rulesDir);
  const dir = join(ensureArchiveDir(opts.rulesDir), session);
  mkdirSync(dir, { recursive: true });
  const lock = join(dir, "lock");
  const report: ArchiveReport = { session, copy: "busy", bytes: 0, indexedMessages: 0, removedSessions: [] };
  if (!tryLock(lock)) return report;
  try {
    let state = loadState(dir);
    const src = openSync(opts.transcriptPath, "r");
    try {
      const size = fstatSync(src).size;
      if (state && existsSync(join(dir, state.file))) {
        const dst = openSync(join(dir, state.file), "r+");
        try {
          const have = fstatSync(dst).size;
          if (have <= size && samePrefix(src, dst, have)) {
            if (have < size) {
              const out = openSync(join(dir, state.file), "a");
              try {
                appendRange(src, out, have, size);
              } finally {
                closeSync(out);
              }
              report.copy = "appended";
              report.bytes = size - have;
            } else report.copy = "unchanged";
            state = { ...state, copied: size };
          } else {
            const taken = new Set(readdirSync(dir));
            let k = 2;
            while (taken.has(`transcript-${k}.jsonl`)) k++;
            state = { file: `transcript-${k}.jsonl`, copied: 0, indexed: 0 };
            report.copy = "restarted";
          }
        } finally {
          closeSync(dst);
        }
      } else {
        state = { file: state?.file ?? "transcript.jsonl", copied: 0, indexed: 0 };
        report.copy = "cloned";
      }
      if (report.copy === "cloned" || report.copy === "restarted") {
        const target = join(dir, state.file);
        // COPYFILE_FICLONE: a copy-on-write clone where supported, a plain copy otherwise.
        copyFileSync(opts.transcriptPath, target, constants.COPYFILE_FICLONE);
        state = { ...state, copied: statSync(target).size };
        report.bytes = state.copied;
      }
    } finally {
      closeSync(src);
    }
    const idx = await updateIndex(join(dir, state.file), join(dir, "index.jsonl"), state.indexed, state.file);
    report.indexedMessages = idx.messages;
    state = { ...state, indexed: idx.indexed };
    replaceAtomically(join(dir, "state.json"), `${JSON.stringify(state)}\n`);
  } finally {
    try {
      unlinkSync(lock);
    } catch {
      // already gone
    }
  }
  // Retention stats every archived file: at most once per RETENTION_EVERY_MS (marker `archive/.retention`), not on every hook run.
  const now = opts.now ?? new Date();
  const marker = join(archiveDir(opts.rulesDir), ".retention");
  let last = 0;
  try {
    last = statSync(marker).mtimeMs;
  } catch {
    last = 0;
  }
  if (now.getTime() - last >= RETENTION_EVERY_MS) {
    writeFileSync(marker, "");
    report.removedSessions = applyRetention(opts.rulesDir, settings, session, now);
  }
  return report;
}

/** One archived session: its folder name, total bytes and when it was last archived (ms since epoch). */
export interface ArchivedSession {
  session: string;
  bytes: number;
  mtimeMs: number;
}

/**
 * The sessions in the archive with their sizes, newest first. [] when there is no archive. A session is a real folder
 * (not a symbolic link) holding the archiver's valid `state.json`; anything else in the archive folder is not ours
 * and is never listed, so retention never removes it.
 */
export function listArchive(rulesDir: string): ArchivedSession[] {
  const root = archiveDir(rulesDir);
  let names: string[];
  try {
    names = readdirSync(root, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name);
  } catch {
    return [];
  }
  const out: ArchivedSession[] = [];
  for (const session of names) {
    const dir = join(root, session);
    if (loadState(dir) === null) continue;
    let bytes = 0;
    let mtimeMs = 0;
    for (const f of readdirSync(dir)) {
      const st = lstatSync(join(dir, f));
      bytes += st.size;
      mtimeMs = Math.max(mtimeMs, st.mtimeMs);
    }
    out.push({ session, bytes, mtimeMs });
  }
  return out.sort((a, b) => b.mtimeMs - a.mtimeMs);
}

/**
 * Remove whole sessions (never `keep`): first those last archived more than `maxDays` ago, then the oldest until the
 * archive is within `maxMegabytes` (MiB). Only the archiver's own session folders count (listArchive). Returns the
 * removed session folder names; throws OutsideProjectError (nothing removed) when the archive folder leads out of the
 * project through a symbolic link.
 */
export function applyRetention(rulesDir: string, settings: ArchiveSettings, keep: string, now: Date): string[] {
  assertResolveInside([archiveDir(rulesDir)], archiveDir(rulesDir), writeRoot(rulesDir));
  const all = listArchive(rulesDir);
  const removed: string[] = [];
  const maxAge = settings.maxDays * 86_400_000;
  let total = all.reduce((n, s) => n + s.bytes, 0);
  for (const s of [...all].reverse()) {
    if (s.session === keep) continue;
    if (now.getTime() - s.mtimeMs > maxAge || total > settings.maxMegabytes * 1024 * 1024) {
      rmSync(join(archiveDir(rulesDir), s.session), { recursive: true, force: true });
      total -= s.bytes;
      removed.push(s.session);
    }
  }
  return removed;
}
