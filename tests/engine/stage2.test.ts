import { describe, expect, it } from "vitest";
import { applyStage2, fitStage2, STAGE2_DIM, STAGE2_LAYOUT, stage2Features, stage2Probs } from "../../scripts/engine/stage2.js";
import { TYPES, type KnowledgeType } from "../../scripts/engine/types.js";
import { segment, isStructure } from "../../scripts/engine/units.js";

const row = (p: Partial<Record<KnowledgeType, number>>): Record<KnowledgeType, number> => {
  const r = { constraint: 0, procedural: 0, belief: 0, preference: 0, episodic: 0, ...p };
  const sum = TYPES.reduce((a, t) => a + r[t], 0);
  for (const t of TYPES) r[t] /= sum;
  return r;
};

/** A status section and a steps section whose "Label: value" lines look alike to a first stage. */
const FILE = `# Project

## Progress
- Shipped the export screen on Monday
- Fixed the retry loop in the uploader
- Status: done

## Setup
- Run \`npm ci\`
- Run \`npm test\` before pushing
- Status: required
`;
const units = segment(FILE).filter((u) => !isStructure(u));
const statusIdx = units.map((u, i) => (u.text.includes("Status:") ? i : -1)).filter((i) => i >= 0);
const firstRows = units.map((u) =>
  u.text.includes("Status:") ? row({ belief: 0.6, episodic: 0.2, procedural: 0.2 }) : u.text.includes("npm") ? row({ procedural: 0.9, belief: 0.1 }) : u.kind === "heading" ? row({ belief: 1 }) : row({ episodic: 0.8, belief: 0.2 }),
);

describe("stage2Features: a line's scores with its section's", () => {
  it("puts the same own scores on both status lines but different section aggregates", () => {
    expect(statusIdx).toHaveLength(2);
    const xs = stage2Features(units, firstRows);
    expect(xs.every((x) => x.length === STAGE2_DIM)).toBe(true);
    const [a, b] = statusIdx.map((i) => xs[i] as Float64Array);
    expect(Array.from((a as Float64Array).subarray(0, 5))).toEqual(Array.from((b as Float64Array).subarray(0, 5)));
    // Section mean (features 5..9, TYPES order) excludes the unit itself: episodic under Progress, procedural under Setup.
    expect((a as Float64Array)[5 + TYPES.indexOf("episodic")]).toBeCloseTo(0.8);
    expect((b as Float64Array)[5 + TYPES.indexOf("procedural")]).toBeCloseTo(0.9);
  });
});

describe("fitStage2 / applyStage2", () => {
  it("learns to follow the section where the first stage cannot tell two lines apart", () => {
    const xs = stage2Features(units, firstRows);
    const [p, s] = statusIdx as [number, number];
    // Repeat the two lines so the fit has something to learn; gold: episodic under Progress, procedural under Setup.
    const X = Array.from({ length: 20 }, (_, i) => (i % 2 ? (xs[s] as Float64Array) : (xs[p] as Float64Array)));
    const y = X.map((_, i) => TYPES.indexOf(i % 2 ? "procedural" : "episodic"));
    const params = fitStage2(X, y, 1e-3, 300);
    const out = applyStage2(units, firstRows, params);
    const top = (r: Record<KnowledgeType, number>): KnowledgeType => TYPES.reduce((best, t) => (r[t] > r[best] ? t : best), TYPES[0] as KnowledgeType);
    expect(top(out[p] as Record<KnowledgeType, number>)).toBe("episodic");
    expect(top(out[s] as Record<KnowledgeType, number>)).toBe("procedural");
    for (const r of out) expect(TYPES.reduce((a, t) => a + r[t], 0)).toBeCloseTo(1);
    expect(stage2Probs(xs[p] as Float64Array, params).length).toBe(5);
  });

  it("returns the first stage's rows unchanged for parameters of another layout or size", () => {
    const wrong = { layout: STAGE2_LAYOUT, weights: [1, 2, 3], bias: [0, 0, 0, 0, 0] };
    expect(applyStage2(units, firstRows, wrong)).toEqual(firstRows);
  });
});
