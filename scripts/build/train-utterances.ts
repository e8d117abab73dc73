/**
 * `npm run train:utterances`: train the sentence-level durability model (scripts/memory/utterance-model.ts) from
 * the authored utterances in data/utterances/<lang>.tsv and write model/utterance.json. Deterministic (files
 * in name order, lines in file order). `--cv` prints leave-one-language-out accuracy instead of writing.
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseUtteranceTsv, trainUtteranceModel, utteranceScorer, type LabelledUtterance } from "../memory/utterance-model.js";

const root = resolve(import.meta.dirname, "..", "..");
const dir = join(root, "data", "utterances");
const rows: LabelledUtterance[] = [];
for (const f of readdirSync(dir).filter((x) => x.endsWith(".tsv")).sort()) rows.push(...parseUtteranceTsv(readFileSync(join(dir, f), "utf8"), f.replace(/\.tsv$/, "")));

if (process.argv.includes("--cv")) {
  for (const lang of [...new Set(rows.map((r) => r.lang))]) {
    const s = utteranceScorer(trainUtteranceModel(rows.filter((r) => r.lang !== lang)));
    const test = rows.filter((r) => r.lang === lang);
    const right = test.filter((r) => s.logit(r.text) > 0 === (r.label === "rule")).length;
    console.log(`held-out language ${lang}: ${right}/${test.length} right (${(right / test.length).toFixed(3)})`);
  }
} else {
  const m = trainUtteranceModel(rows);
  const out = join(root, "model", "utterance.json");
  writeFileSync(out, `${JSON.stringify(m)}\n`);
  console.log(`wrote ${out}: ${m.terms.length} terms from ${rows.length} utterances (${JSON.stringify(m.trainedOn)})`);
}
