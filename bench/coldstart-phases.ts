/**
 * Cold-start phase timer (dev aid for bench/classifier.ts): bundled like the CLI (node
 * scripts/build.mjs bench/coldstart-phases.ts /tmp/phases.mjs) and run in a fresh process, it
 * prints ms since process start for each phase of `classify examples/CLAUDE.md`: program ready,
 * imports, model loaded, classified (segmenter start-up counted separately), rendered.
 */
async function main(): Promise<void> {
  const ready = performance.now();
  const { readFileSync } = await import("node:fs");
  const { loadModelClassifier } = await import("../scripts/model-file.js");
  const { classifyMarkdown } = await import("../scripts/engine/classify.js");
  const { renderTable, toRows } = await import("../scripts/commands/classify.js");
  const t0 = performance.now();
  const clf = loadModelClassifier(process.argv[2] ?? "model/model.json");
  const t1 = performance.now();
  new Intl.Segmenter("ja", { granularity: "word" }).segment("a");
  const t2 = performance.now();
  const units = classifyMarkdown(readFileSync(process.argv[3] ?? "examples/CLAUDE.md", "utf8"), clf);
  const t3 = performance.now();
  const table = renderTable(toRows("examples/CLAUDE.md", units));
  const t4 = performance.now();
  const ms = (x: number): number => Math.round(x * 10) / 10;
  console.log(
    JSON.stringify({ ready: ms(ready), imports: ms(t0 - ready), model: ms(t1 - t0), segmenter: ms(t2 - t1), classify: ms(t3 - t2), render: ms(t4 - t3), units: units.length, chars: table.length }),
  );
}
void main();
