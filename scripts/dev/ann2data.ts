/**
 * Authoring helper: converts an annotated memory file (`data/ann/<split>/<name>.ann`) into
 * `data/<split>/<name>.md` + `data/<split>/<name>.labels.jsonl`, and checks the labels against the
 * segmenter. Annotated format, one source line per line:
 *   %% domain=<domain> lang=<lang>      header (first line; may be repeated to switch domain/lang)
 *   <TAG>[@lang]|<source line>          TAG: C P B R E (constraint procedural belief preference episodic),
 *                                       + (same label as the previous labelled line), . (not scored)
 * Usage: tsx scripts/dev/ann2data.ts <file.ann...>   (output split = the .ann file's parent folder name)
 */
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { segment } from "../engine/units.js";
import { alignLabels, type LineLabel } from "../engine/gold.js";
import type { KnowledgeType } from "../engine/types.js";

const TAGS: Record<string, KnowledgeType> = { C: "constraint", P: "procedural", B: "belief", R: "preference", E: "episodic" };
let bad = 0;
const totals: Record<string, number> = {};
for (const file of process.argv.slice(2)) {
  const src = readFileSync(file, "utf8").replace(/\r\n/g, "\n").replace(/\n$/, "").split("\n");
  let domain = "general";
  let lang = "en";
  const out: string[] = [];
  const labels: LineLabel[] = [];
  let prev: KnowledgeType | null = null;
  for (const [idx, raw] of src.entries()) {
    if (raw.startsWith("%%")) {
      for (const m of raw.matchAll(/(\w+)=(\S+)/g)) {
        if (m[1] === "domain") domain = m[2] as string;
        if (m[1] === "lang") lang = m[2] as string;
      }
      continue;
    }
    const bar = raw.indexOf("|");
    if (bar < 0 || bar > 6) {
      console.error(`${file}:${idx + 1}: missing TAG| prefix: ${raw.slice(0, 60)}`);
      bad++;
      continue;
    }
    const [tag, l] = raw.slice(0, bar).split("@") as [string, string | undefined];
    const text = raw.slice(bar + 1);
    out.push(text);
    const n = out.length;
    if (tag === ".") continue;
    const type: KnowledgeType | null | undefined = tag === "+" ? prev : TAGS[tag.trim()];
    if (!type) {
      console.error(`${file}:${idx + 1}: unknown tag "${tag}"`);
      bad++;
      continue;
    }
    prev = type;
    labels.push({ line: n, type, domain, lang: l ?? lang });
  }
  const split = basename(dirname(file));
  const name = basename(file).replace(/\.ann$/, "");
  const dir = join("data", split);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${name}.md`), `${out.join("\n")}\n`);
  writeFileSync(join(dir, `${name}.labels.jsonl`), `${labels.map((l) => JSON.stringify(l)).join("\n")}\n`);
  const { gold, unlabelled } = alignLabels(segment(out.join("\n")), labels);
  for (const u of unlabelled) {
    if (u.kind === "heading" || u.kind === "table-header") continue;
    console.error(`${file}: unit at md line ${u.line} (${u.kind}) has no label: ${u.text.slice(0, 60)}`);
    bad++;
  }
  const counts: Record<string, number> = {};
  for (const g of gold) {
    counts[g.type] = (counts[g.type] ?? 0) + 1;
    totals[g.type] = (totals[g.type] ?? 0) + 1;
    totals[`lang:${g.lang}`] = (totals[`lang:${g.lang}`] ?? 0) + 1;
  }
  console.log(`${join(dir, name)}: ${gold.length} units ${JSON.stringify(counts)}`);
}
console.log(`TOTAL ${JSON.stringify(totals)}`);
if (bad) {
  console.error(`${bad} problem(s)`);
  process.exit(1);
}
