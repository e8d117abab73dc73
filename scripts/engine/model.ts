/**
 * The model file format and pure-TypeScript inference: tf-idf over feature strings (features.ts),
 * one-vs-rest logistic regression logits, softmax with a fitted temperature for calibrated
 * probabilities that sum to 1.
 */
import { z } from "zod";
import type { Classifier } from "./classify.js";
import { addSectionFeatures, GROUP_WEIGHTS, unitFeatures } from "./features.js";
import { TYPES, type KnowledgeType, type Unit } from "./types.js";

export const MODEL_FORMAT = "knowledge-triage/model";
export const MODEL_VERSION = 2;

const numberArray = z.array(z.number());
/** A little-endian Float32 array encoded as base64 (fast to load: no per-number JSON parsing). */
const float32Base64 = z.string().regex(/^[A-Za-z0-9+/]*={0,2}$/, "must be base64");

/** Encode numbers as base64 little-endian Float32 (the model file's array encoding). */
export function encodeFloat32(values: ArrayLike<number>): string {
  const f = Float32Array.from(values as ArrayLike<number>);
  return Buffer.from(f.buffer, f.byteOffset, f.byteLength).toString("base64");
}

/** Decode base64 little-endian Float32 into a Float32Array. Throws if the byte length is not a multiple of 4. */
export function decodeFloat32(b64: string): Float32Array {
  const buf = Buffer.from(b64, "base64");
  if (buf.byteLength % 4 !== 0) throw new Error("float32 data length is not a multiple of 4 bytes");
  const out = new Float32Array(buf.byteLength / 4);
  for (let i = 0; i < out.length; i++) out[i] = buf.readFloatLE(i * 4);
  return out;
}

/** Per-class precision/recall/F1 and macro-F1 as stored in metadata. */
export const MetricsSummarySchema = z.object({
  macroF1: z.number(),
  accuracy: z.number(),
  perClass: z.record(z.string(), z.object({ precision: z.number(), recall: z.number(), f1: z.number(), support: z.number() })),
  units: z.number().int(),
});

/** model/model.json, validated on load (zod). */
export const ModelFileSchema = z
  .object({
    format: z.literal(MODEL_FORMAT),
    version: z.literal(MODEL_VERSION),
    classes: z.array(z.enum(TYPES)).length(TYPES.length),
    vocabulary: z.array(z.string()),
    /** idf per vocabulary term, base64 Float32. */
    idf: float32Base64,
    /** weights[k]: base64 Float32 weights of every vocabulary term for class k (one-vs-rest). */
    weights: z.array(float32Base64).length(TYPES.length),
    bias: numberArray.length(TYPES.length),
    /** Softmax temperature fitted on out-of-fold logits (minimises negative log-likelihood). */
    temperature: z.number().positive(),
    groupWeights: z.record(z.string(), z.number()),
    metadata: z.object({
      createdAt: z.string(),
      trainer: z.string(),
      seed: z.number().int(),
      dataSha256: z.string().regex(/^[0-9a-f]{64}$/),
      trainingUnits: z.number().int().nonnegative(),
      minDf: z.number().int(),
      l2: z.number(),
      epochs: z.number().int(),
      /** Logit offsets already added to `bias` (see fitDecisionOffsets in train.ts). */
      decisionOffsets: numberArray.length(TYPES.length),
      minConstraintRecall: z.number().min(0).max(1),
      cv: MetricsSummarySchema.extend({ folds: z.number().int() }).nullable(),
      test: MetricsSummarySchema.nullable(),
    }),
  })
  .superRefine((m, ctx) => {
    const n = m.vocabulary.length;
    if (m.classes.join() !== TYPES.join()) ctx.addIssue({ code: "custom", message: `classes must be ${TYPES.join(",")}` });
    const count = (b64: string): number => Math.floor((b64.length * 3) / 4 - (b64.endsWith("==") ? 2 : b64.endsWith("=") ? 1 : 0)) / 4;
    if (count(m.idf) !== n) ctx.addIssue({ code: "custom", path: ["idf"], message: `has ${count(m.idf)} entries for ${n} terms` });
    m.weights.forEach((row, k) => {
      if (count(row) !== n) ctx.addIssue({ code: "custom", path: ["weights", k], message: `has ${count(row)} entries for ${n} terms` });
    });
  });

export type ModelFile = z.infer<typeof ModelFileSchema>;

/** A sparse vector: parallel arrays of term indices and values. */
export interface SparseVector {
  idx: number[];
  val: number[];
}

/**
 * Turn raw feature counts into an L2-normalised tf-idf vector over `vocab`:
 * value = (1 + ln tf) * idf * groupWeight (sublinear tf as in scikit-learn's TfidfVectorizer).
 * Unknown features are ignored. Indices are in ascending order.
 */
export function tfidfVector(
  counts: Map<string, number>,
  vocab: Map<string, number>,
  idf: ArrayLike<number>,
  groupWeights: Readonly<Record<string, number>> = GROUP_WEIGHTS,
): SparseVector {
  const pairs: [number, number][] = [];
  let norm = 0;
  for (const [f, tf] of counts) {
    const j = vocab.get(f);
    if (j === undefined) continue;
    const g = groupWeights[f.slice(0, f.indexOf(":"))] ?? 1;
    const v = (1 + Math.log(tf)) * (idf[j] as number) * g;
    pairs.push([j, v]);
    norm += v * v;
  }
  pairs.sort((a, b) => a[0] - b[0]);
  const s = norm > 0 ? 1 / Math.sqrt(norm) : 0;
  return { idx: pairs.map((p) => p[0]), val: pairs.map((p) => p[1] * s) };
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

/** Feature counts for every unit of a sequence, with its neighbours and its section as context. */
export function sequenceFeatures(units: readonly Unit[]): Map<string, number>[] {
  const feats = units.map((u, i) => unitFeatures(u, units[i - 1], units[i + 1]));
  addSectionFeatures(units, feats);
  return feats;
}

/**
 * A Classifier over a validated model file. Weights are re-laid out term-major
 * (w[j*K + k]) so one pass over a unit's terms scores all K classes.
 */
export function modelClassifier(model: ModelFile): Classifier {
  const K = TYPES.length;
  const vocab = new Map<string, number>();
  model.vocabulary.forEach((t, j) => vocab.set(t, j));
  const n = model.vocabulary.length;
  const w = new Float64Array(n * K);
  for (let k = 0; k < K; k++) {
    const row = decodeFloat32(model.weights[k] as string);
    for (let j = 0; j < n; j++) w[j * K + k] = row[j] as number;
  }
  const idf = decodeFloat32(model.idf);
  return {
    name: "model",
    scores(units) {
      return sequenceFeatures(units).map((counts) => {
        const x = tfidfVector(counts, vocab, idf, model.groupWeights);
        const z = model.bias.slice();
        for (let t = 0; t < x.idx.length; t++) {
          const base = (x.idx[t] as number) * K;
          const v = x.val[t] as number;
          for (let k = 0; k < K; k++) z[k] = (z[k] as number) + v * (w[base + k] as number);
        }
        const p = softmax(z, model.temperature);
        return Object.fromEntries(TYPES.map((t, k) => [t, p[k] as number])) as Record<KnowledgeType, number>;
      });
    },
  };
}
