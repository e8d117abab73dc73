/**
 * The part of the hooks that extracts (scripts/hooks/dispatch.ts): PreCompact, SessionStart(compact) and the
 * detached SessionEnd worker archive the transcript, extract its rules under a deadline and print the rules the
 * compaction must keep. Loaded by dispatch.ts only for those events, so `hook session-end`, which hands the work
 * to a worker and must return at once (Claude Code gives SessionEnd hooks 1.5 s in total), never initialises
 * the models, the extractor or the rule store.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import type { HookPayload } from "./payload.js";
import { regexClassifier, type Classifier } from "../engine/classify.js";
import { loadClassifier, loadUtteranceScorer } from "../io/model-file.js";
import { lazyUtterance, type UtteranceScorer } from "../memory/utterance-model.js";
import { makeDirs, replaceAtomically } from "../io/write-files.js";
import { precompactText, SESSIONSTART_HEAD } from "./hook-output.js";
import { extractTranscript, lazyClassifier, type ExtractReport } from "../memory/pipeline/extract-api.js";
import { deadlineAfter, type Deadline } from "../memory/pipeline/deadline.js";
import { ensureStateDir, HOOK_LOCK_WAIT_MS } from "../memory/store/state.js";
import { archiveStep, hasArchive } from "./archive-step.js";
import { digCommandOf, readWorkingState, renderWorkingState, sessionStartText } from "./working-state.js";

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

/** What the extracting events need of dispatch.ts's hook run: its state and its log (HookLog). */
export interface StepCtx {
  /** A "nothing to extract" reason that still let the hook print: reported as the one stderr line. */
  note?: string;
  payload?: HookPayload;
  stateDir?: string;
  /** Append to the hook log (dispatch.ts log): `debug` lines only in debug mode; `create` false writes only into an existing state folder. */
  log: (message: string, debug?: boolean, create?: boolean) => void;
}

const safeName = (s: string): string => s.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 100) || "unknown";

/**
 * The classifier for one hook run, loaded lazily (lazyClassifier): a run with nothing new in the transcript
 * never reads the model. A model that fails to load falls back to the regex tier (logged in debug mode).
 */
function classifier(ctx: StepCtx): Classifier {
  return lazyClassifier(() => {
    try {
      const c = loadClassifier();
      ctx.log(`classifier loaded: ${c.name}`, true);
      return c;
    } catch (e) {
      ctx.log(`model not loaded (${(e as Error).message}); using the regex tier`, true);
      return regexClassifier;
    }
  });
}

/**
 * The sentence model for one hook run, loaded on first use. A missing or invalid model/utterance.json gives
 * no evidence either way (logit 0: the cues and the line classifier decide alone) and a log line, so the hook
 * still extracts what the cues find.
 */
function utterance(ctx: StepCtx): UtteranceScorer {
  return lazyUtterance(() => {
    try {
      return loadUtteranceScorer();
    } catch (e) {
      ctx.log(`warning: sentence model unavailable (${(e as Error).message}); using the cues alone`, false);
      return { logit: () => 0 };
    }
  });
}

/**
 * Extract the transcript into the rules folder. With a `deadline` the run stops there at a safe point and the
 * stop becomes the hook's one stderr line (ctx.note) as well as a log line (the first warning).
 */
async function extract(ctx: StepCtx, transcriptPath: string, rulesDir: string, deadline?: Deadline): Promise<ExtractReport> {
  const report = await extractTranscript({
    transcriptPath,
    rulesDir,
    sessionId: ctx.payload?.session_id,
    classifier: classifier(ctx),
    utterance: utterance(ctx),
    lockWaitMs: lockWaitMs(),
    deadline,
  });
  for (const w of report.warnings.slice(0, 5)) ctx.log(`warning: ${w}`, false, false);
  if (report.stoppedAt) ctx.note = report.warnings[0];
  ctx.log(`extracted: lines=${report.linesRead} skipped=${report.linesSkipped} kept=${report.kept} added=${report.added} retired=${report.retired}`, true);
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
  makeDirs(join(ensureStateDir(dirname(stateDir)), "hooks"));
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

/**
 * Run the extraction step of a hook whose output Claude Code reads (PreCompact, SessionStart): an error there
 * (a read-only project, a full disk, an unreadable transcript) is logged and becomes the hook's one stderr line,
 * and the hook still prints the rules already pinned, which are what the compaction must keep.
 */
async function orPrintAnyway(ctx: StepCtx, step: () => Promise<void>): Promise<void> {
  try {
    await step();
  } catch (e) {
    const message = `extraction failed: ${(e as Error)?.message ?? String(e)}`;
    ctx.log(`error: ${message}`, false, false);
    ctx.note ??= message;
  }
}


/**
 * Run PreCompact, SessionStart(compact) or the SessionEnd worker for a validated payload whose rules folder is
 * `rulesDir` in `projectDir`; `transcript` is the transcript path, or null (with ctx.note saying why) when there
 * is none to read. Hands the hook's stdout text to `out`. Throws what the worker's extraction throws (dispatch.ts
 * logs it); PreCompact and SessionStart catch their extraction errors and print anyway (orPrintAnyway).
 */
export async function runExtractingEvent(event: "pre-compact" | "session-start" | "session-end-worker", ctx: StepCtx, payload: HookPayload, projectDir: string, rulesDir: string, transcript: string | null, out: (s: string) => void): Promise<void> {
  const stateDir = ctx.stateDir as string;
  if (event === "pre-compact") {
    if (transcript) {
      const from = transcript;
      await orPrintAnyway(ctx, async () => {
        await archiveStep(from, rulesDir, payload.session_id, (m, d) => ctx.log(m, d));
        await extract(ctx, from, rulesDir, hookDeadline());
        // A transcript without rules leaves no state folder behind (nothing to mark).
        if (existsSync(stateDir)) writeMarker(stateDir, payload);
      });
    }
    out(precompactText(rulesDir, payload.session_id));
  } else if (event === "session-start") {
    if (transcript) {
      // PreCompact may not have fired (references/claude-code.md §1.5): then this is the full extraction. If it did, the
      // same call is incremental and picks up lines the transcript writer flushed after PreCompact read it.
      const ran = preCompactRan(stateDir, payload);
      ctx.log(ran ? "PreCompact ran; incremental catch-up" : "PreCompact did not run for this compaction; extracting now", true);
      const from = transcript;
      await orPrintAnyway(ctx, async () => {
        if (!ran) await archiveStep(from, rulesDir, payload.session_id, (m, d) => ctx.log(m, d));
        await extract(ctx, from, rulesDir, hookDeadline());
      });
    }
    let working = "";
    try {
      if (transcript) working = renderWorkingState(await readWorkingState(transcript), projectDir, digCommandOf(process.argv[1]));
    } catch (e) {
      ctx.log(`error: working state failed: ${(e as Error)?.message ?? String(e)}`);
    }
    out(sessionStartText(rulesDir, SESSIONSTART_HEAD, working));
  } else if (transcript) {
    // The detached worker: Claude Code does not wait for it or time it out (references/claude-code.md §1.4), so it reads to
    // the end; a deadline would leave the rest of an ended session for a resume that may never come.
    // SessionEnd archives a session no compaction archived (a compaction already kept what it removed).
    if (!hasArchive(rulesDir, payload.session_id)) await archiveStep(transcript, rulesDir, payload.session_id, (m, d) => ctx.log(m, d));
    await extract(ctx, transcript, rulesDir);
  }
}
