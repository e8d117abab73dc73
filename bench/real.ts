/**
 * Real dev-set benchmark (`npm run bench:real`): the bundled model (or --model FILE) on the real public
 * memory files rebuilt into .cache/real by `npx tsx bench/real/rebuild.ts`. Prints macro-F1, per-class
 * precision/recall/F1, the confusion matrix, macro-F1 per language and per file kind, rule-vs-not-rule
 * and constraint operating points, and the authored test split, each beside issue 12's floor. Then
 * compaction on the same files (bench/real-compact.ts measureRealCompaction, at the default keep threshold).
 * Options: --model FILE, --cache DIR (default .cache/real), --errors N (list N misclassified lines).
 * Without the cache it says how to build it and exits 0 (CI has no snapshots).
 */
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { evaluateDocs } from "../scripts/engine/evaluate.js";
import { modelClassifier } from "../scripts/engine/inference.js";
import { formatMetrics } from "../scripts/engine/metrics.js";
import { type KnowledgeType, TYPES } from "../scripts/engine/types.js";
import { loadLabelledData } from "../scripts/io/labelled-data.js";
import { readModel } from "../scripts/io/model-file.js";
import { defaultModelPath } from "../scripts/paths.js";
import { fitDecisionOffsets } from "../scripts/engine/train.js";
import { formatRealCompaction, measureRealCompaction } from "./real-compact.js";
import { benchArg, FLOORS, groupedDevOffsets, heldOutClassifiers, presentMacroF1, loadRealSet, realReport, scoreDocs, REAL_CACHE_DIR } from "./real-lib.js";

const root = resolve(import.meta.dirname, "..");
const cacheDir = resolve(benchArg("--cache") ?? REAL_CACHE_DIR);
const modelPath = benchArg("--model") ?? defaultModelPath();

const set = loadRealSet(cacheDir);
if (!set) {
  console.log(`bench:real: no dev set at ${cacheDir}.`);
  console.log("Build it from the fetched repository snapshots with:  npx tsx bench/real/rebuild.ts");
  console.log("(third-party text is written only to the git-ignored .cache/real/; nothing measured)");
  process.exit(0);
}

const model = readModel(modelPath);
const clf = modelClassifier(model);
const heldOut = heldOutClassifiers(model);
const units = scoreDocs(set, heldOut.classifierFor);
const r = realReport(units);
const f3 = (x: number): string => x.toFixed(3);
const mark = (ok: boolean): string => (ok ? "ok  " : "MISS");

console.log(`Real dev set: ${set.docs.length} files, ${units.length} scored lines (${cacheDir}); model ${modelPath}; ${heldOut.note}\n`);
// The commands (classify, compact, decompose, retrieve) decide each unit alone (operators/policy.ts decideUnits:
// no neighbours or section mates, so a kept unit keeps its type across compaction rounds); the numbers below score
// units in their file's context, as training does. Both are printed so the product's own number is never hidden.
const alone = realReport(scoreDocs(set, (g) => {
  const c = heldOut.classifierFor(g);
  return { name: c.name, scores: (us) => us.map((u) => c.scores([u])[0] as Record<KnowledgeType, number>) };
}));
console.log(
  `as the commands decide (each unit alone): macro-F1 ${alone.overall.macroF1.toFixed(3)}, rule P/R ${alone.rule.precision.toFixed(3)}/${alone.rule.recall.toFixed(3)}, ` +
    `constraint P/R ${alone.constraint.precision.toFixed(3)}/${alone.constraint.recall.toFixed(3)}; below: units in file context\n`,
);
console.log(formatMetrics("dev set", r.overall));
console.log("");
console.log("value vs issue-12 floor");
const row = (name: string, value: string, floor: string, ok: boolean): void => {
  console.log(`  ${mark(ok)} ${name.padEnd(60)} ${value.padEnd(26)} floor ${floor}`);
};
row("macro-F1", f3(r.overall.macroF1), `>= ${FLOORS.macroF1}`, r.overall.macroF1 >= FLOORS.macroF1);
row(
  "rule vs not-rule (C|P), argmax: precision / recall",
  `${f3(r.rule.precision)} / ${f3(r.rule.recall)} (F1 ${f3(r.rule.f1)})`,
  `P >= ${FLOORS.rulePrecision} at R >= ${FLOORS.ruleRecall}`,
  r.rule.precision >= FLOORS.rulePrecision && r.rule.recall >= FLOORS.ruleRecall,
);
if (r.ruleSweep) {
  row(
    `  best rule precision at recall >= ${FLOORS.ruleRecall} (P(C)+P(P) cut)`,
    `${f3(r.ruleSweep.precision)} @ R ${f3(r.ruleSweep.recall)} (cut ${r.ruleSweep.threshold.toFixed(2)})`,
    `>= ${FLOORS.rulePrecision} (info: threshold chosen on dev)`,
    r.ruleSweep.precision >= FLOORS.rulePrecision,
  );
}
row(
  "constraint, argmax: recall / precision",
  `${f3(r.constraint.recall)} / ${f3(r.constraint.precision)}`,
  `R >= ${FLOORS.constraintRecall} at P >= ${FLOORS.constraintPrecision}`,
  r.constraint.recall >= FLOORS.constraintRecall && r.constraint.precision >= FLOORS.constraintPrecision,
);
if (r.constraintSweep) {
  row(
    `  best constraint precision at recall >= ${FLOORS.constraintRecall} (P(C) cut)`,
    `${f3(r.constraintSweep.precision)} @ R ${f3(r.constraintSweep.recall)} (cut ${r.constraintSweep.threshold.toFixed(2)})`,
    `>= ${FLOORS.constraintPrecision} (info: threshold chosen on dev)`,
    r.constraintSweep.precision >= FLOORS.constraintPrecision,
  );
}
for (const t of TYPES) {
  const c = r.overall.perClass[t];
  console.log(`  info ${`${t}: precision / recall / F1`.padEnd(60)} ${f3(c.precision)} / ${f3(c.recall)} / ${f3(c.f1)}  (n ${c.support})`);
}
console.log("\nper language (macro-F1; floor applies with >= 100 scored lines)");
for (const [lang, m] of r.byLang) {
  const held = m.units >= FLOORS.languageMinLines;
  const present = presentMacroF1(m);
  row(`${lang} (${m.units} lines)`, `${f3(m.macroF1)}${Math.abs(present - m.macroF1) > 1e-9 ? ` (${f3(present)} over classes present)` : ""}`, held ? `>= ${FLOORS.languageMacroF1}` : "(too few lines)", !held || m.macroF1 >= FLOORS.languageMacroF1);
}
console.log("\nper file kind (macro-F1, accuracy)");
for (const [kind, m] of r.byKind) console.log(`  ${`${kind} (${m.units} lines)`.padEnd(30)} macro-F1 ${f3(m.macroF1)}  accuracy ${f3(m.accuracy)}`);

// What offsets fitted on real files would give, scored with grouped folds over the dev files.
{
  const g = groupedDevOffsets(units, (held, y) => fitDecisionOffsets(held, y, FLOORS.constraintRecall, FLOORS.constraintPrecision));
  const d = realReport(g.units);
  console.log(`\ndecision offsets fitted on the dev set, grouped 5-fold over files (all-file offsets ${g.all.map((o) => o.toFixed(2)).join(" ")}):`);
  console.log(
    `  info macro-F1 ${f3(d.overall.macroF1)}; rule P/R ${f3(d.rule.precision)}/${f3(d.rule.recall)}; constraint P/R ${f3(d.constraint.precision)}/${f3(d.constraint.recall)}; ` +
      d.byLang.map(([l, m]) => `${l} ${f3(m.macroF1)}`).join(", "),
  );
}

const testDir = join(root, "data", "test");
if (existsSync(testDir)) {
  const t = evaluateDocs(loadLabelledData(testDir).docs, clf).metrics;
  console.log("");
  row("authored test split (data/test) macro-F1", f3(t.macroF1), `>= ${FLOORS.authoredTest}`, t.macroF1 >= FLOORS.authoredTest);
}

const nErrors = Number(benchArg("--errors") ?? 0);
if (nErrors > 0) {
  console.log(`\nfirst ${nErrors} misclassified lines (file:line gold -> predicted)`);
  for (const u of units.filter((x) => x.gold !== x.pred).slice(0, nErrors)) {
    console.log(`  ${u.group}:${u.line} ${u.gold} -> ${u.pred} (${f3(u.scores[u.pred])}) ${u.text.split("\n")[0]?.slice(0, 100)}`);
  }
}

// Compaction on the same files (bench/real-compact.ts; the model held out per file as above).
{
  const c = measureRealCompaction(heldOut.classifierFor, cacheDir);
  if (c) console.log(`\n${formatRealCompaction(c).trimEnd()}`);
}
