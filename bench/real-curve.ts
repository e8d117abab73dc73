/**
 * Learning curve on the real dev set (`npx tsx bench/real-curve.ts`): trains in process on 25%, 50%
 * and 100% of the authored training documents (whole documents, a seeded shuffle; the same subsets
 * at every run) and scores each model on .cache/real, argmax and with the shipped model's decision
 * offsets. The dev set is only measured, never trained on.
 * Options: --data DIR (repeatable; default data/train), --fractions 0.25,0.5,1, --cache DIR.
 * Without the cache it says how to build it and exits 0.
 */
import { join, resolve } from "node:path";
import type { Classifier } from "../scripts/engine/classify.js";
import { evaluateDocs } from "../scripts/engine/evaluate.js";
import { buildTermIndex, sequenceFeatures, softmax, tfidfVector } from "../scripts/engine/inference.js";
import { buildExamples, DEFAULT_TRAIN_OPTIONS, fitModel, logits, mulberry32, type LabelledDoc } from "../scripts/engine/train.js";
import { type KnowledgeType, TYPES } from "../scripts/engine/types.js";
import { loadLabelledData } from "../scripts/io/labelled-data.js";
import { readFileSync } from "node:fs";
import { defaultModelPath } from "../scripts/paths.js";
import { loadRealSet, realReport, scoreDocs } from "./real-lib.js";

/** A Classifier over in-memory float weights (no quantisation), with logit offsets added. */
export function fitClassifier(fit: ReturnType<typeof fitModel>, offsets: readonly number[], temperature = 1, groupWeights = DEFAULT_TRAIN_OPTIONS.groupWeights): Classifier {
  const index = buildTermIndex(fit.terms, fit.idf, groupWeights);
  return {
    name: "model",
    scores(units) {
      return sequenceFeatures(units).map((f) => {
        const z = logits(tfidfVector(f, index), fit.w, fit.b).map((v, k) => v + (offsets[k] ?? 0));
        const p = softmax(z, temperature);
        return Object.fromEntries(TYPES.map((t, k) => [t, p[k] as number])) as Record<KnowledgeType, number>;
      });
    },
  };
}

/** The first `fraction` of the documents after a seeded shuffle (documents sorted by group first). */
export function docSubset(docs: readonly LabelledDoc[], fraction: number, seed: number): LabelledDoc[] {
  const sorted = [...docs].sort((a, b) => (a.group < b.group ? -1 : a.group > b.group ? 1 : 0));
  const rnd = mulberry32(seed);
  for (let i = sorted.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [sorted[i], sorted[j]] = [sorted[j] as LabelledDoc, sorted[i] as LabelledDoc];
  }
  return sorted.slice(0, Math.max(1, Math.round(sorted.length * fraction)));
}

const isMain = import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith("real-curve.ts");
if (isMain) {
  const root = resolve(import.meta.dirname, "..");
  const argv = process.argv.slice(2);
  const all = (name: string): string[] => argv.flatMap((a, i) => (a === name && argv[i + 1] ? [argv[i + 1] as string] : []));
  const cache = resolve(all("--cache")[0] ?? join(root, ".cache", "real"));
  const set = loadRealSet(cache);
  if (!set) {
    console.log(`real-curve: no dev set at ${cache}; build it with: npx tsx bench/real/rebuild.ts`);
    process.exit(0);
  }
  const dataDirs = all("--data");
  const docs = (dataDirs.length ? dataDirs : [join(root, "data", "train")]).flatMap((d) => loadLabelledData(d).docs);
  const fractions = (all("--fractions")[0] ?? "0.25,0.5,1").split(",").map(Number);
  // Offsets read from the raw JSON, so a model of an older format version still lends its offsets.
  const shipped = (JSON.parse(readFileSync(defaultModelPath(), "utf8")) as { metadata: { decisionOffsets: number[] } }).metadata.decisionOffsets;
  const test = loadLabelledData(join(root, "data", "test")).docs;
  console.log(`learning curve: ${docs.length} training documents; dev ${set.docs.length} files; offsets of the shipped model ${shipped.map((o) => o.toFixed(2)).join(" ")}`);
  console.log("fraction  docs  units   dev macro-F1 (argmax / offsets)  rule P/R (offsets)   constraint P/R (offsets)  en/zh/ja/de/ru/es/ko (offsets)  test");
  // --weights g=v,g=v overrides feature-group weights (for experiments).
  const weights = { ...DEFAULT_TRAIN_OPTIONS.groupWeights };
  for (const kv of (all("--weights")[0] ?? "").split(",").filter(Boolean)) {
    const [g, v] = kv.split("=");
    weights[g as string] = Number(v);
  }
  const opts = { ...DEFAULT_TRAIN_OPTIONS, groupWeights: weights };
  for (const f of fractions) {
    const sub = docSubset(docs, f, DEFAULT_TRAIN_OPTIONS.seed);
    const ex = buildExamples(sub, false);
    const fit = fitModel(ex, opts);
    const plain = realReport(scoreDocs(set, () => fitClassifier(fit, [0, 0, 0, 0, 0], 1, weights)));
    const clf = fitClassifier(fit, shipped, 1, weights);
    const r = realReport(scoreDocs(set, () => clf));
    const langs = ["en", "zh", "ja", "de", "ru", "es", "ko"].map((l) => r.byLang.find(([k]) => k === l)?.[1].macroF1.toFixed(2) ?? "-").join("/");
    const t = evaluateDocs(test, clf).metrics.macroF1;
    console.log(
      `${f.toFixed(2).padStart(8)}  ${String(sub.length).padStart(4)}  ${String(ex.length).padStart(5)}   ${plain.overall.macroF1.toFixed(3)} / ${r.overall.macroF1.toFixed(3)}                 ${r.rule.precision.toFixed(2)}/${r.rule.recall.toFixed(2)}            ${r.constraint.precision.toFixed(2)}/${r.constraint.recall.toFixed(2)}                 ${langs}   ${t.toFixed(3)}`,
    );
  }
}
