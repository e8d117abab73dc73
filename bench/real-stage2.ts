/**
 * Fit and measure the second linear stage (scripts/engine/stage2.ts), `npm run train:stage2`.
 *
 * Stage 2 is fitted on two sources of first-stage scores that were never in-sample:
 *  - the authored training documents (data/train) scored out-of-fold: 5 grouped folds over documents,
 *    each scored by a first stage trained on the other folds (the same fold assignment as `train`'s
 *    cross-validation); cached in .cache/stage2-authored-oof.json, keyed by the data and the model;
 *  - the real dev files (.cache/real) scored by the shipped first stage (trained on authored data only).
 * Measured on grouped folds over the dev FILES: each dev file is re-scored by a stage 2 fitted on the
 * authored scores plus the OTHER folds' dev files, so no file is scored by a stage fitted on it. Prints
 * bench:real's headline numbers for the first stage alone, stage 2 fitted on authored scores only, and
 * stage 2 with dev files (what ships). With --write, fits on the authored scores plus all dev files and
 * stores the stage in the model file (after `npm run train`, which writes a model without one).
 * Options: --model FILE, --cache DIR, --folds N (5), --l2 X (0.01), --dev-weight W (3), --write.
 * Without the dev cache it says how to build it and exits 0.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { modelClassifier } from "../scripts/engine/inference.js";
import type { ModelFile } from "../scripts/engine/model-format.js";
import { fitStage2, STAGE2_LAYOUT, type Stage2Params, stage2Features, stage2Probs } from "../scripts/engine/stage2.js";
import { buildExamples, DEFAULT_TRAIN_OPTIONS, fitModel, groupFolds, isScored, type LabelledDoc } from "../scripts/engine/train.js";
import { type KnowledgeType, TYPES } from "../scripts/engine/types.js";
import { loadLabelledData } from "../scripts/io/labelled-data.js";
import { readModel, writeModel } from "../scripts/io/model-file.js";
import { defaultModelPath } from "../scripts/paths.js";
import { fitClassifier } from "./real-curve.js";
import { benchArg, FLOORS, loadRealSet, realReport, STAGE2_FOLDS_PATH, type ScoredUnit, type Stage2Folds, stage2Sha256, REAL_CACHE_DIR } from "./real-lib.js";

const root = resolve(import.meta.dirname, "..");
const cacheDir = resolve(benchArg("--cache") ?? REAL_CACHE_DIR);
const modelPath = benchArg("--model") ?? defaultModelPath();
const folds = Number(benchArg("--folds") ?? 5);
const l2 = Number(benchArg("--l2") ?? 0.01);
const devWeight = Number(benchArg("--dev-weight") ?? 3);
const ITERS = 400;

const set = loadRealSet(cacheDir);
if (!set) {
  console.log(`real-stage2: no dev set at ${cacheDir}; build it with:  npx tsx bench/real/rebuild.ts`);
  process.exit(0);
}
const model = readModel(modelPath);
const firstStage = modelClassifier({ ...model, stage2: undefined });

/** A document with its first-stage rows and stage-2 features, gold labels and languages. */
interface Scored {
  group: string;
  kind: string;
  doc: LabelledDoc;
  rows: Record<KnowledgeType, number>[];
  xs: Float64Array[];
}
const withFeatures = (doc: LabelledDoc, rows: Record<KnowledgeType, number>[], kind: string): Scored => ({ group: doc.group, kind, doc, rows, xs: stage2Features(doc.units, rows) });

/** Authored documents scored out-of-fold by first stages trained without them (cached: 5 fits take minutes). */
function authoredOutOfFold(): Scored[] {
  const docs = loadLabelledData(join(root, "data", "train")).docs;
  const key = createHash("sha256")
    .update(model.metadata.dataSha256)
    .update(JSON.stringify(docs.map((d) => [d.group, d.units.length])))
    .digest("hex");
  const cachePath = join(root, ".cache", "stage2-authored-oof.json");
  type Cached = { key: string; rows: Record<string, Record<KnowledgeType, number>[]> };
  let cached: Cached | null = existsSync(cachePath) ? (JSON.parse(readFileSync(cachePath, "utf8")) as Cached) : null;
  if (cached?.key !== key) {
    const examples = buildExamples(docs, false);
    const fold = groupFolds(examples, DEFAULT_TRAIN_OPTIONS.folds, DEFAULT_TRAIN_OPTIONS.seed);
    const foldOfGroup = new Map(examples.map((e, i) => [e.group, fold[i] as number]));
    const rows: Cached["rows"] = {};
    for (let f = 0; f < DEFAULT_TRAIN_OPTIONS.folds; f++) {
      console.error(`real-stage2: scoring authored fold ${f + 1}/${DEFAULT_TRAIN_OPTIONS.folds} out of fold`);
      const fit = fitModel(
        examples.filter((_, i) => fold[i] !== f),
        DEFAULT_TRAIN_OPTIONS,
      );
      const clf = fitClassifier(fit, model.metadata.decisionOffsets, model.temperature, model.groupWeights);
      for (const d of docs) if (foldOfGroup.get(d.group) === f) rows[d.group] = clf.scores(d.units);
    }
    cached = { key, rows };
    mkdirSync(dirname(cachePath), { recursive: true });
    writeFileSync(cachePath, JSON.stringify(cached));
  }
  const rows = cached.rows;
  return docs.flatMap((d) => (rows[d.group] ? [withFeatures(d, rows[d.group] as Record<KnowledgeType, number>[], "authored")] : []));
}

/** Training pairs (features, class, weight) of the scored, labelled units of some documents. */
function pairs(docs: readonly Scored[], weight: number): { xs: Float64Array[]; y: number[]; w: number[] } {
  const out = { xs: [] as Float64Array[], y: [] as number[], w: [] as number[] };
  for (const d of docs) {
    d.doc.units.forEach((u, i) => {
      const g = d.doc.gold[i];
      if (!g || !isScored(u)) return;
      out.xs.push(d.xs[i] as Float64Array);
      out.y.push(TYPES.indexOf(g));
      out.w.push(weight);
    });
  }
  return out;
}
function fitOn(parts: { xs: Float64Array[]; y: number[]; w: number[] }[]): Stage2Params {
  return fitStage2(
    parts.flatMap((p) => p.xs),
    parts.flatMap((p) => p.y),
    l2,
    ITERS,
    parts.flatMap((p) => p.w),
  );
}

/** Scored units of one dev document under the given rows (argmax). */
function scoredUnits(d: Scored, rows: readonly Record<KnowledgeType, number>[]): ScoredUnit[] {
  const out: ScoredUnit[] = [];
  d.doc.units.forEach((u, i) => {
    const gold = d.doc.gold[i];
    if (!gold || !isScored(u)) return;
    const s = rows[i] as Record<KnowledgeType, number>;
    let best: KnowledgeType = TYPES[0];
    for (const t of TYPES) if (s[t] > s[best]) best = t;
    out.push({ group: d.group, line: u.line, text: u.text, lang: d.doc.lang[i] ?? "en", kind: d.kind, gold, pred: best, scores: s });
  });
  return out;
}
const rescored = (d: Scored, s: Stage2Params): Record<KnowledgeType, number>[] =>
  d.xs.map((x) => {
    const q = stage2Probs(x, s);
    return Object.fromEntries(TYPES.map((t, k) => [t, q[k] as number])) as Record<KnowledgeType, number>;
  });

const dev = set.docs.map((d) => withFeatures(d, firstStage.scores(d.units), set.files.get(d.group)?.kind ?? "?"));
const authored = pairs(authoredOutOfFold(), 1);

const groups = dev.map((d) => d.group).sort();
const foldOf = new Map(groups.map((g, i) => [g, i % folds]));
const before = dev.flatMap((d) => scoredUnits(d, d.rows));
const authoredOnly = fitOn([authored]);
const afterAuthored = dev.flatMap((d) => scoredUnits(d, rescored(d, authoredOnly)));
const after: ScoredUnit[] = [];
const foldStages: Stage2Params[] = [];
for (let f = 0; f < folds; f++) {
  const s = fitOn([authored, pairs(dev.filter((d) => foldOf.get(d.group) !== f), devWeight)]);
  foldStages.push(s);
  for (const d of dev) if (foldOf.get(d.group) === f) after.push(...scoredUnits(d, rescored(d, s)));
}

const f3 = (x: number): string => x.toFixed(3);
function report(name: string, units: ScoredUnit[]): void {
  const r = realReport(units);
  console.log(`${name}`);
  console.log(
    `  macro-F1 ${f3(r.overall.macroF1)} (floor ${FLOORS.macroF1}); rule P/R ${f3(r.rule.precision)}/${f3(r.rule.recall)} (floor P ${FLOORS.rulePrecision} at R ${FLOORS.ruleRecall}); ` +
      `constraint P/R ${f3(r.constraint.precision)}/${f3(r.constraint.recall)} (floor R ${FLOORS.constraintRecall} at P ${FLOORS.constraintPrecision})`,
  );
  console.log(`  per language: ${r.byLang.map(([l, m]) => `${l} ${f3(m.macroF1)}`).join("  ")}`);
  console.log(`  per class P/R: ${TYPES.map((t) => `${t} ${f3(r.overall.perClass[t].precision)}/${f3(r.overall.perClass[t].recall)}`).join("  ")}`);
}
console.log(`Real dev set: ${dev.length} files, ${before.length} scored lines; ${authored.y.length} authored units scored out of fold; l2 ${l2}, dev weight ${devWeight}\n`);
report("first stage only (the model without stage 2)", before);
report("stage 2 fitted on authored out-of-fold scores only", afterAuthored);
report(`stage 2 fitted on authored scores + dev files, grouped ${folds}-fold over dev files`, after);

if (process.argv.includes("--write")) {
  const s = fitOn([authored, pairs(dev, devWeight)]);
  const r4 = (v: number): number => Math.round(v * 1e4) / 1e4;
  const stage2 = {
    layout: STAGE2_LAYOUT as typeof STAGE2_LAYOUT,
    weights: s.weights.map(r4),
    bias: s.bias.map(r4),
    fittedOn: `${authored.y.length} authored units (out-of-fold scores) + ${before.length} units of ${dev.length} real dev files (weight ${devWeight}); l2 ${l2}; bench/real-stage2.ts`,
  };
  writeModel(modelPath, { ...model, stage2 });
  const written = readModel(modelPath).stage2 as NonNullable<ModelFile["stage2"]>;
  const foldFile: Stage2Folds = {
    stage2Sha256: stage2Sha256(written),
    foldOf: Object.fromEntries(foldOf),
    stages: foldStages.map((st) => ({ weights: st.weights.map(r4), bias: st.bias.map(r4) })),
  };
  writeFileSync(STAGE2_FOLDS_PATH, JSON.stringify(foldFile));
  console.log(`\nwrote stage 2 into ${modelPath}, and its ${folds} grouped-fold stages into ${STAGE2_FOLDS_PATH} (bench:real scores each dev file with the stage fitted without it)`);
}
