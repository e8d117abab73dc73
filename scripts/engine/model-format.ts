/**
 * The model file format (model/model.json, format "knowledge-triage/model"): its zod schema, the
 * base64 little-endian array encodings, and Int8 weight quantisation with per-class scales. Pure.
 */
import * as z from "zod/mini";
import { GROUPS, HASH_BITS } from "./features.js";
import { STAGE2_DIM, STAGE2_LAYOUT } from "./stage2.js";
import { TYPES } from "./types.js";

export const MODEL_FORMAT = "knowledge-triage/model";
export const MODEL_VERSION = 5;


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
export function le32FromBytes(buf: Buffer, kind: "float32" | "int32"): Float32Array | Int32Array {
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
      /**
       * Optional second linear stage (stage2.ts): class-major weights over STAGE2_DIM features of the
       * layout named, and 5 biases. Absent: the first stage's probabilities are final.
       */
      stage2: z.optional(
        z.object({
          layout: z.literal(STAGE2_LAYOUT),
          weights: numberArray.check(z.length(TYPES.length * STAGE2_DIM)),
          bias: numberArray.check(z.length(TYPES.length)),
          /** What it was fitted on, for people reading the file. */
          fittedOn: z.string(),
        }),
      ),
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
        /** Constraint precision the offsets had to keep on the cross-validation (see fitDecisionOffsets). */
        minConstraintPrecision: z.number().check(z.gte(0), z.lte(1)),
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

