/**
 * TypeCompact: shrink classified memory to a token budget without touching a rule.
 * Pure: classified units in, markdown text and a per-unit report out.
 */
import { estimateTokens } from "../engine/budget.js";
import type { ClassifiedUnit } from "../engine/types.js";
import { CompactionUnsafeError } from "../errors.js";
import { compressText, protectedTokens } from "./compress.js";
import { nearDuplicates } from "./merge.js";
import { buildLayout, closeOver, lineCost, measureEmitted, renderEmitted, renderUnit } from "./layout.js";
import { isPinned, PIN_MASS, valuesFromTerms } from "./policy.js";
import { termHashes } from "./bm25.js";

/**
 * A Claude Code `@path` import outside code spans: `@docs/rules.md`, `@~/.claude/team.md`, `@AGENTS.md` (a path
 * with a text-file extension after `@` at the start of the text or after a space, as Claude Code reads imports:
 * ../shared/research/integration.md §4). Claude Code loads the imported file with the memory file, so a line that
 * imports one is kept as written: dropping it would drop every rule in that file.
 */
const IMPORT_RE = /(?:^|\s)@(?:~\/|\.{0,2}\/)?[\w.-]+(?:\/[\w.-]+)*\.(?:md|mdc|markdown|txt|json|jsonc|ya?ml|toml)(?:#[\w-]*)?(?=$|[\s),.;:!?])/m;

/** True when `text` (a unit's text) holds a Claude Code `@path` import outside inline code spans. */
export function importsFile(text: string): boolean {
  return text.includes("@") && IMPORT_RE.test(text.replace(/`[^`\n]*`/g, ""));
}

/** What compaction did with a unit. */
export type CompactAction = "kept" | "compressed" | "merged" | "dropped";

/** One row of the compaction report (content units and headings; blank/fence/rule lines omitted). */
export interface CompactUnitReport {
  line: number;
  endLine: number;
  type: ClassifiedUnit["type"];
  pinned: boolean;
  action: CompactAction;
  /** For "merged": the line of the unit it was folded into. */
  into?: number;
}

/** Result of compact(): the markdown text and the report. Token counts use estimateTokens. */
export interface CompactResult {
  text: string;
  budget: number;
  /** Tokens of the input as rendered by segment (estimateTokens of the source). */
  before: number;
  after: number;
  /** Smallest safe budget: tokens of the pinned units with the headings and structure they need. */
  needed: number;
  /** Tokens a ratio is taken of: the input kept whole as compaction renders it (fences balanced), >= before. */
  base: number;
  /** Smallest ratio (2 decimals) whose budget floor(ratio x base) holds the pinned units, in (0, 1]. */
  smallestRatio: number;
  units: CompactUnitReport[];
}

/**
 * Options: the budget (required): tokens, `{ ratio }` of the base (see CompactResult.base), or "min" for
 * the smallest safe compaction (budget = needed). Merge thresholds are term-set Jaccard.
 */
export interface CompactOptions {
  budget: number | { ratio: number } | "min";
  /** Near-duplicate preferences are merged at Jaccard >= this (default 0.6). */
  mergePreference?: number;
  /** Repeated beliefs are merged at Jaccard >= this (default 0.85). */
  mergeBelief?: number;
  /** Units with rule mass >= this are kept byte for byte besides the rules (policy.ts isPinned; default PIN_MASS; above 1: rules alone). */
  pinMass?: number;
}

const KEEP = 0;
const COMPRESS = 1;
const MERGED = 2;
const DROP = 3;
interface Op {
  i: number;
  to: number;
  into?: number;
}

/**
 * Compact classified units (one file, source order, as decideUnits returns them) to the budget.
 * Rules and near-rules (policy.ts isPinned: the argmax says rule, or the rule mass reaches pinMass) and
 * frontmatter are kept byte for byte, and so are the parent items and lead-in
 * lines they need; a heading is never kept for itself, only with content of its section. Then, until
 * the text fits: block HTML comments (other than this tool's markers) then episodic units are dropped, near-duplicate preferences and repeated beliefs merged,
 * beliefs then preferences compressed within meaning (compressText), then preferences and beliefs
 * dropped; inside each step the unit with the lowest value per token (unitValues / cost) goes first.
 * Output keeps source order, headings of sections with content, whole fenced blocks (an unclosed
 * fence is closed), ends with "\n". A ratio is taken of the input kept whole as rendered here, so
 * ratio 1 always fits. Throws CompactionUnsafeError (needed budget, smallest safe ratio, the rules
 * that do not fit) when the pinned set exceeds the budget.
 */
export function compact(units: readonly ClassifiedUnit[], opts: CompactOptions): CompactResult {
  const layout = buildLayout(units);
  const n = units.length;
  const pinned = new Uint8Array(n);
  const candidate = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const u = units[i] as ClassifiedUnit;
    // Frontmatter and our own markers (the export block's, the rules files' provenance line) are kept as written.
    if (u.kind === "frontmatter" || (u.kind === "comment" && OWN_COMMENT.test(u.text)) || isPinned(u, opts.pinMass ?? PIN_MASS) || (u.kind !== "code" && importsFile(u.text))) pinned[i] = 1;
    // Any other block HTML comment is a note to the people editing the file (Claude Code strips it before the model
    // reads the file: ../shared/research/integration.md, "Frontmatter parsing"): it goes first, before any episode.
    else if ((u.type !== "structure" || u.kind === "comment") && u.kind !== "heading" && u.kind !== "table-header") candidate[i] = 1;
  }
  const original = units.map((u) => renderUnit(u, u.text));
  // estimateTokens is additive over lines: the source costs the sum of its units plus one per line break.
  const textCost = units.map((u) => estimateTokens(u.text));
  const origCost = units.map((u, i) => (original[i] === u.text ? (textCost[i] as number) + 1 : lineCost(original[i] as string)));
  const before = n ? textCost.reduce((a, b) => a + b, 0) + n : 0;
  const compressed = new Map<number, { text: string; cost: number }>();
  const squeezed = (i: number): { text: string; cost: number } => {
    let c = compressed.get(i);
    if (!c) {
      const u = units[i] as ClassifiedUnit;
      const t = u.kind === "code" ? u.text : compressText(u.text);
      const r = renderUnit(u, t);
      c = { text: r, cost: lineCost(r) };
      if (c.cost > (origCost[i] as number)) c = { text: original[i] as string, cost: origCost[i] as number };
      compressed.set(i, c);
    }
    return c;
  };

  // The extremes need no plan: pinned units alone (the smallest possible output) and everything kept.
  const status = new Uint8Array(n);
  const only = (keepCandidates: boolean): Uint8Array => {
    const emit = new Uint8Array(n);
    for (let i = 0; i < n; i++) emit[i] = pinned[i] || (keepCandidates && candidate[i]) ? 1 : 0;
    return closeOver(layout, emit);
  };
  const skeleton = only(false);
  // What the rules bring along (parent items, lead-in lines) is context their type was decided on
  // (decideUnits reads the lead-in): it stays byte for byte, never compressed or merged away.
  for (let i = 0; i < n; i++) if (skeleton[i]) candidate[i] = 0;
  const needed = measureEmitted(layout, skeleton, (i) => origCost[i] as number);
  const all = only(true);
  const full = measureEmitted(layout, all, (i) => origCost[i] as number);
  // The input kept whole may cost more than the source (a closing fence added for balance).
  const base = Math.max(before, full);
  const smallestRatio = minRatio(needed, base);
  const budget = opts.budget === "min" ? Math.max(1, needed) : typeof opts.budget === "number" ? opts.budget : Math.max(1, Math.floor(opts.budget.ratio * base));
  if (needed > budget) throw unsafe(units, pinned, skeleton, origCost, budget, needed, smallestRatio);
  const sizes = { budget, before, needed, base, smallestRatio };
  if (full <= budget) {
    const text = renderEmitted(layout, all, (i) => original[i] as string);
    return { text, ...sizes, after: full, units: report(units, pinned, candidate, all, status, new Int32Array(n).fill(-1), () => false) };
  }

  const ops = planOps(units, candidate, origCost, opts);
  const into = new Int32Array(n).fill(-1);
  const buffer = new Uint8Array(n); // reused by every probe; the final state is copied out below
  const stateAt = (m: number): Uint8Array => {
    status.fill(KEEP);
    into.fill(-1);
    for (let k = 0; k < m; k++) {
      const op = ops[k] as Op;
      status[op.i] = op.to;
      if (op.into !== undefined) into[op.i] = op.into;
    }
    for (let i = 0; i < n; i++) buffer[i] = pinned[i] || (candidate[i] && (status[i] as number) <= COMPRESS) ? 1 : 0;
    return closeOver(layout, buffer);
  };
  const costOf = (i: number): number => (candidate[i] && status[i] !== KEEP ? squeezed(i).cost : (origCost[i] as number));
  const textOf = (i: number): string => (candidate[i] && status[i] !== KEEP ? squeezed(i).text : (original[i] as string));
  const costAt = (m: number): number => measureEmitted(layout, stateAt(m), costOf);

  const M = ops.length;
  // Smallest m with costAt(m) <= budget; cost is non-increasing in m. Gallop back from the end so
  // only units that survive are ever compressed, then binary search the bracket.
  let hi = M;
  let step = 1;
  let lo = M - step;
  while (lo >= 0 && costAt(lo) <= budget) {
    hi = lo;
    step *= 2;
    lo = M - step;
  }
  lo = Math.max(lo, -1);
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (costAt(mid) <= budget) hi = mid;
    else lo = mid;
  }
  const after = costAt(hi); // exact: measureEmitted counts what renderEmitted writes
  const emit = buffer.slice();
  const text = renderEmitted(layout, emit, textOf);
  return { text, ...sizes, after, units: report(units, pinned, candidate, emit, status, into, (i) => textOf(i) !== original[i]) };
}

/** The ordered reduction steps (see compact()). Each unit gets at most one merge, compress and drop op. */
function planOps(units: readonly ClassifiedUnit[], candidate: Uint8Array, cost: number[], opts: CompactOptions): Op[] {
  const termSets = units.map((u, i) => (candidate[i] ? new Set(termHashes(u.text)) : null));
  const values = valuesFromTerms(units, termSets);
  const density = values.map((v, i) => v / (cost[i] as number));
  const byDensity = (a: number, b: number): number => (density[a] as number) - (density[b] as number) || a - b;
  const of = (t: string): number[] => {
    const out: number[] = [];
    units.forEach((u, i) => {
      if (candidate[i] && u.type === t) out.push(i);
    });
    return out;
  };
  const comments = units.flatMap((u, i) => (candidate[i] && u.kind === "comment" ? [i] : []));
  const episodic = of("episodic").sort(byDensity);
  const merged = new Set<number>();
  const fold = (idx: number[], threshold: number): Op[] => {
    const items = idx.map((i) => ({ set: termSets[i] ?? new Set<number>(), text: (units[i] as ClassifiedUnit).text, prot: () => protectedTokens((units[i] as ClassifiedUnit).text) }));
    return nearDuplicates(items, threshold).map(([dup, keep]) => {
      merged.add(idx[dup] as number);
      return { i: idx[dup] as number, to: MERGED, into: idx[keep] as number };
    });
  };
  const mergeOps = [...fold(of("preference"), opts.mergePreference ?? 0.6), ...fold(of("belief").filter((i) => units[i]?.kind !== "code"), opts.mergeBelief ?? 0.85)];
  const prefs = of("preference").filter((i) => !merged.has(i)).sort(byDensity);
  const beliefs = of("belief").filter((i) => !merged.has(i)).sort(byDensity);
  const squeezable = (i: number): boolean => units[i]?.kind !== "code";
  return [
    ...comments.map((i) => ({ i, to: DROP })),
    ...episodic.map((i) => ({ i, to: DROP })),
    ...mergeOps,
    ...beliefs.filter(squeezable).map((i) => ({ i, to: COMPRESS })),
    ...prefs.filter(squeezable).map((i) => ({ i, to: COMPRESS })),
    ...prefs.map((i) => ({ i, to: DROP })),
    ...beliefs.map((i) => ({ i, to: DROP })),
  ];
}

/**
 * A block HTML comment kept as written: this tool's own (the export block's markers, a rules file's provenance line,
 * memory/render.ts), or a one-line marker of another tool of at most four words (`<!-- prettier-ignore -->`,
 * `<!-- markdownlint-disable MD013 -->`, `<!-- BEGIN MANAGED BLOCK -->`), which changes how the next lines are handled.
 */
const OWN_COMMENT = /^\s*<!--\s*(?:knowledge-triage:|Written by knowledge-triage\b)|^[^\S\n]*<!--[^\S\n]*(?:[^\s<>]+[^\S\n]+){0,3}[^\s<>]+[^\S\n]*-->[^\S\n]*$/;

/**
 * Smallest ratio with two decimals whose budget floor(ratio x base) is at least `needed` tokens, in
 * [0.01, 1] (1 when needed >= base; base 0 gives 0.01).
 */
export function minRatio(needed: number, base: number): number {
  if (base <= 0) return 0.01;
  let hundredths = Math.max(1, Math.ceil((needed / base) * 100));
  while (hundredths < 100 && Math.floor((hundredths / 100) * base) < needed) hundredths++;
  return Math.min(100, hundredths) / 100;
}

/** Longest rule text shown per line of a COMPACTION_UNSAFE message, in characters. */
const UNFIT_TEXT_MAX = 200;
/** Most rules listed in a COMPACTION_UNSAFE message before "... and N more". */
const UNFIT_LIST_MAX = 20;

/**
 * The COMPACTION_UNSAFE error, its message cut here and only here: the needed budget and smallest safe
 * ratio, then the rules past the budget (at least the last rule) ("L<line>: first line", each cut to UNFIT_TEXT_MAX characters),
 * at most UNFIT_LIST_MAX of them, then "... and N more". The full list stays on the error.
 */
function unsafe(units: readonly ClassifiedUnit[], pinned: Uint8Array, skeleton: Uint8Array, cost: number[], budget: number, needed: number, smallestRatio: number): CompactionUnsafeError {
  const unfit: string[] = [];
  // Walk the skeleton in source order (rules and the headings and lines they bring along); every
  // rule from the point where the running cost passes the budget does not fit.
  let used = 0;
  units.forEach((u, i) => {
    if (!skeleton[i]) return;
    used += cost[i] as number;
    if (pinned[i] && used > budget && u.kind !== "comment" && u.kind !== "frontmatter") unfit.push(`L${u.line}: ${(u.text.split("\n")[0] ?? "").trim()}`);
  });
  // The blank lines between kept units can be what tips it over: then the last rule does not fit.
  const last = units.findLastIndex((u, i) => pinned[i] === 1 && u.kind !== "comment" && u.kind !== "frontmatter");
  if (unfit.length === 0 && last >= 0) unfit.push(`L${units[last]?.line}: ${(units[last]?.text.split("\n")[0] ?? "").trim()}`);
  const shown = unfit.slice(0, UNFIT_LIST_MAX).map((s) => `  ${s.length > UNFIT_TEXT_MAX ? `${s.slice(0, UNFIT_TEXT_MAX - 1)}…` : s}`);
  if (unfit.length > UNFIT_LIST_MAX) shown.push(`  ... and ${unfit.length - UNFIT_LIST_MAX} more`);
  return new CompactionUnsafeError(
    `COMPACTION_UNSAFE: the pinned rules need ${needed} tokens but the budget is ${budget}; the smallest safe budget is ${needed} tokens (ratio ${smallestRatio.toFixed(2)}). Rules that do not fit:\n${shown.join("\n")}`,
    { needed, budget, smallestRatio, unfit },
  );
}

function report(
  units: readonly ClassifiedUnit[],
  pinned: Uint8Array,
  candidate: Uint8Array,
  emit: Uint8Array,
  status: Uint8Array,
  into: Int32Array,
  changed: (i: number) => boolean,
): CompactUnitReport[] {
  const rows: CompactUnitReport[] = [];
  units.forEach((u, i) => {
    if (u.type === "structure") return;
    let action: CompactAction = emit[i] ? "kept" : "dropped";
    if (candidate[i] && emit[i] && changed(i)) action = "compressed";
    if (candidate[i] && status[i] === MERGED && !emit[i]) action = "merged";
    const row: CompactUnitReport = { line: u.line, endLine: u.endLine, type: u.type, pinned: pinned[i] === 1, action };
    const target = into[i] as number;
    if (action === "merged" && target >= 0) row.into = (units[target] as ClassifiedUnit).line;
    rows.push(row);
  });
  return rows;
}
