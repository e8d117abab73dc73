/**
 * Pure-TypeScript inference of the model (model-format.ts): tf-idf over feature strings
 * (features.ts), one-vs-rest logistic regression logits, softmax with a fitted temperature for
 * calibrated probabilities that sum to 1.
 */
import type { Classifier } from "./classify.js";
import { forEachUnitFeatures, GROUPS, HASH_BITS } from "./features.js";
import { le32FromBytes, type ModelFile, modelBytes } from "./model-format.js";
import { applyStage2, type Stage2Params } from "./stage2.js";
import { useStemTables } from "./tokenize.js";
import { type KnowledgeType, TYPES, type Unit } from "./types.js";

/** A sparse vector: parallel arrays of term indices and values. */
export interface SparseVector {
  idx: Int32Array;
  val: Float64Array;
}

/**
 * Term lookup for hashed feature ids: an open-addressing hash table (linear probing, load <= 0.5)
 * from feature id to term index, keys and values interleaved so one probe touches one cache line,
 * plus the per-term scale idf * groupWeight. 512 KiB for 30,000 terms; builds in about a millisecond.
 */
export interface TermIndex {
  /** [key0, value0, key1, value1, ...]; key -1 = empty slot. */
  table: Int32Array;
  /** log2 of the number of slots. */
  bits: number;
  scale: Float64Array;
}

/** Build the lookup for terms, their idf and the group weights. Throws on a duplicate term id. */
export function buildTermIndex(ids: ArrayLike<number>, idf: ArrayLike<number>, groupWeights: Readonly<Record<string, number>>): TermIndex {
  const n = ids.length;
  let bits = 4;
  while (1 << bits < n * 2) bits++;
  const mask = (1 << bits) - 1;
  const table = new Int32Array(2 << bits).fill(-1);
  const scale = new Float64Array(n);
  const gw = Array.from(GROUPS, (g) => groupWeights[g] ?? 1);
  for (let j = 0; j < n; j++) {
    const id = ids[j] as number;
    let h = Math.imul(id, 0x9e3779b1) >>> (32 - bits);
    while (table[2 * h] !== -1) {
      if (table[2 * h] === id) throw new Error(`duplicate term id ${id}`);
      h = (h + 1) & mask;
    }
    table[2 * h] = id;
    table[2 * h + 1] = j;
    scale[j] = (idf[j] as number) * (gw[id >>> HASH_BITS] ?? 1);
  }
  return { table, bits, scale };
}

/** The term index of a feature id, or -1 when the id is not in the vocabulary (linear probing). */
export function termOf(index: TermIndex, id: number): number {
  const { table, bits } = index;
  const mask = (1 << bits) - 1;
  let h = Math.imul(id, 0x9e3779b1) >>> (32 - bits);
  let key = table[2 * h] as number;
  while (key !== id && key !== -1) {
    h = (h + 1) & mask;
    key = table[2 * h] as number;
  }
  return key === -1 ? -1 : (table[2 * h + 1] as number);
}

/** 1 + ln(tf) for small term frequencies (sublinear tf), precomputed. */
const SUBLINEAR = Float64Array.from({ length: 64 }, (_, tf) => (tf === 0 ? 0 : 1 + Math.log(tf)));

/**
 * Turn a unit's feature ids (with repeats) into an L2-normalised tf-idf vector:
 * value = (1 + ln tf) * idf * groupWeight (sublinear tf as in scikit-learn's TfidfVectorizer).
 * Ids not in the vocabulary are ignored. Term frequencies come from sorting the matched term
 * indices (no vocabulary-sized scratch array). With `into`, writes into its buffers (grown as
 * needed) and returns it; `n` is the number of terms. Indices come out ascending.
 */
export function tfidfVector(feats: readonly number[], index: TermIndex, into?: SparseVector & { n: number }): SparseVector & { n: number } {
  const out = into ?? { idx: new Int32Array(feats.length), val: new Float64Array(feats.length), n: 0 };
  if (out.idx.length < feats.length) {
    out.idx = new Int32Array(feats.length * 2);
    out.val = new Float64Array(feats.length * 2);
  }
  const { idx, val } = out;
  const { scale } = index;
  let m = 0;
  for (let t = 0; t < feats.length; t++) {
    const j = termOf(index, feats[t] as number);
    if (j >= 0) idx[m++] = j;
  }
  const hits = idx.subarray(0, m).sort();
  let n = 0;
  let norm = 0;
  for (let t = 0; t < m; ) {
    const j = hits[t] as number;
    let tf = 1;
    while (t + tf < m && hits[t + tf] === j) tf++;
    t += tf;
    const v = (tf < 64 ? (SUBLINEAR[tf] as number) : 1 + Math.log(tf)) * (scale[j] as number);
    idx[n] = j;
    val[n] = v;
    n++;
    norm += v * v;
  }
  if (norm > 0) {
    const s = 1 / Math.sqrt(norm);
    for (let t = 0; t < n; t++) val[t] = (val[t] as number) * s;
  }
  out.n = n;
  if (!into) {
    out.idx = idx.slice(0, n);
    out.val = val.slice(0, n);
  }
  return out;
}

/**
 * The inference form of tfidfVector fused with the weight product: returns a function that, for a
 * unit's feature ids `feats[0..count)`, writes into `acc` the K = 5 raw products
 * sum_j tfidf_j * w[j*K + k] of the UNNORMALISED sublinear tf-idf vector and returns 1 / its L2 norm
 * (0 for an empty vector), so the caller's logits are bias + scale_k * acc_k * norm: the same numbers
 * as tfidfVector followed by a dot product (tested to 1e-9), without sorting term indices. Term
 * frequencies are counted with a per-term generation stamp (two Int32Arrays of the vocabulary size,
 * 240 KB for 30,000 terms). Throws if `w` is not term-major with 5 classes.
 */
export function tfidfDot(index: TermIndex, w: Int8Array): (feats: Int32Array, count: number, acc: Float64Array) => number {
  const nTerms = index.scale.length;
  if (w.length !== nTerms * 5) throw new Error("tfidfDot: weights must be term-major with 5 classes");
  const { scale } = index;
  const stamp = new Int32Array(nTerms);
  const slot = new Int32Array(nTerms);
  let terms = new Int32Array(256);
  let tfs = new Int32Array(256);
  let gen = 0;
  return (feats, count, acc) => {
    if (++gen === 0x7fffffff) {
      stamp.fill(0);
      gen = 1;
    }
    if (terms.length < count) {
      terms = new Int32Array(count * 2);
      tfs = new Int32Array(count * 2);
    }
    let n = 0;
    for (let t = 0; t < count; t++) {
      const j = termOf(index, feats[t] as number);
      if (j < 0) continue;
      if (stamp[j] !== gen) {
        stamp[j] = gen;
        slot[j] = n;
        terms[n] = j;
        tfs[n] = 1;
        n++;
      } else {
        const at = slot[j] as number;
        tfs[at] = (tfs[at] as number) + 1;
      }
    }
    let a0 = 0;
    let a1 = 0;
    let a2 = 0;
    let a3 = 0;
    let a4 = 0;
    let norm = 0;
    for (let t = 0; t < n; t++) {
      const j = terms[t] as number;
      const tf = tfs[t] as number;
      const v = (tf < 64 ? (SUBLINEAR[tf] as number) : 1 + Math.log(tf)) * (scale[j] as number);
      norm += v * v;
      const b = j * 5;
      a0 += v * (w[b] as number);
      a1 += v * (w[b + 1] as number);
      a2 += v * (w[b + 2] as number);
      a3 += v * (w[b + 3] as number);
      a4 += v * (w[b + 4] as number);
    }
    acc[0] = a0;
    acc[1] = a1;
    acc[2] = a2;
    acc[3] = a3;
    acc[4] = a4;
    return norm > 0 ? 1 / Math.sqrt(norm) : 0;
  };
}

/** Softmax of logits divided by temperature T; returns probabilities summing to 1. */
export function softmax(logits: ArrayLike<number>, temperature = 1): number[] {
  let max = Number.NEGATIVE_INFINITY;
  for (let k = 0; k < logits.length; k++) max = Math.max(max, (logits[k] as number) / temperature);
  const e: number[] = [];
  let sum = 0;
  for (let k = 0; k < logits.length; k++) {
    const v = Math.exp((logits[k] as number) / temperature - max);
    e.push(v);
    sum += v;
  }
  return e.map((v) => v / sum);
}

/** Feature ids (with repeats) of every unit of a sequence, with its neighbours and its section as context. */
export function sequenceFeatures(units: readonly Unit[]): number[][] {
  const out: number[][] = [];
  forEachUnitFeatures(units, (_, f) => out.push(f.toArray()));
  return out;
}

/**
 * Everything inference needs, derived from a validated model file: the term lookup (hash table and
 * per-term idf x group-weight scale), the Int8 weights term-major (term j, class k at j * 5 + k), one
 * scale and one bias per class, the softmax temperature and the stem tables. Plain typed arrays, so
 * it can be stored as bytes and loaded without parsing (model-cache.ts).
 */
export interface PreparedModel {
  index: TermIndex;
  weights: Int8Array;
  weightScales: Float64Array;
  bias: Float64Array;
  temperature: number;
  stems: Readonly<Record<string, string>>;
  /** The model's second stage (stage2.ts), or null when it has none. */
  stage2: Stage2Params | null;
}

/**
 * Derive the inference tables from a validated model file (about 10 ms cold for 30,000 terms, most
 * of it building the hash table). Throws Error on a duplicate term id.
 */
export function prepareModel(model: ModelFile): PreparedModel {
  const ids = le32FromBytes(modelBytes(model, "terms"), "int32");
  const index = buildTermIndex(ids, le32FromBytes(modelBytes(model, "idf"), "float32"), model.groupWeights);
  const qb = modelBytes(model, "weights");
  return {
    index,
    weights: new Int8Array(qb.buffer, qb.byteOffset, qb.byteLength),
    weightScales: Float64Array.from(model.weightScales),
    bias: Float64Array.from(model.bias),
    temperature: model.temperature,
    stems: model.stems ?? {},
    stage2: model.stage2 ?? null,
  };
}

/**
 * A Classifier over a validated model file: prepareModel then preparedClassifier.
 */
export function modelClassifier(model: ModelFile): Classifier {
  return preparedClassifier(prepareModel(model));
}

/**
 * A Classifier over prepared inference tables. One pass over a unit's terms scores all K classes
 * (tfidfDot: the Int8 weights are used as stored, 150 KiB term-major, and stay in cache); each
 * class's scale is applied once per unit; then the model's second stage, when it has one, re-scores
 * the rows with their sections as context (stage2.ts). Registers the model's stem tables (useStemTables).
 * Throws Error if the weights are not term-major with 5 classes.
 */
export function preparedClassifier(p: PreparedModel): Classifier {
  const K = TYPES.length;
  useStemTables(p.stems);
  const { bias, weightScales: wscale, temperature: T, stage2 } = p;
  const z = new Float64Array(K);
  const vectorizer = tfidfDot(p.index, p.weights);
  return {
    name: "model",
    scores(units) {
      const rows: Record<KnowledgeType, number>[] = [];
      forEachUnitFeatures(units, (_, f) => {
        const norm = vectorizer(f.ids, f.n, z);
        for (let k = 0; k < K; k++) z[k] = (bias[k] as number) + (wscale[k] as number) * (z[k] as number) * norm;
        const p = softmax(z, T);
        rows.push({ constraint: p[0] as number, procedural: p[1] as number, belief: p[2] as number, preference: p[3] as number, episodic: p[4] as number });
      });
      return stage2 ? applyStage2(units, rows, stage2) : rows;
    },
  };
}
