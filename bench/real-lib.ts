/**
 * Scoring on the real dev set (bench/real/keys, rebuilt into .cache/real by bench/real/rebuild.ts):
 * per-unit predictions with their five probabilities, and the report's numbers — macro-F1, per-class
 * precision/recall/F1, confusion matrix, macro-F1 per language and per file kind, rule-vs-not-rule
 * (rule = constraint or procedural) and constraint operating points. Shared by bench/real.ts and
 * bench/real-curve.ts. The floors are issue 12's.
 */
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import * as z from "zod";
import { createHash } from "node:crypto";
import type { Classifier } from "../scripts/engine/classify.js";
import { modelClassifier } from "../scripts/engine/inference.js";
import type { ModelFile } from "../scripts/engine/model-format.js";
import { computeMetrics, type Metrics } from "../scripts/engine/metrics.js";
import { isScored, type LabelledDoc } from "../scripts/engine/train.js";
import { TYPES, type KnowledgeType } from "../scripts/engine/types.js";
import { loadLabelledData } from "../scripts/io/labelled-data.js";

/** The rebuilt dev set's default folder: `.cache/real/` of the repository (bench/real/rebuild.ts writes it). */
export const REAL_CACHE_DIR = resolve(import.meta.dirname, "..", ".cache", "real");

/** The value after `--name` on the command line of a bench script, or undefined. */
export function benchArg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

/** Issue 12's floors on the real dev set. */
export const FLOORS = {
  macroF1: 0.72,
  rulePrecision: 0.78,
  ruleRecall: 0.88,
  constraintRecall: 0.85,
  constraintPrecision: 0.65,
  languageMacroF1: 0.55,
  /** A language is held to languageMacroF1 only with at least this many scored lines. */
  languageMinLines: 100,
  authoredTest: 0.88,
} as const;

const IndexSchema = z.array(z.object({ id: z.string(), repo: z.string(), path: z.string(), kind: z.string(), lang: z.string(), domain: z.string() }));
/** One dev file's metadata from .cache/real/index.json. */
export type RealFile = z.infer<typeof IndexSchema>[number];

/** The dev set as loaded: labelled documents (group = "<id>.md") and each file's metadata by group. */
export interface RealSet {
  docs: LabelledDoc[];
  files: Map<string, RealFile>;
}

/** Load the rebuilt dev set from `dir`, or null when its index.json is missing (not rebuilt yet). Throws on malformed data. */
export function loadRealSet(dir: string): RealSet | null {
  const indexPath = join(dir, "index.json");
  if (!existsSync(indexPath)) return null;
  const index = IndexSchema.parse(JSON.parse(readFileSync(indexPath, "utf8")));
  const docs = loadLabelledData(dir).docs;
  return { docs, files: new Map(index.map((f) => [`${f.id}.md`, f])) };
}

/** One scored unit: where it is, its gold and predicted type, and the five probabilities. */
export interface ScoredUnit {
  group: string;
  line: number;
  text: string;
  lang: string;
  kind: string;
  gold: KnowledgeType;
  pred: KnowledgeType;
  scores: Record<KnowledgeType, number>;
}

/**
 * Classify every dev document in context and keep the scored units (headings are not scored).
 * `classifierFor(group)` picks the classifier per file, so grouped folds can score each file with a
 * model that never saw it.
 */
export function scoreDocs(set: RealSet, classifierFor: (group: string) => Classifier): ScoredUnit[] {
  const out: ScoredUnit[] = [];
  for (const d of set.docs) {
    const rows = classifierFor(d.group).scores(d.units);
    const kind = set.files.get(d.group)?.kind ?? "?";
    d.units.forEach((u, i) => {
      const gold = d.gold[i];
      if (!gold || !isScored(u)) return;
      const s = rows[i] as Record<KnowledgeType, number>;
      let best: KnowledgeType = TYPES[0];
      for (const t of TYPES) if (s[t] > s[best]) best = t;
      out.push({ group: d.group, line: u.line, text: u.text, lang: d.lang[i] ?? "en", kind, gold, pred: best, scores: s });
    });
  }
  return out;
}

/** Precision, recall and F1 of a binary decision over scored units. */
export interface Binary {
  precision: number;
  recall: number;
  f1: number;
  support: number;
}

function binary(units: readonly ScoredUnit[], gold: (u: ScoredUnit) => boolean, pred: (u: ScoredUnit) => boolean): Binary {
  let tp = 0;
  let fp = 0;
  let fn = 0;
  for (const u of units) {
    const g = gold(u);
    const p = pred(u);
    if (g && p) tp++;
    else if (p) fp++;
    else if (g) fn++;
  }
  const precision = tp + fp ? tp / (tp + fp) : 0;
  const recall = tp + fn ? tp / (tp + fn) : 0;
  return { precision, recall, f1: precision + recall ? (2 * precision * recall) / (precision + recall) : 0, support: tp + fn };
}

const isRule = (t: KnowledgeType): boolean => t === "constraint" || t === "procedural";

/**
 * The best precision reachable at recall >= minRecall by thresholding a score (ties broken by order):
 * sweeps the units by descending score. Returns precision, recall and the threshold, or null when no
 * gold positive exists.
 */
export function precisionAtRecall(units: readonly ScoredUnit[], score: (u: ScoredUnit) => number, gold: (u: ScoredUnit) => boolean, minRecall: number): { precision: number; recall: number; threshold: number } | null {
  const pos = units.filter(gold).length;
  if (pos === 0) return null;
  const sorted = [...units].sort((a, b) => score(b) - score(a));
  let tp = 0;
  let best: { precision: number; recall: number; threshold: number } | null = null;
  sorted.forEach((u, i) => {
    if (gold(u)) tp++;
    const recall = tp / pos;
    const precision = tp / (i + 1);
    if (recall >= minRecall && (!best || precision > best.precision)) best = { precision, recall, threshold: score(u) };
  });
  return best;
}

/** Everything bench:real prints, computed from scored units. */
export interface RealReport {
  overall: Metrics;
  byLang: [string, Metrics][];
  byKind: [string, Metrics][];
  rule: Binary;
  /** Best rule precision at rule recall >= FLOORS.ruleRecall, thresholding P(constraint) + P(procedural). */
  ruleSweep: { precision: number; recall: number; threshold: number } | null;
  constraint: Binary;
  /** Best constraint precision at constraint recall >= FLOORS.constraintRecall, thresholding P(constraint). */
  constraintSweep: { precision: number; recall: number; threshold: number } | null;
}

function metricsOf(units: readonly ScoredUnit[]): Metrics {
  return computeMetrics(
    units.map((u) => u.gold),
    units.map((u) => u.pred),
  );
}

function groupBy(units: readonly ScoredUnit[], key: (u: ScoredUnit) => string): [string, Metrics][] {
  const m = new Map<string, ScoredUnit[]>();
  for (const u of units) {
    const k = key(u);
    const list = m.get(k);
    if (list) list.push(u);
    else m.set(k, [u]);
  }
  return [...m.entries()].sort((a, b) => b[1].length - a[1].length || a[0].localeCompare(b[0])).map(([k, us]) => [k, metricsOf(us)]);
}

/** Compute the report over scored units. Pure. */
export function realReport(units: readonly ScoredUnit[]): RealReport {
  return {
    overall: metricsOf(units),
    byLang: groupBy(units, (u) => u.lang),
    byKind: groupBy(units, (u) => u.kind),
    rule: binary(units, (u) => isRule(u.gold), (u) => isRule(u.pred)),
    ruleSweep: precisionAtRecall(units, (u) => u.scores.constraint + u.scores.procedural, (u) => isRule(u.gold), FLOORS.ruleRecall),
    constraint: binary(units, (u) => u.gold === "constraint", (u) => u.pred === "constraint"),
    constraintSweep: precisionAtRecall(units, (u) => u.scores.constraint, (u) => u.gold === "constraint", FLOORS.constraintRecall),
  };
}

/** Units re-decided with logit offsets added to the log-probabilities (offsets in TYPES order). */
export function withOffsets(units: readonly ScoredUnit[], offsets: readonly number[]): ScoredUnit[] {
  return units.map((u) => {
    let best = 0;
    const z = TYPES.map((t, k) => Math.log(Math.max(1e-12, u.scores[t])) + (offsets[k] as number));
    for (let k = 1; k < z.length; k++) if ((z[k] as number) > (z[best] as number)) best = k;
    return { ...u, pred: TYPES[best] as KnowledgeType };
  });
}

/**
 * Decision offsets fitted on the dev set itself, scored honestly with grouped folds: the files are
 * dealt into `folds` folds (sorted by name, round robin), and each fold is re-decided with offsets
 * fitted (fitDecisionOffsets: constraint recall target, precision floor) on the other folds' files
 * only, so no file is scored by offsets fitted on it. Returns the re-decided units and the offsets
 * fitted on all files (what a model shipped with dev-fitted offsets would carry).
 */
export function groupedDevOffsets(
  units: readonly ScoredUnit[],
  fitOffsets: (held: number[][], y: number[]) => number[],
  folds = 5,
): { units: ScoredUnit[]; all: number[] } {
  const groups = [...new Set(units.map((u) => u.group))].sort();
  const foldOf = new Map(groups.map((g, i) => [g, i % folds]));
  const logp = (u: ScoredUnit): number[] => TYPES.map((t) => Math.log(Math.max(1e-12, u.scores[t])));
  const y = (u: ScoredUnit): number => TYPES.indexOf(u.gold);
  const out: ScoredUnit[] = [];
  for (let f = 0; f < folds; f++) {
    const trainU = units.filter((u) => foldOf.get(u.group) !== f);
    const testU = units.filter((u) => foldOf.get(u.group) === f);
    if (testU.length === 0) continue;
    const off = fitOffsets(trainU.map(logp), trainU.map(y));
    out.push(...withOffsets(testU, off));
  }
  return { units: out, all: fitOffsets(units.map(logp), units.map(y)) };
}

/** Where bench/real-stage2.ts --write keeps the stage 2 of each grouped fold over the dev files. */
export const STAGE2_FOLDS_PATH = join(import.meta.dirname, "..", ".cache", "stage2-folds.json");
const Stage2FoldsSchema = z.object({
  stage2Sha256: z.string(),
  foldOf: z.record(z.string(), z.int()),
  stages: z.array(z.object({ weights: z.array(z.number()), bias: z.array(z.number()) })),
});
/** What the fold file is: the shipped stage's hash, each dev file's fold, and the stage fitted without that fold. */
export type Stage2Folds = z.infer<typeof Stage2FoldsSchema>;

/** sha256 of a stage 2's weights and biases (ties a fold file to the model it was written with). */
export function stage2Sha256(s: { weights: readonly number[]; bias: readonly number[] }): string {
  return createHash("sha256").update(JSON.stringify([s.weights, s.bias])).digest("hex");
}

/**
 * The classifier to score each dev file with, so that no file is scored by a model fitted on it. The
 * first stage never saw dev files (trained on data/train); a stage 2 fitted on dev files (its
 * `fittedOn` says "real dev") is replaced, per file, by the stage fitted without that file's fold,
 * from the fold file bench/real-stage2.ts --write leaves in .cache/. Without a matching fold file the
 * dev files are scored by the first stage alone. `note` says which. Throws on a malformed fold file.
 */
export function heldOutClassifiers(model: ModelFile, foldsPath = STAGE2_FOLDS_PATH): { classifierFor: (group: string) => Classifier; note: string } {
  const whole = modelClassifier(model);
  if (!model.stage2) return { classifierFor: () => whole, note: "first stage only (the model has no stage 2)" };
  if (!model.stage2.fittedOn.includes("real dev")) return { classifierFor: () => whole, note: "with stage 2 (fitted without dev files)" };
  const first = modelClassifier({ ...model, stage2: undefined });
  if (!existsSync(foldsPath)) {
    return { classifierFor: () => first, note: `FIRST STAGE ONLY: the model's stage 2 was fitted on these files and ${foldsPath} is missing (run npm run train:stage2)` };
  }
  const folds = Stage2FoldsSchema.parse(JSON.parse(readFileSync(foldsPath, "utf8")));
  if (folds.stage2Sha256 !== stage2Sha256(model.stage2)) {
    return { classifierFor: () => first, note: `FIRST STAGE ONLY: ${foldsPath} belongs to another stage 2 (run npm run train:stage2)` };
  }
  const byFold = folds.stages.map((st) => modelClassifier({ ...model, stage2: { ...(model.stage2 as NonNullable<ModelFile["stage2"]>), weights: st.weights, bias: st.bias } }));
  return {
    classifierFor: (group) => {
      const f = folds.foldOf[group];
      return f === undefined ? whole : (byFold[f] as Classifier);
    },
    note: `with stage 2, grouped ${folds.stages.length}-fold: each file scored by the stage fitted without its fold`,
  };
}

/**
 * Macro-F1 over the classes present in gold or predictions only (scikit-learn's f1_score average="macro"
 * with its default labels): a language whose files hold no preference line and where none is predicted
 * is not capped at 0.8 by a class it cannot contain. Reported beside the five-class macro-F1, which the
 * floors use.
 */
export function presentMacroF1(m: Metrics): number {
  let sum = 0;
  let n = 0;
  TYPES.forEach((t, k) => {
    const predicted = m.confusion.reduce((a, row) => a + (row[k] as number), 0);
    if (m.perClass[t].support === 0 && predicted === 0) return;
    sum += m.perClass[t].f1;
    n++;
  });
  return n ? sum / n : 0;
}
