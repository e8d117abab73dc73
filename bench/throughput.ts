/**
 * Throughput worker for bench/classifier.ts: classifies every unit of the labelled documents in
 * data/train and data/test (in context, as `classify` does) for `seconds` seconds and prints
 * `{"units": N, "seconds": S, "threads": T}`. With T > 1, T worker threads of this one process each
 * run the loop on their own copy of the model (Node worker_threads). With "cold-caches", every
 * memo table of the tokenizer and feature extractor is emptied before each pass, so each pass sees
 * the text as new (stems, segmented runs and heading features recomputed): a lower bound for text
 * the process has not seen, with warm code. Bundled like the CLI before running
 * (node scripts/build/build.mjs bench/throughput.ts <out.mjs> --plain).
 * Usage: node throughput.mjs <seconds> <model.json> [threads] [cold-caches]
 */
// The default import: the CLI build loads worker_threads lazily and exports only its functions by name.
import threads from "node:worker_threads";
import { loadLabelledData } from "../scripts/io/labelled-data.js";
import { clearFeatureCaches } from "../scripts/engine/features.js";
import { modelClassifier } from "../scripts/engine/inference.js";
import { readModel } from "../scripts/io/model-file.js";

interface Job {
  seconds: number;
  modelPath: string;
  coldCaches: boolean;
}

function run(job: Job): { units: number; seconds: number } {
  const clf = modelClassifier(readModel(job.modelPath));
  const docs = [...loadLabelledData("data/train").docs, ...loadLabelledData("data/test").docs].filter((d) => d.units.length > 1);
  const perPass = docs.reduce((a, d) => a + d.units.length, 0);
  for (const d of docs) clf.scores(d.units); // warm-up: JIT and caches of heading words
  let units = 0;
  const t0 = performance.now();
  while (performance.now() - t0 < job.seconds * 1000) {
    if (job.coldCaches) clearFeatureCaches();
    for (const d of docs) clf.scores(d.units);
    units += perPass;
  }
  return { units, seconds: (performance.now() - t0) / 1000 };
}

if (!threads.isMainThread) {
  threads.parentPort?.postMessage(run(threads.workerData as Job));
} else {
  const job: Job = { seconds: Number(process.argv[2] ?? 3), modelPath: process.argv[3] ?? "model/model.json", coldCaches: process.argv[5] === "cold-caches" };
  const count = Number(process.argv[4] ?? 1);
  if (count <= 1) {
    console.log(JSON.stringify({ ...run(job), threads: 1 }));
  } else {
    const results = await Promise.all(
      Array.from(
        { length: count },
        () =>
          new Promise<{ units: number; seconds: number }>((resolve, reject) => {
            const w = new threads.Worker(new URL(import.meta.url), { workerData: job });
            w.once("message", resolve);
            w.once("error", reject);
          }),
      ),
    );
    const units = results.reduce((a, r) => a + r.units, 0);
    const seconds = Math.max(...results.map((r) => r.seconds));
    console.log(JSON.stringify({ units, seconds, threads: count }));
  }
}
