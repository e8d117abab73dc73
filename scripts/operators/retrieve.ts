/**
 * TypeRetrieve: the k best units of a memory base for a query, in-scope rules first. Pure.
 */
import { tokenize } from "../engine/tokenize.js";
import type { ClassifiedUnit } from "../engine/types.js";
import { bm25Scores, isStopWord, termHashes, terms } from "./bm25.js";
import type { MemoryDoc } from "./decompose.js";
import { isRule, ruleMass } from "./policy.js";
import { frontmatterGlobs, inferUnitScope, matchesPath, type Scope } from "./scope.js";

/** One retrieved unit. `why` says why a rule is in scope (null for units ranked by BM25 only). */
export interface RetrieveHit {
  doc: string;
  line: number;
  endLine: number;
  text: string;
  type: ClassifiedUnit["type"];
  rule: boolean;
  inScope: boolean;
  why: string | null;
  /** BM25 score of the unit (text plus its section headings) for the query; >= 0. */
  score: number;
  scope: Scope | null;
}

/** Options: result count k (default 10) and the file path being worked on (for path-scoped rules). */
export interface RetrieveOptions {
  k?: number;
  path?: string;
}

/** Result: hits in rank order, how many rules were in scope, and whether they alone exceed k. */
export interface RetrieveResult {
  hits: RetrieveHit[];
  inScope: number;
  /** True when in-scope rules outnumber k: all of them are returned (hits.length > k) rather than cut. */
  exceeded: boolean;
}

const RANK = { path: 0, topic: 1, global: 2 } as const;

/**
 * Rank the content units (not headings, frontmatter or structure) of `docs` (as decideUnits returns
 * them) for `query`. In scope (ranked first, never cut): rules (isRule) whose inferUnitScope is
 * global, whose path globs match `opts.path` (matchesPath), or whose topics share a term with the
 * query; ordered path > topic > global, then BM25. The rest follow by Okapi BM25 (bm25.ts) over the
 * unit text and its nearest heading, score > 0 only, ties by rule probability mass then document
 * order, until k hits. A doc whose frontmatter has `paths:` scopes its rules; a lone H1 is a title, not a topic.
 */
export function retrieve(docs: readonly MemoryDoc[], query: string, opts: RetrieveOptions = {}): RetrieveResult {
  const k = opts.k ?? 10;
  const items: { doc: string; u: ClassifiedUnit; rule: boolean; fm: string[]; title: string | null }[] = [];
  for (const d of docs) {
    const fm = d.units[0]?.kind === "frontmatter" ? frontmatterGlobs(d.units[0].text) : [];
    const h1 = d.units.filter((u) => u.kind === "heading" && u.level === 1);
    const title = h1.length === 1 ? (h1[0] as ClassifiedUnit).text.replace(/^\s*#\s*/, "").replace(/\s*#*\s*$/, "") : null;
    for (const u of d.units) {
      if (u.type === "structure" || u.kind === "frontmatter" || u.kind === "heading") continue;
      items.push({ doc: d.name, u, rule: isRule(u), fm, title });
    }
  }
  const q = topicKeys(query);
  // Terms of a unit's nearest heading are computed once per heading text.
  const headingTerms = new Map<string, number[]>();
  const docsTerms = items.map(({ u }) => {
    const h = u.headings[u.headings.length - 1] ?? "";
    let ht = headingTerms.get(h);
    if (!ht) headingTerms.set(h, (ht = termHashes(h)));
    return termHashes(u.text).concat(ht);
  });
  const scores = bm25Scores(docsTerms, termHashes(query));
  const inScope: { hit: RetrieveHit; rank: number }[] = [];
  const rest: { hit: RetrieveHit; mass: number; order: number }[] = [];
  items.forEach(({ doc, u, rule, fm, title }, i) => {
    let scope: Scope | null = null;
    let why: string | null = null;
    let rank = 3;
    if (rule) {
      scope = inferUnitScope(u, title !== null && u.headings[0] === title ? u.headings.slice(1) : u.headings);
      if (scope.kind !== "path" && fm.length > 0) scope = { ...scope, kind: "path", globs: fm, reason: `path ${fm.join(", ")} from the file's frontmatter` };
      if (scope.kind === "global") why = "global rule";
      else if (scope.kind === "path" && opts.path !== undefined && matchesPath(scope.globs, opts.path)) why = `path ${scope.globs.join(", ")} matches ${opts.path}`;
      else if (scope.kind === "topic") {
        const t = scope.topics.find((topic) => topicMatches(topicKeys(topic), q));
        if (t !== undefined) why = `topic "${t}" matches the query`;
        // A rule of another section that speaks of what the query asks ("Never deploy on Fridays" under "## Release"
        // for "can I deploy on friday?") is in scope too: its own words name the subject.
        else if (topicMatches(topicKeys(u.text), q)) why = "its text matches the query";
      }
      if (why) rank = RANK[scope.kind];
    }
    const hit: RetrieveHit = { doc, line: u.line, endLine: u.endLine, text: u.text, type: u.type, rule, inScope: why !== null, why, score: scores[i] as number, scope };
    if (why) inScope.push({ hit, rank });
    else if (hit.score > 0) rest.push({ hit, mass: ruleMass(u.scores), order: i });
  });
  inScope.sort((a, b) => a.rank - b.rank || b.hit.score - a.hit.score);
  rest.sort((a, b) => b.hit.score - a.hit.score || b.mass - a.mass || a.order - b.order);
  const hits = inScope.map((x) => x.hit).concat(rest.slice(0, Math.max(0, k - inScope.length)).map((x) => x.hit));
  return { hits, inScope: inScope.length, exceeded: inScope.length > k };
}

/** The keys a topic and a query are matched on (topicKeys). */
interface TopicKeys {
  /** bm25.ts terms plus the classifier's stems (engine/tokenize.ts: Snowball/Porter per guessed language), as "s:stem". */
  keys: Set<string>;
  /** The words themselves (lower-cased, function words left out), for the prefix rule of topicMatches. */
  words: string[];
}

/** Keys of a topic or a query: see TopicKeys. */
function topicKeys(text: string): TopicKeys {
  const { words, raw } = tokenize(text);
  const keep = raw.map((w, i) => !isStopWord(w) && !isStopWord(words[i] as string));
  return {
    keys: new Set(terms(text).concat(words.filter((_, i) => keep[i]).map((w) => `s:${w}`))),
    words: raw.filter((_, i) => keep[i]),
  };
}

/** Length of the common prefix of two strings, in code units. */
function commonPrefix(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

/**
 * True when a topic and a query share a key, or a word of one (4+ characters) begins a word of the other, or two words
 * begin with the same 6+ characters: stemmers
 * disagree on derived forms ("deploy" is "deploi" to Porter, "deployment" is "deploy"), and a section named
 * "Deployment" is about deploying.
 */
function topicMatches(topic: TopicKeys, query: TopicKeys): boolean {
  for (const k of topic.keys) if (query.keys.has(k)) return true;
  for (const a of topic.words)
    for (const b of query.words) {
      const [short, long] = a.length <= b.length ? [a, b] : [b, a];
      if (short.length >= 4 && long.startsWith(short)) return true;
      // Two derived forms of one word ("deploying" / "deployment", "bereitstellen" / "Bereitstellung"): 6+ letters in common.
      if (short.length >= 6 && commonPrefix(short, long) >= 6) return true;
    }
  return false;
}
