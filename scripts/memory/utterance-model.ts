/**
 * Sentence-level durability model: is one sentence a user typed a standing rule for the agent ("rule") or
 * conversation (a one-off task, question, remark, compliment, small talk with always/never, an answer-length
 * wish)? It shares the line classifier's engine (hashed features of engine/features.ts, tf-idf and one-vs-rest
 * logistic regression of engine/train.ts) but has its own small model file, model/utterance.json, trained
 * deterministically from the authored utterances in data/utterances/<lang>.tsv (`npm run train:utterances`).
 * Pure: no I/O; the model file is read by the caller (or bundled through a JSON import in durability.ts).
 */
import * as z from "zod/mini";
import { GROUP_WEIGHTS, GROUPS, HASH_BITS } from "../engine/features.js";
import { buildTermIndex, sequenceFeatures, tfidfVector, type TermIndex } from "../engine/inference.js";
import { fitOneVsRest, fitVocabulary, vectorize, type Example } from "../engine/train.js";
import type { Unit } from "../engine/types.js";

/** File format tag of model/utterance.json. */
export const UTTERANCE_MODEL_FORMAT = "knowledge-triage/utterance-model";

/**
 * An array of finite numbers (integers with `int`), checked in one loop: z.array(z.number()) runs zod's parser per
 * element, about 80 ms for the 3 x 38,596 numbers of model/utterance.json in a fresh hook process (zod's code
 * is still unoptimised then), against about 1 ms for this check. The message names the first bad index.
 */
function numbers(int: boolean) {
  return z.custom<number[]>((v) => {
    if (!Array.isArray(v)) return false;
    for (let i = 0; i < v.length; i++) {
      const x = v[i];
      if (typeof x !== "number" || !(int ? Number.isSafeInteger(x) : Number.isFinite(x))) return false;
    }
    return true;
  }, int ? "expected an array of integers" : "expected an array of finite numbers");
}

/** model/utterance.json: vocabulary (hashed feature ids, ascending), their idf, one weight per term and a bias. */
export const UtteranceModelSchema = z.object({
  format: z.literal(UTTERANCE_MODEL_FORMAT),
  version: z.literal(1),
  /** How many authored utterances per label it was trained on. */
  trainedOn: z.record(z.string(), z.int()),
  terms: numbers(true),
  idf: numbers(false),
  weights: numbers(false),
  bias: z.number(),
});
export type UtteranceModel = z.infer<typeof UtteranceModelSchema>;

/** One authored training utterance. */
export interface LabelledUtterance {
  text: string;
  label: "rule" | "chat";
  lang: string;
}

/**
 * Training options. Values chosen for a few hundred short sentences: features seen once are kept (minDf 1:
 * a rule's wording is rarely repeated), a stronger L2 than the line model's (5e-5) against memorising them.
 */
export const UTTERANCE_TRAIN = { minDf: 1, maxFeatures: 40_000, l2: 1e-5, epochs: 200, learningRate: 0.05 } as const;

/** Smallest |weight| kept in the model file (smaller ones change a logit by less than the 3-decimal rounding over a sentence's ~100 features). */
export const UTTERANCE_MIN_WEIGHT = 0.02;

function toUnit(text: string): Unit {
  return { line: 1, endLine: 1, text, kind: "line", headings: [], level: 0, depth: 0, leadIn: "" };
}

/** Group index of the line-form features (features.ts "q"): they describe markdown lines, not chat sentences. */
const LINE_FORM_GROUP = GROUPS.indexOf("q");

/**
 * Hashed features (with repeats) of one sentence on its own (no neighbours, no headings), without the
 * line-form group "q": its section kinds and checklist/table/tree forms describe lines of memory files,
 * and on chat sentences they added noise (measured on tests/memory/live-extraction.test.ts's no-cue rules).
 */
export function sentenceFeatures(text: string): number[] {
  return (sequenceFeatures([toUnit(text)])[0] ?? []).filter((id) => id >>> HASH_BITS !== LINE_FORM_GROUP);
}

/**
 * Train the model (deterministic: same utterances in the same order give the same weights). Class index 0 of
 * the one-vs-rest fit is "rule", 4 is "chat"; only the rule-vs-rest column is kept. Throws on an empty set.
 */
export function trainUtteranceModel(rows: readonly LabelledUtterance[]): UtteranceModel {
  if (rows.length === 0) throw new Error("no training utterances");
  const examples: Example[] = rows.map((r, i) => ({ feats: sentenceFeatures(r.text), y: r.label === "rule" ? 0 : 4, group: String(i), lang: r.lang, scored: true }));
  const { terms, idf } = fitVocabulary(examples, UTTERANCE_TRAIN.minDf, UTTERANCE_TRAIN.maxFeatures);
  const X = vectorize(examples, terms, idf, GROUP_WEIGHTS);
  const { w, b } = fitOneVsRest(X, examples.map((e) => e.y), terms.length, UTTERANCE_TRAIN);
  const K = b.length;
  const round = (x: number): number => Math.round(x * 1e3) / 1e3;
  const trainedOn: Record<string, number> = {};
  for (const r of rows) trainedOn[r.label] = (trainedOn[r.label] ?? 0) + 1;
  // Terms whose weight rounds to 0 only shape the vector's norm: dropped, so the bundled file stays small.
  const keep = terms.map((_, j) => j).filter((j) => Math.abs(w[j * K] as number) >= UTTERANCE_MIN_WEIGHT);
  return {
    format: UTTERANCE_MODEL_FORMAT,
    version: 1,
    trainedOn,
    terms: keep.map((j) => terms[j] as number),
    idf: keep.map((j) => round(idf[j] as number)),
    weights: keep.map((j) => round(w[j * K] as number)),
    bias: round(b[0] as number),
  };
}

/** A model ready to score: the term index and dense weights by term position. */
export interface UtteranceScorer {
  /** Logit of "this sentence is a standing rule" (log-odds; 0 = undecided). */
  logit(text: string): number;
}

/** Prepare a parsed model for scoring. Throws when terms, idf and weights differ in length. */
export function utteranceScorer(m: UtteranceModel): UtteranceScorer {
  if (m.terms.length !== m.idf.length || m.terms.length !== m.weights.length) throw new Error("utterance model: terms, idf and weights differ in length");
  const index: TermIndex = buildTermIndex(m.terms, m.idf, GROUP_WEIGHTS);
  return {
    logit(text: string): number {
      const v = tfidfVector(sentenceFeatures(text), index);
      let z = m.bias;
      for (let t = 0; t < v.idx.length; t++) z += (v.val[t] as number) * (m.weights[v.idx[t] as number] as number);
      return z;
    },
  };
}

/** Parse a TSV of authored utterances ("rule" or "chat", a tab, the sentence; "#" lines and blanks skipped). Throws on a bad label. */
export function parseUtteranceTsv(text: string, lang: string): LabelledUtterance[] {
  const out: LabelledUtterance[] = [];
  for (const [i, line] of text.split("\n").entries()) {
    if (line.trim() === "" || line.startsWith("#")) continue;
    const tab = line.indexOf("\t");
    const label = line.slice(0, tab);
    if (tab < 0 || (label !== "rule" && label !== "chat")) throw new Error(`${lang}.tsv line ${i + 1}: expected "rule" or "chat", a tab, then the sentence`);
    out.push({ label, text: line.slice(tab + 1).trim(), lang });
  }
  return out;
}

/**
 * A sentence scorer that loads the real one on first use (as lazyClassifier). `load` may throw; the error
 * surfaces on first use.
 */
export function lazyUtterance(load: () => UtteranceScorer): UtteranceScorer {
  let m: UtteranceScorer | undefined;
  return {
    logit(text) {
      m ??= load();
      return m.logit(text);
    },
  };
}
