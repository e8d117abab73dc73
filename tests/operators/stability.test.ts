/**
 * Pin stability with the committed model (model/model.json): a unit pinned in one compaction round
 * is pinned again in the next, because the pin is decided on its context-free scores (policy.isPinned).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { estimateTokens } from "../../scripts/engine/budget.js";
import type { ClassifiedUnit } from "../../scripts/engine/types.js";
import { segment } from "../../scripts/engine/units.js";
import { CompactionUnsafeError } from "../../scripts/errors.js";
import { loadClassifier } from "../../scripts/io/model-file.js";
import { compact } from "../../scripts/operators/compact.js";
import { renderUnit } from "../../scripts/operators/layout.js";
import { classifyForOperators, isPinned, isRule, type OperatorUnit } from "../../scripts/operators/policy.js";
import { richMemoryDoc } from "./gen.js";

const model = loadClassifier();
const classify = (text: string): OperatorUnit[] => classifyForOperators(segment(text), model);
const pinned = (units: OperatorUnit[]): string[] => units.filter((u) => isPinned(u)).map((u) => renderUnit(u, u.text));
/** Line-aligned presence: `block` occurs in `text` as whole lines. */
const present = (text: string, block: string): boolean => `\n${text}`.includes(`\n${block}\n`);

function compactSafe(units: ClassifiedUnit[], budget: number): string {
  try {
    return compact(units, { budget }).text;
  } catch (e) {
    expect(e).toBeInstanceOf(CompactionUnsafeError);
    return compact(units, { budget: (e as CompactionUnsafeError).needed }).text;
  }
}

describe("pin stability with the committed model", () => {
  it("loads the trained model, not the regex tier", () => {
    expect(model.name).toBe("model");
  });

  it("context-free scores do not depend on the unit's neighbours or section mates", () => {
    fc.assert(
      fc.property(richMemoryDoc, richMemoryDoc, (a, b) => {
        const alone = new Map<string, string>();
        for (const u of classify(a)) if (u.alone) alone.set(`${u.text}\u0000${u.headings.join("/")}\u0000${u.leadIn}\u0000${u.kind}\u0000${u.depth}`, JSON.stringify(u.alone));
        for (const u of classify(`${a}\n${b}`)) {
          const k = `${u.text}\u0000${u.headings.join("/")}\u0000${u.leadIn}\u0000${u.kind}\u0000${u.depth}`;
          if (u.alone && alone.has(k)) expect(JSON.stringify(u.alone)).toBe(alone.get(k));
        }
      }),
      { numRuns: 40 },
    );
  }, 60_000);

  it("five rounds of append-then-compact to one budget lose no unit pinned in any round (random documents and budgets)", () => {
    let pinsChecked = 0;
    fc.assert(
      fc.property(fc.array(richMemoryDoc, { minLength: 6, maxLength: 6 }), fc.double({ min: 0.05, max: 0.9, noNaN: true }), (docs, ratio) => {
        let memory = docs[0] as string;
        let budget = 0;
        const seen = new Set<string>();
        for (let round = 1; round <= 5; round++) {
          memory = `${memory}\n${docs[round]}`;
          const units = classify(memory);
          if (round === 1) budget = Math.max(1, Math.floor(ratio * estimateTokens(memory)));
          const now = new Set(pinned(units));
          // Monotone: every unit pinned in an earlier round is pinned again in this round's classification.
          for (const p of seen) expect(now.has(p), `pinned earlier, not now: ${p}`).toBe(true);
          for (const p of now) seen.add(p);
          memory = compactSafe(units, budget);
          for (const p of seen) expect(present(memory, p), `lost after round ${round}: ${p}`).toBe(true);
          pinsChecked += seen.size;
        }
      }),
      { numRuns: 60 },
    );
    expect(pinsChecked).toBeGreaterThan(0);
  }, 120_000);

  it("compact(compact(x)) pins the same rules with the committed model (only rewritten text can add a pin)", () => {
    fc.assert(
      fc.property(richMemoryDoc, fc.double({ min: 0.05, max: 0.9, noNaN: true }), (doc, ratio) => {
        const units = classify(doc);
        const budget = Math.max(1, Math.floor(ratio * estimateTokens(doc)));
        const once = compactSafe(units, budget);
        const again = classify(once);
        const before = new Set(pinned(units));
        const after = new Set(pinned(again));
        // Every rule pinned in x is pinned again, byte for byte, in compact(x).
        for (const t of before) expect(after.has(t), t).toBe(true);
        // A new pin can only be a unit compaction rewrote (a compressed or merged belief whose shorter
        // text the classifier now scores as a rule): never a unit of x that was left verbatim.
        const original = new Set(units.map((u) => u.text));
        for (const t of after) if (!before.has(t)) expect(original.has(t), t).toBe(false);
      }),
      { numRuns: 80 },
    );
  }, 120_000);
});

describe("pin policy: context-free pin, union for copies", () => {
  const base: OperatorUnit = {
    line: 3, endLine: 3, text: "- The holdout set is read-only.", kind: "list-item", headings: ["Evaluation"], level: 0, depth: 0, leadIn: "",
    type: "constraint", confidence: 0.55, scores: { constraint: 0.55, procedural: 0.05, belief: 0.35, preference: 0.03, episodic: 0.02 },
  };
  it("compaction pins on the context-free scores when present, on the full-context scores otherwise", () => {
    const lowAlone: OperatorUnit = { ...base, alone: { constraint: 0.2, procedural: 0.05, belief: 0.7, preference: 0.03, episodic: 0.02 } };
    const highAlone: OperatorUnit = { ...base, type: "belief", confidence: 0.7, scores: { constraint: 0.2, procedural: 0.05, belief: 0.7, preference: 0.03, episodic: 0.02 }, alone: base.scores };
    expect(isPinned(base)).toBe(true);
    expect(isPinned(lowAlone)).toBe(false);
    expect(isPinned(highAlone)).toBe(true);
    // decompose and retrieve count a rule in either view
    expect(isRule(lowAlone)).toBe(true);
    expect(isRule(highAlone)).toBe(true);
  });
  it("halves the threshold under a heading that names rules", () => {
    const weak: OperatorUnit = { ...base, type: "belief", confidence: 0.7, scores: { constraint: 0.25, procedural: 0.0, belief: 0.7, preference: 0.03, episodic: 0.02 } };
    weak.alone = weak.scores;
    expect(isPinned(weak)).toBe(false);
    expect(isPinned({ ...weak, headings: ["NEVER"] })).toBe(true);
  });
});
