import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { classifySentence } from "../../scripts/engine/classify.js";
import { featureId, GROUPS, HASH_BITS } from "../../scripts/engine/features.js";
import { decodeFloat32, decodeInt32, dequantizeInt8, encodeFloat32, encodeInt32, MODEL_FORMAT, quantizeInt8, MODEL_VERSION, type ModelFile } from "../../scripts/engine/model-format.js";
import { modelClassifier } from "../../scripts/engine/inference.js";
import { STAGE2_DIM, STAGE2_LAYOUT } from "../../scripts/engine/stage2.js";
import { TYPES } from "../../scripts/engine/types.js";
import { ModelError } from "../../scripts/errors.js";
import { loadClassifier } from "../../scripts/io/model-file.js";
import { parseModel, readModel, writeModel } from "../../scripts/io/model-file.js";

const repo = resolve(import.meta.dirname, "..", "..");

/** A tiny valid model: "w:never" pushes towards constraint, "s:code" towards procedural. */
const TERMS = [featureId("s:code"), featureId("w:never")].sort((a, b) => a - b);
/** Term-major weights (term j, class k at j * 5 + k). */
const WEIGHTS = TERMS.flatMap((t) => TYPES.map((k) => ((k === "constraint" && t === featureId("w:never")) || (k === "procedural" && t === featureId("s:code")) ? 8 : 0)));
function tinyModel(): ModelFile {
  return {
    format: MODEL_FORMAT,
    version: MODEL_VERSION,
    classes: [...TYPES],
    hashing: { function: "fnv1a32", bits: HASH_BITS, groups: GROUPS },
    terms: encodeInt32(TERMS),
    idf: encodeFloat32([1, 1]),
    ...(({ weights, scales }) => ({ weights, weightScales: scales }))(quantizeInt8(WEIGHTS, TYPES.length)),
    bias: [0, 0, 0, 0, 0],
    temperature: 1,
    groupWeights: { w: 1, s: 1 },
    metadata: {
      createdAt: "2025-01-01",
      trainer: "hand-made test model",
      seed: 1,
      dataSha256: "0".repeat(64),
      trainingUnits: 0,
      minDf: 1,
      l2: 0,
      epochs: 0,
      decisionOffsets: [0, 0, 0, 0, 0],
      minConstraintRecall: 0,
      minConstraintPrecision: 0,
      cv: null,
      test: null,
    },
  };
}

/** parseModel on a mutated copy; returns the thrown ModelError. */
function errorFor(mutate: (m: Record<string, unknown>) => void): ModelError {
  const m = JSON.parse(JSON.stringify(tinyModel())) as Record<string, unknown>;
  mutate(m);
  try {
    parseModel(JSON.stringify(m), "m.json");
  } catch (e) {
    expect(e).toBeInstanceOf(ModelError);
    return e as ModelError;
  }
  throw new Error("parseModel accepted an invalid model");
}

const oneLine = (e: Error): string => {
  expect(e.message).not.toContain("\n");
  expect(e.message.length).toBeLessThan(300);
  return e.message;
};

describe("parseModel: validation errors are one-line ModelErrors", () => {
  it("accepts the tiny valid model", () => {
    const m = parseModel(JSON.stringify(tinyModel()), "m.json");
    expect(Array.from(decodeInt32(m.terms))).toEqual(TERMS);
  });

  it("not JSON", () => {
    for (const text of ["{", "model", "{\"format\": }"]) {
      let err: unknown;
      try {
        parseModel(text, "bad.json");
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(ModelError);
      expect((err as ModelError).code).toBe("MODEL_INVALID");
      expect(oneLine(err as Error)).toMatch(/^bad\.json: .*not JSON/);
    }
  });

  it("JSON that is not an object (null, array, number)", () => {
    for (const text of ["null", "[]", "42", "\"x\""]) {
      expect(() => parseModel(text, "x.json")).toThrow(ModelError);
      expect(() => parseModel(text, "x.json")).toThrow(/not a Knowledge Triage model/);
    }
  });

  it("wrong format id", () => {
    expect(oneLine(errorFor((m) => (m.format = "sklearn/pickle")))).toMatch(/not a Knowledge Triage model \(format "sklearn\/pickle"\)/);
  });

  it("wrong version names both versions and says to retrain", () => {
    const msg = oneLine(errorFor((m) => (m.version = 1)));
    expect(msg).toContain("version 1");
    expect(msg).toContain(`expected ${MODEL_VERSION}`);
    expect(msg).toMatch(/retrain/);
  });

  it("wrong number of classes, or classes in the wrong order", () => {
    expect(oneLine(errorFor((m) => (m.classes = TYPES.slice(0, 4))))).toMatch(/invalid model: classes/);
    expect(oneLine(errorFor((m) => (m.classes = [...TYPES].reverse())))).toMatch(/classes: must be constraint,procedural,belief,preference,episodic/);
  });

  it("idf or weight row length does not match the vocabulary", () => {
    expect(oneLine(errorFor((m) => (m.idf = encodeFloat32([1]))))).toMatch(/idf: has 1 entries for 2 terms/);
    expect(oneLine(errorFor((m) => (m.weights = Buffer.from([1, 2, 3]).toString("base64"))))).toMatch(/weights: has 3 entries for 2 terms/);
    expect(oneLine(errorFor((m) => (m.terms = encodeInt32([1, 2, 3]))))).toMatch(/has 2 entries for 3 terms/);
    expect(oneLine(errorFor((m) => (m.terms = Buffer.from([1, 2, 3, 4, 5]).toString("base64"))))).toMatch(/terms: length is not a multiple of 4 bytes/);
  });

  it("hashing parameters that differ from this build's feature hashing", () => {
    expect(oneLine(errorFor((m) => ((m.hashing as { bits: number }).bits = HASH_BITS - 2)))).toMatch(/invalid model: hashing\.bits/);
    expect(oneLine(errorFor((m) => ((m.hashing as { function: string }).function = "murmur3")))).toMatch(/invalid model: hashing\.function/);
    expect(oneLine(errorFor((m) => delete m.hashing))).toMatch(/invalid model: hashing/);
  });

  it("bad base64", () => {
    expect(oneLine(errorFor((m) => (m.idf = "@@not base64@@")))).toMatch(/idf: must be base64/);
    // Right length, wrong characters: Buffer.from(..., "base64") silently skips them, so the decoded
    // array would be shorter than the schema's length check believes.
    expect(oneLine(errorFor((m) => (m.weights = `%%%%%%%%${(m.weights as string).slice(8)}`)))).toMatch(/weights: .*base64/);
  });

  it("loading a right-length but corrupt weight block fails loudly instead of classifying with shifted weights", () => {
    const m = tinyModel();
    const corrupt = { ...m, weights: `%%%%${m.weights.slice(4)}` };
    expect(() => modelClassifier(parseModel(JSON.stringify(corrupt), "c.json"))).toThrow(ModelError);
  });

  it("missing or ill-typed metadata and bias", () => {
    expect(oneLine(errorFor((m) => delete m.metadata))).toMatch(/invalid model: metadata/);
    expect(oneLine(errorFor((m) => (m.bias = [0, 0])))).toMatch(/invalid model: bias/);
    expect(oneLine(errorFor((m) => (m.temperature = 0)))).toMatch(/invalid model: temperature/);
  });
});

describe("readModel: files", () => {
  const dir = mkdtempSync(join(tmpdir(), "kt-model-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const readErr = (path: string): string => {
    try {
      readModel(path);
    } catch (e) {
      expect(e).toBeInstanceOf(ModelError);
      return oneLine(e as Error);
    }
    throw new Error(`readModel(${path}) did not throw`);
  };

  it("a directory", () => {
    expect(readErr(dir)).toMatch(/is a directory/);
  });

  it("an empty (or whitespace-only) file points at /dev/null for the regex tier", () => {
    const p = join(dir, "empty.json");
    writeFileSync(p, "");
    expect(readErr(p)).toMatch(/empty model file.*\/dev\/null/);
    writeFileSync(p, "  \n");
    expect(readErr(p)).toMatch(/empty model file/);
  });

  it("a missing file", () => {
    expect(readErr(join(dir, "nope.json"))).toMatch(/cannot read model .*nope\.json: no such file$/);
  });

  it("writeModel + readModel round-trip; the classifier uses the weights", () => {
    const p = join(dir, "tiny.json");
    const bytes = writeModel(p, tinyModel());
    expect(statSync(p).size).toBe(bytes);
    const m = readModel(p);
    // Int8 quantisation with one scale per class: exact for this model (weights 0 and 8 only).
    expect(Array.from(dequantizeInt8(m.weights, m.weightScales))).toEqual(WEIGHTS);
    const c = modelClassifier(m);
    const rule = classifySentence("never", c);
    expect(rule.type).toBe("constraint");
    expect(rule.scores.constraint).toBeGreaterThan(0.99);
    // No known feature: every logit is the bias (0), so the five probabilities are equal.
    const none = classifySentence("plain words", c);
    for (const t of TYPES) expect(none.scores[t]).toBeCloseTo(0.2, 10);
  });

  it("a second stage survives writeModel + readModel and decides the type", () => {
    const p = join(dir, "stage2.json");
    // Stage 2 whose only weight is a large bias towards preference: every unit becomes a preference.
    const stage2 = { layout: STAGE2_LAYOUT, weights: new Array<number>(TYPES.length * STAGE2_DIM).fill(0), bias: [0, 0, 0, 9, 0], fittedOn: "test" };
    writeModel(p, { ...tinyModel(), stage2 });
    const m = readModel(p);
    expect(m.stage2?.bias).toEqual([0, 0, 0, 9, 0]);
    expect(classifySentence("never", modelClassifier(m)).type).toBe("preference");
    expect(classifySentence("never", modelClassifier(tinyModel())).type).toBe("constraint");
    expect(errorFor((x) => (x.stage2 = { ...stage2, weights: [1] })).message).toMatch(/stage2/);
  });

  it("decodeFloat32 rejects byte lengths that are not a multiple of 4", () => {
    expect(() => decodeFloat32(Buffer.from([1, 2, 3]).toString("base64"))).toThrow(/multiple of 4/);
  });
});

describe("the committed model", () => {
  it("validates, is at most 2 MB, and loads as the default classifier", () => {
    const path = join(repo, "model", "model.json");
    const m = readModel(path);
    expect(statSync(path).size).toBeLessThanOrEqual(2 * 1024 * 1024);
    expect(m.classes).toEqual([...TYPES]);
    expect(decodeInt32(m.terms).length).toBeGreaterThan(100);
    expect(loadClassifier().name).toBe("model");
    expect(loadClassifier("/dev/null").name).toBe("regex");
  });
});
