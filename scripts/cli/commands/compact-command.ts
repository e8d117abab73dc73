import type { Command } from "commander";
import { resolveBudget } from "../../engine/budget.js";
import { segment } from "../../engine/units.js";
import { decideUnits, PIN_MASS } from "../../operators/policy.js";
import { CompactionUnsafeError, UsageError } from "../../errors.js";
import { loadClassifier } from "../../io/model-file.js";
import { checkHeapRoom, HEAP_BYTES_PER_CHAR } from "../../io/heap-room.js";
import { encodeLike, inFormOf, readInputExact, stderrLine, writeStdout } from "../../io/text-io.js";
import { refuseOverwrite, writeFileAtomic } from "../../io/write-files.js";
import { type CompactOptions, compact } from "../../operators/compact.js";
import { CompactErrorSchema, CompactReportSchema } from "../operator-json.js";

/** Parse a --budget / --ratio pair into a token budget for an input of `inputTokens` tokens (UsageError on bad input). */
export function budgetFromFlags(flags: { budget?: string; ratio?: string }, inputTokens: number, names = ["--budget", "--ratio"]): number {
  const num = (s: string | undefined, name: string): number | undefined => {
    if (s === undefined) return undefined;
    // Decimal or exponent notation ("0.1", "1e-1"); Number() would also take "0x10" (16), "" (0) and " 12 ".
    const shape = name === names[1] ? "a decimal number such as 0.5" : "a whole number of tokens such as 800";
    if (!/^-?(\d+(\.\d*)?|\.\d+)(e[-+]?\d+)?$/i.test(s)) throw new UsageError(`${name} must be ${shape}, got "${s}"`);
    const v = Number(s);
    // Beyond 2^53 a token count is no longer exact (and no memory file has that many tokens).
    if (!Number.isSafeInteger(Math.ceil(Math.abs(v)))) throw new UsageError(`${name} is too large, got "${s}"`);
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

/**
 * The budget of `compact` from its flags: `--ratio min` asks for the smallest safe compaction,
 * `--ratio R` a ratio of the input kept whole, `--budget N` tokens. UsageError on bad input (as budgetFromFlags).
 */
export function compactBudget(flags: { budget?: string; ratio?: string }): CompactOptions["budget"] {
  if (flags.ratio === "min") {
    if (flags.budget !== undefined) throw new UsageError("give either --budget or --ratio min, not both");
    return "min";
  }
  const tokens = budgetFromFlags(flags, 1); // validates both flags (exactly one, decimal notation, range)
  return flags.budget !== undefined ? tokens : { ratio: Number(flags.ratio) };
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

/** `triage compact <file|-> (--budget N | --ratio R | --ratio min) [-o out] [--json]`; exit 2 (with --json: a CompactErrorSchema object on stdout) when the rules do not fit. */
export function registerCompact(program: Command): void {
  program
    .command("compact")
    .description("compact a memory file to a token budget: rules kept word for word, beliefs compressed, preferences merged, episodes dropped")
    .argument("<file>", "markdown memory file, or - for stdin")
    .option("--budget <tokens>", "budget in tokens (estimateTokens: ~4 Latin characters or 1 CJK character per token)")
    .option("--ratio <r>", "budget as a ratio of the input's token estimate, e.g. 0.5 (1 always fits); min = the smallest safe compaction")
    .option("-o, --output <file>", "write the compacted markdown here (default, or -: stdout)")
    .option("--json", "print a JSON report (budget, sizes, per-unit action) instead of the text")
    .option("--model <path>", "classifier model (default: bundled model/model.json; /dev/null = regex tier)")
    .option("--pin-mass <p>", `also keep word for word units with P(constraint)+P(procedural) >= p (default ${PIN_MASS}; 1.01: the rules alone); types are not changed`)
    .option("--force", "allow -o to overwrite an existing file (even the input)")
    .action((file: string, opts: CompactFlags, cmd: Command) => {
      opts.model ??= (cmd.optsWithGlobals() as { model?: string }).model; // a global --model may capture the flag
      if (opts.output === "-") opts.output = undefined; // -o - is standard output, as without -o
      const input = readInputExact(file, "compact");
      checkHeapRoom(input.text.length, `compact ${file}`, HEAP_BYTES_PER_CHAR.whole);
      if (opts.output) refuseOverwrite(opts.output, { force: opts.force, inputs: [file] });
      for (const w of input.warnings) stderrLine(`warning: ${w}`);
      const budget = compactBudget(opts);
      const pinMass = pinMassFlag(opts.pinMass);
      const units = decideUnits(segment(input.text), loadClassifier(opts.model));
      let result: ReturnType<typeof compact>;
      try {
        result = compact(units, { budget, pinMass }); // throws CompactionUnsafeError: nothing written
      } catch (e) {
        if (opts.json && e instanceof CompactionUnsafeError) {
          const error = CompactErrorSchema.parse({ file, error: { code: e.code, message: e.message, budget: e.budget, needed: e.needed, smallestRatio: e.smallestRatio, unfit: e.unfit } });
          writeStdout(`${JSON.stringify(error)}\n`);
        }
        throw e;
      }
      const text = inFormOf(input.text, result.text); // the input's byte-order mark and CRLF line breaks, if it had them
      // A file keeps the input's encoding too (UTF-16 with its byte-order mark); standard output is UTF-8.
      if (opts.output) writeFileAtomic(opts.output, encodeLike(text, input));
      if (opts.json) {
        const report = CompactReportSchema.parse({
          file,
          budget: result.budget,
          before: result.before,
          after: result.after,
          needed: result.needed,
          smallestRatio: result.smallestRatio,
          output: opts.output ?? null,
          text,
          units: result.units,
        });
        writeStdout(`${JSON.stringify(report)}\n`);
      } else if (!opts.output) {
        writeStdout(text);
      } else {
        stderrLine(`compacted ${result.before} -> ${result.after} tokens (budget ${result.budget}); wrote ${opts.output}`);
      }
    });
}
