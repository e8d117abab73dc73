/**
 * Stable public API of the extraction half (issue 4), used by the hooks and commands.
 * Heavy modules (secretlint, the extractor) are loaded lazily inside extractTranscript so that
 * importing this file keeps the bundle's cold start fast.
 */
import { resolve } from "node:path";
import type { Classifier } from "../../engine/classify.js";
import type { Deadline } from "./deadline.js";
import type { UtteranceScorer } from "../utterance-model.js";
import { renderPinnedRules as renderPinnedRulesImpl } from "../store/pinned-rules.js";

/** Options of one extraction run over a Claude Code transcript (JSONL). */
export interface ExtractOptions {
  /** Path of the transcript `.jsonl` file. */
  transcriptPath: string;
  /** Rules folder, e.g. `<project>/.claude/rules/knowledge-triage` (see defaultRulesDir). */
  rulesDir: string;
  /**
   * Folder every write must stay inside, symbolic links resolved (state.ts assertInsideRoot); default: the project
   * folder for the `<project>/.claude/rules/knowledge-triage` layout, else the rules folder itself.
   */
  root?: string;
  /** Session id (defaults to the transcript's file name without `.jsonl`). */
  sessionId?: string;
  /** Classifier used to type each sentence (model or regex tier). */
  classifier: Classifier;
  /**
   * The sentence-level durability model. Default: model/utterance.json, read on first use (a run with no new
   * user text never reads it); a missing or invalid file then fails the run with a ModelError.
   */
  utterance?: UtteranceScorer;
  /** When true, compute the report but write nothing (no rules, no state, no lock). */
  dryRun?: boolean;
  /** Optional shell command asked "would forgetting this line make a later action wrong?" (SafetyMargin test). */
  llm?: string;
  /** How long (ms) to wait for another run's lock before LOCK_BUSY (default 30,000; hooks pass 10,000). */
  lockWaitMs?: number;
  /** Timeout (ms) of one `llm` command call; the command's whole process group is killed then (default 10,000). */
  llmTimeoutMs?: number;
  /** Clock, for provenance timestamps in the sidecar only (never in the .md files). */
  now?: () => Date;
  /**
   * Time budget (deadline.ts). Once it expires the run stops at the next safe point (before a chunk read, a
   * batch or a statement) where that moves the cursor forward, writes the rules of the part it finished and
   * moves the cursor only to the end of that part; the report then has `stoppedAt`. Every run finishes the
   * first batch of user messages it starts (BATCH_UTTERANCES in extract-run.ts), even with a spent budget, so
   * repeated runs always reach the end; that batch is how far a run can overshoot. Default: none (the run
   * reads to the end). Hooks pass one.
   */
  deadline?: Deadline;
  /**
   * Folders that exist in the project, relative to its root ("services/billing"): a folder name written
   * without a slash in a rule ("in billing, ...") scopes the rule to it. Default: the folders under the
   * project that holds a project-level rules folder (`<root>/.claude/rules/<name>`, io/project-folders.ts);
   * none for other rules folders. Bench runs inject the session's layout.
   */
  folders?: readonly string[];
}

/** What one extraction run did. */
export interface ExtractReport {
  linesRead: number;
  linesSkipped: number;
  candidates: number;
  kept: number;
  added: number;
  updated: number;
  retired: number;
  /** Rule files (absolute paths) written or confirmed in this run. */
  files: string[];
  /** The subset of `files` whose bytes this run changed (in a dry run: would change). */
  changed: string[];
  warnings: string[];
  /**
   * Only when the run stopped at its deadline: `offset`, the byte where the next run continues (everything
   * before it is done), and `size`, the transcript's size in bytes.
   */
  stoppedAt?: { offset: number; size: number };
}

/**
 * Extract durable user rules from a transcript into the rules folder (incremental, locked, atomic).
 * Never throws on malformed transcript content (corrupt, torn, huge or non-UTF-8 lines are skipped and
 * counted). Throws TriageError: UsageError for a missing transcript, LOCK_BUSY when another run holds
 * the lock for more than `lockWaitMs`, OUTSIDE_PROJECT when a symbolic link on the rules path leads out of `root`, INTERRUPTED (exit 130/143) on SIGINT/SIGTERM, RULES_DIR_UNWRITABLE, STATE_INVALID for a corrupt sidecar.
 * An empty transcript writes nothing and returns a warning. An expired `deadline` is not an error: the run
 * writes what it finished (at least its first batch) and returns with `stoppedAt` (and the same line first among the warnings).
 */
export async function extractTranscript(opts: ExtractOptions): Promise<ExtractReport> {
  const mod = await import("./extract-run.js");
  if (opts.folders === undefined) {
    // A project-level rules folder: the project's own folders scope rules that name them without a slash.
    const { projectFolders, projectRootOfRulesDir } = await import("../../io/project-folders.js");
    const root = projectRootOfRulesDir(resolve(opts.rulesDir));
    if (root !== undefined) return mod.runExtract({ ...opts, folders: projectFolders(root) });
  }
  return mod.runExtract(opts);
}

/** Pinned rules as plain markdown text for hook stdout (<= maxChars, default 9,500), plus count. */
export function renderPinnedRules(
  rulesDir: string,
  maxChars = 9500,
): { text: string; count: number; truncated: boolean } {
  return renderPinnedRulesImpl(rulesDir, maxChars);
}


/**
 * A Classifier that loads the real one on first use, so an incremental run with no new user text
 * never pays the model's load time. `load` may throw; the error surfaces on first use.
 */
export function lazyClassifier(load: () => Classifier, name = "lazy"): Classifier {
  let c: Classifier | undefined;
  return {
    get name() {
      return c?.name ?? name;
    },
    scores(units) {
      c ??= load();
      return c.scores(units);
    },
  };
}
