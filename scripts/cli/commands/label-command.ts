import { extname } from "node:path";
import type { Command } from "commander";
import { classifyMarkdown } from "../../engine/classify.js";
import { TYPES, type KnowledgeType } from "../../engine/types.js";
import { UsageError } from "../../errors.js";
import { walkFiles, type WalkResult } from "../../io/read-files.js";
import { loadClassifier } from "../../io/model-file.js";
import { readInput, stderrLine, writeStdout } from "../../io/text-io.js";
import { refuseOverwrite, writeFileAtomic } from "../../io/write-files.js";
import { visibleName } from "../../terminal.js";
import { buildLlmPrompt, parseLlmAnswer } from "../label-llm.js";
import { runShell } from "../../memory/pipeline/llm-review.js";

const MEMORY_NAMES = new Set([".cursorrules", ".windsurfrules", ".clinerules", "CLAUDE.md", "AGENTS.md", "GEMINI.md"]);
const MEMORY_EXT = new Set([".md", ".mdc", ".markdown", ".txt"]);
/** Dot-folders that hold agent memory (other dot-folders, node_modules and .git are not walked). */
const MEMORY_DOT_DIRS = new Set([".cursor", ".github", ".claude", ".clinerules"]);

/** A dot-name that is neither a memory file nor a memory dot-folder (.git, .venv, .notes.md, ...). */
const hiddenOther = (name: string): boolean => name.startsWith(".") && !MEMORY_NAMES.has(name) && !MEMORY_DOT_DIRS.has(name);

/**
 * Memory files under the given paths: a file path is taken as is; folders are walked recursively
 * (sorted, symbolic links followed but each folder and file taken once, so a link loop adds nothing),
 * skipping node_modules, .git and other dot-folders, keeping memory names and extensions. `warnings`
 * name the entries skipped because they are not regular files (FIFOs, sockets, devices). Throws
 * UsageError for a path that does not exist.
 */
export function collectMemoryFiles(paths: string[]): WalkResult {
  return walkFiles(paths, {
    enterDir: (name) => name !== "node_modules" && name !== ".git" && !hiddenOther(name),
    wantFile: (name) => !hiddenOther(name) && (MEMORY_NAMES.has(name) || MEMORY_EXT.has(extname(name).toLowerCase())),
  });
}

/** One row of `triage label` output: candidate training data for review (trainable as loose units). */
interface LabelRow {
  file: string;
  line: number;
  endLine: number;
  text: string;
  type: KnowledgeType;
  confidence: number;
  source: "model" | "regex" | "llm";
  modelType: KnowledgeType;
  headings: string[];
  llmError?: string;
}

export function registerLabel(program: Command): void {
  program
    .command("label")
    .description("turn memory files into candidate training data (JSONL) for review, optionally asking an LLM command per unit")
    .argument("<paths...>", "memory files or folders")
    .requiredOption("-o, --output <file.jsonl>", "where to write the labelled units (- for stdout)")
    .option("--model <path>", "model file (default: bundled; /dev/null = regex tier)")
    .option("--llm <command>", "shell command that reads a prompt on stdin and answers with one type name")
    .option("--llm-timeout <ms>", "per-call timeout for --llm in ms", "30000")
    .option("--force", "allow -o to overwrite an existing file")
    .action(async (paths: string[], opts: { output: string; model?: string; llm?: string; llmTimeout: string; force?: boolean }) => {
      const timeout = Number(opts.llmTimeout);
      if (!Number.isFinite(timeout) || timeout <= 0) throw new UsageError(`--llm-timeout must be a positive number of ms (got ${opts.llmTimeout})`);
      const classifier = loadClassifier(opts.model);
      const { files, warnings } = collectMemoryFiles(paths);
      for (const w of warnings) stderrLine(`warning: ${w}`);
      if (files.length === 0) throw new UsageError(`no memory files found under ${paths.join(", ")}`);
      const toStdout = opts.output === "-"; // -o -: the JSONL goes to standard output
      if (!toStdout) refuseOverwrite(opts.output, { force: opts.force, inputs: files });
      const rows: LabelRow[] = [];
      let llmCalls = 0;
      let llmFailures = 0;
      let agree = 0;
      for (const f of files) {
        const input = readInput(f);
        for (const w of input.warnings) stderrLine(`warning: ${w}`);
        for (const u of classifyMarkdown(input.text, classifier)) {
          // Headings are classified but not scored or trained on (references/taxonomy.md), so not candidates.
          if (u.type === "structure" || u.kind === "heading") continue;
          const row: LabelRow = {
            file: f,
            line: u.line,
            endLine: u.endLine,
            text: u.text,
            type: u.type,
            confidence: Math.round(u.confidence * 1e4) / 1e4,
            source: classifier.name === "regex" ? "regex" : "model",
            modelType: u.type,
            headings: u.headings,
          };
          if (opts.llm) {
            llmCalls++;
            // runShell runs the command in its own process group and kills the whole group on
            // timeout, so a hung command leaves no child behind (spawnSync's timeout kills only sh).
            let answer: KnowledgeType | null = null;
            let error = "";
            try {
              const out = await runShell(opts.llm, buildLlmPrompt(u.text, u.headings), timeout);
              answer = parseLlmAnswer(out);
              if (!answer) error = `unparseable answer: ${JSON.stringify(out.slice(0, 60))}`;
            } catch (e) {
              error = /timed out/.test((e as Error).message) ? `timed out after ${timeout} ms` : (e as Error).message;
            }
            if (answer) {
              row.type = answer;
              row.source = "llm";
              row.confidence = 1;
              if (answer === u.type) agree++;
            } else {
              llmFailures++;
              row.llmError = error;
            }
          }
          rows.push(row);
        }
      }
      const jsonl = rows.map((r) => JSON.stringify(r)).join("\n") + (rows.length ? "\n" : "");
      if (toStdout) writeStdout(jsonl);
      else writeFileAtomic(opts.output, jsonl);
      const counts = TYPES.map((t) => `${rows.filter((r) => r.type === t).length} ${t}`).join(", ");
      process.stderr.write(`labelled ${rows.length} units from ${files.length} file(s) -> ${toStdout ? "standard output" : visibleName(opts.output)} (${counts})\n`);
      if (opts.llm) {
        process.stderr.write(`llm: ${llmCalls} calls, ${llmFailures} failed (kept the ${classifier.name} label), agreement with ${classifier.name} ${llmCalls - llmFailures ? `${((agree / (llmCalls - llmFailures)) * 100).toFixed(1)}%` : "n/a (no answers)"}\n`);
      }
    });
}
