import type { Command } from "commander";
import { resolveBudget } from "../../engine/budget.js";
import { segment } from "../../engine/units.js";
import { decideUnits, PIN_MASS } from "../../operators/policy.js";
import { CompactionUnsafeError, UsageError } from "../../errors.js";
import { loadClassifier } from "../../io/model-file.js";
import { checkHeapRoom, HEAP_BASE_BYTES, HEAP_BYTES_PER_CHAR } from "../../io/heap-room.js";
import { encodeLike, inFormOf, readInputExact, stderrLine, writeStdout } from "../../io/text-io.js";
import { linkTarget, refuseOverwrite, writeFileAtomic } from "../../io/write-files.js";
import { projectDirFrom } from "../../io/project-folders.js";
import { type CompactOptions, compact } from "../../operators/compact.js";
import { CompactErrorSchema, CompactReportSchema } from "../operator-json.js";
import type { ClassifiedUnit } from "../../engine/types.js";
import { visibleTruncated } from "../../terminal.js";

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
  if (!Number.isFinite(v) || v < 0 || v > 1.01) throw new UsageError(`--pin-mass must be a probability from 0 to 1 (or 1.01: keep the rules alone), got "${s}"`);
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

/**
 * The file `-o out` writes: `out`, or the file it links to when `out` is a symbolic link whose target is inside the
 * project of the working folder (io/project-folders.ts projectDirFrom; the working folder itself in the home folder
 * or /), as `triage export` does, so a link stays a link and never leads a write out of the project. Throws
 * WriteError for a link leading outside (a dangling one included: it is not replaced by a file).
 */
function outputTarget(out: string): string {
  let root: string;
  try {
    root = projectDirFrom(process.cwd());
  } catch {
    root = process.cwd();
  }
  return linkTarget(out, root, "compact -o");
}

interface CompactFlags {
  budget?: string;
  ratio?: string;
  output?: string;
  json?: boolean;
  model?: string;
  pinMass?: string;
  force?: boolean;
  explain?: boolean;
}

/** Widest text shown per line of `--explain`, in characters. */
const EXPLAIN_TEXT_MAX = 90;

/**
 * The `--explain` report (stderr lines): sizes, counts of units per action, then one line per unit that did not stay
 * as written ("dropped  L7  episodic  Last updated: ..."; a merge names the line it went into), in source order.
 */
export function explainLines(result: ReturnType<typeof compact>, units: readonly ClassifiedUnit[]): string[] {
  const count = (a: string): number => result.units.filter((r) => r.action === a).length;
  const pinned = result.units.filter((r) => r.pinned).length;
  // Block HTML comments are not typed units (no row of their own in the report): a dropped one is named here.
  const goneComments = units.filter((u) => u.kind === "comment" && !result.text.includes(u.text));
  const droppedComments = goneComments.length;
  const out = [
    `compacted ${result.before} -> ${result.after} tokens (budget ${result.budget}; smallest safe ratio ${result.smallestRatio.toFixed(2)}): ` +
      `${count("kept")} kept as written (${pinned} pinned rules and near-rules), ${count("compressed")} compressed, ${count("merged")} merged, ${count("dropped")} dropped` +
      (droppedComments > 0 ? `, ${droppedComments} comment${droppedComments === 1 ? "" : "s"} dropped` : ""),
  ];
  const textAt = new Map(units.map((u) => [u.line, u.text.split("\n")[0] ?? ""]));
  const actionAt = new Map(result.units.map((r) => [r.line, r.action]));
  const rows: [number, string][] = [];
  const row = (line: number, action: string, where: string, type: string): [number, string] => [
    line,
    `  ${action.padEnd(10)} ${where.padEnd(11)} ${type.padEnd(10)} ${visibleTruncated((textAt.get(line) ?? "").trim(), EXPLAIN_TEXT_MAX)}`,
  ];
  for (const r of result.units) {
    if (r.action === "kept") continue;
    // A merge into a line that went too: say so, rather than point at a line that is not in the output.
    const lost = r.action === "merged" && r.into !== undefined && actionAt.get(r.into) === "dropped";
    const action = lost ? "dropped" : r.action;
    const where = r.action === "merged" && r.into !== undefined ? `L${r.line}->L${r.into}` : `L${r.line}`;
    rows.push(row(r.line, action, where, r.type));
  }
  for (const u of goneComments) rows.push(row(u.line, "dropped", `L${u.line}`, "comment"));
  rows.sort((a, b) => a[0] - b[0]);
  return out.concat(rows.map(([, l]) => l));
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
    .option("--explain", "also print to stderr what was dropped, merged or compressed, line by line")
    .action((file: string, opts: CompactFlags, cmd: Command) => {
      opts.model ??= (cmd.optsWithGlobals() as { model?: string }).model; // a global --model may capture the flag
      if (opts.output === "-") opts.output = undefined; // -o - is standard output, as without -o
      const input = readInputExact(file, "compact");
      checkHeapRoom(input.text.length, `compact ${file}`, HEAP_BYTES_PER_CHAR.whole, HEAP_BASE_BYTES.whole);
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
      if (opts.output) writeFileAtomic(outputTarget(opts.output), encodeLike(text, input));
      if (opts.explain) for (const l of explainLines(result, units)) stderrLine(l);
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
      } else if (opts.explain) {
        stderrLine(`wrote ${opts.output}`);
      } else {
        stderrLine(`compacted ${result.before} -> ${result.after} tokens (budget ${result.budget}); wrote ${opts.output}`);
      }
    });
}
