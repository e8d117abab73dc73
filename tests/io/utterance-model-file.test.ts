/**
 * model/utterance.json is validated on load (io/model-file.ts loadUtteranceScorer): its three number arrays are
 * checked by one loop each (utterance-model.ts numbers) instead of zod's per-element parser; a bad element must
 * still be refused with a ModelError that names the field, and the bundled model must still load and score.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { ModelError } from "../../scripts/errors.js";
import { loadUtteranceScorer } from "../../scripts/io/model-file.js";

const bundled = resolve(import.meta.dirname, "..", "..", "model", "utterance.json");
const model = JSON.parse(readFileSync(bundled, "utf8")) as Record<string, unknown> & { terms: unknown[]; idf: unknown[]; weights: unknown[] };
const dir = mkdtempSync(join(tmpdir(), "kt-utterance-model-"));

/** Write the bundled model with `edit` applied to a copy, under a fresh name (the loader caches by path). */
function variant(name: string, edit: (m: typeof model) => void): string {
  const m = structuredClone(model);
  edit(m);
  const p = join(dir, `${name}.json`);
  writeFileSync(p, JSON.stringify(m));
  return p;
}

describe("loadUtteranceScorer validates model/utterance.json", () => {
  it("loads the bundled model and scores a rule above small talk", () => {
    const s = loadUtteranceScorer(bundled);
    expect(s.logit("Never commit directly to main.")).toBeGreaterThan(s.logit("Thanks, that looks great!"));
  });

  it.each([
    ["a string among the weights", "weights", (m: typeof model) => (m.weights[5] = "0.1")],
    ["null among the idf", "idf", (m: typeof model) => (m.idf[0] = null)],
    ["a fraction among the term ids", "terms", (m: typeof model) => (m.terms[7] = 1.5)],
    ["a term id past 2^53", "terms", (m: typeof model) => (m.terms[7] = 2 ** 60)],
    ["an object instead of the weights", "weights", (m: typeof model) => (m.weights = { 0: 1 } as unknown as unknown[])],
  ])("refuses %s, naming the field", (name, field, edit) => {
    const p = variant(name.replace(/\W+/g, "-"), edit);
    expect(() => loadUtteranceScorer(p)).toThrow(ModelError);
    expect(() => loadUtteranceScorer(p)).toThrow(new RegExp(`invalid sentence model: ${field}:`));
  });

  it("refuses an idf written as 1e999 (JSON has no Infinity, but that parses to it)", () => {
    const p = join(dir, "infinity.json");
    writeFileSync(p, JSON.stringify(model).replace(/("idf":\[)/, "$11e999,"));
    expect(() => loadUtteranceScorer(p)).toThrow(/invalid sentence model: idf:/);
  });
});
