/**
 * Compaction on the real dev set (issue 12, item 7 and the compaction floors). For every file of
 * .cache/real/ (built by `npx tsx bench/real/rebuild.ts`; the texts are never committed):
 * - the smallest accepted ratio: compact(..., { budget: "min" }).smallestRatio, checked by compacting
 *   at that ratio (a refusal there is a bug and stops the bench);
 * - gold rule recall there: gold rule lines (labelled constraint or procedural) whose text survives
 *   byte for byte as a line of the output, over all gold rule lines of the file;
 * - gold rule recall after ROUNDS append-and-compact rounds: each round appends a block of our own
 *   session notes (APPENDED_NOTES: dated episodes, a belief, a preference; no dev-set text) and compacts
 *   to the round-0 budget (a round that refuses there compacts to its own smallest safe budget and is
 *   counted as refused).
 * - gold rule recall at ratio 0.60 (or the smallest accepted ratio, when higher): how the budget left
 *   after the pins is spent.
 * Prints per-file rows (--files), the distribution of the smallest accepted ratio, medians and the floors,
 * at compaction's keep threshold (policy.ts PIN_MASS, or --pin-mass p). --sweep first measures every
 * threshold of SWEEP and the grouped 5-fold choice of it (groupedThreshold). Without the cache it says how
 * to build it and exits 0. Runnable alone (`npx tsx bench/real-compact.ts [--files] [--pin-mass p]
 * [--sweep] [--oracle]`; --oracle decides rules by the gold labels, the ceiling of the operator itself);
 * bench/real.ts calls measureRealCompaction and formatRealCompaction.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import * as z from "zod/mini";
import type { Classifier } from "../scripts/engine/classify.js";
import { segment } from "../scripts/engine/units.js";
import { TYPES, type KnowledgeType } from "../scripts/engine/types.js";
import { LineLabelSchema } from "../scripts/cli/json-output.js";
import { readModel } from "../scripts/io/model-file.js";
import { defaultModelPath } from "../scripts/paths.js";
import { heldOutClassifiers } from "./real-lib.js";
import { compact } from "../scripts/operators/compact.js";
import { decideUnits, isPinned, PIN_MASS } from "../scripts/operators/policy.js";
import { CompactionUnsafeError } from "../scripts/errors.js";

/** Append-and-compact rounds per file (the issue's "five rounds"). */
export const ROUNDS = 5;

/** Floors of issue 12 for compaction on real files. */
export const FLOORS = { medianSmallestRatio: 0.6, recallAtSmallest: 0.95, recallAfterRounds: 0.95 } as const;

/** Our own notes appended in round `r` (1-based): what an agent adds to memory between compactions. */
export function appendedNotes(r: number): string {
  return [
    "",
    `## Session notes ${r}`,
    "",
    `- 2026-03-${String(10 + r).padStart(2, "0")}: Ran the whole test suite after the dependency bump; ${r} flaky test${r > 1 ? "s were" : " was"} retried and passed.`,
    `- 2026-03-${String(10 + r).padStart(2, "0")}: Reviewed the open pull requests and closed the stale draft about the logging refactor.`,
    "- The staging database is refreshed from a production snapshot every night.",
    "- I'd rather keep pull requests small and focused on one change.",
    "",
  ].join("\n");
}

const IndexSchema = z.array(z.object({ id: z.string(), repo: z.string(), path: z.string(), kind: z.string(), lang: z.string(), domain: z.string() }));

/** One file's measurements. Ratios in (0, 1]; recalls in [0, 1] (null when the file has no gold rule line). */
export interface RealCompactFile {
  id: string;
  lang: string;
  kind: string;
  /** Tokens of the input kept whole (the base a ratio is taken of). */
  tokens: number;
  goldRules: number;
  smallestRatio: number;
  recallAtSmallest: number | null;
  recallAfterRounds: number | null;
  /** Gold rule recall at ratio max(FLOORS.medianSmallestRatio, smallestRatio) (null without gold rule lines). */
  recallAtFloorRatio: number | null;
  /** Rounds (of ROUNDS) that refused the round-0 budget and compacted to their own smallest safe budget. */
  roundsRefused: number;
  /** Gold-labelled lines by (gold rule?, pinned by compaction? policy.ts isPinned): the pin decision's confusion counts on this file. */
  decision: { tp: number; fp: number; fn: number };
}

/** Medians over the files (recalls over files with gold rule lines) and the floor checks. */
export interface RealCompactSummary {
  files: RealCompactFile[];
  medianSmallestRatio: number;
  medianRecallAtSmallest: number;
  medianRecallAfterRounds: number;
  /** Median gold rule recall at ratio max(0.60, the file's smallest accepted ratio). */
  medianRecallAtFloorRatio: number;
  pooledRecallAtFloorRatio: number;
  /** Precision and recall of the pin decision (isPinned of the unit holding each gold-labelled line) against gold rule lines, pooled over files. */
  decisionPrecision: number;
  decisionRecall: number;
  /** Gold rule lines recalled over all gold rule lines of all files (micro average), at the smallest ratio / after the rounds. */
  pooledRecallAtSmallest: number;
  pooledRecallAfterRounds: number;
  floors: { name: string; value: number; floor: string; ok: boolean }[];
}

/** Median of a non-empty list (mean of the two middle values for an even count); NaN for an empty one. */
export function median(xs: readonly number[]): number {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
}

/**
 * A classifier that answers with the gold labels (the --oracle ceiling: what compaction does when the
 * rule decision is right): a unit takes the highest-priority gold type (TYPES order) among its lines,
 * looked up by line text so it still answers after compaction moved the lines; unlabelled lines
 * (headings, our appended notes) are belief. Scores are one-hot.
 */
export function goldClassifier(text: string, labelsJsonl: string): Classifier {
  const lines = text.split("\n").map((l) => l.replace(/\r$/, ""));
  const byText = new Map<string, number>();
  for (const raw of labelsJsonl.split("\n")) {
    if (raw.trim() === "") continue;
    const l = LineLabelSchema.parse(JSON.parse(raw));
    const t = lines[l.line - 1] ?? "";
    const rank = TYPES.indexOf(l.type);
    byText.set(t, Math.min(byText.get(t) ?? rank, rank));
  }
  return {
    name: "gold",
    scores: (units) =>
      units.map((u) => {
        let rank = TYPES.indexOf("belief");
        let labelled = false;
        for (const line of u.text.split("\n")) {
          const r = byText.get(line);
          if (r !== undefined) rank = labelled ? Math.min(rank, r) : r;
          if (r !== undefined) labelled = true;
        }
        const row = { constraint: 0, procedural: 0, belief: 0, preference: 0, episodic: 0 };
        row[TYPES[rank] as KnowledgeType] = 1;
        return row;
      }),
  };
}

/** Gold rule lines (text without a trailing \r) of one file, from its labels and source. */
function goldRuleLines(text: string, labelsJsonl: string): string[] {
  const lines = text.split("\n").map((l) => l.replace(/\r$/, ""));
  const out: string[] = [];
  for (const raw of labelsJsonl.split("\n")) {
    if (raw.trim() === "") continue;
    const l = LineLabelSchema.parse(JSON.parse(raw));
    if (l.type === "constraint" || l.type === "procedural") out.push(lines[l.line - 1] ?? "");
  }
  return out;
}

/** Share of `gold` lines present as whole lines of `output` (counts: recalled, total). */
function recalled(gold: readonly string[], output: string): number {
  const have = new Set(output.split("\n"));
  return gold.filter((g) => have.has(g)).length;
}

/** Measure one file (text and gold labels) with `classifier`. Pure apart from the classifier. */
export function measureFile(id: string, meta: { lang: string; kind: string }, text: string, labelsJsonl: string, classifier: Classifier, pinMass = PIN_MASS): MeasuredFile {
  const gold = goldRuleLines(text, labelsJsonl);
  const units = decideUnits(segment(text), classifier);
  const ruleAt = new Map<number, boolean>();
  for (const u of units) for (let l = u.line; l <= u.endLine; l++) ruleAt.set(l, isPinned(u, pinMass));
  const decision = { tp: 0, fp: 0, fn: 0 };
  for (const raw of labelsJsonl.split("\n")) {
    if (raw.trim() === "") continue;
    const l = LineLabelSchema.parse(JSON.parse(raw));
    const g = l.type === "constraint" || l.type === "procedural";
    const p = ruleAt.get(l.line) === true;
    if (g && p) decision.tp++;
    else if (g) decision.fn++;
    else if (p) decision.fp++;
  }
  const smallest = compact(units, { budget: "min", pinMass });
  // The ratio compact reports must be accepted as a ratio (throws otherwise: a bug, not a measurement).
  const atRatio = compact(units, { budget: { ratio: smallest.smallestRatio }, pinMass });
  const atSmallest = recalled(gold, atRatio.text);
  // At the ratio floor (or the smallest accepted ratio when that is higher): how the budget left after the pins is spent.
  const atFloor = recalled(gold, compact(units, { budget: { ratio: Math.max(FLOORS.medianSmallestRatio, smallest.smallestRatio) }, pinMass }).text);
  let memory = atRatio.text;
  let refused = 0;
  for (let r = 1; r <= ROUNDS; r++) {
    const next = decideUnits(segment(`${memory}${appendedNotes(r)}`), classifier);
    try {
      memory = compact(next, { budget: atRatio.budget, pinMass }).text;
    } catch (e) {
      if (!(e instanceof CompactionUnsafeError)) throw e;
      refused++;
      memory = compact(next, { budget: "min", pinMass }).text;
    }
  }
  const afterRounds = recalled(gold, memory);
  return {
    id,
    lang: meta.lang,
    kind: meta.kind,
    tokens: smallest.base,
    goldRules: gold.length,
    smallestRatio: smallest.smallestRatio,
    recallAtSmallest: gold.length ? atSmallest / gold.length : null,
    recallAfterRounds: gold.length ? afterRounds / gold.length : null,
    recallAtFloorRatio: gold.length ? atFloor / gold.length : null,
    recalledAtFloorRatio: atFloor,
    roundsRefused: refused,
    decision,
    recalledAtSmallest: atSmallest,
    recalledAfterRounds: afterRounds,
  };
}

/** One file's measurements with the recalled gold rule line counts the pooled recalls are summed from. */
export type MeasuredFile = RealCompactFile & { recalledAtSmallest: number; recalledAfterRounds: number; recalledAtFloorRatio: number };

/**
 * Measure every file of `dir` (default .cache/real/ of the repository), at keep threshold `pinMass`.
 * Returns null when the cache is missing. `classifier` "gold" measures with each file's gold labels
 * (goldClassifier); a function picks the classifier per file (its group "<id>.md"; real-lib.ts
 * heldOutClassifiers). Throws on a malformed index or labels file (zod) and on a compaction bug.
 */
export function measureRealFiles(classifier: Classifier | "gold" | ((group: string) => Classifier), dir = resolve(import.meta.dirname, "..", ".cache", "real"), pinMass = PIN_MASS): MeasuredFile[] | null {
  const indexPath = join(dir, "index.json");
  if (!existsSync(indexPath)) return null;
  const index = IndexSchema.parse(JSON.parse(readFileSync(indexPath, "utf8")));
  const present = new Set(readdirSync(dir));
  return index
    .filter((e) => present.has(`${e.id}.md`) && present.has(`${e.id}.labels.jsonl`))
    .map((e) => {
      const text = readFileSync(join(dir, `${e.id}.md`), "utf8");
      const labels = readFileSync(join(dir, `${e.id}.labels.jsonl`), "utf8");
      const c = classifier === "gold" ? goldClassifier(text, labels) : typeof classifier === "function" ? classifier(`${e.id}.md`) : classifier;
      return measureFile(e.id, e, text, labels, c, pinMass);
    });
}

/** measureRealFiles then summarizeRealCompaction; null without the cache. */
export function measureRealCompaction(classifier: Classifier | "gold" | ((group: string) => Classifier), dir = resolve(import.meta.dirname, "..", ".cache", "real"), pinMass = PIN_MASS): RealCompactSummary | null {
  const rows = measureRealFiles(classifier, dir, pinMass);
  return rows && summarizeRealCompaction(rows);
}

/** Medians, pooled recalls, the rule decision's precision/recall and the floor checks over measured files. Pure. */
export function summarizeRealCompaction(rows: readonly MeasuredFile[]): RealCompactSummary {
  const withGold = rows.filter((r) => r.goldRules > 0);
  const gold = withGold.reduce((s, r) => s + r.goldRules, 0);
  const medianSmallestRatio = median(rows.map((r) => r.smallestRatio));
  const medianRecallAtSmallest = median(withGold.map((r) => r.recallAtSmallest as number));
  const medianRecallAfterRounds = median(withGold.map((r) => r.recallAfterRounds as number));
  const medianRecallAtFloorRatio = median(withGold.map((r) => r.recallAtFloorRatio as number));
  const tp = rows.reduce((a, r) => a + r.decision.tp, 0);
  const fp = rows.reduce((a, r) => a + r.decision.fp, 0);
  const fn = rows.reduce((a, r) => a + r.decision.fn, 0);
  return {
    files: rows.map(({ recalledAtSmallest: _a, recalledAfterRounds: _b, recalledAtFloorRatio: _c, ...r }) => r),
    decisionPrecision: tp + fp ? tp / (tp + fp) : Number.NaN,
    decisionRecall: tp + fn ? tp / (tp + fn) : Number.NaN,
    medianSmallestRatio,
    medianRecallAtSmallest,
    medianRecallAfterRounds,
    medianRecallAtFloorRatio,
    pooledRecallAtFloorRatio: gold ? withGold.reduce((s, r) => s + r.recalledAtFloorRatio, 0) / gold : Number.NaN,
    pooledRecallAtSmallest: gold ? withGold.reduce((s, r) => s + r.recalledAtSmallest, 0) / gold : Number.NaN,
    pooledRecallAfterRounds: gold ? withGold.reduce((s, r) => s + r.recalledAfterRounds, 0) / gold : Number.NaN,
    floors: [
      { name: "median smallest accepted ratio", value: medianSmallestRatio, floor: `<= ${FLOORS.medianSmallestRatio.toFixed(2)}`, ok: medianSmallestRatio <= FLOORS.medianSmallestRatio },
      { name: "median gold rule recall at that ratio", value: medianRecallAtSmallest, floor: `>= ${FLOORS.recallAtSmallest.toFixed(2)}`, ok: medianRecallAtSmallest >= FLOORS.recallAtSmallest },
      { name: `median gold rule recall after ${ROUNDS} rounds`, value: medianRecallAfterRounds, floor: `>= ${FLOORS.recallAfterRounds.toFixed(2)}`, ok: medianRecallAfterRounds >= FLOORS.recallAfterRounds },
    ],
  };
}

/** The report as text: optional per-file rows, then medians, pooled recalls and the floors. */
export function formatRealCompaction(s: RealCompactSummary, perFile = false): string {
  const out: string[] = [];
  const f2 = (x: number | null): string => (x === null ? "  -  " : x.toFixed(3));
  if (perFile) {
    out.push("file  lang  kind               tokens  gold-rules  smallest-ratio  recall-there  recall-after-5  rounds-refused");
    for (const r of s.files) out.push(`${r.id.padEnd(5)} ${r.lang.padEnd(5)} ${r.kind.padEnd(18)} ${String(r.tokens).padStart(6)}  ${String(r.goldRules).padStart(10)}  ${r.smallestRatio.toFixed(2).padStart(14)}  ${f2(r.recallAtSmallest).padStart(12)}  ${f2(r.recallAfterRounds).padStart(14)}  ${String(r.roundsRefused).padStart(14)}`);
  }
  const below = (t: number): number => s.files.filter((r) => r.smallestRatio <= t).length;
  out.push(`compaction on ${s.files.length} real files (${s.files.filter((r) => r.goldRules > 0).length} with gold rule lines)`);
  out.push(`  pin decision (rules and near-rules, policy.ts isPinned) on gold-labelled lines: precision ${s.decisionPrecision.toFixed(3)}, recall ${s.decisionRecall.toFixed(3)}`);
  out.push(`  smallest accepted ratio: median ${s.medianSmallestRatio.toFixed(2)}, <= 0.50 on ${below(0.5)} files, <= 0.60 on ${below(0.6)}`);
  out.push(`  smallest accepted ratio distribution: ${ratioDistribution(s.files.map((r) => r.smallestRatio))}`);
  out.push(`  gold rule recall at that ratio: median ${s.medianRecallAtSmallest.toFixed(3)}, pooled ${s.pooledRecallAtSmallest.toFixed(3)}`);
  out.push(`  gold rule recall at ratio ${FLOORS.medianSmallestRatio.toFixed(2)} (or the smallest accepted, when higher): median ${s.medianRecallAtFloorRatio.toFixed(3)}, pooled ${s.pooledRecallAtFloorRatio.toFixed(3)}`);
  out.push(`  gold rule recall after ${ROUNDS} append-and-compact rounds: median ${s.medianRecallAfterRounds.toFixed(3)}, pooled ${s.pooledRecallAfterRounds.toFixed(3)}; rounds that refused the round-0 budget: ${s.files.reduce((a, r) => a + r.roundsRefused, 0)}`);
  for (const fl of s.floors) out.push(`  ${fl.ok ? "ok  " : "FAIL"} ${fl.name}: ${fl.value.toFixed(3)} (floor ${fl.floor})`);
  return `${out.join("\n")}\n`;
}

/**
 * A list of ratios in (0, 1] as text: minimum, 10th, 25th, 50th, 75th, 90th percentile (nearest rank)
 * and maximum, then the count per tenth ("0.0-0.1: 3 | ..."). Empty list: "no files".
 */
export function ratioDistribution(ratios: readonly number[]): string {
  if (ratios.length === 0) return "no files";
  const s = [...ratios].sort((a, b) => a - b);
  const q = (p: number): string => (s[Math.min(s.length - 1, Math.max(0, Math.ceil(p * s.length) - 1))] as number).toFixed(2);
  const bins = new Array<number>(10).fill(0);
  for (const r of s) {
    // A ratio on a tenth's upper edge (0.60) counts in that tenth (0.5-0.6).
    const k = Math.max(0, Math.min(9, Math.ceil(r * 10 - 1e-9) - 1));
    bins[k] = (bins[k] ?? 0) + 1;
  }
  return `min ${q(0)} p10 ${q(0.1)} p25 ${q(0.25)} median ${median(s).toFixed(2)} p75 ${q(0.75)} p90 ${q(0.9)} max ${(s[s.length - 1] as number).toFixed(2)}; per tenth ${bins.map((b, i) => `${(i / 10).toFixed(1)}-${((i + 1) / 10).toFixed(1)}: ${b}`).join(" | ")}`;
}

/** The keep thresholds (rule mass) the sweep tries, from the argmax alone (1.01) down. */
export const SWEEP = [1.01, 0.5, 0.45, 0.4, 0.35, 0.3, 0.25, 0.2, 0.15, 0.1] as const;

/**
 * Grouped-fold choice of the keep threshold: files sorted by id are dealt round robin into `folds`
 * folds; for each fold the threshold is the lowest of `byThreshold`'s keys whose median smallest
 * accepted ratio over the other folds' files is <= FLOORS.medianSmallestRatio (the most recall the
 * ratio floor allows; the highest key when none qualifies). Returns each fold's threshold and the
 * summary of every file measured at its own fold's threshold (no file scored by a threshold chosen on it).
 */
export function groupedThreshold(byThreshold: ReadonlyMap<number, readonly MeasuredFile[]>, folds = 5): { chosen: number[]; heldOut: RealCompactSummary } {
  const ts = [...byThreshold.keys()].sort((a, b) => a - b);
  const first = byThreshold.get(ts[0] as number) ?? [];
  const ids = first.map((r) => r.id).sort();
  const foldOf = new Map(ids.map((id, i) => [id, i % folds]));
  const chosen: number[] = [];
  const held: MeasuredFile[] = [];
  for (let f = 0; f < folds; f++) {
    let pick = ts[ts.length - 1] as number;
    for (const t of ts) {
      const train = (byThreshold.get(t) ?? []).filter((r) => foldOf.get(r.id) !== f);
      if (median(train.map((r) => r.smallestRatio)) <= FLOORS.medianSmallestRatio) {
        pick = t;
        break;
      }
    }
    chosen.push(pick);
    held.push(...(byThreshold.get(pick) ?? []).filter((r) => foldOf.get(r.id) === f));
  }
  return { chosen, heldOut: summarizeRealCompaction(held.sort((a, b) => a.id.localeCompare(b.id))) };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const at = process.argv.indexOf("--pin-mass");
  const pinMass = at >= 0 ? Number(process.argv[at + 1]) : PIN_MASS;
  const heldOut = heldOutClassifiers(readModel(defaultModelPath()));
  const oracle = process.argv.includes("--oracle");
  if (!oracle) process.stdout.write(`model: ${heldOut.note}\n`);
  const classifier = oracle ? "gold" : heldOut.classifierFor;
  if (process.argv.includes("--sweep") && !oracle) {
    const byT = new Map<number, MeasuredFile[]>();
    process.stdout.write("keep threshold sweep (rule mass; 1.01 = the argmax alone): median smallest ratio, files <= 0.60, gold rule recall there median/pooled, after 5 rounds median/pooled, decision P/R\n");
    for (const t of SWEEP) {
      const rows = measureRealFiles(classifier, undefined, t);
      if (!rows) break;
      byT.set(t, rows);
      const s = summarizeRealCompaction(rows);
      const f3 = (x: number): string => x.toFixed(3);
      process.stdout.write(`  ${t.toFixed(2)}  ${s.medianSmallestRatio.toFixed(3)}  ${String(rows.filter((r) => r.smallestRatio <= 0.6).length).padStart(2)}  ${f3(s.medianRecallAtSmallest)}/${f3(s.pooledRecallAtSmallest)}  ${f3(s.medianRecallAfterRounds)}/${f3(s.pooledRecallAfterRounds)}  ${f3(s.decisionPrecision)}/${f3(s.decisionRecall)}\n`);
    }
    if (byT.size) {
      const g = groupedThreshold(byT);
      process.stdout.write(`grouped 5-fold over files: thresholds chosen per fold (on the other four folds) ${g.chosen.map((t) => t.toFixed(2)).join(" ")}; every file at its fold's threshold:\n`);
      process.stdout.write(formatRealCompaction(g.heldOut));
    }
  }
  const s = measureRealCompaction(classifier, undefined, pinMass);
  if (!s) process.stdout.write("bench:real-compact: no real dev set in .cache/real/; build it with `npx tsx bench/real/rebuild.ts` (reads the fetched snapshots; nothing is committed)\n");
  else process.stdout.write(`${oracle ? "" : `keep threshold ${pinMass.toFixed(2)}${pinMass === PIN_MASS ? " (the default, operators/policy.ts PIN_MASS)" : ""}: `}${formatRealCompaction(s, process.argv.includes("--files"))}`);
}
