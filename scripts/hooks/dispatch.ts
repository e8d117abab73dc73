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
import { appendFileSync, existsSync, readFileSync, renameSync, statSync, } from "node:fs";
import { dirname, isAbsolute, join } from "node:path";
import { HOOK_EVENTS, type HookEvent, type HookPayload, HookSkip, hookEventOf, parsePayload, readStdin, STDIN_MAX_BYTES } from "./payload.js";
import { regexClassifier, type Classifier } from "../engine/classify.js";
import { loadClassifier, loadUtteranceScorer } from "../io/model-file.js";
import { lazyUtterance, type UtteranceScorer } from "../memory/utterance-model.js";
import { makeDirs, replaceAtomically } from "../io/write-files.js";
import { writeStdout } from "../io/text-io.js";
import { precompactText, SESSIONSTART_HEAD } from "./hook-output.js";
import { defaultRulesDir, stateDir } from "../paths.js";
import { extractTranscript, lazyClassifier, type ExtractReport } from "../memory/pipeline/extract-api.js";
import { deadlineAfter, type Deadline } from "../memory/pipeline/deadline.js";
import { assertInsideRoot, ensureStateDir, HOOK_LOCK_WAIT_MS } from "../memory/store/state.js";
import { redactSync } from "../memory/redact.js";
import { archiveStep, hasArchive } from "./archive-step.js";
import { digCommandOf, readWorkingState, renderWorkingState, sessionStartText } from "./working-state.js";
import { projectDirFrom } from "../io/project-folders.js";

/** Log file cap in bytes; the previous log is kept once as hook.log.1. */
export const HOOK_LOG_MAX_BYTES = 256 * 1024;
/** A PreCompact marker younger than this (ms) counts as "PreCompact ran for this compaction" without prompt_id. */
const MARKER_FRESH_MS = 10 * 60 * 1000;
/**
 * Time budget (ms) of the extraction in a hook that Claude Code waits for (pre-compact, session-start), counted
 * from process start. Our hooks.json and the installer give both hooks `"timeout": 30` (seconds); Claude Code
 * cancels a hook at its timeout and discards its output (references/claude-code.md §1.4; without a `timeout` the
 * default is 600 s, and SessionEnd hooks share 1.5 s, which is why session-end hands off to a worker). 20 s
 * leaves 10 s for what follows the stop: writing the rule files and the sidecar, printing, exiting.
 */
export const HOOK_EXTRACT_BUDGET_MS = 20_000;
const PAYLOAD_ENV = "KNOWLEDGE_TRIAGE_HOOK_PAYLOAD";

interface Ctx {
  event: HookEvent | string;
  t0: number;
  /** A "nothing to extract" reason that still let the hook print: reported as the one stderr line. */
  note?: string;
  payload?: HookPayload;
  stateDir?: string;
}


/** Project folder: $CLAUDE_PROJECT_DIR (the launch root), else the payload's cwd; must be absolute. */
function projectDirOf(payload: HookPayload): string {
  const dir = process.env.CLAUDE_PROJECT_DIR || payload.cwd || "";
  if (!isAbsolute(dir)) throw new HookSkip("no absolute project folder (CLAUDE_PROJECT_DIR or cwd); nothing to do");
  let isDir = false;
  try {
    isDir = statSync(dir).isDirectory();
  } catch {
    isDir = false;
  }
  // Never create a project folder: a stale or mistyped cwd must not get a .claude/ tree.
  if (!isDir) throw new HookSkip(`project folder ${dir} does not exist; nothing written`);
  // Claude Code sets CLAUDE_PROJECT_DIR; without it, a cwd in a subfolder maps to the project as the CLI finds it.
  return process.env.CLAUDE_PROJECT_DIR ? dir : projectDirFrom(dir);
}

/** The transcript path from the payload, or a HookSkip when it is absent, empty, missing or a 0-byte file. */
function transcriptOf(payload: HookPayload): string {
  const p = payload.transcript_path ?? "";
  if (p === "") throw new HookSkip("no transcript_path in payload; nothing to do");
  let size: number;
  try {
    size = statSync(p).size;
  } catch {
    throw new HookSkip("transcript_path does not exist yet; nothing to do");
  }
  if (size === 0) throw new HookSkip("no transcript content (0-byte file); nothing to do");
  return p;
}

/** The state folder `dir` (`<rulesDir>/.state`), created with its `.gitignore` (state.ts ensureStateDir). */
const makeStateDir = (dir: string): string => ensureStateDir(dirname(dir));

const safeName = (s: string): string => s.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 100) || "unknown";

/** One line, secrets redacted, at most 400 chars. */
function oneLine(s: string): string {
  const flat = redactSync(s.replace(/\s+/g, " ").trim());
  return flat.length > 400 ? `${flat.slice(0, 399)}…` : flat;
}

/**
 * Append to <state>/hook.log, rotating at HOOK_LOG_MAX_BYTES; silently gives up (read-only folder).
 * Only errors and warnings are logged (so three identical runs leave identical bytes, references/cases.md BL-19);
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
 * The classifier for one hook run, loaded lazily (lazyClassifier): a run with nothing new in the transcript
 * never reads the model. A model that fails to load falls back to the regex tier (logged in debug mode).
 */
function classifier(ctx: Ctx): Classifier {
  return lazyClassifier(() => {
    try {
      const c = loadClassifier();
      log(ctx, `classifier loaded: ${c.name}`, true);
      return c;
    } catch (e) {
      log(ctx, `model not loaded (${(e as Error).message}); using the regex tier`, true);
      return regexClassifier;
    }
  });
}

/**
 * The sentence model for one hook run, loaded on first use. A missing or invalid model/utterance.json gives
 * no evidence either way (logit 0: the cues and the line classifier decide alone) and a log line, so the hook
 * still extracts what the cues find.
 */
function utterance(ctx: Ctx): UtteranceScorer {
  return lazyUtterance(() => {
    try {
      return loadUtteranceScorer();
    } catch (e) {
      log(ctx, `sentence model unavailable (${(e as Error).message}); using the cues alone`, false);
      return { logit: () => 0 };
    }
  });
}

/**
 * Extract the transcript into the rules folder. With a `deadline` the run stops there at a safe point and the
 * stop becomes the hook's one stderr line (ctx.note) as well as a log line (the first warning).
 */
async function extract(ctx: Ctx, transcriptPath: string, rulesDir: string, deadline?: Deadline): Promise<ExtractReport> {
  const report = await extractTranscript({
    transcriptPath,
    rulesDir,
    sessionId: ctx.payload?.session_id,
    classifier: classifier(ctx),
    utterance: utterance(ctx),
    lockWaitMs: lockWaitMs(),
    deadline,
  });
  for (const w of report.warnings.slice(0, 5)) log(ctx, `warning: ${w}`, false, false);
  if (report.stoppedAt) ctx.note = report.warnings[0];
  log(ctx, `extracted: lines=${report.linesRead} skipped=${report.linesSkipped} kept=${report.kept} added=${report.added} retired=${report.retired}`, true);
  return report;
}

/**
 * Lock wait of a hook run (ms): HOOK_LOCK_WAIT_MS, or KNOWLEDGE_TRIAGE_HOOK_LOCK_WAIT_MS (0 to 25,000) for tests.
 * Six hooks firing at once on one project queue behind each other instead of dropping their rules.
 */
function lockWaitMs(): number {
  const v = Number(process.env.KNOWLEDGE_TRIAGE_HOOK_LOCK_WAIT_MS);
  return Number.isFinite(v) && v >= 0 && v <= 25_000 && process.env.KNOWLEDGE_TRIAGE_HOOK_LOCK_WAIT_MS !== "" && process.env.KNOWLEDGE_TRIAGE_HOOK_LOCK_WAIT_MS !== undefined ? v : HOOK_LOCK_WAIT_MS;
}

/**
 * The extraction deadline of a hook Claude Code waits for: HOOK_EXTRACT_BUDGET_MS after process start (the
 * origin of performance.now(), the closest we get to when Claude Code started the clock), or
 * KNOWLEDGE_TRIAGE_HOOK_BUDGET_MS (0 to HOOK_EXTRACT_BUDGET_MS) for tests: 0 stops at the first safe point that
 * moves the cursor forward (after the first batch of user messages, which a run always finishes).
 */
function hookDeadline(): Deadline {
  const raw = process.env.KNOWLEDGE_TRIAGE_HOOK_BUDGET_MS;
  const v = Number(raw);
  const ms = raw !== undefined && raw !== "" && Number.isFinite(v) && v >= 0 && v <= HOOK_EXTRACT_BUDGET_MS ? v : HOOK_EXTRACT_BUDGET_MS;
  return deadlineAfter(ms, { startMs: 0 });
}

function markerPath(stateDir: string, sessionId: string): string {
  return join(stateDir, "hooks", `${safeName(sessionId)}.precompact.json`);
}

/** Record that PreCompact extracted for this session/prompt (no timestamp inside: same input, same bytes). */
function writeMarker(stateDir: string, p: HookPayload): void {
  const file = markerPath(stateDir, p.session_id ?? "unknown");
  makeDirs(join(makeStateDir(stateDir), "hooks"));
  // Replaced, never written through: a link planted at this name is replaced, not followed.
  replaceAtomically(file, `${JSON.stringify({ session_id: p.session_id ?? null, prompt_id: p.prompt_id ?? null })}\n`);
}

/** True when PreCompact ran for the compaction this SessionStart(compact) follows (same prompt_id, or fresh). */
function preCompactRan(stateDir: string, p: HookPayload): boolean {
  const file = markerPath(stateDir, p.session_id ?? "unknown");
  try {
    const m = JSON.parse(readFileSync(file, "utf8")) as { prompt_id?: string | null };
    if (p.prompt_id && m.prompt_id) return m.prompt_id === p.prompt_id;
    return Date.now() - statSync(file).mtimeMs < MARKER_FRESH_MS;
  } catch {
    return false;
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

/**
 * Run the extraction step of a hook whose output Claude Code reads (PreCompact, SessionStart): an error there
 * (a read-only project, a full disk, an unreadable transcript) is logged and becomes the hook's one stderr line,
 * and the hook still prints the rules already pinned, which are what the compaction must keep.
 */
async function orPrintAnyway(ctx: Ctx, step: () => Promise<void>): Promise<void> {
  try {
    await step();
  } catch (e) {
    const message = `extraction failed: ${(e as Error)?.message ?? String(e)}`;
    log(ctx, message, false, false);
    ctx.note ??= message;
  }
}

async function dispatch(ctx: Ctx, out: (s: string) => void): Promise<void> {
  if (!(HOOK_EVENTS as readonly string[]).includes(ctx.event)) {
    throw new HookSkip(`unknown hook event '${ctx.event}' (expected ${HOOK_EVENTS.slice(0, 3).join(", ")}, or PreCompact, SessionStart, SessionEnd)`);
  }
  const input =
    ctx.event === "session-end-worker" ? { bytes: Buffer.from(process.env[PAYLOAD_ENV] ?? ""), size: 0 } : await readStdin();
  if (input.size > STDIN_MAX_BYTES) throw new Error(`payload of ${input.size} bytes exceeds ${STDIN_MAX_BYTES}; ignored`);
  const payload = parsePayload(input.bytes);
  ctx.payload = payload;
  const projectDir = projectDirOf(payload);
  const rulesDir = defaultRulesDir(projectDir);
  // A symbolic link on the rules path that leads out of the project: write nothing at all (not even the log).
  assertInsideRoot(rulesDir, projectDir);
  ctx.stateDir = stateDir(rulesDir);

  if (ctx.event === "pre-compact" || ctx.event === "session-start") {
    if (ctx.event === "session-start" && payload.source && payload.source !== "compact") return;
    // Without a usable transcript there is nothing to extract, but the rules already pinned still count.
    let transcript: string | null = null;
    try {
      transcript = transcriptOf(payload);
    } catch (e) {
      if (!(e instanceof HookSkip)) throw e;
      ctx.note = e.message;
    }
    if (ctx.event === "pre-compact") {
      if (transcript) {
        const from = transcript;
        await orPrintAnyway(ctx, async () => {
          await archiveStep(from, rulesDir, payload.session_id, (m, d) => log(ctx, m, d));
          await extract(ctx, from, rulesDir, hookDeadline());
          // A transcript without rules leaves no state folder behind (nothing to mark).
          if (ctx.stateDir && existsSync(ctx.stateDir)) writeMarker(ctx.stateDir, payload);
        });
      }
      out(precompactText(rulesDir, payload.session_id));
    } else {
      if (transcript) {
        // PreCompact may not have fired (references/claude-code.md §1.5): then this is the full extraction. If it did, the
        // same call is incremental and picks up lines the transcript writer flushed after PreCompact read it.
        const ran = preCompactRan(ctx.stateDir, payload);
        log(ctx, ran ? "PreCompact ran; incremental catch-up" : "PreCompact did not run for this compaction; extracting now", true);
        const from = transcript;
        await orPrintAnyway(ctx, async () => {
          if (!ran) await archiveStep(from, rulesDir, payload.session_id, (m, d) => log(ctx, m, d));
          await extract(ctx, from, rulesDir, hookDeadline());
        });
      }
      let working = "";
      try {
        if (transcript) working = renderWorkingState(await readWorkingState(transcript), projectDir, digCommandOf(process.argv[1]));
      } catch (e) {
        log(ctx, `working state failed: ${(e as Error)?.message ?? String(e)}`);
      }
      out(sessionStartText(rulesDir, SESSIONSTART_HEAD, working));
    }
  } else if (ctx.event === "session-end") {
    transcriptOf(payload);
    spawnWorker(payload);
    log(ctx, "handed extraction to a detached worker", true);
  } else {
    // The detached worker: Claude Code does not wait for it or time it out (references/claude-code.md §1.4), so it reads to
    // the end; a deadline would leave the rest of an ended session for a resume that may never come.
    const transcript = transcriptOf(payload);
    // SessionEnd archives a session no compaction archived (a compaction already kept what it removed).
    if (!hasArchive(rulesDir, payload.session_id)) await archiveStep(transcript, rulesDir, payload.session_id, (m, d) => log(ctx, m, d));
    await extract(ctx, transcript, rulesDir);
  }
}

/**
 * Run one hook event end to end. Never throws and never sets a failing exit code: expected skips and
 * errors become one stderr line (errors are also logged); stdout gets only plain text (never JSON).
 */
export async function runHook(name: string): Promise<void> {
  const event = hookEventOf(name);
  const ctx: Ctx = { event, t0: Date.now() };
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
