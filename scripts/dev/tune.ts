/** Dev tool: grid over training options, printing CV and test macro-F1. Usage: tsx scripts/dev/tune.ts */
import { loadLabelledData } from "../io/labelled-data.js";
import { buildExamples, crossValidate, fitDecisionOffsets, DEFAULT_TRAIN_OPTIONS, fitModel, fitTemperature, type TrainOptions } from "../engine/train.js";
import { encodeFloat32, encodeInt32, quantizeInt8, type ModelFile } from "../engine/model-format.js";
import { modelClassifier } from "../engine/inference.js";
import { GROUP_WEIGHTS, GROUPS, HASH_BITS } from "../engine/features.js";
import { TYPES } from "../engine/types.js";
import { evaluateDocs } from "../engine/evaluate.js";

const train = loadLabelledData("data/train");
const test = loadLabelledData("data/test");
const exH = buildExamples(train.docs);
const exN = buildExamples(train.docs, false);
const grid: Partial<TrainOptions>[] = JSON.parse(process.argv[2] ?? "[{}]");
for (const g of grid) {
  const o = { ...DEFAULT_TRAIN_OPTIONS, ...g, groupWeights: { ...GROUP_WEIGHTS, ...(g.groupWeights ?? {}) } };
  const t0 = performance.now();
  const ex = (g as { noHead?: boolean }).noHead ? exN : exH;
  const cv = crossValidate(ex, o);
  const ys = cv.scored.map((i) => ex[i]!.y);
  const held = cv.scored.map((i) => cv.logits[i]!);
  const off = fitDecisionOffsets(held, ys, (g as { minC?: number }).minC ?? 0);
  const adj = held.map((z) => z.map((v, k) => v + (off[k] as number)));
  const T = fitTemperature(adj, ys);
  const fit = fitModel(ex, o);
  const model = { format: "knowledge-triage/model", version: 1, classes: [...TYPES], hashing: { function: "fnv1a32", bits: HASH_BITS, groups: GROUPS }, terms: encodeInt32(fit.terms), idf: encodeFloat32(fit.idf),
    ...(({ weights, scales }) => ({ weights, weightScales: scales }))(quantizeInt8(fit.w, TYPES.length)), bias: Array.from(fit.b).map((b, k) => b + (off[k] as number)), temperature: T,
    groupWeights: o.groupWeights } as unknown as ModelFile;
  const r = evaluateDocs(test.docs, modelClassifier(model));
  console.log(JSON.stringify(g), `cv=${cv.metrics.macroF1.toFixed(3)} test=${r.metrics.macroF1.toFixed(3)} testCrec=${r.metrics.perClass.constraint.recall.toFixed(3)} cvCrec=${cv.metrics.perClass.constraint.recall.toFixed(3)} ${((performance.now() - t0) / 1000).toFixed(1)}s off=${off.map((v) => v.toFixed(2))} testCprec=${r.metrics.perClass.constraint.precision.toFixed(3)}`);
}
