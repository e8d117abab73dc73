/**
 * Training: vocabulary + idf, one-vs-rest logistic regression on sparse tf-idf vectors, grouped
 * k-fold cross-validation, temperature calibration. Deterministic: same examples, options and seed
 * give bit-identical weights (full-batch optimisation, fixed iteration order, seeded fold split).
 */
import { computeMetrics, type Metrics } from "./metrics.js";
import { buildTermIndex, sequenceFeatures, softmax, tfidfVector, type SparseVector } from "./inference.js";
import { GROUP_WEIGHTS, HASH_MASK } from "./features.js";
import { TYPES, type KnowledgeType, type Unit } from "./types.js";

/** A labelled sequence: the non-structure units of one document (or one loose utterance) in order. */
export interface LabelledDoc {
  /** Group id for cross-validation (file name): all units of one file fall in the same fold. */
  group: string;
  units: Unit[];
  /** Gold type per unit, or null for units that are not scored (unlabelled headings). */
  gold: (KnowledgeType | null)[];
  lang: (string | null)[];
}

/** One training example: hashed feature ids (with repeats) and the gold class index into TYPES. */
export interface Example {
  feats: number[];
  y: number;
  group: string;
  lang: string;
  /** False for headings: classified and trained on, but not scored (references/taxonomy.md, Units, structure and what is scored). */
  scored: boolean;
}

/** Options for training (defaults in DEFAULT_TRAIN_OPTIONS). */
export interface TrainOptions {
  seed: number;
  folds: number;
  /** Keep features seen in at least minDf training examples. */
  minDf: number;
  /** Cap on the vocabulary size (most frequent features first, ties by name). */
  maxFeatures: number;
  /** L2 penalty on the weights (per example, as in the mean log-loss + l2/2 * |w|^2). */
  l2: number;
  epochs: number;
  /** Adam step size. */
  learningRate: number;
  /** Relative weight per feature group (features.ts GROUP_WEIGHTS). */
  groupWeights: Readonly<Record<string, number>>;
}

export const DEFAULT_TRAIN_OPTIONS: TrainOptions = {
  seed: 42,
  folds: 5,
  minDf: 2,
  maxFeatures: 30000,
  l2: 5e-5,
  epochs: 260,
  learningRate: 0.05,
  groupWeights: GROUP_WEIGHTS,
};

/**
 * Defaults of the decision offsets' targets on cross-validation (train --min-constraint-recall and
 * --min-constraint-precision): issue 12's constraint floor, recall 0.85 at precision 0.65.
 */
export const DEFAULT_MIN_CONSTRAINT_RECALL = 0.85;
export const DEFAULT_MIN_CONSTRAINT_PRECISION = 0.65;

/** Whether a unit counts in metrics: headings are classified but not scored (references/taxonomy.md). */
export function isScored(u: Pick<Unit, "kind">): boolean {
  return u.kind !== "heading";
}

/** Build examples from labelled documents: features in context, skipping unscored units. */
export function buildExamples(docs: readonly LabelledDoc[], headings = true): Example[] {
  const out: Example[] = [];
  for (const d of docs) {
    const feats = sequenceFeatures(d.units);
    d.units.forEach((_, i) => {
      const g = d.gold[i];
      if (!g || (!headings && !isScored(d.units[i] as Unit))) return;
      out.push({
        feats: feats[i] as number[],
        y: TYPES.indexOf(g),
        group: d.group,
        lang: d.lang[i] ?? "en",
        scored: isScored(d.units[i] as Unit),
      });
    });
  }
  return out;
}

/**
 * Vocabulary (hashed feature ids, ascending) and smooth idf as in scikit-learn:
 * idf = ln((1 + N) / (1 + df)) + 1, for features with df >= minDf, the maxFeatures most frequent kept
 * (ties by id). Where two kept ids share a hash bucket (a cross-group collision), the more frequent wins.
 */
export function fitVocabulary(examples: readonly Example[], minDf: number, maxFeatures: number): { terms: number[]; idf: number[] } {
  const df = new Map<number, number>();
  for (const e of examples) for (const f of new Set(e.feats)) df.set(f, (df.get(f) ?? 0) + 1);
  let terms = [...df.entries()].filter(([, c]) => c >= minDf);
  terms.sort((a, b) => b[1] - a[1] || a[0] - b[0]);
  const seen = new Set<number>();
  terms = terms.filter(([id]) => {
    const bucket = id & HASH_MASK;
    if (seen.has(bucket)) return false;
    seen.add(bucket);
    return true;
  });
  terms = terms.slice(0, maxFeatures);
  terms.sort((a, b) => a[0] - b[0]);
  const N = examples.length;
  return { terms: terms.map((t) => t[0]), idf: terms.map(([, c]) => Math.log((1 + N) / (1 + c)) + 1) };
}

/** Vectorise examples against a vocabulary (L2-normalised tf-idf, see tfidfVector). */
export function vectorize(
  examples: readonly Example[],
  terms: readonly number[],
  idf: readonly number[],
  groupWeights: Readonly<Record<string, number>> = GROUP_WEIGHTS,
): SparseVector[] {
  const index = buildTermIndex(terms, idf, groupWeights);
  return examples.map((e) => tfidfVector(e.feats, index));
}

/**
 * One-vs-rest logistic regression: K independent binary log-losses (class-balanced example weights
 * N / (K * count(y))), L2 penalty, full-batch Adam (Kingma & Ba 2015; beta1 0.9, beta2 0.999).
 * Returns term-major weights w[j*K + k] and biases. `onEpoch` reports progress.
 */
export function fitOneVsRest(
  X: readonly SparseVector[],
  y: readonly number[],
  nFeatures: number,
  opts: Pick<TrainOptions, "l2" | "epochs" | "learningRate">,
  onEpoch?: (epoch: number) => void,
): { w: Float64Array; b: Float64Array } {
  const K = TYPES.length;
  const N = X.length;
  const counts = new Array<number>(K).fill(0);
  for (const c of y) counts[c] = (counts[c] as number) + 1;
  const sw = y.map((c) => N / (K * Math.max(1, counts[c] as number)));
  const w = new Float64Array(nFeatures * K);
  const b = new Float64Array(K);
  const gw = new Float64Array(nFeatures * K);
  const gb = new Float64Array(K);
  const mw = new Float64Array(nFeatures * K);
  const vw = new Float64Array(nFeatures * K);
  const mb = new Float64Array(K);
  const vb = new Float64Array(K);
  const z = new Float64Array(K);
  const b1 = 0.9;
  const b2 = 0.999;
  const eps = 1e-8;
  for (let epoch = 1; epoch <= opts.epochs; epoch++) {
    gw.fill(0);
    gb.fill(0);
    for (let i = 0; i < N; i++) {
      const x = X[i] as SparseVector;
      for (let k = 0; k < K; k++) z[k] = b[k] as number;
      for (let t = 0; t < x.idx.length; t++) {
        const base = (x.idx[t] as number) * K;
        const v = x.val[t] as number;
        for (let k = 0; k < K; k++) z[k] = (z[k] as number) + v * (w[base + k] as number);
      }
      const scale = (sw[i] as number) / N;
      for (let k = 0; k < K; k++) {
        const p = 1 / (1 + Math.exp(-(z[k] as number)));
        z[k] = (p - (y[i] === k ? 1 : 0)) * scale;
        gb[k] = (gb[k] as number) + (z[k] as number);
      }
      for (let t = 0; t < x.idx.length; t++) {
        const base = (x.idx[t] as number) * K;
        const v = x.val[t] as number;
        for (let k = 0; k < K; k++) gw[base + k] = (gw[base + k] as number) + v * (z[k] as number);
      }
    }
    const c1 = 1 - b1 ** epoch;
    const c2 = 1 - b2 ** epoch;
    const lr = opts.learningRate;
    for (let j = 0; j < w.length; j++) {
      const g = (gw[j] as number) + opts.l2 * (w[j] as number);
      const m = b1 * (mw[j] as number) + (1 - b1) * g;
      const v = b2 * (vw[j] as number) + (1 - b2) * g * g;
      mw[j] = m;
      vw[j] = v;
      w[j] = (w[j] as number) - (lr * (m / c1)) / (Math.sqrt(v / c2) + eps);
    }
    for (let k = 0; k < K; k++) {
      const g = gb[k] as number;
      mb[k] = b1 * (mb[k] as number) + (1 - b1) * g;
      vb[k] = b2 * (vb[k] as number) + (1 - b2) * g * g;
      b[k] = (b[k] as number) - (lr * ((mb[k] as number) / c1)) / (Math.sqrt((vb[k] as number) / c2) + eps);
    }
    onEpoch?.(epoch);
  }
  return { w, b };
}

/** Logits (one per class) of a vector under term-major weights. */
export function logits(x: SparseVector, w: Float64Array, b: Float64Array): number[] {
  const K = b.length;
  const z = Array.from(b);
  for (let t = 0; t < x.idx.length; t++) {
    const base = (x.idx[t] as number) * K;
    const v = x.val[t] as number;
    for (let k = 0; k < K; k++) z[k] = (z[k] as number) + v * (w[base + k] as number);
  }
  return z;
}

/** Mulberry32: a tiny seeded PRNG (deterministic fold assignment). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Assign each group (document) to one of k folds: groups sorted by name, shuffled with the seed,
 * then dealt round-robin by size so folds hold similar numbers of units. Returns fold per example.
 */
export function groupFolds(examples: readonly Example[], k: number, seed: number): number[] {
  const sizes = new Map<string, number>();
  for (const e of examples) sizes.set(e.group, (sizes.get(e.group) ?? 0) + 1);
  const groups = [...sizes.keys()].sort();
  const rnd = mulberry32(seed);
  for (let i = groups.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [groups[i], groups[j]] = [groups[j] as string, groups[i] as string];
  }
  const load = new Array<number>(k).fill(0);
  const fold = new Map<string, number>();
  for (const g of groups) {
    let best = 0;
    for (let f = 1; f < k; f++) if ((load[f] as number) < (load[best] as number)) best = f;
    fold.set(g, best);
    load[best] = (load[best] as number) + (sizes.get(g) as number);
  }
  return examples.map((e) => fold.get(e.group) as number);
}

/** Fit vocabulary + weights on examples. */
export function fitModel(
  examples: readonly Example[],
  opts: TrainOptions,
  onEpoch?: (epoch: number) => void,
): { terms: number[]; idf: number[]; w: Float64Array; b: Float64Array } {
  const { terms, idf } = fitVocabulary(examples, opts.minDf, opts.maxFeatures);
  const X = vectorize(examples, terms, idf, opts.groupWeights);
  const { w, b } = fitOneVsRest(X, examples.map((e) => e.y), terms.length, opts, onEpoch);
  return { terms, idf, w, b };
}

/**
 * k-fold cross-validation, grouped by document (default) or by unit: out-of-fold logits and
 * metrics over scored units (argmax predictions). `onProgress` reports fold and epoch.
 */
export function crossValidate(
  examples: readonly Example[],
  opts: TrainOptions,
  onProgress?: (fold: number, epoch: number) => void,
  by: "document" | "unit" = "document",
): { metrics: Metrics; logits: number[][]; scored: number[] } {
  // "document": all units of a file in one fold (stricter: no neighbouring lines leak across folds);
  // "unit": the usual k-fold over units.
  const folds = groupFolds(by === "unit" ? examples.map((e, i) => ({ ...e, group: `u${i}` })) : examples, opts.folds, opts.seed);
  const oof: number[][] = new Array(examples.length);
  for (let f = 0; f < opts.folds; f++) {
    const trainIdx: number[] = [];
    const testIdx: number[] = [];
    folds.forEach((g, i) => {
      (g === f ? testIdx : trainIdx).push(i);
    });
    if (testIdx.length === 0) continue;
    const m = fitModel(
      trainIdx.map((i) => examples[i] as Example),
      opts,
      (e) => onProgress?.(f, e),
    );
    const X = vectorize(testIdx.map((i) => examples[i] as Example), m.terms, m.idf, opts.groupWeights);
    testIdx.forEach((i, t) => {
      oof[i] = logits(X[t] as SparseVector, m.w, m.b);
    });
  }
  const scored = examples.flatMap((e, i) => (e.scored && oof[i] ? [i] : []));
  const gold = scored.map((i) => TYPES[(examples[i] as Example).y] as KnowledgeType);
  const pred = scored.map((i) => TYPES[argmax(oof[i] as number[])] as KnowledgeType);
  return { metrics: computeMetrics(gold, pred), logits: oof, scored };
}

/** Index of the largest value (first on ties). */
export function argmax(z: ArrayLike<number>): number {
  let best = 0;
  for (let k = 1; k < z.length; k++) if ((z[k] as number) > (z[best] as number)) best = k;
  return best;
}

/**
 * Temperature scaling (Guo et al. 2017): the T in [0.05, 20] minimising the mean negative
 * log-likelihood of softmax(z / T) on held-out logits, by golden-section search on log T.
 */
export function fitTemperature(held: readonly number[][], y: readonly number[]): number {
  if (held.length === 0) return 1;
  const nll = (logT: number): number => {
    const T = Math.exp(logT);
    let s = 0;
    held.forEach((z, i) => {
      s -= Math.log(Math.max(1e-12, softmax(z, T)[y[i] as number] as number));
    });
    return s / held.length;
  };
  let lo = Math.log(0.05);
  let hi = Math.log(20);
  const g = (Math.sqrt(5) - 1) / 2;
  for (let it = 0; it < 60; it++) {
    const a = hi - g * (hi - lo);
    const b = lo + g * (hi - lo);
    if (nll(a) < nll(b)) hi = b;
    else lo = a;
  }
  return Math.exp((lo + hi) / 2);
}

/**
 * Decision offsets added to the class biases, fitted on held-out (out-of-fold) logits with a recall
 * target AND a precision floor for constraint (issue 12: offsets that only buy recall flood the class
 * on real files). First the constraint offset (grid -2..6, step 0.05): the smallest one whose
 * constraint recall reaches `minConstraintRecall` with precision >= `minConstraintPrecision`; when no
 * offset meets both, the one with the highest recall among those that keep the precision floor (or,
 * when none keeps it, the one with the best constraint F1). Then two passes of coordinate search over
 * the other classes' offsets (grid -2..2, step 0.1) maximising macro-F1 while keeping the constraint
 * recall and precision reached. Returns offsets in TYPES order (constraint first).
 */
export function fitDecisionOffsets(held: readonly number[][], y: readonly number[], minConstraintRecall: number, minConstraintPrecision = 0): number[] {
  const K = TYPES.length;
  const off = new Array<number>(K).fill(0);
  const evalOff = (o: number[]): { f1: number; cRecall: number; cPrecision: number; cF1: number } => {
    const pred = held.map((z) => argmax(z.map((v, k) => v + (o[k] as number))));
    const m = computeMetrics(
      y.map((c) => TYPES[c] as KnowledgeType),
      pred.map((c) => TYPES[c] as KnowledgeType),
    );
    const c = m.perClass.constraint;
    return { f1: m.macroF1, cRecall: c.recall, cPrecision: c.precision, cF1: c.f1 };
  };
  let chosen: { d: number; r: ReturnType<typeof evalOff> } | null = null;
  let bestFloor: { d: number; r: ReturnType<typeof evalOff> } | null = null;
  let bestF1: { d: number; r: ReturnType<typeof evalOff> } | null = null;
  for (let i = -40; i <= 120; i++) {
    const d = Math.round(i * 5) / 100;
    off[0] = d;
    const r = evalOff(off);
    if (r.cPrecision >= minConstraintPrecision) {
      if (r.cRecall >= minConstraintRecall) {
        chosen = { d, r };
        break;
      }
      if (!bestFloor || r.cRecall > bestFloor.r.cRecall) bestFloor = { d, r };
    }
    if (!bestF1 || r.cF1 > bestF1.r.cF1) bestF1 = { d, r };
  }
  const pick = chosen ?? bestFloor ?? (bestF1 as { d: number; r: ReturnType<typeof evalOff> });
  off[0] = pick.d;
  const keepRecall = pick.r.cRecall;
  const keepPrecision = Math.min(pick.r.cPrecision, Math.max(minConstraintPrecision, 0));
  for (let pass = 0; pass < 2; pass++) {
    for (let k = 1; k < K; k++) {
      let best = off[k] as number;
      let bestMacro = evalOff(off).f1;
      for (let d = -2; d <= 2.0001; d += 0.1) {
        const trial = off.slice();
        trial[k] = Math.round(d * 10) / 10;
        const r = evalOff(trial);
        if (r.cRecall >= keepRecall - 1e-9 && r.cPrecision >= keepPrecision - 1e-9 && r.f1 > bestMacro + 1e-9) {
          bestMacro = r.f1;
          best = trial[k] as number;
        }
      }
      off[k] = best;
    }
  }
  return off;
}
