import type { Command } from "commander";
import { resolveBudget, estimateTokens } from "../../engine/budget.js";
import { segment } from "../../engine/units.js";
import { classifyForOperators } from "../../operators/policy.js";
import { CompactionUnsafeError, UsageError } from "../../errors.js";
import { loadClassifier } from "../../io/model-file.js";
import { readInput, stderrLine, writeStdout } from "../../io/text-io.js";
import { refuseOverwrite, writeFileAtomic } from "../../io/write-files.js";
import { compact } from "../../operators/compact.js";
import { CompactReportSchema } from "../operator-json.js";

/** Parse a --budget / --ratio pair into a token budget for an input of `inputTokens` tokens (UsageError on bad input). */
export function budgetFromFlags(flags: { budget?: string; ratio?: string }, inputTokens: number, names = ["--budget", "--ratio"]): number {
  const num = (s: string | undefined, name: string): number | undefined => {
    if (s === undefined) return undefined;
    // Decimal notation only: Number() would also take "0x10" (16), "1e3" and " 12 ".
    if (!/^-?(\d+(\.\d*)?|\.\d+)$/.test(s)) throw new UsageError(`${name} must be a number, got "${s}"`);
    const v = Number(s);
    return v;
  };
  const ratio = num(flags.ratio, names[1] as string);
  if (ratio !== undefined && !(ratio > 0 && ratio <= 1)) throw new UsageError(`${names[1]} must be in (0, 1], got "${flags.ratio}"`);
  try {
    return resolveBudget({ budget: num(flags.budget, names[0] as string), ratio }, inputTokens);
  } catch (e) {
    if (e instanceof RangeError) throw new UsageError(`${e.message} (${names.join(" or ")})`);
    throw e;
  }
}

/** Parse --pin-mass: a probability in [0, 1.01] (1.01 pins by argmax only). */
export function pinMassFlag(s: string | undefined): number | undefined {
  if (s === undefined) return undefined;
  const v = Number(s);
  if (!Number.isFinite(v) || v < 0 || v > 1.01) throw new UsageError(`--pin-mass must be a number in [0, 1.01], got "${s}"`);
  return v;
}

/** Longest rule text shown per line of a COMPACTION_UNSAFE message, in characters. */
const UNFIT_TEXT_MAX = 200;
/** Most rules listed in a COMPACTION_UNSAFE message before "... and N more". */
const UNFIT_LIST_MAX = 20;

/**
 * Rebuild a COMPACTION_UNSAFE error so its message stays short whatever the rules' size: each listed
 * rule ("L<line>: text") is cut to UNFIT_TEXT_MAX characters with an ellipsis, at most UNFIT_LIST_MAX
 * rules, then "... and N more". `needed` and the full `unfit` list are kept on the error.
 */
export function capUnsafeMessage(e: CompactionUnsafeError): CompactionUnsafeError {
  const head = e.message.split("\n")[0] ?? e.message;
  const shown = e.unfit.slice(0, UNFIT_LIST_MAX).map((s) => `  ${s.length > UNFIT_TEXT_MAX ? `${s.slice(0, UNFIT_TEXT_MAX - 1)}…` : s}`);
  if (e.unfit.length > UNFIT_LIST_MAX) shown.push(`  ... and ${e.unfit.length - UNFIT_LIST_MAX} more`);
  return new CompactionUnsafeError(`${head.length > 400 ? `${head.slice(0, 399)}…` : head}\n${shown.join("\n")}`, e.needed, e.unfit);
}

interface CompactFlags {
  budget?: string;
  ratio?: string;
  output?: string;
  json?: boolean;
  model?: string;
  pinMass?: string;
  force?: boolean;
}

/** `triage compact <file|-> (--budget N | --ratio R) [-o out] [--json]`. */
export function registerCompact(program: Command): void {
  program
    .command("compact")
    .description("compact a memory file to a token budget: rules kept word for word, beliefs compressed, preferences merged, episodes dropped")
    .argument("<file>", "markdown memory file, or - for stdin")
    .option("--budget <tokens>", "budget in tokens (estimateTokens: ~4 Latin characters or 1 CJK character per token)")
    .option("--ratio <r>", "budget as a ratio of the input's token estimate, e.g. 0.1")
    .option("-o, --output <file>", "write the compacted markdown here (default, or -: stdout)")
    .option("--json", "print a JSON report (budget, sizes, per-unit action) instead of the text")
    .option("--model <path>", "classifier model (default: bundled model/model.json; /dev/null = regex tier)")
    .option("--pin-mass <p>", "also pin units with P(constraint)+P(procedural) >= p (default 0.4)")
    .option("--force", "allow -o to overwrite an existing file (even the input)")
    .action((file: string, opts: CompactFlags, cmd: Command) => {
      opts.model ??= (cmd.optsWithGlobals() as { model?: string }).model; // a global --model may capture the flag
      if (opts.output === "-") opts.output = undefined; // -o - is standard output, as without -o
      const input = readInput(file);
      if (opts.output) refuseOverwrite(opts.output, { force: opts.force, inputs: [file] });
      for (const w of input.warnings) stderrLine(`warning: ${w}`);
      const units = classifyForOperators(segment(input.text), loadClassifier(opts.model));
      const inputTokens = units.length ? estimateTokens(`${units.map((u) => u.text).join("\n")}\n`) : 0;
      const budget = budgetFromFlags(opts, inputTokens);
      let result: ReturnType<typeof compact>;
      try {
        result = compact(units, { budget, pinMass: pinMassFlag(opts.pinMass) }); // throws CompactionUnsafeError: nothing written
      } catch (e) {
        throw e instanceof CompactionUnsafeError ? capUnsafeMessage(e) : e;
      }
      if (opts.output) writeFileAtomic(opts.output, result.text);
      if (opts.json) {
        const report = CompactReportSchema.parse({
          file,
          budget: result.budget,
          before: result.before,
          after: result.after,
          needed: result.needed,
          output: opts.output ?? null,
          text: result.text,
          units: result.units,
        });
        writeStdout(`${JSON.stringify(report)}\n`);
      } else if (!opts.output) {
        writeStdout(result.text);
      } else {
        stderrLine(`compacted ${result.before} -> ${result.after} tokens (budget ${budget}); wrote ${opts.output}`);
      }
    });
}
