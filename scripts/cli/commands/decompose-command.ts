import { createHash } from "node:crypto";
import { readdirSync, rmSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Command } from "commander";
import * as z from "zod/mini";
import { estimateTokens } from "../../engine/budget.js";
import { segment } from "../../engine/units.js";
import { decideUnits } from "../../operators/policy.js";
import { TriageError, UsageError } from "../../errors.js";
import { checkHeapRoom, HEAP_BASE_BYTES, HEAP_BYTES_PER_CHAR } from "../../io/heap-room.js";
import { INPUT_MAX_BYTES, readFileCapped } from "../../io/read-files.js";
import { loadClassifier } from "../../io/model-file.js";
import { type DecodedInput, encodeLike, inFormOf, readInputExact, stderrLine, writeStdout } from "../../io/text-io.js";
import { refuseOverwrite, writeAllOrNothing } from "../../io/write-files.js";
import { visible } from "../../terminal.js";
import { decompose, DecomposeTooLargeError, type MemoryDoc } from "../../operators/decompose.js";
import { ManifestSchema } from "../operator-json.js";
import { budgetFromFlags, pinMassFlag } from "./compact-command.js";

/** The part of an earlier run's manifest.json that says which files of the folder it wrote. */
const OwnedManifestSchema = z.object({
  format: z.literal("knowledge-triage/decompose"),
  partitions: z.array(z.object({ file: z.string().check(z.minLength(1)), sha256: z.optional(z.string()) })),
});

const sha256 = (data: string | Buffer): string => createHash("sha256").update(data).digest("hex");

/**
 * Absolute paths in `dir` written by an earlier `triage decompose` run: its manifest.json and the
 * partition files that manifest lists, except a file whose bytes no longer match the sha256 the manifest
 * recorded (the user edited it: it is not replaced without --force). Empty when there is no manifest or it is not ours.
 */
export function ownedByPreviousRun(dir: string): Set<string> {
  const manifest = join(dir, "manifest.json");
  let raw: unknown;
  try {
    raw = JSON.parse(readFileCapped(manifest, { maxBytes: INPUT_MAX_BYTES }).toString("utf8"));
  } catch {
    return new Set();
  }
  const r = OwnedManifestSchema.safeParse(raw);
  if (!r.success) return new Set();
  const unedited = (p: { file: string; sha256?: string | undefined }): boolean => {
    if (p.sha256 === undefined) return true; // manifests before the hashes were recorded
    try {
      return sha256(readFileCapped(resolve(dir, p.file), { maxBytes: INPUT_MAX_BYTES })) === p.sha256;
    } catch {
      return true; // missing or unreadable: nothing of the user's to keep
    }
  };
  return new Set([resolve(manifest), ...r.data.partitions.filter(unedited).map((p) => resolve(dir, p.file))]);
}

/** Names of the entries of folder `dir`, sorted, without hidden ones (.gitkeep, .DS_Store); [] when it cannot be read. */
function existingEntries(dir: string): string[] {
  try {
    return readdirSync(dir)
      .filter((n) => !n.startsWith("."))
      .sort();
  } catch {
    return [];
  }
}

/**
 * Output cap of `triage decompose`, in characters of partition text: OUTPUT_FACTOR x the input's characters
 * plus OUTPUT_FLOOR_CHARS. On the 55 real memory files of bench/real (`.cache/real/*.md`) and examples/CLAUDE.md
 * the partitions are 1.0-4.5 x their input; 16 x leaves room for many small sections under global rules, while
 * input that would multiply further is refused with one line (a 1 MB base once wrote 102 MB and then crashed).
 */
export const OUTPUT_FACTOR = 16;
/** The cap's floor in characters (1 MiB): a small file with many sections may pass 16 x and is still small. */
export const OUTPUT_FLOOR_CHARS = 1024 * 1024;

interface DecomposeFlags {
  out?: string;
  by?: string;
  maxTokens?: string;
  maxRatio?: string;
  model?: string;
  pinMass?: string;
  json?: boolean;
  force?: boolean;
}

/** `triage decompose <file...> --out DIR [--by section | --max-tokens N | --max-ratio R]`. */
export function registerDecompose(program: Command): void {
  program
    .command("decompose")
    .description("split memory files into partitions (by top-level section or size) and copy every rule into each partition it governs")
    .argument("<files...>", "markdown memory files")
    .requiredOption("--out <dir>", "folder for one markdown file per partition and manifest.json")
    .option("--by <mode>", "section (default): one partition per top-level section")
    .option("--max-tokens <n>", "partition by size: at most n tokens of native content per partition")
    .option("--max-ratio <r>", "partition by size: at most r x the base's token estimate per partition")
    .option("--model <path>", "classifier model (default: bundled model/model.json; /dev/null = regex tier)")
    .option("--pin-mass <p>", "also count units with P(constraint)+P(procedural) >= p as rules (default: the classifier's type alone)")
    .option("--json", "print the manifest on stdout as well")
    .option("--force", "allow writing into an --out folder holding files an earlier decompose run did not write, and overwriting them (even inputs)")
    .action((files: string[], opts: DecomposeFlags, cmd: Command) => {
      opts.model ??= (cmd.optsWithGlobals() as { model?: string }).model; // a global --model may capture the flag
      if (files.includes("-")) throw new UsageError("decompose reads files, not stdin");
      const bySize = opts.maxTokens !== undefined || opts.maxRatio !== undefined;
      if (opts.by !== undefined && opts.by !== "section") throw new UsageError(`--by must be "section" (use --max-tokens or --max-ratio for size), got "${opts.by}"`);
      if (opts.by === "section" && bySize) throw new UsageError("give either --by section or --max-tokens/--max-ratio, not both");
      const dir = opts.out as string;
      try {
        if (!statSync(dir).isDirectory()) throw new UsageError(`--out must be a folder, but ${dir} is a file`);
      } catch (e) {
        if (e instanceof UsageError) throw e; // a missing folder is created
      }
      const classifier = loadClassifier(opts.model);
      const pinMass = pinMassFlag(opts.pinMass);
      const inputs = new Map<string, DecodedInput>();
      const docs: MemoryDoc[] = files.map((f) => {
        const input = readInputExact(f, "decompose");
        checkHeapRoom(input.text.length, `decompose ${f}`, HEAP_BYTES_PER_CHAR.whole, HEAP_BASE_BYTES.whole);
        for (const w of input.warnings) stderrLine(`warning: ${w}`);
        if (!inputs.has(f)) inputs.set(f, input);
        return { name: f, units: decideUnits(segment(input.text), classifier, { pinMass }) };
      });
      const total = docs.reduce((s, d) => s + estimateTokens(d.units.map((u) => u.text).join("\n")), 0);
      const inputChars = docs.reduce((s, d) => s + d.units.reduce((n, u) => n + u.text.length + 1, 0), 0);
      const maxOutputChars = OUTPUT_FACTOR * inputChars + OUTPUT_FLOOR_CHARS;
      let result: ReturnType<typeof decompose>;
      try {
        result = bySize
          ? decompose(docs, { by: "size", maxTokens: budgetFromFlags({ budget: opts.maxTokens, ratio: opts.maxRatio }, total, ["--max-tokens", "--max-ratio"]), maxOutputChars })
          : decompose(docs, { by: "section", maxOutputChars });
      } catch (e) {
        if (!(e instanceof DecomposeTooLargeError)) throw e;
        const size = (n: number): string => (n >= 1024 * 1024 ? `${(n / (1024 * 1024)).toFixed(1)} MB` : `${Math.ceil(n / 1024)} KB`);
        throw new TriageError(
          `decompose refused: the partitions would pass ${size(maxOutputChars)} for ${size(inputChars)} of input (${OUTPUT_FACTOR} x the input + 1 MB); nothing written. Fewer, larger partitions (--max-tokens) or a smaller input keep it under`,
          "OUTPUT_TOO_LARGE",
          1,
        );
      }
      if (result.violations.length > 0) throw new TriageError(`internal: ${result.violations.length} locality violations`, "INTERNAL", 1);
      // Each partition in the form of the file its section came from: byte-order mark, CRLF line breaks, UTF-16 (as compact -o).
      const bytes = result.partitions.map((p) => {
        const src = inputs.get(p.doc);
        return src ? encodeLike(inFormOf(src.text, p.text), src) : Buffer.from(p.text, "utf8");
      });
      const manifest = ManifestSchema.parse({
        format: "knowledge-triage/decompose",
        version: 1,
        by: bySize ? "size" : "section",
        maxTokens: bySize ? budgetFromFlags({ budget: opts.maxTokens, ratio: opts.maxRatio }, total, ["--max-tokens", "--max-ratio"]) : null,
        sources: files,
        rules: result.rules.length,
        violations: result.violations.length,
        partitions: result.partitions.map((p, i) => ({
          id: p.id,
          file: `${p.id}.md`,
          sha256: sha256(bytes[i] as Buffer),
          title: p.title,
          source: p.doc,
          tokens: p.tokens,
          paths: p.paths,
          topics: p.topics,
          units: p.units.flatMap(([d, i]) => {
            const u = docs[d]?.units[i];
            return u && u.type !== "structure" ? [{ line: u.line, endLine: u.endLine, type: u.type }] : [];
          }),
          copied: p.copied.map((c) => ({ source: docs[c.rule.doc]?.name ?? "", line: c.rule.unit.line, type: c.rule.unit.type, text: c.rule.unit.text, scope: c.rule.scope, why: c.why })),
        })),
      });
      // Check every target before writing any: a refusal leaves the folder untouched.
      const owned = ownedByPreviousRun(dir);
      const targets = [...result.partitions.map((p) => join(dir, `${p.id}.md`)), join(dir, "manifest.json")];
      for (const t of targets) refuseOverwrite(t, { force: opts.force, inputs: files, owned: (p) => owned.has(resolve(p)) });
      if (!opts.force && owned.size === 0) {
        // No manifest of ours: a rerun could not tell our files from the user's, so the folder must hold none of theirs.
        const foreign = existingEntries(dir);
        if (foreign.length > 0) {
          const some = foreign.slice(0, 3).join(", ") + (foreign.length > 3 ? `, … (${foreign.length} in all)` : "");
          throw new UsageError(`refusing to write partitions into ${visible(dir)}: it holds files no decompose run wrote (${visible(some)}); give an empty or new folder, or --force`);
        }
      }
      writeAllOrNothing(dir, [...result.partitions.map((p, i): [string, Uint8Array] => [`${p.id}.md`, bytes[i] as Buffer]), ["manifest.json", `${JSON.stringify(manifest, null, 2)}\n`]]);
      // The previous run's partitions that this run did not write again (other sections, another --max-tokens): ours,
      // unedited since (ownedByPreviousRun), so removed; an edited one is the user's now and stays.
      const now = new Set(targets.map((t) => resolve(t)));
      for (const p of owned) if (!now.has(p)) rmSync(p, { force: true });
      if (opts.json) writeStdout(`${JSON.stringify(manifest)}\n`);
      else {
        const copies = result.partitions.reduce((s, p) => s + p.copied.length, 0);
        const n = (k: number, one: string, many: string): string => `${k} ${k === 1 ? one : many}`;
        writeStdout(`${n(result.partitions.length, "partition", "partitions")}, ${n(result.rules.length, "rule", "rules")}, ${n(copies, "rule copy", "rule copies")}, 0 locality violations; wrote ${visible(join(dir, "manifest.json"))}\n`);
      }
    });
}
