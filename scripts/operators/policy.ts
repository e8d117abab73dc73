/**
 * Shared operator policy: which classified units are rules (pinned word for word) and how the
 * value of a droppable unit is scored. One home, used by compact, decompose and retrieve.
 */
import type { ClassifiedUnit } from "../engine/types.js";
import { termHashes } from "./bm25.js";
import { namesRules } from "./scope.js";

/**
 * Default pin mass: a unit is also pinned when P(constraint) + P(procedural) >= 0.4 even if its
 * argmax is another type. A missed rule is a failure and a spare pin only costs budget, so the
 * threshold sits below 0.5 (chosen on the labelled test split, see references/operators.md).
 */
export const DEFAULT_PIN_MASS = 0.4;

/**
 * Default copy mass for decompose and retrieve: a unit with P(constraint) + P(procedural) >= 0.2 is
 * treated as a rule there. A copy or an in-scope slot costs little, a missing rule breaks locality,
 * so these operators cast a wider net than compaction (see references/operators.md).
 */
export const DEFAULT_COPY_MASS = 0.2;

/** Options shared by the operators. */
export interface PolicyOptions {
  /** Treat a unit as a rule when P(constraint) + P(procedural) >= pinMass (default per operator; 1.01 = argmax only). */
  pinMass?: number;
}

/**
 * True when a unit is a rule that operators must keep verbatim: a content unit (not structure,
 * heading-only units included) whose type is constraint or procedural, or whose rule probability
 * mass reaches `pinMass` (else `defaultMass`: DEFAULT_PIN_MASS for compact, DEFAULT_COPY_MASS for decompose and
 * retrieve); under a heading that names rules ("NEVER", "Hard rules") the threshold is halved
 * (elevation by heading, labelling-rules.md §3).
 */
export function isRule(u: ClassifiedUnit, opts: PolicyOptions = {}, defaultMass = DEFAULT_PIN_MASS): boolean {
  if (u.type === "structure" || u.kind === "frontmatter") return false;
  if (u.type === "constraint" || u.type === "procedural") return true;
  const mass = (u.scores.constraint ?? 0) + (u.scores.procedural ?? 0);
  const threshold = opts.pinMass ?? defaultMass;
  const nearest = u.kind === "heading" ? undefined : u.headings[u.headings.length - 1];
  return mass >= (nearest !== undefined && namesRules(nearest) ? threshold / 2 : threshold);
}

/**
 * Value of each unit for the "what goes first" order: the sum of smooth idf (ln((1+N)/(1+df))+1,
 * scikit-learn's form, over the file's units) of its distinct terms (how much specific information it
 * carries) x (confidence + 3 x (P(constraint) + P(procedural))), so likely rules that were not pinned
 * go last. Structure units get 0. Output: one number per unit, >= 0.
 */
export function unitValues(units: readonly ClassifiedUnit[]): number[] {
  return valuesFromTerms(units, units.map((u) => (u.type === "structure" ? null : new Set(termHashes(u.text)))));
}

/** unitValues over precomputed distinct-term sets (null = not scored, value 0; df counts only scored units). */
export function valuesFromTerms<T>(units: readonly ClassifiedUnit[], sets: readonly (ReadonlySet<T> | null)[]): number[] {
  const df = new Map<T, number>();
  let n = 0;
  for (const s of sets) {
    if (!s) continue;
    n++;
    for (const t of s) df.set(t, (df.get(t) ?? 0) + 1);
  }
  return units.map((u, i) => {
    const s = sets[i];
    if (!s) return 0;
    let mass = 0;
    for (const t of s) mass += Math.log((1 + n) / (1 + (df.get(t) ?? 0))) + 1;
    return mass * (u.confidence + RULE_WEIGHT * ((u.scores.constraint ?? 0) + (u.scores.procedural ?? 0)));
  });
}

/** Weight of rule probability mass in a unit's value: near-rules below the pin threshold are dropped last. */
const RULE_WEIGHT = 3;
