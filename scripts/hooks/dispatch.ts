/**
 * Hook entry for Claude Code (`triage hook <event>`): read the payload from stdin, validate it with zod
 * (unknown fields allowed), extract rules from the transcript, print plain text where the event wants it.
 * Never blocks the agent: every failure is caught, logged (capped file in the state folder) and reported
 * as ONE stderr line; the process exits 0. Never prints JSON (PreCompact stdout goes into the summariser's
 * prompt; JSON there is either appended raw or fails validation: references/claude-code.md §1.3).
 * PreCompact and SessionStart extract under a deadline (HOOK_EXTRACT_BUDGET_MS) so they finish inside their
 * hook timeout; a run stopped there writes what it finished (at least one batch of user messages, so the next
 * run gets further) and says so in its one stderr line.
 */
import { spawn } from "node:child_process";
import { appendFileSync, existsSync, renameSync, statSync, type Stats } from "node:fs";
import { dirname, isAbsolute, join } from "node:path";
import { HOOK_EVENTS, type HookEvent, type HookPayload, HookSkip, hookEventOf, parsePayload, readStdin, STDIN_DEADLINE_MS, STDIN_MAX_BYTES, type StdinRead } from "./payload.js";
import { writeStdout } from "../io/text-io.js";
import { defaultRulesDir, stateDir } from "../paths.js";
import { assertInsideRoot, ensureStateDir } from "../memory/store/state.js";
import type { StepCtx } from "./extract-step.js";
import { redactSync } from "../memory/redact.js";
import { notAProjectFolder, projectDirFrom } from "../io/project-folders.js";
import { fileKind, fsReason, looksLikeTranscript } from "../io/read-files.js";

/** Log file cap in bytes; the previous log is kept once as hook.log.1. */
export const HOOK_LOG_MAX_BYTES = 256 * 1024;
const PAYLOAD_ENV = "KNOWLEDGE_TRIAGE_HOOK_PAYLOAD";

interface Ctx extends StepCtx {
  event: HookEvent | string;
  t0: number;
}


/**
 * Project folder: $CLAUDE_PROJECT_DIR (the launch root), else the project of the payload's cwd (projectDirFrom: up to
 * the repository root). HookSkip unless it is an absolute, existing folder other than the filesystem root, the home folder
 * or a folder inside Claude Code's configuration folder (io/project-folders.ts notAProjectFolder).
 */
function projectDirOf(payload: HookPayload): string {
  const dir = process.env.CLAUDE_PROJECT_DIR || payload.cwd || "";
  if (!isAbsolute(dir)) throw new HookSkip("no absolute project folder (CLAUDE_PROJECT_DIR or cwd); nothing to do");
  let st: Stats;
  try {
    st = statSync(dir);
  } catch (e) {
    // Never create a project folder: a stale or mistyped cwd must not get a .claude/ tree.
    const code = (e as NodeJS.ErrnoException).code;
    throw new HookSkip(`project folder ${dir} ${code === "ENOENT" ? "does not exist" : `cannot be used: ${fsReason(dir, e)}`}; nothing written`);
  }
  if (!st.isDirectory()) throw new HookSkip(`project folder ${dir} is not a folder (a ${fileKind(st)}); nothing written`);
  // `.claude/rules/` of the home folder is Claude Code's user level (loaded in every project); of / likewise for all.
  const not = notAProjectFolder(dir);
  if (not) throw new HookSkip(`project folder ${dir} is ${not}, not a project; nothing written`);
  // Claude Code sets CLAUDE_PROJECT_DIR; without it, a cwd in a subfolder maps to the project as the CLI finds it.
  return process.env.CLAUDE_PROJECT_DIR ? dir : projectDirFrom(dir);
}

/**
 * The transcript path from the payload, or a HookSkip when it is absent, empty, missing or a 0-byte file, or not a
 * Claude Code transcript (not a regular file, or read-files.ts looksLikeTranscript, the check `triage extract` makes):
 * then nothing of it is archived or read (a payload naming /etc/passwd copies nothing) and one warning is logged
 * into an existing state folder.
 */
function transcriptOf(ctx: Ctx, payload: HookPayload): string {
  const p = payload.transcript_path ?? "";
  if (p === "") throw new HookSkip("no transcript_path in payload; nothing to do");
  let st: Stats;
  try {
    st = statSync(p);
  } catch {
    throw new HookSkip("transcript_path does not exist yet; nothing to do");
  }
  if (st.size === 0) throw new HookSkip("no transcript content (0-byte file); nothing to do");
  if (!st.isFile() || looksLikeTranscript(p) !== true) {
    const message = `transcript_path ${p} is not a Claude Code transcript; not archived or read`;
    log(ctx, `warning: ${message}`, false, false);
    throw new HookSkip(message);
  }
  return p;
}

/** The state folder `dir` (`<rulesDir>/.state`), created with its `.gitignore` (state.ts ensureStateDir). */
const makeStateDir = (dir: string): string => ensureStateDir(dirname(dir));

/** One line, secrets redacted, at most 400 chars. */
function oneLine(s: string): string {
  const flat = redactSync(s.replace(/\s+/g, " ").trim());
  return flat.length > 400 ? `${flat.slice(0, 399)}…` : flat;
}

/**
 * Append to <state>/hook.log, rotating at HOOK_LOG_MAX_BYTES; silently gives up (read-only folder).
 * Only errors and warnings are logged, each message starting "error: " or "warning: " (what `triage status` counts,
 * status-report.ts), so three identical runs leave identical bytes (references/cases.md BL-19);
 * `debug` lines only with KNOWLEDGE_TRIAGE_HOOK_DEBUG=1. With `create` false nothing is written unless the state
 * folder exists (a transcript with no rules leaves no folder behind).
 */
function log(ctx: Ctx, message: string, debug = false, create = true): void {
  if (!ctx.stateDir || (debug && process.env.KNOWLEDGE_TRIAGE_HOOK_DEBUG !== "1")) return;
  try {
    if (!create && !existsSync(ctx.stateDir)) return;
    makeStateDir(ctx.stateDir);
    const file = join(ctx.stateDir, "hook.log");
    if (existsSync(file) && statSync(file).size > HOOK_LOG_MAX_BYTES) renameSync(file, `${file}.1`);
    const ms = Date.now() - ctx.t0;
    const sid = ctx.payload?.session_id ?? "-";
    appendFileSync(file, `${new Date().toISOString()} ${ctx.event} session=${oneLine(sid)} ${ms}ms ${oneLine(message)}\n`);
  } catch {
    // The log is best effort: a read-only rules folder must not turn into a failing hook.
  }
}

/**
 * The payload of a stdin read: parsed as usual when stdin ended; when it did not end within STDIN_DEADLINE_MS, a
 * complete payload that already arrived is still used, anything else is refused with one line.
 */
function parsePayloadRead(input: StdinRead): HookPayload {
  if (input.ended) return parsePayload(input.bytes);
  try {
    return parsePayload(input.bytes);
  } catch {
    throw new Error(`stdin not closed within ${STDIN_DEADLINE_MS / 1000} s and no complete payload arrived; ignored`);
  }
}

/** Spawn `hook session-end-worker` detached (its own process group, stdio ignored) and return at once. */
function spawnWorker(p: HookPayload): void {
  const entry = process.argv[1] ?? "";
  const keep = { session_id: p.session_id, transcript_path: p.transcript_path, cwd: p.cwd, reason: p.reason };
  const child = spawn(process.execPath, [...process.execArgv, entry, "hook", "session-end-worker"], {
    detached: true,
    stdio: "ignore",
    windowsHide: true,
    env: { ...process.env, [PAYLOAD_ENV]: JSON.stringify(keep) },
  });
  child.on("error", () => {});
  child.unref();
}

async function dispatch(ctx: Ctx, out: (s: string) => void): Promise<void> {
  if (!(HOOK_EVENTS as readonly string[]).includes(ctx.event)) {
    throw new HookSkip(`unknown hook event '${ctx.event}' (expected ${HOOK_EVENTS.slice(0, 3).join(", ")}, or PreCompact, SessionStart, SessionEnd)`);
  }
  const input =
    ctx.event === "session-end-worker" ? { bytes: Buffer.from(process.env[PAYLOAD_ENV] ?? ""), overCap: false, ended: true } : await readStdin();
  if (input.overCap) throw new Error(`payload over ${STDIN_MAX_BYTES} bytes on stdin; stopped reading there and ignored it`);
  const payload = parsePayloadRead(input);
  ctx.payload = payload;
  const projectDir = projectDirOf(payload);
  const rulesDir = defaultRulesDir(projectDir);
  // A symbolic link on the rules path that leads out of the project: write nothing at all (not even the log).
  assertInsideRoot(rulesDir, projectDir);
  ctx.stateDir = stateDir(rulesDir);

  if (ctx.event === "session-end") {
    transcriptOf(ctx, payload);
    spawnWorker(payload);
    log(ctx, "handed extraction to a detached worker", true);
    return;
  }
  if (ctx.event === "session-start" && payload.source && payload.source !== "compact") return;
  // Without a usable transcript there is nothing to extract, but the rules already pinned still count (the worker: nothing to do).
  let transcript: string | null = null;
  try {
    transcript = transcriptOf(ctx, payload);
  } catch (e) {
    if (!(e instanceof HookSkip) || ctx.event === "session-end-worker") throw e;
    ctx.note = e.message;
  }
  // Loaded only for the events that extract: session-end above must return before any of it is initialised.
  const { runExtractingEvent } = await import("./extract-step.js");
  await runExtractingEvent(ctx.event as "pre-compact" | "session-start" | "session-end-worker", ctx, payload, projectDir, rulesDir, transcript, out);
}

/**
 * Run one hook event end to end. Never throws and never sets a failing exit code: expected skips and
 * errors become one stderr line (errors are also logged); stdout gets only plain text (never JSON).
 */
export async function runHook(name: string): Promise<void> {
  const event = hookEventOf(name);
  const ctx: Ctx = { event, t0: Date.now(), log: (message, debug, create) => log(ctx, message, debug, create) };
  const onCrash = (e: unknown): void => {
    log(ctx, `uncaught: ${(e as Error)?.message ?? String(e)}`);
  };
  process.on("uncaughtException", onCrash);
  process.on("unhandledRejection", onCrash);
  let text = "";
  try {
    await dispatch(ctx, (s) => {
      text = s;
    });
    if (text.trimStart().startsWith("{")) text = ""; // defensive: JSON on stdout would be parsed as hook output
    if (text) writeStdout(text);
    if (ctx.note) process.stderr.write(`triage hook ${oneLine(event)}: ${oneLine(ctx.note)}\n`);
    log(ctx, `ok stdout=${text.length}`, true);
  } catch (e) {
    const msg = (e as Error)?.message ?? String(e);
    if (!(e instanceof HookSkip)) log(ctx, `error: ${msg}`);
    try {
      process.stderr.write(`triage hook ${oneLine(String(event))}: ${oneLine(msg)}\n`);
    } catch {
      // stderr closed: nothing left to tell.
    }
  }
}
