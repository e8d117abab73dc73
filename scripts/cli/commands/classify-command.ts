import { getHeapStatistics } from "node:v8";
import type { Command } from "commander";
import { TYPES, type ClassifiedUnit } from "../../engine/types.js";
import { loadClassifier } from "../../io/model-file.js";
import { segment } from "../../engine/units.js";
import { decideUnits } from "../../operators/policy.js";
import type { ClassifyRowJson } from "../json-output.js";
import { readInput, stderrLine, writeStdout } from "../../io/text-io.js";
import { visibleName, visibleTruncated } from "../../terminal.js";
import { UsageError } from "../../errors.js";

/** One row of `triage classify --json` (ClassifyRowSchema in json-output.ts). */
export type ClassifyRow = ClassifyRowJson;

const round = (x: number): number => Math.round(x * 1e4) / 1e4;

/**
 * Bytes of V8 heap a classify run holds per character of input at its peak (units, their features in
 * turn, rows with five scores; measured: 120 MB of markdown peaked at 3.4 GB, 30 MB at 1.5 GB). Input
 * that would not fit the heap is refused with one line instead of Node's out-of-memory abort.
 */
export const HEAP_BYTES_PER_CHAR = 32;
/** Inputs smaller than this in total are not checked (the check loads node:v8, ~4 ms). */
const HEAP_CHECK_FROM_CHARS = 8 * 1024 * 1024;

/**
 * Throws UsageError when `chars` characters of input would not fit this Node's heap limit at
 * HEAP_BYTES_PER_CHAR (the message names `file`, the sizes and the way out).
 */
function checkHeapRoom(chars: number, file: string): void {
  if (chars < HEAP_CHECK_FROM_CHARS) return;
  const limit = getHeapStatistics().heap_size_limit;
  const need = chars * HEAP_BYTES_PER_CHAR;
  if (need <= limit) return;
  const mib = (n: number): number => Math.ceil(n / (1024 * 1024));
  throw new UsageError(
    `cannot classify ${file}: ${mib(chars)} MiB of input needs about ${mib(need)} MiB of memory, more than this Node's heap limit of ${mib(limit)} MiB (split the input, or raise the limit: NODE_OPTIONS=--max-old-space-size=${mib(need) + 512})`,
  );
}

/** Rows per write of `--json` output (a few MB each). */
const JSON_ROWS_PER_WRITE = 10_000;

/** Convert classified units of one file to `--json` rows (structure units omitted except with --all). */
export function toRows(file: string, units: ClassifiedUnit[], all = false): ClassifyRow[] {
  return units
    .filter((u) => all || u.type !== "structure")
    .map((u) => ({
      file,
      line: u.line,
      endLine: u.endLine,
      text: u.text,
      type: u.type,
      confidence: round(u.confidence),
      scores: Object.fromEntries(TYPES.map((t) => [t, round(u.scores[t])])) as ClassifyRow["scores"],
    }));
}

const ABBR: Record<string, string> = {
  constraint: "CONSTRAINT",
  procedural: "procedural",
  belief: "belief",
  preference: "preference",
  episodic: "episodic",
};

/** Render rows as a fixed-width table: line range, type, confidence, first line of text (truncated). */
export function renderTable(rows: ClassifyRow[], width = 100): string {
  const out: string[] = [];
  let file = "";
  for (const r of rows) {
    if (r.file !== file) {
      file = r.file;
      out.push(`== ${visibleName(file)}`);
    }
    const range = r.endLine > r.line ? `${r.line}-${r.endLine}` : `${r.line}`;
    const more = r.endLine > r.line ? ` (+${r.endLine - r.line} lines)` : "";
    const text = visibleTruncated(`${r.text.split("\n")[0]?.trim() ?? ""}${more}`, width);
    out.push(`${range.padStart(7)}  ${(ABBR[r.type] ?? r.type).padEnd(10)}  ${r.confidence.toFixed(2)}  ${text}`);
  }
  return `${out.join("\n")}\n`;
}

/** Options of `triage classify` (see registerClassify). */
export interface ClassifyOptions {
  json?: boolean;
  model?: string;
  summary?: boolean;
}

/**
 * `triage classify`: classify each file (or - for stdin) and write the table (or with `json`, one
 * JSON array of ClassifyRow) to stdout once all are classified; decoding warnings go to stderr as each file is
 * read. Throws UsageError (stdin twice), ReadError, ModelError.
 */
export function runClassify(files: string[], opts: ClassifyOptions): void {
  if (files.filter((f) => f === "-").length > 1) throw new UsageError("stdin (-) can be given only once");
  const classifier = loadClassifier(opts.model);
  const rows: ClassifyRow[] = [];
  const perFile: Array<{ file: string; count: number }> = [];
  let chars = 0;
  for (const f of files) {
    const input = readInput(f);
    chars += input.text.length;
    checkHeapRoom(chars, f);
    for (const w of input.warnings) stderrLine(`warning: ${w}`);
    const fileRows = toRows(f, decideUnits(segment(input.text), classifier)); // the types compact, decompose and retrieve act on
    perFile.push({ file: f, count: fileRows.length });
    for (const r of fileRows) rows.push(r); // not push(...rows): a spread of 125,000+ arguments overflows the stack
  }
  if (opts.json) {
    // The same bytes as JSON.stringify(rows), written in pieces: one string of all rows exceeds V8's
    // string length limit for inputs of ~140 MB and more (well under the 256 MiB input cap).
    writeStdout("[");
    for (let i = 0; i < rows.length; i += JSON_ROWS_PER_WRITE) writeStdout(`${i ? "," : ""}${rows.slice(i, i + JSON_ROWS_PER_WRITE).map((r) => JSON.stringify(r)).join(",")}`);
    writeStdout("]\n");
    return;
  }
  // Per file, so a file with no units still gets its "== file" header.
  const out: string[] = [];
  let start = 0;
  for (const n of perFile) {
    const fileRows = rows.slice(start, start + n.count);
    start += n.count;
    out.push(fileRows.length ? renderTable(fileRows) : `== ${visibleName(n.file)}\n`);
  }
  // The count line is printed always (also for 0 units); --summary is kept for compatibility.
  const counts = Object.fromEntries(TYPES.map((t) => [t, rows.filter((r) => r.type === t).length]));
  out.push(`${rows.length} units: ${TYPES.map((t) => `${counts[t]} ${t}`).join(", ")}\n`);
  writeStdout(out.join(""));
}

export function registerClassify(program: Command): void {
  program
    .command("classify")
    .description("label every unit of markdown memory files by type (constraint, procedural, belief, preference, episodic)")
    .argument("<files...>", "markdown files, or - for stdin")
    .option("--json", "print one JSON array of {file, line, endLine, text, type, confidence, scores}")
    .option("--model <path>", "model file (default: bundled model/model.json; /dev/null = regex tier)")
    .option("--summary", "print counts per type after the table")
    .action((files: string[], opts: ClassifyOptions) => runClassify(files, opts));
}
