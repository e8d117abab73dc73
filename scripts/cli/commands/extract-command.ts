import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Command } from "commander";
import { UsageError } from "../../errors.js";
import { loadClassifier } from "../../io/model-file.js";
import { readStdin, stderrLine, writeStdout } from "../../io/text-io.js";
import { visible, visibleName } from "../../terminal.js";
import { extractTranscript, lazyClassifier } from "../../memory/pipeline/extract-api.js";
import { deadlineAfter, type Deadline } from "../../memory/pipeline/deadline.js";
import { rulesDirFrom } from "../../io/project-folders.js";
import { looksLikeTranscript } from "../../io/read-files.js";

/**
 * Throw UsageError (naming `shown`) when `path` has content but is not a Claude Code transcript (read-files.ts
 * looksLikeTranscript): `triage extract README.md` says so instead of reporting "0 kept". Unreadable files are left to
 * the extraction's own errors.
 */
function assertLooksLikeTranscript(path: string, shown: string): void {
  if (looksLikeTranscript(path) === false) {
    throw new UsageError(`${shown === "-" ? "standard input" : shown} is not a Claude Code transcript (expected JSON lines with a "type", as in ~/.claude/projects/<project>/<session>.jsonl)`);
  }
}

/** Options of `triage extract`. */
interface ExtractCliOptions {
  rulesDir?: string;
  json?: boolean;
  dryRun?: boolean;
  llm?: string;
  llmTimeout?: string;
  model?: string;
  session?: string;
  explain?: boolean;
  maxSeconds?: string;
}

/**
 * The deadline of `--max-seconds S`: S seconds (a positive number, fractions allowed) after process start, as
 * in the hooks; undefined without the option. Throws UsageError for anything else.
 */
function maxSecondsDeadline(raw: string | undefined): Deadline | undefined {
  if (raw === undefined) return undefined;
  const s = Number(raw);
  if (raw.trim() === "" || !Number.isFinite(s) || s <= 0) throw new UsageError(`--max-seconds must be a positive number of seconds, got '${raw}'`);
  return deadlineAfter(s * 1000, { startMs: 0 });
}

/** `triage extract <transcript.jsonl> --rules-dir DIR [--json] [--dry-run] [--llm CMD] [--max-seconds S]`. */
export function registerExtract(program: Command): void {
  program
    .command("extract")
    .description("extract the durable rules a user stated in a Claude Code transcript (JSONL) into .claude/rules/knowledge-triage/")
    .argument("<transcript>", "transcript .jsonl file, or - for standard input")
    .option("--rules-dir <dir>", "rules folder (default: .claude/rules/knowledge-triage of the project: the nearest folder up to the git root that has one, else the git root, else here; never $HOME or /)")
    .option("--json", "print the report as JSON")
    .option("--dry-run", "show what would be written; write nothing")
    .option("--llm <cmd>", "ask this shell command (prompt on stdin, yes/no on stdout) about borderline sentences")
    .option("--llm-timeout <ms>", "timeout of one --llm call in ms; the command's process group is killed then", "10000")
    .option("--model <path>", "classifier model (default: bundled model/model.json; /dev/null = regex tier)")
    .option("--session <id>", "session id (default: transcript file name; stdin for -)")
    .option("--explain", "print every candidate sentence with its score and verdict (redacted)")
    .option("--max-seconds <s>", "stop at a safe point S seconds after start, write what is done; the next run continues there")
    .action(async (arg: string, _opts: ExtractCliOptions, cmd: Command) => {
      if (!arg) throw new UsageError("missing transcript path");
      // optsWithGlobals: a program-level --model (cli.ts) would otherwise swallow ours.
      const opts = cmd.optsWithGlobals<ExtractCliOptions>();
      const rulesDir = rulesDirFrom(opts.rulesDir, process.cwd());
      const spool = arg === "-" ? spoolStdin() : undefined;
      try {
        await extractFrom(spool?.path ?? arg, arg, spool ? (opts.session ?? "stdin") : opts.session, rulesDir, opts);
      } finally {
        if (spool) rmSync(spool.dir, { recursive: true, force: true });
      }
    });
}

/**
 * `-` as the transcript: standard input (at most INPUT_MAX_BYTES, text-io.ts) copied into a private temp file, because
 * extraction reads by byte offset (cursor, prefix hashes) and a pipe cannot be read twice. The caller removes `dir`.
 */
function spoolStdin(): { dir: string; path: string } {
  const bytes = readStdin();
  const dir = mkdtempSync(join(tmpdir(), "triage-extract-"));
  const path = join(dir, "stdin.jsonl");
  // 0600: a transcript holds whatever the session saw, secrets included.
  writeFileSync(path, bytes, { mode: 0o600 });
  return { dir, path };
}

/** One `triage extract` run on the transcript file `transcript` (`shown` in messages; `session`: its session id) into `rulesDir`; prints the report. */
async function extractFrom(transcript: string, shown: string, session: string | undefined, rulesDir: string, opts: ExtractCliOptions): Promise<void> {
    assertLooksLikeTranscript(transcript, shown);
    const llmTimeoutMs = Number(opts.llmTimeout ?? 10000);
    if (!Number.isInteger(llmTimeoutMs) || llmTimeoutMs <= 0) throw new UsageError(`--llm-timeout must be a positive whole number of ms, got '${opts.llmTimeout}'`);
    const deadline = maxSecondsDeadline(opts.maxSeconds);
    const classifier = lazyClassifier(() => loadClassifier(opts.model));
    const verdicts: import("../../memory/extract.js").Verdict[] = [];
    let report: import("../../memory/pipeline/extract-api.js").ExtractReport;
    if (opts.explain) {
      const { runExtract } = await import("../../memory/pipeline/extract-run.js");
      report = await runExtract({ transcriptPath: transcript, rulesDir, classifier, dryRun: opts.dryRun, llm: opts.llm, llmTimeoutMs, sessionId: session, deadline }, { verdicts });
    } else {
      report = await extractTranscript({ transcriptPath: transcript, rulesDir, classifier, dryRun: opts.dryRun, llm: opts.llm, llmTimeoutMs, sessionId: session, deadline });
    }
    for (const w of report.warnings) stderrLine(w);
    if (opts.json) {
      writeStdout(`${JSON.stringify(opts.explain ? { ...report, verdicts } : report)}\n`);
      return;
    }
    if (opts.explain) {
      for (const v of verdicts) {
        writeStdout(`${v.keep ? "KEEP" : "drop"} ${v.score.toFixed(2).padStart(6)} ${v.kind.padEnd(10)} ${visible(`${v.text}  [${v.cues.join(",")}]`)}\n`);
      }
    }
    const verb = opts.dryRun ? "would write" : "wrote";
    writeStdout(
      `${report.linesRead} lines read, ${report.linesSkipped} skipped, ${report.candidates} candidate sentences, ${report.kept} kept: ` +
        `${report.added} added, ${report.updated} updated, ${report.retired} retired\n`,
    );
    const changed = new Set(report.changed);
    for (const f of report.files) writeStdout(`${changed.has(f) ? verb : "unchanged"} ${visibleName(f)}\n`);
}
