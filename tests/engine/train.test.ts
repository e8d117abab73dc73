import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { loadLabelledData } from "../../scripts/io/labelled-data.js";
import { alignLabels } from "../../scripts/engine/gold.js";
import { sequenceFeatures } from "../../scripts/engine/inference.js";
import {
  buildExamples,
  DEFAULT_TRAIN_OPTIONS,
  fitModel,
  fitTemperature,
  groupFolds,
  mulberry32,
  type Example,
} from "../../scripts/engine/train.js";
import { TYPES } from "../../scripts/engine/types.js";
import { segment } from "../../scripts/engine/units.js";

const trainDir = resolve(import.meta.dirname, "..", "fixtures", "engine", "train");

describe("alignLabels: gold types per unit", () => {
  it("a multi-line unit takes the highest type of its labelled lines; unlabelled units are reported, structure skipped", () => {
    const units = segment("# Notes\n- Run `make`\n  and never skip it.\n\nJust a fact.");
    const { gold, unlabelled } = alignLabels(units, [
      { line: 2, type: "procedural", domain: "d", lang: "en" },
      { line: 3, type: "constraint", domain: "d", lang: "en" },
      { line: 4, type: "belief", domain: "d", lang: "en" }, // a blank line: ignored
    ]);
    expect(gold.map((g) => [g.unit.line, g.type])).toEqual([[2, "constraint"]]);
    expect(unlabelled.map((u) => u.line)).toEqual([1, 5]);
  });
});

describe("loadLabelledData on the fixture folder", () => {
  const data = loadLabelledData(trainDir);

  it("reads documents in name order plus one doc per loose unit, with a stable sha256", () => {
    const groups = data.docs.map((d) => d.group);
    expect(groups.filter((g) => !g.startsWith("chat.jsonl#"))).toEqual(["clinic.md", "infra.md", "webshop.md"]);
    expect(groups.filter((g) => g.startsWith("chat.jsonl#"))).toHaveLength(15);
    expect(data.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(loadLabelledData(trainDir).sha256).toBe(data.sha256);
    expect(data.files.map((f) => f.split("/").pop())).toEqual([
      "chat.jsonl",
      "clinic.md",
      "clinic.labels.jsonl",
      "infra.md",
      "infra.labels.jsonl",
      "webshop.md",
      "webshop.labels.jsonl",
    ]);
  });

  it("aligns every label: 56 scored units, every type present", () => {
    const examples = buildExamples(data.docs, false);
    expect(examples).toHaveLength(56);
    for (let k = 0; k < TYPES.length; k++) expect(examples.filter((e) => e.y === k).length).toBeGreaterThanOrEqual(10);
    const clinic = data.docs.find((d) => d.group === "clinic.md");
    const fm = clinic?.units.find((u) => u.kind === "frontmatter");
    expect(fm).toBeDefined();
    expect(clinic?.gold[clinic.units.indexOf(fm as never)]).toBeNull();
  });
});

describe("training building blocks are deterministic", () => {
  const examples = buildExamples(loadLabelledData(trainDir).docs, false);

  it("mulberry32 repeats for a seed and differs across seeds", () => {
    const a = mulberry32(7);
    const b = mulberry32(7);
    const c = mulberry32(8);
    const sa = [a(), a(), a()];
    expect([b(), b(), b()]).toEqual(sa);
    expect([c(), c(), c()]).not.toEqual(sa);
    for (const x of sa) expect(x >= 0 && x < 1).toBe(true);
  });

  it("groupFolds keeps every group in one fold, repeats for a seed, and the seed changes the split", () => {
    const f1 = groupFolds(examples, 3, 1);
    expect(groupFolds(examples, 3, 1)).toEqual(f1);
    const foldOf = new Map<string, number>();
    examples.forEach((e, i) => {
      const f = f1[i] as number;
      if (foldOf.has(e.group)) expect(foldOf.get(e.group)).toBe(f);
      foldOf.set(e.group, f);
      expect(f >= 0 && f < 3).toBe(true);
    });
    const splits = new Set([1, 2, 3, 4, 5, 6].map((s) => JSON.stringify(groupFolds(examples, 3, s))));
    expect(splits.size).toBeGreaterThan(1);
  });

  it("fitModel twice gives bit-identical weights", () => {
    const opts = { ...DEFAULT_TRAIN_OPTIONS, epochs: 15 };
    const a = fitModel(examples, opts);
    const b = fitModel(examples, opts);
    expect(b.terms).toEqual(a.terms);
    expect(Buffer.from(b.w.buffer).equals(Buffer.from(a.w.buffer))).toBe(true);
    expect(Array.from(b.b)).toEqual(Array.from(a.b));
    expect(a.w.some((x) => x !== 0)).toBe(true);
  });

  it("feature extraction is pure: the same sequence gives the same counts", () => {
    const units = segment("## Rules\n- Never deploy on Friday.\n- Use `make ship`.");
    expect(sequenceFeatures(units)).toEqual(sequenceFeatures(units));
  });

  it("fitTemperature: over-confident logits get T > 1, under-confident ones T < 1", () => {
    // Logits that are always very sure but right only half the time: the NLL-optimal T flattens them.
    const held = [
      [5, 0, 0, 0, 0],
      [5, 0, 0, 0, 0],
      [0, 5, 0, 0, 0],
      [0, 5, 0, 0, 0],
    ];
    expect(fitTemperature(held, [0, 1, 0, 1])).toBeGreaterThan(1.5);
    // Always right but only mildly sure: sharpening (T < 1) lowers the NLL.
    const mild = [
      [1, 0, 0, 0, 0],
      [0, 1, 0, 0, 0],
    ];
    expect(fitTemperature(mild, [0, 1])).toBeLessThan(1);
    expect(fitTemperature([], [])).toBe(1);
  });

  it("examples carry group and language", () => {
    const infra = examples.filter((e: Example) => e.group === "infra.md");
    expect(infra.some((e) => e.lang === "ru")).toBe(true);
    expect(infra).toHaveLength(10);
  });
});
