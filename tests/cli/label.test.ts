import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { LooseUnitSchema } from "../../scripts/cli/json-output.js";
import { TYPES } from "../../scripts/engine/types.js";
import { ensureBundle, expectOneLineError, fixtures, tempDir, triage, removeTempDirs } from "./helpers.js";

const llm = (name: string): string => `sh ${join(fixtures, "llm", name)}`;

interface LabelRow {
  file: string;
  line: number;
  endLine: number;
  text: string;
  type: string;
  confidence: number;
  source: string;
  modelType: string;
  headings: string[];
  llmError?: string;
}
const readRows = (path: string): LabelRow[] =>
  readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as LabelRow);

/** A folder of memory files: two markdown files (one nested), a Cursor rules file, and a non-memory file. */
function memoryFolder(): string {
  const dir = tempDir("kt-label-");
  writeFileSync(join(dir, "CLAUDE.md"), "# Project\n\n## Rules\n- Never commit secrets.\n- Run `make check` before pushing.\n");
  mkdirSync(join(dir, "docs"));
  writeFileSync(join(dir, "docs", "notes.md"), "The queue is Redis-backed.\n");
  mkdirSync(join(dir, "node_modules", "pkg"), { recursive: true });
  writeFileSync(join(dir, "node_modules", "pkg", "README.md"), "- Never read this file.\n");
  writeFileSync(join(dir, "image.png"), Buffer.from([0x89, 0x50, 0x4e, 0x47]));
  return dir;
}

vi.setConfig({ testTimeout: 60_000 });
beforeAll(() => ensureBundle(), 180_000);
afterAll(() => removeTempDirs());

describe("triage label", () => {
  it("walks a folder (skipping node_modules and non-memory files) and writes one JSONL row per non-heading unit", () => {
    const dir = memoryFolder();
    const out = join(dir, "out", "labelled.jsonl");
    const r = triage(["label", dir, "-o", out]);
    expect(r.code, r.stderr).toBe(0);
    const rows = readRows(out);
    // Headings are classified but never scored or trained on, so they are not candidates.
    expect(rows.map((x) => [x.file.slice(dir.length + 1), x.line])).toEqual([
      ["CLAUDE.md", 4],
      ["CLAUDE.md", 5],
      ["docs/notes.md", 1],
    ]);
    for (const row of rows) {
      expect(TYPES).toContain(row.type);
      expect(row.source).toBe("model");
      expect(row.modelType).toBe(row.type);
      expect(row.confidence).toBeGreaterThan(0);
      expect(row.llmError).toBeUndefined();
      // Rows are trainable as loose units after review.
      expect(LooseUnitSchema.safeParse(row).success).toBe(true);
    }
    expect(rows[0]).toMatchObject({ text: "- Never commit secrets.", type: "constraint", headings: ["Project", "Rules"] });
    expect(r.stderr).toMatch(/labelled 3 units from 2 file\(s\)/);
  });

  it("--llm: the command gets the prompt on stdin and its answer is used", () => {
    const dir = memoryFolder();
    const out = join(dir, "l.jsonl");
    const r = triage(["label", join(dir, "CLAUDE.md"), "-o", out, "--llm", llm("answer-procedural.sh")]);
    expect(r.code, r.stderr).toBe(0);
    const rows = readRows(out);
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      expect(row).toMatchObject({ type: "procedural", source: "llm" });
      expect(row.llmError).toBeUndefined();
    }
    // The model's own label is kept beside the LLM's for review.
    expect(rows.find((x) => x.text.includes("Never commit"))?.modelType).toBe("constraint");
    expect(r.stderr).toMatch(/llm: 2 calls, 0 failed/);
  });

  const failures: [string, string, RegExp][] = [
    ["a command that exits 1", "fail.sh", /^exit 1$/],
    ["a command that answers garbage", "garbage.sh", /^unparseable answer: "As an AI/],
  ];
  for (const [name, script, re] of failures) {
    it(`--llm: ${name} keeps the model label and records llmError`, () => {
      const dir = memoryFolder();
      const out = join(dir, "l.jsonl");
      const r = triage(["label", join(dir, "CLAUDE.md"), "-o", out, "--llm", llm(script)]);
      expect(r.code, r.stderr).toBe(0);
      const rows = readRows(out);
      expect(rows).toHaveLength(2);
      for (const row of rows) {
        expect(row.source).toBe("model");
        expect(row.type).toBe(row.modelType);
        expect(row.llmError).toMatch(re);
      }
      expect(r.stderr).toMatch(/llm: 2 calls, 2 failed \(kept the model label\)/);
    });
  }

  it("--llm: a command that hangs is cut off by --llm-timeout and nothing hangs", () => {
    const dir = tempDir("kt-label-");
    writeFileSync(join(dir, "one.md"), "- Never commit secrets.\n- The queue is Redis-backed.\n");
    const out = join(dir, "l.jsonl");
    const t0 = Date.now();
    const r = triage(["label", join(dir, "one.md"), "-o", out, "--llm", llm("hang.sh"), "--llm-timeout", "500"]);
    // The fake command sleeps 5 s per unit; two units must finish well before 2 x 5 s.
    expect(Date.now() - t0).toBeLessThan(9000);
    expect(r.code, r.stderr).toBe(0);
    const rows = readRows(out);
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      expect(row.llmError).toBe("timed out after 500 ms");
      expect(row.source).toBe("model");
    }
  }, 30_000);

  it("--model /dev/null labels with the regex tier (source regex)", () => {
    const dir = memoryFolder();
    const out = join(dir, "l.jsonl");
    const r = triage(["label", dir, "-o", out, "--model", "/dev/null"]);
    expect(r.code, r.stderr).toBe(0);
    const rows = readRows(out);
    expect(rows.every((x) => x.source === "regex" && x.confidence === 0.7)).toBe(true);
  });

  it("wrong arguments: missing path, no memory files, bad timeout, missing -o", () => {
    const empty = tempDir("kt-label-");
    writeFileSync(join(empty, "data.bin"), "x");
    expect(expectOneLineError(triage(["label", join(empty, "nope"), "-o", join(empty, "o.jsonl")]))).toMatch(/no such file or folder/);
    expect(expectOneLineError(triage(["label", empty, "-o", join(empty, "o.jsonl")]))).toMatch(/no memory files found/);
    expect(expectOneLineError(triage(["label", empty, "-o", join(empty, "o.jsonl"), "--llm-timeout", "0"]))).toMatch(/--llm-timeout/);
    expect(expectOneLineError(triage(["label", empty]))).toMatch(/--output/);
  });
});
