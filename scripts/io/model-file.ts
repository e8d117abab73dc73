/**
 * Reading and writing model/model.json: zod-validated on load (a corrupt or mismatched file gives a
 * one-line ModelError), built then validated before write, with fixed key order and rounding so
 * the same training run gives byte-identical files.
 */
import { isAscii } from "node:buffer";
import { type Classifier, regexClassifier } from "../engine/classify.js";
import { MODEL_FORMAT, MODEL_VERSION, ModelFileSchema, modelBytes, type ModelFile } from "../engine/model-format.js";
import { type PreparedModel, prepareModel, preparedClassifier } from "../engine/inference.js";
import { ModelError, plainReason, ReadError } from "../errors.js";
import { MODEL_MAX_BYTES, readFileCapped } from "./read-files.js";
import { defaultModelPath, defaultUtterancePath } from "../paths.js";
import { UtteranceModelSchema, utteranceScorer, type UtteranceScorer } from "../memory/utterance-model.js";
import { writeFileAtomic } from "./write-files.js";

/** Parse and validate model JSON text. Throws ModelError naming the first problem. */
export function parseModel(text: string, path: string): ModelFile {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new ModelError(`${path}: not a valid model file (not JSON)`);
  }
  const fmt = (raw as { format?: unknown; version?: unknown } | null) ?? {};
  if (fmt.format !== MODEL_FORMAT) throw new ModelError(`${path}: not a Knowledge Triage model (format ${JSON.stringify(fmt.format ?? null)})`);
  if (fmt.version !== MODEL_VERSION) {
    throw new ModelError(`${path}: model format version ${JSON.stringify(fmt.version)} is not supported (expected ${MODEL_VERSION}); retrain with 'triage train'`);
  }
  const r = ModelFileSchema().safeParse(raw);
  if (!r.success) {
    const issue = r.error.issues[0];
    throw new ModelError(`${path}: invalid model: ${issue?.path.join(".") || "file"}: ${issue?.message}`);
  }
  for (const field of ["terms", "idf", "weights"] as const) {
    try {
      modelBytes(r.data, field);
    } catch {
      throw new ModelError(`${path}: invalid model: ${field}: not valid base64`);
    }
  }
  return r.data;
}

/**
 * Read and validate a model file. Throws ModelError if missing, unreadable or invalid, if it is not a
 * regular file (a device such as /dev/zero would never end: `--model /dev/null` is handled before, by
 * loadClassifier) or if it is larger than MODEL_MAX_BYTES.
 */
export function readModel(path: string): ModelFile {
  let text: string;
  try {
    // Model files are written ASCII-only (writeModel): taken as latin1 straight into a one-byte string,
    // ~1.5 ms less than UTF-8 decoding 0.7 MB at every start; any other file is decoded as UTF-8.
    const bytes = readFileCapped(path, { maxBytes: MODEL_MAX_BYTES });
    text = isAscii(bytes) ? bytes.toString("latin1") : bytes.toString("utf8");
  } catch (e) {
    if (!(e instanceof ReadError)) throw e;
    if (e.errno === "EISDIR") throw new ModelError(`${path}: is a directory, not a model file`);
    throw new ModelError(`cannot read model ${path}: ${plainReason(e.reason)}`);
  }
  if (text.trim() === "") throw new ModelError(`${path}: empty model file (use --model /dev/null for the regex tier)`);
  return parseModel(text, path);
}

/** Load a model file as a Classifier. Throws ModelError if the file is missing, unreadable or invalid. */
export function loadModelClassifier(path: string): Classifier {
  const model = readModel(path);
  let prepared: PreparedModel;
  try {
    prepared = prepareModel(model);
  } catch (e) {
    throw new ModelError(`${path}: invalid model: ${(e as Error).message}`);
  }
  return preparedClassifier(prepared);
}

const round = (x: number, d: number): number => {
  const f = 10 ** d;
  const v = Math.round(x * f) / f;
  return Object.is(v, -0) ? 0 : v;
};

/**
 * Serialise a model with fixed key order (weights and idf are already base64 Float32), validate it
 * with the same schema used on load, and write it atomically. Returns the bytes written.
 */
export function writeModel(path: string, m: ModelFile): number {
  const ordered: ModelFile = {
    format: m.format,
    version: m.version,
    classes: m.classes,
    hashing: m.hashing,
    metadata: m.metadata,
    temperature: round(m.temperature, 6),
    groupWeights: m.groupWeights,
    ...(m.stems ? { stems: m.stems } : {}),
    ...(m.stage2 ? { stage2: m.stage2 } : {}),
    bias: m.bias.map((x) => round(x, 5)),
    terms: m.terms,
    idf: m.idf,
    weightScales: m.weightScales,
    weights: m.weights,
  };
  // Non-ASCII (the stems of Spanish, German and Russian words) as \uXXXX escapes: an ASCII file is
  // read into a one-byte string, which JSON.parse scans faster at every start.
  const json = JSON.stringify(ModelFileSchema().parse(ordered)).replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
  const text = `${json}\n`;
  writeFileAtomic(path, text);
  return Buffer.byteLength(text);
}

/**
 * Load the classifier for `--model PATH`: "/dev/null" (NUL on Windows) selects the regex tier, by
 * name; no path selects the bundled model/model.json. Throws ModelError for a missing, empty,
 * corrupt or mismatched model file, a file that is not regular (/dev/zero) or one over MODEL_MAX_BYTES.
 */
export function loadClassifier(modelPath?: string): Classifier {
  if (modelPath === "/dev/null" || modelPath === "NUL") return regexClassifier;
  return loadModelClassifier(modelPath ?? defaultModelPath());
}

const utteranceScorers = new Map<string, UtteranceScorer>();

/**
 * The sentence-level durability model (model/utterance.json by default, or `path`) as a scorer, read and
 * zod-validated once per path and process. Throws ModelError if the file is missing, unreadable, not JSON,
 * over MODEL_MAX_BYTES or not an utterance model.
 */
export function loadUtteranceScorer(path: string = defaultUtterancePath()): UtteranceScorer {
  const known = utteranceScorers.get(path);
  if (known) return known;
  let raw: unknown;
  try {
    raw = JSON.parse(readFileCapped(path, { maxBytes: MODEL_MAX_BYTES }).toString("utf8"));
  } catch (e) {
    if (e instanceof ReadError) throw new ModelError(`cannot read sentence model ${path}: ${plainReason(e.reason)}`);
    throw new ModelError(`${path}: not a valid sentence model (not JSON)`);
  }
  const r = UtteranceModelSchema.safeParse(raw);
  if (!r.success) {
    const issue = r.error.issues[0];
    throw new ModelError(`${path}: invalid sentence model: ${issue?.path.join(".") || "file"}: ${issue?.message}`);
  }
  const scorer = utteranceScorer(r.data);
  utteranceScorers.set(path, scorer);
  return scorer;
}
