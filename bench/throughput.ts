/**
 * Throughput worker for bench/classifier.ts: classifies every unit of the labelled documents in
 * data/train and data/test (in context, as `classify` does) for `seconds` seconds in one thread and
 * prints `{"units": N, "seconds": S}`. Bundled with esbuild before running, as the CLI is.
 */
import { loadLabelledData } from "../scripts/data.js";
import { modelClassifier } from "../scripts/engine/model.js";
import { defaultModelPath } from "../scripts/io.js";
import { readModel } from "../scripts/model-file.js";

const seconds = Number(process.argv[2] ?? 3);
const modelPath = process.argv[3] ?? defaultModelPath();
const clf = modelClassifier(readModel(modelPath));
const docs = [...loadLabelledData("data/train").docs, ...loadLabelledData("data/test").docs].filter((d) => d.units.length > 1);
const perPass = docs.reduce((a, d) => a + d.units.length, 0);
for (const d of docs) clf.scores(d.units); // warm-up: JIT and caches of heading words
let units = 0;
const t0 = performance.now();
while (performance.now() - t0 < seconds * 1000) {
  for (const d of docs) clf.scores(d.units);
  units += perPass;
}
console.log(JSON.stringify({ units, seconds: (performance.now() - t0) / 1000 }));
