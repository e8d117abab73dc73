import type { Command } from "commander";
import { UsageError } from "../errors.js";

type Register = (program: Command) => void;

/**
 * Every subcommand: its one-line description (for `triage --help`) and a loader for its module.
 * Only the invoked command's module is loaded: esbuild turns each dynamic import into a lazily
 * initialised part of the one bundle, so `triage classify` never initialises the extraction,
 * operator or hook code (and their zod schemas) — that keeps cold start close to bare `node`.
 */
const COMMANDS: Record<string, [string, () => Promise<Register>]> = {
  classify: ["label every unit of markdown memory files by type", async () => (await import("./commands/classify-command.js")).registerClassify],
  train: ["train the classifier on labelled data; prints k-fold CV and test metrics", async () => (await import("./commands/train-command.js")).registerTrain],
  eval: ["per-class precision, recall, F1, macro-F1 and the confusion matrix on labelled data", async () => (await import("./commands/eval-command.js")).registerEval],
  label: ["turn memory files into candidate training data (JSONL) for review", async () => (await import("./commands/label-command.js")).registerLabel],
  compact: ["TypeCompact: budgeted compaction that pins rules verbatim", async () => (await import("./commands/compact-command.js")).registerCompact],
  decompose: ["TypeDecompose: partitions that each carry every rule that governs them", async () => (await import("./commands/decompose-command.js")).registerDecompose],
  retrieve: ["TypeRetrieve: in-scope rules first, then BM25", async () => (await import("./commands/retrieve-command.js")).registerRetrieve],
  pin: ["add a rule verbatim to the rules folder", async () => (await import("./commands/pin-command.js")).registerPin],
  unpin: ["remove a pinned rule (recorded as retired in the sidecar store)", async () => (await import("./commands/unpin-command.js")).registerUnpin],
  status: ["rules by file, type and scope; retired, expired and pending counts; recent hook errors", async () => (await import("./commands/status-command.js")).registerStatus],
  doctor: ["check the wiring (hooks, bundle, Node) and lint the rule files against what agents load", async () => (await import("./commands/doctor-command.js")).registerDoctor],
  extract: ["durable rules from a Claude Code transcript into the rules folder", async () => (await import("./commands/extract-command.js")).registerExtract],
  redact: ["replace secrets in text by [REDACTED] (a file or stdin, to stdout), as extraction does", async () => (await import("./commands/redact-command.js")).registerRedact],
  dig: ["search the archived transcripts; `dig read <id>` prints one whole message", async () => (await import("./commands/dig-command.js")).registerDig],
  mcp: ["MCP server on stdio: rules_list, retrieve, pin, unpin, dig, dig_read (Claude Code starts it from the plugin)", async () => (await import("./commands/mcp-command.js")).registerMcp],
  export: ["write the pinned rules in another agent's native file", async () => (await import("./commands/export-command.js")).registerExport],
  hook: ["Claude Code hook entry (reads the payload on stdin, always exits 0)", async () => (await import("./commands/hook-command.js")).registerHook],
};

/** Names of all subcommands, in help order. */
export const COMMAND_NAMES = Object.keys(COMMANDS);

/**
 * Register subcommands for an argv: the invoked one (or the one named by `help <name>`) in full,
 * the others as description-only entries for the top-level help. Pass `all` to load every command
 * in full (tests).
 */
export async function registerCommands(program: Command, argv: readonly string[], all = false): Promise<void> {
  // The first word naming a command: program options may come first, with values (`triage --model m.json classify x`).
  const args = argv.slice(2).filter((a) => !a.startsWith("-"));
  const at = args.findIndex((a) => a === "help" || Object.hasOwn(COMMANDS, a));
  const wanted = args[at] === "help" ? args[at + 1] : args[at];
  for (const [name, [description, load]] of Object.entries(COMMANDS)) {
    if (all || name === wanted) (await load())(program);
    else program.command(name).description(description).allowUnknownOption().allowExcessArguments();
  }
}

/** What to say after "<flag> is empty:" for options where a hint helps; others get "give a value". */
const EMPTY_HINTS: Readonly<Record<string, string>> = {
  "--rules-dir": "give a folder (default: .claude/rules/knowledge-triage of the project)",
};

/**
 * Throw UsageError (`--llm is empty: give a value`) when an option of `cmd` or of a command above it was given an empty
 * or blank value (`--llm ""`, `-o ""`, one of `--paths a ""`): an empty path would mean the working folder, an empty
 * command a shell that runs nothing; likewise for an empty file or folder argument (`empty file name: give a path`). Meant for commander's preAction hook.
 */
export function refuseEmptyOptions(cmd: Command): void {
  for (let c: Command | null = cmd; c; c = c.parent) {
    for (const opt of c.options) {
      const v: unknown = c.getOptionValue(opt.attributeName());
      const values = Array.isArray(v) ? v : [v];
      if (values.some((x) => typeof x === "string" && x.trim() === "")) {
        const flag = opt.long ?? opt.short ?? opt.flags;
        throw new UsageError(`${flag} is empty: ${EMPTY_HINTS[flag] ?? "give a value"}`);
      }
    }
  }
  // An empty path argument (`triage classify ""`) would read as "cannot read : no such file".
  cmd.registeredArguments.forEach((arg, i) => {
    const label = PATH_ARGUMENTS[arg.name()];
    if (label === undefined) return;
    const v: unknown = cmd.processedArgs[i];
    if ((Array.isArray(v) ? v : [v]).some((x) => typeof x === "string" && x.trim() === "")) {
      throw new UsageError(`empty ${label}: give a path${arg.description.includes("- for") ? " (or - for standard input)" : ""}`);
    }
  });
}

/** Positional arguments that name files or folders (the text arguments of pin, unpin, retrieve and dig say "empty" themselves). */
const PATH_ARGUMENTS: Readonly<Record<string, string>> = { file: "file name", files: "file name", transcript: "transcript path", data: "data path", paths: "path" };
