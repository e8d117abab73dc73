/**
 * Pin stability with the committed model (model/model.json): a unit pinned in one compaction round
 * is pinned again in the next, because policy.decideUnits classifies each unit in the context compaction
 * keeps byte for byte (text, kind, depth, heading path, lead-in).
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
import { decideUnits, isRule } from "../../scripts/operators/policy.js";
import { richMemoryDoc } from "./gen.js";

const model = loadClassifier();
const classify = (text: string): ClassifiedUnit[] => decideUnits(segment(text), model);
const pinned = (units: ClassifiedUnit[]): string[] => units.filter((u) => isRule(u)).map((u) => renderUnit(u, u.text));
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

  it("a unit's decided type and scores do not depend on its neighbours or section mates", () => {
    let compared = 0;
    fc.assert(
      fc.property(richMemoryDoc, richMemoryDoc, (a, b) => {
        const seen = new Map<string, string>();
        const key = (u: ClassifiedUnit): string => `${u.text}\u0000${u.headings.join("/")}\u0000${u.leadIn}\u0000${u.kind}\u0000${u.depth}`;
        for (const u of classify(a)) seen.set(key(u), JSON.stringify([u.type, u.scores]));
        for (const u of classify(`${b}\n${a}`)) {
          const k = key(u);
          if (!seen.has(k)) continue;
          compared++;
          expect(JSON.stringify([u.type, u.scores])).toBe(seen.get(k));
        }
      }),
      { numRuns: 40 },
    );
    expect(compared).toBeGreaterThan(0);
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

describe("the rule decision", () => {
  const base: ClassifiedUnit = {
    line: 3, endLine: 3, text: "- The holdout set is read-only.", kind: "list-item", headings: ["Evaluation"], level: 0, depth: 0, leadIn: "",
    type: "belief", confidence: 0.55, scores: { constraint: 0.3, procedural: 0.1, belief: 0.55, preference: 0.03, episodic: 0.02 },
  };
  it("a rule is a content unit whose decided type is constraint or procedural; headings and frontmatter never are", () => {
    expect(isRule(base)).toBe(false);
    expect(isRule({ ...base, type: "constraint" })).toBe(true);
    expect(isRule({ ...base, type: "procedural" })).toBe(true);
    expect(isRule({ ...base, type: "constraint", kind: "heading", level: 2, text: "## NEVER" })).toBe(false);
    expect(isRule({ ...base, type: "constraint", kind: "frontmatter" })).toBe(false);
  });
  it("pinMass widens the decision and changes the type every operator sees; headings stay as they are", () => {
    const units = segment("## Style\n\n- Indent with two spaces.\n");
    const plain = decideUnits(units, model);
    const wide = decideUnits(units, model, { pinMass: 0 });
    const item = wide.find((u) => u.kind === "list-item") as ClassifiedUnit;
    expect(isRule(item)).toBe(true);
    expect(item.confidence).toBe(item.scores[item.type as "constraint" | "procedural"]);
    expect(wide.find((u) => u.kind === "heading")?.type).toBe(plain.find((u) => u.kind === "heading")?.type);
    expect(decideUnits(units, model, { pinMass: 1.01 }).map((u) => u.type)).toEqual(plain.map((u) => u.type));
  });
});
