import { statSync } from "node:fs";
import type { Command } from "commander";
import { TYPES, type ClassifiedUnit } from "../../engine/types.js";
import { loadClassifier } from "../../io/model-file.js";
import { segmentBatches } from "../../engine/units.js";
import { decideUnits } from "../../operators/policy.js";
import type { ClassifyRowJson } from "../json-output.js";
import { readInputLines, stderrLine, writeStdout } from "../../io/text-io.js";
import { checkReadable, INPUT_MAX_BYTES } from "../../io/read-files.js";
import { visibleName, visibleTruncated } from "../../terminal.js";
import { UsageError } from "../../errors.js";
import { checkHeapRoom, HEAP_BYTES_PER_CHAR } from "../../io/heap-room.js";

/** One row of `triage classify --json` (ClassifyRowSchema in json-output.ts). */
export type ClassifyRow = ClassifyRowJson;

const round = (x: number): number => Math.round(x * 1e4) / 1e4;

/** Units per write of the output (a few MB of `--json` each): the output is streamed, never built whole. */
const ROWS_PER_WRITE = 10_000;

/** The `--json` row of one classified unit of `file`. */
function toRow(file: string, u: ClassifiedUnit): ClassifyRow {
  return {
    file,
    line: u.line,
    endLine: u.endLine,
    text: u.text,
    type: u.type,
    confidence: round(u.confidence),
    scores: { constraint: round(u.scores.constraint), procedural: round(u.scores.procedural), belief: round(u.scores.belief), preference: round(u.scores.preference), episodic: round(u.scores.episodic) },
  };
}

/** Convert classified units of one file to `--json` rows (structure units omitted except with --all). */
export function toRows(file: string, units: ClassifiedUnit[], all = false): ClassifyRow[] {
  return units.filter((u) => all || u.type !== "structure").map((u) => toRow(file, u));
}

const ABBR: Record<string, string> = {
  constraint: "CONSTRAINT",
  procedural: "procedural",
  belief: "belief",
  preference: "preference",
  episodic: "episodic",
};

/** One table line of a unit: line range, type, confidence, first line of text (truncated to `width`). */
function tableLine(u: Pick<ClassifiedUnit, "line" | "endLine" | "text" | "type" | "confidence">, width: number): string {
  const range = u.endLine > u.line ? `${u.line}-${u.endLine}` : `${u.line}`;
  const more = u.endLine > u.line ? ` (+${u.endLine - u.line} lines)` : "";
  const nl = u.text.indexOf("\n");
  const text = visibleTruncated(`${(nl < 0 ? u.text : u.text.slice(0, nl)).trim()}${more}`, width);
  return `${range.padStart(7)}  ${(ABBR[u.type] ?? u.type).padEnd(10)}  ${round(u.confidence).toFixed(2)}  ${text}`;
}

/** Render rows as a fixed-width table: line range, type, confidence, first line of text (truncated). */
export function renderTable(rows: ClassifyRow[], width = 100): string {
  const out: string[] = [];
  let file = "";
  for (const r of rows) {
    if (r.file !== file) {
      file = r.file;
      out.push(`== ${visibleName(file)}`);
    }
    out.push(tableLine(r, width));
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
 * `triage classify`: classify each file (or - for stdin) and stream the table (or with `json`, one JSON
 * array of ClassifyRow) to stdout, ROWS_PER_WRITE units at a time, file by file: memory holds one file's
 * units, never the whole output. Decoding warnings go to stderr as each file is read. The bytes are those of
 * renderTable / JSON.stringify over all rows. Throws UsageError (stdin twice), ReadError, ModelError.
 */
export function runClassify(files: string[], opts: ClassifyOptions): void {
  if (files.filter((f) => f === "-").length > 1) throw new UsageError("stdin (-) can be given only once");
  const classifier = loadClassifier(opts.model);
  // The output is streamed: a file that cannot be read must fail before the first file's rows are written.
  for (const f of files) {
    if (f === "-") continue;
    checkReadable(f, { maxBytes: INPUT_MAX_BYTES, pipes: true });
    const st = statSync(f);
    if (st.isFile()) checkHeapRoom(st.size, `classify ${f}`, HEAP_BYTES_PER_CHAR.classify); // bytes >= characters of the decoded text
  }
  const counts = Object.fromEntries(TYPES.map((t) => [t, 0])) as Record<(typeof TYPES)[number], number>;
  let total = 0;
  // "[" goes out with the first row (or at the end), so a heap check that fails on the first file writes nothing.
  let opened = !opts.json;
  const open = (): void => {
    if (!opened) writeStdout("[");
    opened = true;
  };
  for (const f of files) {
    // UTF-8 input stays bytes (decoded a line at a time as units are found): see readInputLines.
    const input = readInputLines(f);
    // Memory holds one file's input at a time (the output is streamed), so the check is per file.
    checkHeapRoom(input.source.length, `classify ${f}`, HEAP_BYTES_PER_CHAR.classify);
    for (const w of input.warnings) stderrLine(`warning: ${w}`);
    // Per file, so a file with no units still gets its "== file" header.
    if (!opts.json) writeStdout(`== ${visibleName(f)}\n`);
    let piece: string[] = [];
    const flush = (): void => {
      if (piece.length === 0) return;
      open();
      writeStdout(opts.json ? piece.join(",") : `${piece.join("\n")}\n`);
      piece = [];
    };
    // Units are found, typed and written a batch at a time (decideUnits types each unit on its own, so batching
    // changes no type): memory holds the text and one batch, not every unit of a large file.
    for (const batch of segmentBatches(input.source, ROWS_PER_WRITE)) {
      const units = decideUnits(batch, classifier); // the types compact, decompose and retrieve act on
      for (let i = 0; i < units.length; i++) {
        const u = units[i] as ClassifiedUnit;
        if (u.type === "structure") continue;
        counts[u.type as (typeof TYPES)[number]]++;
        // "," before every row but the first of the whole array; a piece that starts a file continues the last one.
        if (opts.json) piece.push(`${total > 0 && piece.length === 0 ? "," : ""}${JSON.stringify(toRow(f, u))}`);
        else piece.push(tableLine(u, 100));
        total++;
        if (piece.length >= ROWS_PER_WRITE) flush();
      }
    }
    flush();
  }
  if (opts.json) {
    open();
    writeStdout("]\n");
    return;
  }
  // The count line is printed always (also for 0 units); --summary is kept for compatibility.
  writeStdout(`${total} ${total === 1 ? "unit" : "units"}: ${TYPES.map((t) => `${counts[t]} ${t}`).join(", ")}\n`);
}

export function registerClassify(program: Command): void {
  program
    .command("classify")
    .description("label every unit of markdown memory files by type (constraint, procedural, belief, preference, episodic)")
    .argument("<files...>", "markdown files, or - for stdin")
    .option("--json", "print one JSON array of {file, line, endLine, text, type, confidence, scores}")
    .option("--model <path>", "model file (default: bundled model/model.json; /dev/null = regex tier)")
    .option("--summary", "no effect: the counts per type are always printed after the table (kept so older scripts still run)")
    .action((files: string[], opts: ClassifyOptions) => runClassify(files, opts));
}
