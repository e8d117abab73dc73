/**
 * Reading labelled data from disk: a folder of `<name>.md` + `<name>.labels.jsonl` documents and
 * loose `*.jsonl` units, or a single such file. Validates every line with zod (schemas.ts).
 */
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { basename } from "node:path";
import { alignLabels, type LineLabel } from "../engine/gold.js";
import type { LabelledDoc } from "../engine/train.js";
import type { Unit } from "../engine/types.js";
import { segment, isStructure } from "../engine/units.js";
import { DataError, UsageError } from "../errors.js";
import { INPUT_MAX_BYTES, readFileCapped, walkFiles } from "./read-files.js";
import { decodeBytes } from "./text-io.js";
import { LineLabelSchema, LooseUnitSchema } from "../cli/json-output.js";

/**
 * Labelled documents plus a sha256 over the files read (sorted by name), the files used, and warnings
 * (one line each) for folder entries skipped: FIFOs, sockets, devices.
 */
export interface LoadedData {
  docs: LabelledDoc[];
  sha256: string;
  files: string[];
  warnings: string[];
}

/** A data file's bytes, read once (parsed, then hashed). Regular files only, at most INPUT_MAX_BYTES. */
type ReadBytes = (path: string) => Buffer;

function parseJsonl<T>(path: string, text: string, parse: (v: unknown) => T): T[] {
  const out: T[] = [];
  text.split(/\r?\n/).forEach((line, i) => {
    if (line.trim() === "") return;
    let v: unknown;
    try {
      v = JSON.parse(line);
    } catch {
      throw new DataError(`${path}:${i + 1}: not valid JSON`);
    }
    try {
      out.push(parse(v));
    } catch (e) {
      const issue = (e as { issues?: { path: (string | number)[]; message: string; values?: unknown[] }[] }).issues?.[0];
      if (!issue) throw new DataError(`${path}:${i + 1}: ${(e as Error).message}`);
      const field = issue.path.join(".") || "value";
      // An enum (the knowledge types): name the value found and the values allowed, not zod's "Invalid input".
      const got = issue.path.reduce<unknown>((o, k) => (o !== null && typeof o === "object" ? (o as Record<string | number, unknown>)[k] : undefined), v);
      const what = issue.values ? `${JSON.stringify(got)} is not a ${field}; use one of ${issue.values.join(", ")}` : issue.message;
      throw new DataError(`${path}:${i + 1}: ${field}: ${what}`);
    }
  });
  return out;
}

function loadDocument(mdPath: string, labelsPath: string, read: ReadBytes): LabelledDoc {
  const md = decodeBytes(read(mdPath), mdPath).text;
  const labels: LineLabel[] = parseJsonl(labelsPath, read(labelsPath).toString("utf8"), (v) => LineLabelSchema.parse(v));
  const units = segment(md).filter((u) => !isStructure(u));
  const body = md.replace(/^\uFEFF/, "").replace(/(\r\n|\r|\n)$/, "");
  const lineCount = body === "" ? 0 : body.split(/\r\n|\r|\n/).length;
  for (const l of labels) if (l.line > lineCount) throw new DataError(`${labelsPath}: line ${l.line} is past the end of ${mdPath} (${lineCount} lines)`);
  const { gold } = alignLabels(units, labels);
  const byUnit = new Map(gold.map((g) => [g.unit, g]));
  return {
    group: basename(mdPath),
    units,
    gold: units.map((u) => byUnit.get(u)?.type ?? null),
    lang: units.map((u) => byUnit.get(u)?.lang ?? null),
  };
}

function loadLoose(path: string, read: ReadBytes): LabelledDoc[] {
  const rows = parseJsonl(path, read(path).toString("utf8"), (v) => LooseUnitSchema.parse(v));
  return rows.map((r, i) => {
    const kind = /^\s*(?:[-*+•]|\d{1,9}[.)])\s/.test(r.text) ? "list-item" : "line";
    const unit: Unit = { line: i + 1, endLine: i + 1, text: r.text, kind, headings: r.headings ?? [], level: 0, depth: 0, leadIn: "" };
    return { group: `${basename(path)}#${i % 50}`, units: [unit], gold: [r.type], lang: [r.lang] };
  });
}

/**
 * Load labelled data from a folder (its own `.md` and `.jsonl` files, not sub-folders) or a file
 * (.jsonl of loose units, or .md with its .labels.jsonl). Every file must be regular and at most
 * INPUT_MAX_BYTES; a FIFO or device in the folder is skipped with a warning. Throws UsageError for a
 * missing path, ReadError for an unreadable file, DataError for malformed content.
 */
export function loadLabelledData(path: string): LoadedData {
  const walked = walkFiles([path], { recursive: false, wantFile: (n) => n.endsWith(".md") || n.endsWith(".jsonl") });
  const bytes = new Map<string, Buffer>();
  const read: ReadBytes = (f) => {
    let b = bytes.get(f);
    if (!b) bytes.set(f, (b = readFileCapped(f, { maxBytes: INPUT_MAX_BYTES })));
    return b;
  };
  const docs: LabelledDoc[] = [];
  const hash = createHash("sha256");
  const used: string[] = [];
  for (const f of walked.files) {
    if (f.endsWith(".labels.jsonl")) continue;
    if (f.endsWith(".md")) {
      const labels = f.replace(/\.md$/, ".labels.jsonl");
      if (!existsSync(labels)) throw new DataError(`${f}: no labels file ${basename(labels)} beside it`);
      docs.push(loadDocument(f, labels, read));
      used.push(f, labels);
    } else if (f.endsWith(".jsonl")) {
      for (const d of loadLoose(f, read)) docs.push(d);
      used.push(f);
    } else throw new UsageError(`${f}: expected a folder, a .jsonl file or a labelled .md file`);
  }
  for (const f of used) {
    hash.update(basename(f));
    hash.update("\u0000");
    hash.update(read(f));
  }
  if (docs.length === 0) throw new DataError(`${path}: no labelled documents or .jsonl units found`);
  return { docs, sha256: hash.digest("hex"), files: used, warnings: walked.warnings };
}
