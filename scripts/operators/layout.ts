/**
 * Markdown layout for compaction: which units must come along when a unit is emitted (its parent
 * list items, its table header and separator, its enclosing headings), and rendering of a chosen
 * subset in original order with collapsed blank lines, whole fenced blocks and intact frontmatter.
 * Pure; costs use estimateTokens and are exact for the rendered text.
 */
import { estimateTokens } from "../engine/budget.js";
import type { ClassifiedUnit } from "../engine/types.js";

/** Precomputed structure of a unit list (indexes into the list; -1 = none). */
export interface Layout {
  units: readonly ClassifiedUnit[];
  /** Parent list item of a nested unit. */
  parent: Int32Array;
  /** Nearest enclosing heading unit (for a heading: the enclosing heading of a lower level). */
  heading: Int32Array;
  /** Table header and separator of a table row. */
  tableHead: Int32Array;
  tableSep: Int32Array;
  /** For a fence unit: the code unit it belongs to. */
  fenceOwner: Int32Array;
  /** Lead-in unit ("Before deploying:") of a unit, as segment assigns `leadIn` (list parents are in `parent`). */
  lead: Int32Array;
}

/** Build the layout of units in source order (as returned by segment/classifyMarkdown). */
export function buildLayout(units: readonly ClassifiedUnit[]): Layout {
  const n = units.length;
  const parent = new Int32Array(n).fill(-1);
  const heading = new Int32Array(n).fill(-1);
  const tableHead = new Int32Array(n).fill(-1);
  const tableSep = new Int32Array(n).fill(-1);
  const fenceOwner = new Int32Array(n).fill(-1);
  const lead = new Int32Array(n).fill(-1);
  let colon = -1;
  const fenceAt = new Map<number, number>();
  units.forEach((u, i) => {
    if (u.kind === "fence") fenceAt.set(u.line, i);
  });
  const heads: { level: number; i: number }[] = [];
  let list: number[] = [];
  let head = -1;
  let sep = -1;
  for (let i = 0; i < n; i++) {
    const u = units[i] as ClassifiedUnit;
    if (u.kind === "heading") {
      while (heads.length && (heads[heads.length - 1] as { level: number }).level >= u.level) heads.pop();
      heading[i] = heads.length ? (heads[heads.length - 1] as { i: number }).i : -1;
      heads.push({ level: u.level, i });
      list = [];
    } else {
      heading[i] = heads.length ? (heads[heads.length - 1] as { i: number }).i : -1;
    }
    // Lead-ins mirror segment's `leadIn`, so an emitted unit keeps the context the classifier saw:
    // a code block's lead-in is the non-blank unit just above it (none after a fence or heading);
    // another unit's is the last paragraph line ending in ":" since the heading (a list parent wins).
    if (u.kind === "heading") colon = -1;
    else if (u.leadIn !== "" && u.kind === "code") {
      let j = i - 1;
      if (j >= 0 && (units[j] as ClassifiedUnit).kind === "fence" && units[j]?.line === u.fence?.openLine) j--; // its own opening fence
      while (j >= 0 && (units[j] as ClassifiedUnit).kind === "blank") j--;
      const k = j >= 0 ? (units[j] as ClassifiedUnit).kind : "fence";
      if (k !== "fence" && k !== "heading") lead[i] = j;
    } else if (u.leadIn !== "" && colon >= 0 && (u.kind === "line" || u.kind === "list-item" || u.kind === "table-row" || u.kind === "table-header")) {
      if (u.depth === 0 || u.kind === "table-row" || u.kind === "table-header") lead[i] = colon;
    }
    if (u.kind === "line" && /[:：]\s*$/.test(u.text.replace(/[*_`]+/g, "").trim())) colon = i;
    if (u.kind === "list-item") {
      parent[i] = u.depth > 0 ? (list[u.depth - 1] ?? -1) : -1;
      list.length = u.depth;
      list[u.depth] = i;
    } else if ((u.kind === "line" || u.kind === "code") && u.depth > 0) {
      parent[i] = list[u.depth - 1] ?? -1;
    } else if (u.kind === "line" && u.depth === 0) {
      list = [];
    }
    if (u.kind === "table-header") {
      head = i;
      sep = -1;
    } else if (u.kind === "table-separator") {
      sep = head >= 0 && sep < 0 ? i : sep;
    } else if (u.kind === "table-row") {
      tableHead[i] = head;
      tableSep[i] = sep;
      if (head >= 0 && sep < 0) head = -1;
    } else {
      head = -1;
      sep = -1;
    }
    if (u.kind === "code" && u.fence) {
      const o = fenceAt.get(u.fence.openLine);
      if (o !== undefined) fenceOwner[o] = i;
      const c = u.fence.closeLine === null ? undefined : fenceAt.get(u.fence.closeLine);
      if (c !== undefined) fenceOwner[c] = i;
    }
  }
  return { units, parent, heading, tableHead, tableSep, fenceOwner, lead };
}

/** The text a unit renders as: a code unit with its fences (an unclosed fence gets a matching close). */
export function renderUnit(u: ClassifiedUnit, text: string): string {
  if (u.kind !== "code" || !u.fence) return text;
  const close = u.fence.close ?? (/^\s*(`{3,}|~{3,})/.exec(u.fence.open)?.[0] ?? "```");
  return `${u.fence.open}\n${text}\n${close}`;
}

/**
 * Close an emitted set over layout dependencies: enclosing headings, parent list items, lead-in
 * line and table header/separator of every emitted unit; a horizontal rule only between two emitted neighbours.
 * Mutates and returns `emit` (1 = emitted).
 */
export function closeOver(layout: Layout, emit: Uint8Array): Uint8Array {
  const { units, parent, heading, tableHead, tableSep, lead } = layout;
  for (let i = units.length - 1; i >= 0; i--) {
    if (!emit[i]) continue;
    const l = lead[i] as number;
    if (l >= 0) emit[l] = 1;
    for (let p = parent[i] as number; p >= 0 && !emit[p]; p = parent[p] as number) {
      emit[p] = 1;
      for (let h = heading[p] as number; h >= 0 && !emit[h]; h = heading[h] as number) emit[h] = 1;
    }
    for (let h = heading[i] as number; h >= 0 && !emit[h]; h = heading[h] as number) emit[h] = 1;
    const th = tableHead[i] as number;
    const ts = tableSep[i] as number;
    if (th >= 0) emit[th] = 1;
    if (ts >= 0) emit[ts] = 1;
  }
  let prev = -1;
  for (let i = 0; i < units.length; i++) {
    const k = (units[i] as ClassifiedUnit).kind;
    if (k === "blank") continue;
    if (k === "rule") {
      let next = i + 1;
      while (next < units.length && (units[next] as ClassifiedUnit).kind === "blank") next++;
      emit[i] = prev >= 0 && emit[prev] && next < units.length && emit[next] && (units[next] as ClassifiedUnit).kind !== "rule" ? 1 : 0;
    }
    prev = i;
  }
  return emit;
}

/**
 * Walk the emitted units in order and either count tokens or build the text. Between two emitted
 * units the original blank lines are kept when nothing was dropped between them, else collapsed
 * to one (none if there were none). Every line ends with "\n".
 */
function walk(layout: Layout, emit: Uint8Array, textOf: (i: number) => string, costOf: ((i: number) => number) | null): { cost: number; text: string } {
  const { units, fenceOwner } = layout;
  let cost = 0;
  const out: string[] = [];
  let started = false;
  let blanks = 0;
  let dropped = false;
  for (let i = 0; i < units.length; i++) {
    const u = units[i] as ClassifiedUnit;
    if (u.kind === "blank") {
      blanks++;
      continue;
    }
    const owner = fenceOwner[i] as number;
    if (u.kind === "fence" && owner >= 0 && emit[owner]) continue;
    if (!emit[i] || u.kind === "fence") {
      dropped = true;
      continue;
    }
    const gap = started ? (dropped ? Math.min(blanks, 1) : blanks) : 0;
    if (costOf) cost += gap + costOf(i);
    else {
      for (let g = 0; g < gap; g++) out.push("");
      out.push(textOf(i));
    }
    started = true;
    blanks = 0;
    dropped = false;
  }
  return { cost, text: out.length ? `${out.join("\n")}\n` : "" };
}

/** Exact token cost of rendering `emit` (equals estimateTokens(renderEmitted(...))). */
export function measureEmitted(layout: Layout, emit: Uint8Array, costOf: (i: number) => number): number {
  return walk(layout, emit, () => "", costOf).cost;
}

/** Render the emitted units; `textOf(i)` gives the unit's chosen text (already fence-wrapped for code). */
export function renderEmitted(layout: Layout, emit: Uint8Array, textOf: (i: number) => string): string {
  return walk(layout, emit, textOf, null).text;
}

/** Token cost of one rendered unit including its line break. */
export function lineCost(rendered: string): number {
  return estimateTokens(rendered) + 1;
}
