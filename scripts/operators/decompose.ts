/**
 * TypeDecompose: split a memory base into partitions (by top-level section or by size) and copy
 * every rule into each partition it governs (scope.ts decides what a rule governs). Pure.
 */
import { estimateTokens } from "../engine/budget.js";
import type { ClassifiedUnit } from "../engine/types.js";
import { buildLayout, closeOver, renderEmitted, renderUnit, type Layout } from "./layout.js";
import { isRule } from "./policy.js";
import { compileGlobs, globsOverlap, headingPaths, headingTopic, inferUnitScope, namedIdentifiers, normaliseGlob, probesOf, type Scope } from "./scope.js";

/** One memory file of the base: a display name and its classified units in source order. */
export interface MemoryDoc {
  name: string;
  units: readonly ClassifiedUnit[];
}

/** A rule of the base with its scope and home partition. */
export interface BaseRule {
  doc: number;
  index: number;
  unit: ClassifiedUnit;
  scope: Scope;
  home: string;
  /**
   * Set for a linked fact: a unit below the rule threshold that names an identifier (in backticks) that
   * a rule in another partition also names; copied like a rule, with this note (e.g. "names `cust_key`, as the rule at L15 does").
   */
  linked?: string;
}

/** A partition: its native units, the rules copied in (with why), and its rendered markdown. */
export interface Partition {
  id: string;
  title: string;
  doc: string;
  /** Globs this partition is about: paths in its headings and paths its units name. */
  paths: string[];
  /** Lower-cased heading topics and identifiers named in its units. */
  topics: string[];
  /** Native units as [doc index, unit index]. */
  units: [number, number][];
  copied: { rule: BaseRule; why: string }[];
  tokens: number;
  text: string;
}

/** Options: partition by top-level section (default) or pack into partitions of at most maxTokens tokens. */
export type DecomposeOptions = { /** Copy linked facts (default true; false = classifier rules only). */ linkFacts?: boolean } & ({ by: "section" } | { by: "size"; maxTokens: number });

/** Result: partitions, every rule of the base, and the locality violations found (always [] by construction). */
export interface Decomposition {
  partitions: Partition[];
  rules: BaseRule[];
  violations: { partition: string; rule: BaseRule }[];
}

const PATH_ANYWHERE = /(?:\.{0,2}\/)?[\w@.-]+(?:\/[\w@.*{}-]+)+\/?|\b[\w-]+\.(?:tsx?|jsx?|py|go|rs|java|kt|rb|php|cs|md|css|scss|sql|ya?ml|json|sh|vue|svelte|html)\b/g;

const MAYBE_FILE = /\.(?:tsx?|jsx?|py|go|rs|java|kt|rb|php|cs|md|css|scss|sql|ya?ml|json|sh|vue|svelte|html)\b/;

function headingText(u: ClassifiedUnit): string {
  let t = u.text.replace(/^\s*#{1,6}\s*/, "").trimEnd();
  // A closing sequence of "#" counts only after a space (CommonMark ATX headings).
  const m = / #+$/.exec(t);
  if (m) t = t.slice(0, m.index).trimEnd();
  return t;
}

/** Heading texts of a unit's section chain for scope decisions; a lone H1 (the document title) is left out. */
export function scopeHeadings(layout: Layout, i: number, loneH1: boolean): string[] {
  const out: string[] = [];
  for (let h = layout.heading[i] as number; h >= 0; h = layout.heading[h] as number) {
    const u = layout.units[h] as ClassifiedUnit;
    if (!(loneH1 && u.level === 1)) out.unshift(headingText(u));
  }
  return out;
}

/** True when `scope` (of a rule whose home is `home`) governs partition `p`; also returns why. */
export function governs(scope: Scope, home: string, p: Pick<Partition, "id" | "paths" | "topics">): string | null {
  if (p.id === home) return "home";
  if (scope.kind === "global") return "global rule";
  if (scope.kind === "path") {
    if (p.paths.length > 0 && globsOverlap(scope.globs, p.paths)) return `path ${scope.globs.join(", ")} matches ${p.paths.join(", ")}`;
    return null;
  }
  const hit = scope.topics.find((t) => p.topics.includes(t));
  return hit === undefined ? null : `topic "${hit}"`;
}

function slug(s: string): string {
  const v = s.toLowerCase().replace(/[`*_#]/g, "").replace(/[^\p{L}\p{N}]+/gu, "-").replace(/^-+|-+$/g, "").slice(0, 60);
  return v === "" ? "section" : v;
}

/** Cut one document into groups of unit indexes (section or size mode). */
function cut(layout: Layout, opts: DecomposeOptions): { title: string; idx: number[] }[] {
  const units = layout.units;
  const groups: { title: string; idx: number[] }[] = [];
  const text = (i: number) => (units[i] as ClassifiedUnit).text.replace(/^\s*#{1,6}\s*/, "").trim();
  if (opts.by === "section") {
    const counts = new Map<number, number>();
    for (const u of units) if (u.kind === "heading") counts.set(u.level, (counts.get(u.level) ?? 0) + 1);
    const level = [...counts.keys()].sort((a, b) => a - b).find((l) => (counts.get(l) ?? 0) >= 2);
    let cur = { title: "preamble", idx: [] as number[] };
    units.forEach((u, i) => {
      if (level !== undefined && u.kind === "heading" && u.level === level) {
        if (cur.idx.length) groups.push(cur);
        cur = { title: text(i), idx: [] };
      }
      cur.idx.push(i);
    });
    if (cur.idx.length) groups.push(cur);
  } else {
    let cur = { title: "", idx: [] as number[] };
    let size = 0;
    units.forEach((u, i) => {
      const cost = estimateTokens(u.text) + 1;
      const owner = layout.fenceOwner[i] as number;
      // A fenced block (open fence, code, close fence) is one atom: only its opening fence may start a partition.
      const atomStart = u.kind !== "code" && !(u.kind === "fence" && owner >= 0 && owner < i);
      if (atomStart && size + cost > opts.maxTokens && cur.idx.some((j) => (units[j] as ClassifiedUnit).type !== "structure")) {
        groups.push(cur);
        cur = { title: "", idx: [] };
        size = 0;
      }
      if (cur.title === "" && u.kind === "heading") cur.title = text(i);
      cur.idx.push(i);
      size += cost;
    });
    if (cur.idx.length) groups.push(cur);
    groups.forEach((g, k) => {
      if (g.title === "") g.title = `part ${k + 1}`;
    });
  }
  // Groups with nothing but structure and headings hold no content: fold them into the next group.
  const out: { title: string; idx: number[] }[] = [];
  let carry: number[] = [];
  for (const g of groups) {
    const content = g.idx.some((i) => units[i]?.type !== "structure" && units[i]?.kind !== "heading");
    if (!content) carry = carry.concat(g.idx);
    else {
      out.push({ title: g.title, idx: carry.concat(g.idx) });
      carry = [];
    }
  }
  if (carry.length) {
    if (out.length) out[out.length - 1]?.idx.push(...carry);
    else out.push({ title: "preamble", idx: carry });
  }
  return out;
}

/**
 * Decompose memory docs (units as decideUnits returns them) into partitions. Every rule (isRule) gets a scope
 * (inferUnitScope over its text and section headings) and is copied verbatim into every other partition it governs (governs()).
 * Output partitions are in document order with unique ids; `violations` lists partitions lacking a
 * governing rule (checked after copying; empty unless the scope logic is broken).
 */
export function decompose(docs: readonly MemoryDoc[], opts: DecomposeOptions): Decomposition {
  const partitions: Partition[] = [];
  const rules: BaseRule[] = [];
  const layouts = docs.map((d) => buildLayout(d.units));
  const used = new Set<string>();
  const identifiers = new Map<number, string[]>(); // doc * 1e6 + unit index -> namedIdentifiers, computed once
  docs.forEach((doc, d) => {
    const layout = layouts[d] as Layout;
    const loneH1 = doc.units.filter((u) => u.kind === "heading" && u.level === 1).length === 1;
    for (const g of cut(layout, opts)) {
      let id = slug(docs.length > 1 ? `${doc.name.replace(/\.[^.]+$/, "")}-${g.title}` : g.title);
      for (let k = 2; used.has(id); k++) id = `${slug(g.title)}-${k}`;
      used.add(id);
      const paths = new Set<string>();
      const topics = new Set<string>();
      const seenHeads = new Set<number>();
      for (const i of g.idx) {
        const u = doc.units[i] as ClassifiedUnit;
        if (u.type === "structure") continue;
        for (let h = u.kind === "heading" ? i : (layout.heading[i] as number); h >= 0 && !seenHeads.has(h); h = layout.heading[h] as number) {
          seenHeads.add(h);
          const ht = headingText(doc.units[h] as ClassifiedUnit);
          const t = headingTopic(ht);
          if (t) topics.add(t);
          for (const gl of headingPaths(ht)) paths.add(gl);
        }
        const ids = namedIdentifiers(u.text);
        if (ids.length) identifiers.set(d * 1_000_000 + i, ids);
        for (const id2 of ids) topics.add(id2);
        if (u.text.includes("/") || MAYBE_FILE.test(u.text)) {
          for (const m of u.text.matchAll(PATH_ANYWHERE)) {
            const gl = normaliseGlob(m[0]);
            if (gl && !m[0].includes("://")) paths.add(gl);
          }
        }
        if (isRule(u)) {
          rules.push({ doc: d, index: i, unit: u, scope: inferUnitScope(u, scopeHeadings(layout, i, loneH1)), home: id });
        }
      }
      partitions.push({ id, title: g.title, doc: doc.name, paths: [...paths], topics: [...topics], units: g.idx.map((i) => [d, i]), copied: [], tokens: 0, text: "" });
    }
  });
  if (opts.linkFacts !== false) addLinkedFacts(docs, layouts, partitions, rules, identifiers);
  const governsFast = makeGoverns(partitions, rules);
  const violations: { partition: string; rule: BaseRule }[] = [];
  // governs() is evaluated once per (rule, partition) pair; the locality check below reuses the matrix.
  const R = rules.length;
  const governed = new Uint8Array(partitions.length * R);
  partitions.forEach((p, pi) => {
    rules.forEach((r, ri) => {
      if (r.home === p.id) return;
      const why = governsFast(ri, pi);
      if (!why) return;
      governed[pi * R + ri] = 1;
      p.copied.push({ rule: r, why: r.linked ? `${why}; linked fact: ${r.linked}` : why });
    });
    p.text = renderPartition(p, layouts);
    p.tokens = estimateTokens(p.text);
  });
  // Locality check after copying: every governing rule must be native or copied (by construction).
  partitions.forEach((p, pi) => {
    const has = new Set<BaseRule>(p.copied.map((c) => c.rule));
    rules.forEach((r, ri) => {
      if (governed[pi * R + ri] && !has.has(r)) violations.push({ partition: p.id, rule: r });
    });
  });
  return { partitions, rules, violations };
}

/**
 * Linked facts (a recall net for rules the classifier scored low): a content unit that is not a rule,
 * not episodic, not a heading or code block, and names an identifier in backticks that a rule homed in
 * another partition also names. A fact about what a rule governs ("dedupe on `cust_key` + `month`" next to a
 * rule on `cust_key`) is needed wherever that rule is read. Appended to `rules` with `linked` set and
 * its own inferUnitScope, so it is copied and locality-checked like a rule. Mutates `rules`.
 */
function addLinkedFacts(docs: readonly MemoryDoc[], layouts: readonly Layout[], partitions: readonly Partition[], rules: BaseRule[], identifiers: ReadonlyMap<number, string[]>): void {
  const ruleIds = new Map<string, BaseRule>();
  for (const r of rules) if (r.unit.kind !== "code") for (const id of identifiers.get(r.doc * 1_000_000 + r.index) ?? []) if (!ruleIds.has(id)) ruleIds.set(id, r);
  if (ruleIds.size === 0) return;
  const isRuleAt = new Set(rules.map((r) => r.doc * 1_000_000 + r.index));
  const loneH1 = docs.map((doc) => doc.units.filter((u) => u.kind === "heading" && u.level === 1).length === 1);
  for (const p of partitions) {
    for (const [d, i] of p.units) {
      const u = (docs[d] as MemoryDoc).units[i] as ClassifiedUnit;
      const ids = identifiers.get(d * 1_000_000 + i);
      if (ids === undefined || u.type === "structure" || u.type === "episodic" || u.kind === "heading" || u.kind === "code" || u.kind === "frontmatter") continue;
      if (isRuleAt.has(d * 1_000_000 + i)) continue;
      const hit = ids.find((id) => {
        const r = ruleIds.get(id);
        return r !== undefined && r.home !== p.id;
      });
      if (hit === undefined) continue;
      const r = ruleIds.get(hit) as BaseRule;
      rules.push({ doc: d, index: i, unit: u, scope: inferUnitScope(u, scopeHeadings(layouts[d] as Layout, i, loneH1[d] as boolean)), home: p.id, linked: `names \`${hit}\`, as the rule at L${r.unit.line} does` });
    }
  }
}

/** governs() with the globs of every rule and partition compiled once: (rule index, partition index) -> why | null. */
function makeGoverns(partitions: readonly Partition[], rules: readonly BaseRule[]): (ri: number, pi: number) => string | null {
  const parts = partitions.map((p) => ({ probes: p.paths.flatMap((g) => probesOf(g)), match: p.paths.length ? compileGlobs(p.paths) : null, topics: new Set(p.topics) }));
  const rs = rules.map((r) =>
    r.scope.kind === "path" ? { match: compileGlobs(r.scope.globs), bases: r.scope.globs.map((g) => probesOf(g)[1]).filter((b): b is string => b !== undefined) } : null,
  );
  return (ri, pi) => {
    const r = rules[ri] as BaseRule;
    const p = parts[pi] as (typeof parts)[number];
    if (r.scope.kind === "global") return "global rule";
    if (r.scope.kind === "path") {
      const c = rs[ri] as { match: (x: string) => boolean; bases: string[] };
      const hit = p.match !== null && (p.probes.some(c.match) || c.bases.some(p.match));
      return hit ? `path ${r.scope.globs.join(", ")} matches ${(partitions[pi] as Partition).paths.join(", ")}` : null;
    }
    const t = r.scope.topics.find((x) => p.topics.has(x));
    return t === undefined ? null : `topic "${t}"`;
  };
}

/** Partitions that lack a rule governing them (native or copied). Used by decompose, tests and the benchmark. */
export function localityViolations(partitions: readonly Partition[], rules: readonly Pick<BaseRule, "doc" | "index" | "scope" | "home">[]): { partition: string; rule: BaseRule }[] {
  const out: { partition: string; rule: BaseRule }[] = [];
  const key = (d: number, i: number): number => d * 1_000_000 + i;
  for (const p of partitions) {
    const has = new Set<number>();
    for (const [d, i] of p.units) has.add(key(d, i));
    for (const c of p.copied) has.add(key(c.rule.doc, c.rule.index));
    for (const r of rules) if (!has.has(key(r.doc, r.index)) && governs(r.scope, r.home, p)) out.push({ partition: p.id, rule: r as BaseRule });
  }
  return out;
}

/**
 * A partition's markdown: its own units (with the headings and lead-ins they need), then the rules
 * copied in, each under its original heading lines (verbatim), so a list under "## NEVER" keeps its sense.
 */
function renderPartition(p: Partition, layouts: readonly Layout[]): string {
  const d = p.units[0]?.[0] ?? 0;
  const layout = layouts[d] as Layout;
  const emit = new Uint8Array(layout.units.length);
  for (const [, i] of p.units) emit[i] = layout.units[i]?.kind === "fence" ? 0 : 1;
  const own = renderEmitted(layout, closeOver(layout, emit), (i) => renderUnit(layout.units[i] as ClassifiedUnit, (layout.units[i] as ClassifiedUnit).text));
  if (p.copied.length === 0) return own;
  const out: string[] = [own.replace(/\n+$/, ""), "", "<!-- rules copied from other sections: see manifest.json -->"];
  let current: string[] = [];
  const sorted = [...p.copied].sort((a, b) => a.rule.doc - b.rule.doc || a.rule.index - b.rule.index);
  for (const { rule } of sorted) {
    const lay = layouts[rule.doc] as Layout;
    const chain: number[] = [];
    for (let h = rule.unit.kind === "heading" ? rule.index : (lay.heading[rule.index] as number); h >= 0; h = lay.heading[h] as number) chain.unshift(h);
    const keys = chain.map((h) => `${rule.doc}:${h}`);
    let common = 0;
    while (common < keys.length && keys[common] === current[common]) common++;
    for (let k = common; k < chain.length; k++) out.push("", (lay.units[chain[k] as number] as ClassifiedUnit).text);
    if (common === keys.length && common < current.length) out.push("");
    current = keys;
    if (rule.unit.kind !== "heading") {
      if (chain.length === 0 && out[out.length - 1] !== "") out.push("");
      out.push(renderUnit(rule.unit, rule.unit.text));
    }
  }
  return `${out.join("\n").replace(/\n{3,}/g, "\n\n")}\n`;
}
