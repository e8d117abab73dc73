/**
 * bench/real-lib.ts: the numbers bench:real prints (rule vs not-rule, operating points, grouped
 * dev-fitted offsets) on hand-built scored units.
 */
import { describe, expect, it } from "vitest";
import { groupedDevOffsets, precisionAtRecall, realReport, type ScoredUnit } from "../../bench/real-lib.js";
import { TYPES, type KnowledgeType } from "../../scripts/engine/types.js";

const unit = (group: string, gold: KnowledgeType, pred: KnowledgeType, pRule: number, lang = "en"): ScoredUnit => {
  const scores = { constraint: pRule / 2, procedural: pRule / 2, belief: (1 - pRule) / 3, preference: (1 - pRule) / 3, episodic: (1 - pRule) / 3 };
  scores[pred] += 1e-6;
  return { group, line: 1, text: "x", lang, kind: "claude-md", gold, pred, scores };
};

describe("realReport", () => {
  const units = [
    unit("a.md", "constraint", "constraint", 0.9),
    unit("a.md", "procedural", "constraint", 0.8),
    unit("a.md", "belief", "procedural", 0.7),
    unit("b.md", "belief", "belief", 0.2, "ja"),
    unit("b.md", "procedural", "belief", 0.4, "ja"),
    unit("b.md", "episodic", "episodic", 0.1, "ja"),
  ];
  it("counts constraint or procedural as a rule on both sides", () => {
    const r = realReport(units);
    // predicted rules: 3 (2 right); gold rules: 3 (2 found)
    expect(r.rule.precision).toBeCloseTo(2 / 3, 9);
    expect(r.rule.recall).toBeCloseTo(2 / 3, 9);
    expect(r.constraint.precision).toBeCloseTo(1 / 2, 9);
    expect(r.constraint.recall).toBe(1);
    expect(r.byLang.map(([l, m]) => [l, m.units])).toEqual([
      ["en", 3],
      ["ja", 3],
    ]);
  });
  it("precisionAtRecall sweeps the score from the top and keeps the best precision that reaches the recall", () => {
    const isRule = (u: ScoredUnit): boolean => u.gold === "constraint" || u.gold === "procedural";
    // by P(rule): 0.9 C, 0.8 P, 0.7 B, 0.4 P, 0.2 B, 0.1 E -> all three rules need the top 4: precision 3/4
    expect(precisionAtRecall(units, (u) => u.scores.constraint + u.scores.procedural, isRule, 1)).toMatchObject({ precision: 0.75, recall: 1 });
    expect(precisionAtRecall(units, (u) => u.scores.constraint + u.scores.procedural, isRule, 0.6)).toMatchObject({ precision: 1 });
  });
});

describe("groupedDevOffsets", () => {
  it("re-decides each file with offsets fitted on the other files only", () => {
    const units = ["a.md", "b.md", "c.md"].flatMap((g) => [unit(g, "belief", "belief", 0.2), unit(g, "constraint", "constraint", 0.9)]);
    const seen: number[] = [];
    const r = groupedDevOffsets(
      units,
      (held) => {
        seen.push(held.length);
        return TYPES.map(() => 0);
      },
      3,
    );
    // three folds of 4 training units each, then one fit on all 6
    expect(seen).toEqual([4, 4, 4, 6]);
    expect(r.units.map((u) => u.pred)).toEqual(units.map((u) => u.pred));
  });
});
