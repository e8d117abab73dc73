/**
 * The memory files of a project that Claude Code loads (research/integration.md §4, as references/claude-code.md):
 * `CLAUDE.md`, `CLAUDE.local.md` and `.claude/CLAUDE.md` at the project root, and every `.md` under
 * `.claude/rules/` (recursively; the rules folder of Knowledge Triage is one of them). Used by the MCP `retrieve`
 * tool, which has no `--base` list to go on.
 */
import { existsSync, statSync } from "node:fs";
import { isAbsolute, join, relative, resolve } from "node:path";
import type { Classifier } from "../engine/classify.js";
import { segment } from "../engine/units.js";
import type { MemoryDoc } from "../operators/decompose.js";
import { decideUnits } from "../operators/policy.js";
import { STATE_DIRNAME } from "../paths.js";
import { checkHeapRoom, HEAP_BASE_BYTES, HEAP_BYTES_PER_CHAR } from "./heap-room.js";
import { walkFiles } from "./read-files.js";
import { readInput } from "./text-io.js";

/** Memory files at the project root, in the order Claude Code lists them. */
const ROOT_FILES = ["CLAUDE.md", "CLAUDE.local.md", join(".claude", "CLAUDE.md")];
/** Folders of a rules folder that hold no memory: the sidecar state and the transcript archive (archive.ts ARCHIVE_DIRNAME). */
const SKIP_DIRS = new Set([STATE_DIRNAME, "archive"]);

/**
 * Absolute paths of the project's memory files (see module doc) plus every `.md` directly in `rulesDir` when it
 * lies outside `.claude/rules`, each once, root files first, then the rules in sorted walk order. Missing files and
 * folders are left out; never throws for them. Warnings: entries skipped by walkFiles (FIFOs, unlistable folders).
 */
export function projectMemoryFiles(projectDir: string, rulesDir: string): { files: string[]; warnings: string[] } {
  const root = resolve(projectDir);
  const files = ROOT_FILES.map((f) => join(root, f)).filter(isFile);
  const tops = [join(root, ".claude", "rules")];
  const rd = resolve(rulesDir);
  const rel = relative(tops[0] as string, rd);
  if (rel.startsWith("..") || isAbsolute(rel)) tops.push(rd);
  const walked = walkFiles(tops.filter(existsSync), { enterDir: (n) => !SKIP_DIRS.has(n), wantFile: (n) => n.endsWith(".md") });
  for (const f of walked.files) if (!files.includes(f)) files.push(f);
  return { files, warnings: walked.warnings };
}

function isFile(p: string): boolean {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

/**
 * Read and classify memory files into the documents TypeRetrieve and TypeDecompose take: each file segmented into
 * units (engine/units.ts), without block HTML comments, and typed by `classifier` (operators/policy.ts decideUnits, `pinMass` as there). `name`
 * is `nameOf(path)` (default: the path). Decoding warnings are returned, not printed. Throws UsageError
 * (text-io.ts readInput) for a file that cannot be read.
 */
export function memoryDocs(
  files: readonly string[],
  classifier: Classifier,
  opts: { pinMass?: number; nameOf?: (path: string) => string } = {},
): { docs: MemoryDoc[]; warnings: string[] } {
  const warnings: string[] = [];
  const docs = files.map((f) => {
    const input = readInput(f);
    checkHeapRoom(input.text.length, `read ${f}`, HEAP_BYTES_PER_CHAR.whole, HEAP_BASE_BYTES.whole);
    warnings.push(...input.warnings);
    // Claude Code strips block HTML comments from memory files (references/claude-code.md): the model never sees
    // them, so they are no rules. Their line feeds stay, so line numbers still point into the file.
    const text = input.text.replace(/<!--[\s\S]*?-->/g, (c) => c.replace(/[^\n]/g, ""));
    return { name: opts.nameOf?.(f) ?? f, units: decideUnits(segment(text), classifier, { pinMass: opts.pinMass }) };
  });
  return { docs, warnings };
}
