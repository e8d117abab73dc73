import { describe, expect, it } from "vitest";
import { computeMetrics, formatMetrics, summarizeMetrics } from "../../scripts/engine/metrics.js";
import { featureId } from "../../scripts/engine/features.js";
import { buildTermIndex, softmax, tfidfDot, tfidfVector } from "../../scripts/engine/inference.js";
import { fitVocabulary, type Example } from "../../scripts/engine/train.js";
import type { KnowledgeType } from "../../scripts/engine/types.js";

const C = "constraint";
const P = "procedural";
const B = "belief";
const R = "preference";
const E = "episodic";

describe("computeMetrics: a worked confusion matrix", () => {
  /*
   * gold: C C C P P B B R E E
   * pred: C C P P B B B R E C
   *
   * confusion (rows gold, cols pred, order C P B R E):
   *   C: 2 1 0 0 0
   *   P: 0 1 1 0 0
   *   B: 0 0 2 0 0
   *   R: 0 0 0 1 0
   *   E: 1 0 0 0 1
   *
   * C: tp 2, predicted 3 (2 from C, 1 from E), support 3 -> P 2/3, R 2/3, F1 2/3
   * P: tp 1, predicted 2, support 2                      -> P 1/2, R 1/2, F1 1/2
   * B: tp 2, predicted 3 (1 from P), support 2           -> P 2/3, R 1,   F1 2*(2/3)/(5/3) = 4/5
   * R: tp 1, predicted 1, support 1                      -> 1, 1, 1
   * E: tp 1, predicted 1, support 2                      -> P 1,  R 1/2, F1 2*(1/2)/(3/2) = 2/3
   * macro-F1 = (2/3 + 1/2 + 4/5 + 1 + 2/3) / 5 = (109/30) / 5 = 109/150 ≈ 0.72667
   * accuracy = 7/10
   */
  const gold: KnowledgeType[] = [C, C, C, P, P, B, B, R, E, E];
  const pred: KnowledgeType[] = [C, C, P, P, B, B, B, R, E, C];
  const m = computeMetrics(gold, pred);

  it("confusion matrix", () => {
    expect(m.confusion).toEqual([
      [2, 1, 0, 0, 0],
      [0, 1, 1, 0, 0],
      [0, 0, 2, 0, 0],
      [0, 0, 0, 1, 0],
      [1, 0, 0, 0, 1],
    ]);
  });

  it("per-class precision, recall, F1, support", () => {
    const pc = m.perClass;
    expect(pc.constraint.precision).toBeCloseTo(2 / 3, 10);
    expect(pc.constraint.recall).toBeCloseTo(2 / 3, 10);
    expect(pc.constraint.f1).toBeCloseTo(2 / 3, 10);
    expect(pc.procedural).toEqual({ precision: 0.5, recall: 0.5, f1: 0.5, support: 2 });
    expect(pc.belief.precision).toBeCloseTo(2 / 3, 10);
    expect(pc.belief.recall).toBe(1);
    expect(pc.belief.f1).toBeCloseTo(0.8, 10);
    expect(pc.preference).toEqual({ precision: 1, recall: 1, f1: 1, support: 1 });
    expect(pc.episodic.precision).toBe(1);
    expect(pc.episodic.recall).toBe(0.5);
    expect(pc.episodic.f1).toBeCloseTo(2 / 3, 10);
    expect(pc.constraint.support).toBe(3);
  });

  it("macro-F1 and accuracy", () => {
    expect(m.macroF1).toBeCloseTo(109 / 150, 10);
    expect(m.accuracy).toBeCloseTo(0.7, 10);
    expect(m.units).toBe(10);
  });

  it("summary rounds to 4 decimals; the report names every class and the matrix", () => {
    const s = summarizeMetrics(m);
    expect(s.macroF1).toBe(0.7267);
    expect(s.perClass.constraint?.precision).toBe(0.6667);
    const text = formatMetrics("worked example", m);
    expect(text).toContain("worked example (10 units)");
    expect(text).toContain("macro-F1 0.727");
    expect(text).toMatch(/C\s+2\s+1\s+0\s+0\s+0/);
    for (const t of [C, P, B, R, E]) expect(text).toContain(t);
  });

  it("a class with no predictions and no support scores 0 (zero_division=0), pulling macro-F1 down", () => {
    const all = computeMetrics([C, C], [C, C]);
    expect(all.perClass.constraint.f1).toBe(1);
    expect(all.perClass.belief).toEqual({ precision: 0, recall: 0, f1: 0, support: 0 });
    expect(all.macroF1).toBeCloseTo(0.2, 10);
    expect(all.accuracy).toBe(1);
  });

  it("empty input gives zeros, mismatched lengths throw", () => {
    expect(computeMetrics([], []).accuracy).toBe(0);
    expect(() => computeMetrics([C], [])).toThrow(/1 gold labels vs 0 predictions/);
  });
});

describe("tf-idf: three documents worked by hand", () => {
  /*
   * d1 = {w:never 1, w:push 2}
   * d2 = {w:push 1, w:main 1, s:code 1}
   * d3 = {w:never 1, w:main 1}
   * N = 3; df: never 2, push 2, main 2, s:code 1
   * smooth idf = ln((1+N)/(1+df)) + 1:
   *   df 2 -> ln(4/3) + 1 = 1.287682...
   *   df 1 -> ln(4/2) + 1 = 1.693147...
   * (Features are hashed ids, see features.ts; the vocabulary is the ids, ascending.)
   *
   * d1 (all group weights 1): never = (1+ln 1)*1.287682 = 1.287682
   *                           push  = (1+ln 2)*1.287682 = 1.693147*1.287682 = 2.180234
   *    L2 norm = 1.287682*sqrt(1 + 1.693147^2) = 1.287682*1.966405 = 2.532106
   *    -> never 1/1.966405 = 0.508542, push 1.693147/1.966405 = 0.861037
   * d2 with group weight s = 2: s:code = 1.693147*2 = 3.386294, push = main = 1.287682
   *    L2 norm = sqrt(3.386294^2 + 2*1.287682^2) = 3.844898
   *    -> s:code 0.880724, main = push = 0.334907
   */
  const id = (key: string): number => featureId(key);
  const ex = (counts: Record<string, number>): Example => ({
    feats: Object.entries(counts).flatMap(([k, n]) => new Array<number>(n).fill(id(k))),
    y: 0,
    group: "g",
    lang: "en",
    scored: true,
  });
  const docs = [ex({ "w:never": 1, "w:push": 2 }), ex({ "w:push": 1, "w:main": 1, "s:code": 1 }), ex({ "w:never": 1, "w:main": 1 })];
  const { terms, idf } = fitVocabulary(docs, 1, 1000);
  const j = (key: string): number => terms.indexOf(id(key));
  /** A sparse vector as {feature key: value}. */
  /** Entries in use: tfidfVector may return oversized buffers with a count `n`. */
  const used = (v: { idx: ArrayLike<number>; n?: number }): number => v.n ?? v.idx.length;
  const asObject = (v: { idx: ArrayLike<number>; val: ArrayLike<number>; n?: number }, keys: string[]): Record<string, number> => {
    const out: Record<string, number> = {};
    for (let t = 0; t < used(v); t++) {
      const key = keys.find((k) => j(k) === v.idx[t]);
      out[key ?? `#${v.idx[t]}`] = v.val[t] as number;
    }
    return out;
  };
  const keys = ["s:code", "w:main", "w:never", "w:push"];

  it("the four features are distinct terms, ascending by id, with the smooth idf", () => {
    expect(terms).toHaveLength(4);
    expect([...terms].sort((a, b) => a - b)).toEqual(terms);
    expect(new Set(keys.map(id)).size).toBe(4);
    expect(idf[j("s:code")]).toBeCloseTo(Math.log(2) + 1, 12);
    expect(idf[j("s:code")]).toBeCloseTo(1.693147, 6);
    for (const k of ["w:main", "w:never", "w:push"]) expect(idf[j(k)]).toBeCloseTo(1.287682, 6);
  });

  it("sublinear tf, idf, L2 normalisation (d1)", () => {
    const index = buildTermIndex(terms, idf, { w: 1, s: 1 });
    const v = tfidfVector(docs[0]?.feats as number[], index);
    const o = asObject(v, keys);
    expect(Object.keys(o).sort()).toEqual(["w:never", "w:push"]);
    expect(o["w:never"]).toBeCloseTo(0.508542, 5);
    expect(o["w:push"]).toBeCloseTo(0.861037, 5);
    expect(Math.hypot(...Array.from(v.val).slice(0, used(v)))).toBeCloseTo(1, 12);
  });

  it("group weights scale a feature group before normalisation (d2); a reused output buffer gives the same vector", () => {
    const index = buildTermIndex(terms, idf, { w: 1, s: 2 });
    const scratch = { idx: new Int32Array(1), val: new Float64Array(1), n: 0 };
    tfidfVector(docs[0]?.feats as number[], index, scratch);
    const o = asObject(tfidfVector(docs[1]?.feats as number[], index, scratch), keys);
    expect(o["s:code"]).toBeCloseTo(0.880724, 5);
    expect(o["w:main"]).toBeCloseTo(0.334907, 5);
    expect(o["w:push"]).toBeCloseTo(0.334907, 5);
    expect(asObject(tfidfVector(docs[1]?.feats as number[], index), keys)).toEqual(o);
  });

  it("unknown features are ignored; a vector of only unknown features is empty (no NaN)", () => {
    const index = buildTermIndex(terms, idf, { w: 1 });
    const scratch = { idx: new Int32Array(4), val: new Float64Array(4), n: 0 };
    const none = tfidfVector([id("w:unseen"), id("w:unseen")], index, scratch);
    expect(used(none)).toBe(0);
    const mixed = tfidfVector([id("w:unseen"), id("w:main")], index, scratch);
    expect(used(mixed)).toBe(1);
    expect(mixed.idx[0]).toBe(j("w:main"));
    expect(mixed.val[0]).toBe(1);
  });

  it("tfidfDot (inference) gives the dot products of tfidfVector's normalised vector with the weights", () => {
    const index = buildTermIndex(terms, idf, { w: 1, s: 2 });
    const w = Int8Array.from({ length: terms.length * 5 }, (_, i) => ((i * 37) % 255) - 127);
    const dot = tfidfDot(index, w);
    const acc = new Float64Array(5);
    const d0 = docs[0]?.feats ?? [];
    const feats = [...(docs[1]?.feats ?? []), id("w:unseen"), ...d0, id("w:push")];
    for (const f of [feats, d0, [id("w:unseen")], []]) {
      const v = tfidfVector(f, index);
      const norm = dot(Int32Array.from(f), f.length, acc);
      for (let k = 0; k < 5; k++) {
        let ref = 0;
        for (let t = 0; t < used(v); t++) ref += (v.val[t] as number) * (w[(v.idx[t] as number) * 5 + k] as number);
        expect((acc[k] as number) * norm).toBeCloseTo(ref, 9);
      }
      if (used(v) === 0) expect(norm).toBe(0);
    }
    expect(() => tfidfDot(index, new Int8Array(3))).toThrow(/term-major/);
  });

  it("minDf and maxFeatures prune the vocabulary (most frequent first, ties by id)", () => {
    const byDf = fitVocabulary(docs, 2, 1000).terms;
    expect(byDf).toEqual(["w:main", "w:never", "w:push"].map(id).sort((a, b) => a - b));
    const top2 = fitVocabulary(docs, 1, 2).terms;
    expect(top2).toEqual(["w:main", "w:never", "w:push"].map(id).sort((a, b) => a - b).slice(0, 2));
  });
});

describe("softmax", () => {
  it("sums to 1, is shift-invariant, and temperature flattens it", () => {
    const p = softmax([2, 1, 0, -1, 1000]);
    expect(p.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);
    expect(p[4]).toBeCloseTo(1, 12);
    const a = softmax([1, 2, 3]);
    const b = softmax([101, 102, 103]);
    a.forEach((x, i) => {
      expect(x).toBeCloseTo(b[i] as number, 12);
    });
    const hot = softmax([0, Math.log(3)], 1);
    expect(hot[1]).toBeCloseTo(0.75, 12);
    const warm = softmax([0, Math.log(3)], 2);
    expect(warm[1]).toBeCloseTo(Math.sqrt(3) / (1 + Math.sqrt(3)), 12);
  });
});
