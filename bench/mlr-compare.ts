/**
 * Measures the ml-logistic-regression package (the design's named trainer) against our own sparse
 * trainer on the same features: one fit on data/train, evaluated on data/test. Prints wall time and
 * test macro-F1. ml-logistic-regression needs a dense matrix, so features are cut to the D most
 * frequent (D = 1000, 3000). Usage: npx tsx bench/mlr-compare.ts [steps]
 */
import LogisticRegression from "ml-logistic-regression";
import { Matrix } from "ml-matrix";
import { loadLabelledData } from "../scripts/io/labelled-data.js";
import { computeMetrics } from "../scripts/engine/metrics.js";
import { buildExamples, DEFAULT_TRAIN_OPTIONS, fitModel, fitVocabulary, logits, argmax, vectorize } from "../scripts/engine/train.js";
import { TYPES, type KnowledgeType } from "../scripts/engine/types.js";

const steps = Number(process.argv[2] ?? 300);
const train = buildExamples(loadLabelledData("data/train").docs, false);
const test = buildExamples(loadLabelledData("data/test").docs, false).filter((e) => e.scored);
const gold = test.map((e) => TYPES[e.y] as KnowledgeType);

{
  const t0 = performance.now();
  const m = fitModel(train, DEFAULT_TRAIN_OPTIONS);
  const secs = (performance.now() - t0) / 1000;
  const X = vectorize(test, m.terms, m.idf, DEFAULT_TRAIN_OPTIONS.groupWeights);
  const pred = X.map((x) => TYPES[argmax(logits(x, m.w, m.b))] as KnowledgeType);
  console.log(`ours (sparse, ${m.terms.length} features, ${DEFAULT_TRAIN_OPTIONS.epochs} epochs): fit ${secs.toFixed(1)} s, test macro-F1 ${computeMetrics(gold, pred).macroF1.toFixed(3)} (argmax, no offsets)`);
}
for (const D of [1000, 3000]) {
  const { terms: vocabulary, idf } = fitVocabulary(train, 2, D);
  const dense = (ex: typeof train): Matrix => {
    const X = vectorize(ex, vocabulary, idf, DEFAULT_TRAIN_OPTIONS.groupWeights);
    const M = Matrix.zeros(ex.length, D + 1);
    X.forEach((x, i) => {
      x.idx.forEach((j, t) => {
        M.set(i, j, x.val[t] as number);
      });
      M.set(i, D, 1); // bias column
    });
    return M;
  };
  const Xtr = dense(train);
  const t0 = performance.now();
  const lr = new LogisticRegression({ numSteps: steps, learningRate: 5e-3 });
  lr.train(Xtr, Matrix.columnVector(train.map((e) => e.y)));
  const secs = (performance.now() - t0) / 1000;
  const pred = lr.predict(dense(test)).map((c) => TYPES[c] as KnowledgeType);
  console.log(`ml-logistic-regression (dense, ${D} features, ${steps} steps): fit ${secs.toFixed(1)} s, test macro-F1 ${computeMetrics(gold, pred).macroF1.toFixed(3)}; 5-fold CV + final fit would take ~${(secs * 6).toFixed(0)} s`);
}
