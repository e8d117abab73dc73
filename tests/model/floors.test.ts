/**
 * The committed model meets the quality floors on the held-out test split (data/test) (issue 2's,
 * with issue 12's constraint operating point),
 * and beats the regex baseline tier by at least 15 points of macro-F1. Quality, not speed:
 * throughput and cold start are measured by `npm run bench`.
 */
import { describe, expect, it } from "vitest";
import { regexClassifier } from "../../scripts/engine/classify.js";
import { modelClassifier } from "../../scripts/engine/inference.js";
import { TYPES } from "../../scripts/engine/types.js";
import { loadLabelledData } from "../../scripts/io/labelled-data.js";
import { evaluateDocs } from "../../scripts/engine/evaluate.js";
import { defaultModelPath } from "../../scripts/paths.js";
import { readModel } from "../../scripts/io/model-file.js";

const model = readModel(defaultModelPath());
const test = loadLabelledData("data/test");
const result = evaluateDocs(test.docs, modelClassifier(model));

describe("committed model on data/test", () => {
  it("has at least 800 scored units in at least 15 documents", () => {
    expect(result.metrics.units).toBeGreaterThanOrEqual(800);
    expect(new Set(result.predictions.map((p) => p.group)).size).toBeGreaterThanOrEqual(15);
  });

  it("reaches macro-F1 >= 0.88", () => {
    expect(result.metrics.macroF1).toBeGreaterThanOrEqual(0.88);
  });

  // Issue 12 moved the operating point: the decision offsets keep a constraint precision floor
  // (train --min-constraint-precision) instead of buying recall 0.95 at any precision, which flooded
  // the class on real files (dev-set constraint precision 0.40). The authored split must still hold
  // both sides of the trade.
  it("reaches constraint recall >= 0.85 at precision >= 0.85", () => {
    expect(result.metrics.perClass.constraint.recall).toBeGreaterThanOrEqual(0.85);
    expect(result.metrics.perClass.constraint.precision).toBeGreaterThanOrEqual(0.85);
  });

  it("beats the regex baseline by at least 15 points of macro-F1", () => {
    const base = evaluateDocs(test.docs, regexClassifier).metrics;
    expect(result.metrics.macroF1 - base.macroF1).toBeGreaterThanOrEqual(0.15);
  });

  it("was trained on data that is not the test split", () => {
    const testTexts = new Set(result.predictions.map((p) => p.text));
    const train = loadLabelledData("data/train");
    // Written by different authors: a handful of generic lines ("1. Acknowledge the page within 5
    // minutes.") may coincide; more than 1% of the test units would mean leakage.
    const overlap = train.docs.flatMap((d) => d.units.filter((u) => u.text.length > 40 && testTexts.has(u.text)));
    expect(overlap.length).toBeLessThan(result.metrics.units * 0.01);
    expect(model.metadata.dataSha256).toBe(train.sha256);
  });

  it("gives probabilities that sum to 1 for every unit", () => {
    const clf = modelClassifier(model);
    for (const d of test.docs.slice(0, 5)) {
      for (const row of clf.scores(d.units)) {
        expect(TYPES.reduce((a, t) => a + row[t], 0)).toBeCloseTo(1, 9);
      }
    }
  });
});
