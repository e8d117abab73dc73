/**
 * Cold-start phase timer (dev aid for bench/classifier.ts): bundled and run in a fresh process, it
 * prints ms since process start for each phase of `classify examples/CLAUDE.md`: module ready,
 * model loaded, classified, rendered.
 */
const ready = performance.now();
const { readFileSync } = await import("node:fs");
const { loadModelClassifier } = await import("../scripts/model-file.js");
const { classifyMarkdown } = await import("../scripts/engine/classify.js");
const t0 = performance.now();
const clf = loadModelClassifier(process.argv[2] ?? "model/model.json");
const t1 = performance.now();
const units = classifyMarkdown(readFileSync(process.argv[3] ?? "examples/CLAUDE.md", "utf8"), clf);
const t2 = performance.now();
console.log(JSON.stringify({ ready: Math.round(ready), imports: Math.round(t0 - ready), model: Math.round(t1 - t0), classify: Math.round(t2 - t1), units: units.length }));
