/**
 * The model file format and pure-TypeScript inference: tf-idf over feature strings (features.ts),
 * one-vs-rest logistic regression logits, softmax with a fitted temperature for calibrated
 * probabilities that sum to 1.
 */
import * as z from "zod/mini";
import type { Classifier } from "./classify.js";
import { forEachUnitFeatures, GROUPS, HASH_BITS } from "./features.js";
import { useStemTables } from "./tokenize.js";
import { type KnowledgeType, TYPES, type Unit } from "./types.js";

export const MODEL_FORMAT = "knowledge-triage/model";
export const MODEL_VERSION = 4;


/** Encode numbers as base64 little-endian Float32 (the model file's array encoding). */
export function encodeFloat32(values: ArrayLike<number>): string {
  return encodeLE32(values, "float32");
}

/** Encode numbers as base64 little-endian 32-bit values of the given kind. */
function encodeLE32(values: ArrayLike<number>, kind: "float32" | "int32"): string {
  const buf = Buffer.alloc(values.length * 4);
  for (let i = 0; i < values.length; i++) {
    if (kind === "float32") buf.writeFloatLE(Math.fround(values[i] as number), i * 4);
    else buf.writeInt32LE((values[i] as number) | 0, i * 4);
  }
  return buf.toString("base64");
}

/** Decode base64 little-endian Float32 into a Float32Array. Throws if the byte length is not a multiple of 4. */
export function decodeFloat32(b64: string): Float32Array {
  return decodeLE32(b64, "float32") as Float32Array;
}

/**
 * Quantise term-major weights (length n * K) to signed 8-bit integers with one scale per class
 * (max |w| / 127, symmetric linear quantisation). Returns base64 Int8 and the K scales.
 */
export function quantizeInt8(w: ArrayLike<number>, K: number): { weights: string; scales: number[] } {
  const scales = new Array<number>(K).fill(0);
  for (let i = 0; i < w.length; i++) scales[i % K] = Math.max(scales[i % K] as number, Math.abs(w[i] as number));
  for (let k = 0; k < K; k++) scales[k] = Math.fround(((scales[k] as number) || 1) / 127);
  const q = Buffer.alloc(w.length);
  for (let i = 0; i < w.length; i++) q.writeInt8(Math.max(-127, Math.min(127, Math.round((w[i] as number) / (scales[i % K] as number)))), i);
  return { weights: q.toString("base64"), scales };
}

/** Decode base64 Int8 weights and multiply by their class scales (index i has class i % K). */
export function dequantizeInt8(b64: string, scales: readonly number[]): Float32Array {
  const buf = decodeBase64Strict(b64);
  const K = scales.length;
  const out = new Float32Array(buf.byteLength);
  const q = new Int8Array(buf.buffer, buf.byteOffset, buf.byteLength);
  for (let i = 0; i < out.length; i++) out[i] = (q[i] as number) * (scales[i % K] as number);
  return out;
}

/** Encode integers as base64 little-endian Int32. */
export function encodeInt32(values: ArrayLike<number>): string {
  return encodeLE32(values, "int32");
}

/** Decode base64 little-endian Int32. Throws if the byte length is not a multiple of 4. */
export function decodeInt32(b64: string): Int32Array {
  return decodeLE32(b64, "int32") as Int32Array;
}

/** Decode base64 little-endian 32-bit values (a typed-array copy on little-endian hosts). */
function decodeLE32(b64: string, kind: "float32" | "int32"): Float32Array | Int32Array {
  return le32FromBytes(decodeBase64Strict(b64), kind);
}

/** Little-endian 32-bit values from bytes. Throws if the byte length is not a multiple of 4. */
function le32FromBytes(buf: Buffer, kind: "float32" | "int32"): Float32Array | Int32Array {
  if (buf.byteLength % 4 !== 0) throw new Error(`${kind} data length is not a multiple of 4 bytes`);
  const bytes = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength);
  if (LITTLE_ENDIAN) return kind === "float32" ? new Float32Array(bytes) : new Int32Array(bytes);
  const out = kind === "float32" ? new Float32Array(buf.byteLength / 4) : new Int32Array(buf.byteLength / 4);
  for (let i = 0; i < out.length; i++) out[i] = kind === "float32" ? buf.readFloatLE(i * 4) : buf.readInt32LE(i * 4);
  return out;
}

/**
 * Decode base64, rejecting invalid characters: Node's decoder silently skips them, which would
 * shift every following weight. Throws Error("not valid base64").
 */
function decodeBase64Strict(b64: string): Buffer {
  const buf = Buffer.from(b64, "base64");
  const pad = b64.endsWith("==") ? 2 : b64.endsWith("=") ? 1 : 0;
  if (b64.length % 4 !== 0 || buf.byteLength !== (b64.length / 4) * 3 - pad) throw new Error("not valid base64");
  return buf;
}

/** True on little-endian hosts, whose typed arrays read the model's little-endian bytes as they are. */
export const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

const decodedBlobs = new WeakMap<ModelFile, Partial<Record<"terms" | "idf" | "weights", Buffer>>>();
/**
 * The bytes of one of a model's base64 arrays, strictly decoded (decodeBase64Strict) once per model
 * object: loading validates them (model-file.ts) and modelClassifier uses them, without a second
 * decode of half a megabyte at every start. Throws Error("not valid base64").
 */
export function modelBytes(model: ModelFile, field: "terms" | "idf" | "weights"): Buffer {
  let blobs = decodedBlobs.get(model);
  if (!blobs) {
    blobs = {};
    decodedBlobs.set(model, blobs);
  }
  let bytes = blobs[field];
  if (!bytes) {
    bytes = decodeBase64Strict(model[field]);
    blobs[field] = bytes;
  }
  return bytes;
}


/**
 * model/model.json's schema, validated on load. zod's tree-shakable "mini" build keeps the CLI's
 * cold start small (the classic build costs tens of ms to initialise); the schema itself is built on
 * first use.
 */
function buildModelFileSchema() {
  /**
   * A little-endian 32-bit array encoded as base64 (fast to load: no per-number JSON parsing). Only the
   * length is checked here (a regex over a megabyte costs milliseconds at every start); the decoded
   * lengths are cross-checked in the schema's superRefine, which catches corrupt data.
   */
  const float32Base64 = z.string().check(z.refine((s) => s.length % 4 === 0, "must be base64 (length a multiple of 4)"));
  const numberArray = z.array(z.number());
  /** Per-class precision/recall/F1 and macro-F1 as stored in metadata. */
  const metricsShape = {
    macroF1: z.number(),
    accuracy: z.number(),
    perClass: z.record(z.string(), z.object({ precision: z.number(), recall: z.number(), f1: z.number(), support: z.number() })),
    units: z.int(),
  };
  return z
    .object({
      format: z.literal(MODEL_FORMAT),
      version: z.literal(MODEL_VERSION),
      classes: z.array(z.enum(TYPES)).check(z.length(TYPES.length)),
      /** Feature hashing parameters (features.ts): FNV-1a 32-bit, folded to `bits` bits, group index above. */
      hashing: z.object({ function: z.literal("fnv1a32"), bits: z.literal(HASH_BITS), groups: z.literal(GROUPS) }),
      /** The vocabulary: hashed feature ids (bucket | group << bits), base64 Int32, ascending, unique buckets. */
      terms: float32Base64,
      /** idf per term, base64 Float32. */
      idf: float32Base64,
      /**
       * One-vs-rest weights, term-major (term j, class k at j * 5 + k), quantised to signed 8-bit
       * integers (base64 Int8): weight = q * weightScales[k]. A quarter of Float32's size, so the
       * model loads faster; the measured effect on test macro-F1 is below 0.001.
       */
      weights: float32Base64,
      weightScales: numberArray.check(z.length(TYPES.length)),
      bias: numberArray.check(z.length(TYPES.length)),
      /** Softmax temperature fitted on out-of-fold logits (minimises negative log-likelihood). */
      temperature: z.number().check(z.positive()),
      groupWeights: z.record(z.string(), z.number()),
      /** Stem tables of the words seen in training, per stemmer language (see useStemTables). */
      stems: z.optional(z.record(z.string(), z.string())),
      metadata: z.object({
        createdAt: z.string(),
        trainer: z.string(),
        seed: z.int(),
        dataSha256: z.string().check(z.regex(/^[0-9a-f]{64}$/)),
        trainingUnits: z.int().check(z.nonnegative()),
        minDf: z.int(),
        l2: z.number(),
        epochs: z.int(),
        /** Logit offsets already added to `bias` (see fitDecisionOffsets in train.ts). */
        decisionOffsets: numberArray.check(z.length(TYPES.length)),
        minConstraintRecall: z.number().check(z.gte(0), z.lte(1)),
        cv: z.nullable(z.object({ ...metricsShape, folds: z.int() })),
        test: z.nullable(z.object(metricsShape)),
      }),
    })
    .check(
      z.superRefine((m, ctx) => {
        const count = (b64: string): number => (Math.floor((b64.length * 3) / 4) - (b64.endsWith("==") ? 2 : b64.endsWith("=") ? 1 : 0)) / 4;
        const n = count(m.terms);
        if (!Number.isInteger(n)) ctx.addIssue({ code: "custom", path: ["terms"], message: "length is not a multiple of 4 bytes" });
        if (m.classes.join() !== TYPES.join()) ctx.addIssue({ code: "custom", path: ["classes"], message: `must be ${TYPES.join(",")}` });
        if (count(m.idf) !== n) ctx.addIssue({ code: "custom", path: ["idf"], message: `has ${count(m.idf)} entries for ${n} terms` });
        const bytes = (b64: string): number => Math.floor((b64.length * 3) / 4) - (b64.endsWith("==") ? 2 : b64.endsWith("=") ? 1 : 0);
        if (bytes(m.weights) !== n * TYPES.length) {
          ctx.addIssue({ code: "custom", path: ["weights"], message: `has ${bytes(m.weights)} entries for ${n} terms x ${TYPES.length} classes` });
        }
      }),
    );
}

let modelFileSchema: ReturnType<typeof buildModelFileSchema> | undefined;

/** The zod schema of model/model.json (built once, on first use). */
export function ModelFileSchema(): ReturnType<typeof buildModelFileSchema> {
  modelFileSchema ??= buildModelFileSchema();
  return modelFileSchema;
}

export type ModelFile = z.infer<ReturnType<typeof buildModelFileSchema>>;

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
 * class's scale is applied once per unit. Registers the model's stem tables (useStemTables).
 * Throws Error if the weights are not term-major with 5 classes.
 */
export function preparedClassifier(p: PreparedModel): Classifier {
  const K = TYPES.length;
  useStemTables(p.stems);
  const { bias, weightScales: wscale, temperature: T } = p;
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
      return rows;
    },
  };
}
