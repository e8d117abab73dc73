#!/usr/bin/env node
/**
 * The `triage` command line. The only module that calls process.exit: every command is registered
 * from scripts/cli/commands/*-command.ts, throws TriageError on bad input, and is mapped here to a one-line
 * error and the error's exit code (stack traces only with --debug).
 */
import { Command, CommanderError } from "commander";
import { errorReport, TriageError } from "./errors.js";
import { COMMAND_NAMES, refuseEmptyOptions, registerCommands } from "./cli/command-registry.js";
import { writeStdout } from "./io/text-io.js";
import { visible, visibleName } from "./terminal.js";

/**
 * argv with every `--debug` (before a `--`) moved in front of the subcommand: it is a program option, and
 * commander's positional options would otherwise reject it after the subcommand (`triage classify x --debug`).
 */
function debugFirst(argv: readonly string[]): string[] {
  const end = argv.indexOf("--");
  const head = end < 0 ? argv.slice(2) : argv.slice(2, end);
  if (!head.includes("--debug")) return [...argv];
  return [...argv.slice(0, 2), "--debug", ...head.filter((a) => a !== "--debug"), ...(end < 0 ? [] : argv.slice(end))];
}

/** Run the CLI on process.argv. */
async function main(): Promise<void> {
  const program = new Command();
  program
    .name("triage")
    .description("Knowledge Triage: classify agent memory by type and keep rules verbatim across compaction")
    .version("0.1.0")
    .option("--debug", "print stack traces on errors")
    .option("--self-check", "load the model, classify built-in lines, exit 1 if anything is off")
    .option("--model <path>", "model file for --self-check")
    .showHelpAfterError(false)
    .enablePositionalOptions()
    .exitOverride();
  program.configureOutput({
    writeOut: (s) => writeStdout(s),
    writeErr: (s) => process.stderr.write(s),
    // One line: commander's "(Did you mean ...?)" joins it, and a line feed in an argument is escaped
    // (visibleName), as in every other message.
    outputError: (s, write) => write(`triage: ${visibleName(s.replace(/^error: /, "").trim().replace(/\n(?=\(Did you mean )/, " "))}\n`),
  });
  // `triage help <command>` is `triage <command> --help` (the program has its own action for --self-check).
  // `triage help` alone is `triage --help`.
  const given = debugFirst(process.argv);
  const argv = given[2] !== "help" ? given : given[3] ? [...given.slice(0, 2), given[3], "--help"] : [...given.slice(0, 2), "--help"];
  const first = argv[2];
  if (first !== undefined && !first.startsWith("-") && !COMMAND_NAMES.includes(first)) {
    process.stderr.write(`triage: unknown command '${visible(first)}' (see 'triage --help')\n`);
    process.exit(1);
  }
  await registerCommands(program, argv);
  program.hook("preAction", (_program, action) => refuseEmptyOptions(action));
  program.action(async (opts: { selfCheck?: boolean; model?: string }) => {
    if (!opts.selfCheck) {
      program.outputHelp();
      return;
    }
    // Loaded here, not at the top: the model's modules would otherwise be initialised by every command and hook.
    const [{ loadClassifier }, { runSelfCheck, SELF_CHECK_CASES }] = await Promise.all([import("./io/model-file.js"), import("./cli/self-check.js")]);
    const classifier = loadClassifier(opts.model);
    const failures = runSelfCheck(classifier);
    if (failures.length) {
      for (const f of failures) process.stderr.write(`triage: self-check: ${visible(f)}\n`);
      process.exitCode = 1;
      return;
    }
    writeStdout(`self-check ok: ${classifier.name} tier, ${SELF_CHECK_CASES.length} built-in lines classified as expected\n`);
  });

  try {
    await program.parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      process.exitCode = err.exitCode === 0 ? 0 : 1;
    } else {
      // visible(): messages quote user input (paths, arguments, the rules of COMPACTION_UNSAFE).
      const debug = Boolean(program.opts().debug) || (!(err instanceof TriageError) && given.includes("--debug"));
      const report = errorReport(err, debug);
      process.stderr.write(report.text);
      process.exitCode = report.exitCode;
    }
  }
}

void main();
