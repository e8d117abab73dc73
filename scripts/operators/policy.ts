/**
 * Shared operator policy: which classified units are rules (pinned word for word) and how the
 * value of a droppable unit is scored. One home, used by compact, decompose and retrieve.
 */
import { type Classifier, classifyUnits } from "../engine/classify.js";
import type { ClassifiedUnit, KnowledgeType, Unit } from "../engine/types.js";
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
 * A classified unit that may also carry its context-free scores: the five class probabilities of the
 * unit classified on its own (same text, kind, depth, heading path and lead-in; no neighbours, no
 * section mates). `alone` is a function of fields compaction preserves byte for byte, so a pin decided
 * on it cannot change between compaction rounds. Absent: the operators fall back to `scores`.
 */
export interface OperatorUnit extends ClassifiedUnit {
  alone?: Record<KnowledgeType, number>;
}

/**
 * Classify units for the operators: `classifyUnits` (scores in full context) plus, for every content
 * unit, `alone` = the classifier's scores for that unit as a one-unit document (one extra classifier
 * call per content unit). Pure; the classifier is the only dependency. Output: one OperatorUnit per unit.
 */
export function classifyForOperators(units: readonly Unit[], classifier: Classifier): OperatorUnit[] {
  return classifyUnits(units, classifier).map((u) => {
    if (u.type === "structure" || u.kind === "frontmatter") return u;
    const alone = classifier.scores([u])[0];
    return alone ? { ...u, alone } : u;
  });
}

/** P(constraint) + P(procedural) of a score row (the rule probability mass). */
export function ruleMass(scores: Readonly<Record<KnowledgeType, number>>): number {
  return (scores.constraint ?? 0) + (scores.procedural ?? 0);
}

/** True when a score row is a rule: argmax constraint/procedural, or rule mass >= threshold. */
function rowIsRule(scores: Readonly<Record<KnowledgeType, number>>, threshold: number): boolean {
  const mass = ruleMass(scores);
  if (mass >= threshold) return true;
  const top = Math.max(scores.belief ?? 0, scores.preference ?? 0, scores.episodic ?? 0);
  return Math.max(scores.constraint ?? 0, scores.procedural ?? 0) >= top; // argmax, ties to constraint (TYPES order)
}

/** Threshold for a unit: `pinMass` (else `defaultMass`), halved under a heading that names rules. */
function thresholdOf(u: ClassifiedUnit, opts: PolicyOptions, defaultMass: number): number {
  const threshold = opts.pinMass ?? defaultMass;
  const nearest = u.kind === "heading" ? undefined : u.headings[u.headings.length - 1];
  return nearest !== undefined && namesRules(nearest) ? threshold / 2 : threshold;
}

/**
 * True when a unit is a rule for decompose and retrieve: a content unit (not structure or frontmatter,
 * heading-only units included) that is a rule in its full context (argmax constraint or procedural, or
 * rule mass >= `pinMass`, else `defaultMass`) OR on its own (`alone`, when present). Under a heading
 * that names rules ("NEVER", "Hard rules") the threshold is halved (elevation by heading,
 * references/taxonomy.md Hard case 4). A copy costs little and a missing rule breaks locality, so both views count.
 */
export function isRule(u: OperatorUnit, opts: PolicyOptions = {}, defaultMass = DEFAULT_PIN_MASS): boolean {
  if (u.type === "structure" || u.kind === "frontmatter") return false;
  const threshold = thresholdOf(u, opts, defaultMass);
  return rowIsRule(u.scores, threshold) || (u.alone !== undefined && rowIsRule(u.alone, threshold));
}

/**
 * True when compaction pins a unit word for word: the same test as isRule at DEFAULT_PIN_MASS, but on
 * the context-free scores `alone` only (full-context `scores` when `alone` is absent). Stability: `alone`
 * depends only on the unit's text, kind, depth, heading path and lead-in, which compaction emits
 * unchanged for a pinned unit, so a unit pinned in round n is pinned again in round n+1. A union with
 * the full-context scores would not be monotone: context changes when compaction drops section mates.
 */
export function isPinned(u: OperatorUnit, opts: PolicyOptions = {}): boolean {
  if (u.type === "structure" || u.kind === "frontmatter") return false;
  return rowIsRule(u.alone ?? u.scores, thresholdOf(u, opts, DEFAULT_PIN_MASS));
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
