import type { Command } from "commander";
import { resolveBudget, estimateTokens } from "../engine/budget.js";
import { segment } from "../engine/units.js";
import { classifyForOperators } from "../operators/policy.js";
import { UsageError } from "../errors.js";
import { loadClassifier, readInput, writeFileAtomic } from "../io.js";
import { compact } from "../operators/compact.js";
import { CompactReportSchema } from "../operators/schemas.js";

/** Parse a --budget / --ratio pair into a token budget for an input of `inputTokens` tokens (UsageError on bad input). */
export function budgetFromFlags(flags: { budget?: string; ratio?: string }, inputTokens: number, names = ["--budget", "--ratio"]): number {
  const num = (s: string | undefined, name: string): number | undefined => {
    if (s === undefined) return undefined;
    const v = Number(s);
    if (s.trim() === "" || !Number.isFinite(v)) throw new UsageError(`${name} must be a number, got "${s}"`);
    return v;
  };
  try {
    return resolveBudget({ budget: num(flags.budget, names[0] as string), ratio: num(flags.ratio, names[1] as string) }, inputTokens);
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

interface CompactFlags {
  budget?: string;
  ratio?: string;
  output?: string;
  json?: boolean;
  model?: string;
  pinMass?: string;
}

/** `triage compact <file|-> (--budget N | --ratio R) [-o out] [--json]`. */
export function registerCompact(program: Command): void {
  program
    .command("compact")
    .description("compact a memory file to a token budget: rules kept word for word, beliefs compressed, preferences merged, episodes dropped")
    .argument("<file>", "markdown memory file, or - for stdin")
    .option("--budget <tokens>", "budget in tokens (estimateTokens: ~4 Latin characters or 1 CJK character per token)")
    .option("--ratio <r>", "budget as a ratio of the input's token estimate, e.g. 0.1")
    .option("-o, --output <file>", "write the compacted markdown here (default: stdout)")
    .option("--json", "print a JSON report (budget, sizes, per-unit action) instead of the text")
    .option("--model <path>", "classifier model (default: bundled model/model.json; /dev/null = regex tier)")
    .option("--pin-mass <p>", "also pin units with P(constraint)+P(procedural) >= p (default 0.4)")
    .action((file: string, opts: CompactFlags, cmd: Command) => {
      opts.model ??= (cmd.optsWithGlobals() as { model?: string }).model; // a global --model may capture the flag
      const input = readInput(file);
      for (const w of input.warnings) process.stderr.write(`triage: warning: ${w}\n`);
      const units = classifyForOperators(segment(input.text), loadClassifier(opts.model));
      const inputTokens = units.length ? estimateTokens(`${units.map((u) => u.text).join("\n")}\n`) : 0;
      const budget = budgetFromFlags(opts, inputTokens);
      const result = compact(units, { budget, pinMass: pinMassFlag(opts.pinMass) }); // throws CompactionUnsafeError: nothing written
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
        process.stdout.write(`${JSON.stringify(report)}\n`);
      } else if (!opts.output) {
        process.stdout.write(result.text);
      } else {
        process.stderr.write(`triage: compacted ${result.before} -> ${result.after} tokens (budget ${budget}); wrote ${opts.output}\n`);
      }
    });
}
