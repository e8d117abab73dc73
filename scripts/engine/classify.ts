import { cueText, HARD, regexScores } from "./regex-tier.js";
import { TYPES, type ClassifiedUnit, type KnowledgeType, type Unit } from "./types.js";
import { isStructure, segment } from "./units.js";

/** Anything that turns units into the five class probabilities (each row sums to 1). */
export interface Classifier {
  /** "model" for the trained model, "regex" for the baseline tier. */
  readonly name: string;
  /** One probability row per unit, in input order. Units may include context (headings, leadIn). */
  scores(units: readonly Unit[]): Record<KnowledgeType, number>[];
}

/** The regex baseline tier as a Classifier (used by `--model /dev/null`). */
export const regexClassifier: Classifier = {
  name: "regex",
  scores: (units) => units.map((u) => regexScores(u)),
};

const HEADING_DATE = /\b(19|20)\d\d[-/.]\d\d?([-/.]\d\d?)?\b|\d{4}年|\d{4}년/;

/**
 * The types a heading may take. Headings are classified like any line but are not scored or trained
 * on (references/taxonomy.md), so the model's view of them is weak: a heading is a belief (it names a
 * topic), a constraint only when it states a rule itself ("## NEVER touch prod": a hard modal, via
 * the regex tier's cue list), episodic only when it dates a log entry ("### 2024-05-03").
 */
function headingTypes(text: string): Set<KnowledgeType> {
  const allowed = new Set<KnowledgeType>(["belief"]);
  if (HARD.test(cueText(text))) allowed.add("constraint");
  if (HEADING_DATE.test(text)) allowed.add("episodic");
  return allowed;
}

/** Scores restricted to `allowed` types and renormalised to sum to 1. */
function restrict(scores: Record<KnowledgeType, number>, allowed: Set<KnowledgeType>): Record<KnowledgeType, number> {
  let sum = 0;
  for (const t of allowed) sum += scores[t];
  const out = zeroScores();
  for (const t of allowed) out[t] = sum > 0 ? scores[t] / sum : 1 / allowed.size;
  return out;
}

/** The type with the highest score, ties broken by TYPES order (constraint first). The one argmax every caller uses. */
export function topType(scores: Readonly<Record<KnowledgeType, number>>): KnowledgeType {
  let best: KnowledgeType = TYPES[0];
  for (let t = 1; t < TYPES.length; t++) if (scores[TYPES[t] as KnowledgeType] > scores[best]) best = TYPES[t] as KnowledgeType;
  return best;
}

/**
 * Label units: structure units get type "structure" with confidence 1 and zero scores;
 * every other unit gets the argmax type (ties broken by TYPES order) and its probability.
 * Headings are restricted to belief, constraint (when they carry a hard modal) and episodic
 * (when they carry a date); see headingTypes.
 */
export function classifyUnits(units: readonly Unit[], classifier: Classifier): ClassifiedUnit[] {
  const content = units.filter((u) => !isStructure(u));
  const rows = classifier.scores(content);
  const out: ClassifiedUnit[] = [];
  let k = 0;
  for (let i = 0; i < units.length; i++) {
    const u = units[i] as Unit;
    if (isStructure(u)) {
      out.push({ ...u, type: "structure", confidence: 1, scores: zeroScores() });
      continue;
    }
    const raw = rows[k++] as Record<KnowledgeType, number>;
    const scores = u.kind === "heading" ? restrict(raw, headingTypes(u.text)) : raw;
    const best = topType(scores);
    out.push({ ...u, type: best, confidence: scores[best], scores });
  }
  return out;
}

/** Segment a markdown text and classify every unit. Pure; never throws on any string. */
export function classifyMarkdown(text: string, classifier: Classifier): ClassifiedUnit[] {
  return classifyUnits(segment(text), classifier);
}

/** Classify one free-standing sentence or chat utterance (no markdown context). */
export function classifySentence(text: string, classifier: Classifier): ClassifiedUnit {
  const unit: Unit = { line: 1, endLine: 1, text, kind: "line", headings: [], level: 0, depth: 0, leadIn: "" };
  return classifyUnits([unit], classifier)[0] as ClassifiedUnit;
}

function zeroScores(): Record<KnowledgeType, number> {
  return { constraint: 0, procedural: 0, belief: 0, preference: 0, episodic: 0 };
}
