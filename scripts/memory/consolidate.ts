/**
 * Consolidation of extracted statements into the rule store (pure; mutates only the store passed in):
 * near-duplicate merge with a count, "never rewritten by a weaker paraphrase", retractions that retire
 * an earlier rule, contradictions (same content, opposite polarity) that replace it, and scoped
 * exceptions that refine it. Similarity is over content terms (stemmed words from engine/tokenize.ts,
 * minus stopwords and cue words; CJK character bigrams).
 */
import { createHash } from "node:crypto";
import { findWithdrawTarget, findWithdrawTargets, narrowingOf, targetClause, untouchedClauses } from "./withdraw.js";
import { tokenize } from "../engine/tokenize.js";
import { EXCEPTION_CJK, EXCEPTION_RE, OUTPUT_LANGUAGE_RE } from "./durability.js";
import type { Rule, RuleSource, Store } from "./store/store-schema.js";

/** Jaccard similarity at or above which two same-polarity, same-scope rules are one rule. */
export const DUPLICATE_JACCARD = 0.6;
/** Overlap coefficient (|A∩B|/min(|A|,|B|)) at or above which a retraction targets a rule. */
export const RETRACT_OVERLAP = 0.4;
/**
 * Share of a rule's head terms (its action/object: the text before any exception clause) that a scoped
 * exception's head must repeat to refine that rule ("never force-push" -> "you may force-push to your own
 * feature branches": 2/2). Rules that only share a template ("Never let X touch Y unless Z ...") share
 * one or two of their head terms and stay separate rules.
 */
export const REFINE_HEAD_SHARE = 0.75;

const STOP = new Set(
  ("a an the to of in on at for with and or but is are be been being it its this that these those you your we our i me my " +
    "please pls can could would will may might should shall must do does did don't doesn't not no never always ever " +
    "from now going forward remember reminder reminders note also just again every each all any more anymore longer actually " +
    "ok okay so then there here by as it's that's make sure rule rules need needs time times one before after when whenever " +
    "allowed fine now feel free until it's us forget ignore disregard scratch mind what said about still keep us let let's instead").split(" "),
);
const NEG_RE = /(?<![\p{L}])(?:never|don'?t|do not|does not|doesn'?t|mustn'?t|must not|cannot|can'?t|no|not|avoid|nunca|jamás|no debes|niemals|nie|nicht|kein|keine|jamais|ne|никогда|не|нельзя)(?![\p{L}])|不要|别|禁止|不得|不能|绝不|しないで|してはいけない|禁止|하지 ?마|금지/iu;

/** Polarity of a rule: "neg" when it prohibits (never, don't, 不要, нельзя ...), else "pos". */
export function polarityOf(text: string): "pos" | "neg" {
  return NEG_RE.test(text.replace(/`[^`]*`/g, " ")) ? "neg" : "pos";
}

/** Texts remembered per memo below; a memo is emptied when it reaches this size. */
const MEMO_MAX = 20_000;

/** `compute(text)` remembered in `memo` (emptied at MEMO_MAX entries). Results are shared: do not mutate. */
function memoized<T>(memo: Map<string, T>, text: string, compute: (text: string) => T): T {
  const hit = memo.get(text);
  if (hit !== undefined) return hit;
  const value = compute(text);
  if (memo.size > MEMO_MAX) memo.clear();
  memo.set(text, value);
  return value;
}

const termCache = new Map<string, string[]>();

/** Content terms of a text: stemmed words minus stopwords and cue words, plus CJK bigrams. Sorted, unique; cached (do not mutate). */
export function contentTerms(text: string): string[] {
  return memoized(termCache, text, computeTerms);
}

function computeTerms(text: string): string[] {
  const t = tokenize(text.replace(/\[REDACTED\]/g, " "));
  const out = new Set<string>();
  t.words.forEach((w, i) => {
    if (w.length < 2 && !/\p{Script=Han}/u.test(w)) return;
    if (STOP.has(w) || STOP.has(t.raw[i] ?? "")) return;
    out.add(w);
  });
  for (const g of t.cjk) if ([...g].length === 2) out.add(g);
  return [...out].sort();
}

const idCache = new Map<string, { ids: string[]; key: string }>();

/** identifiers() with its set as one string (ids joined by NUL; "" when none), cached like contentTerms. */
function identifierSet(text: string): { ids: string[]; key: string } {
  return memoized(idCache, text, () => {
    const out = new Set<string>();
    for (const m of text.matchAll(/`[^`]+`|[\w.-]*\d[\w.-]*|[\w.-]+\/[\w./*-]*/g)) out.add(m[0].toLowerCase().replace(/[.]+$/, ""));
    const ids = [...out].sort();
    return { ids, key: ids.join("\u0000") };
  });
}

/** Identifier-like tokens (with a digit, inline code, or a path): rules naming different ones are different rules. Sorted, unique, lowercase; cached (do not mutate). */
export function identifiers(text: string): string[] {
  return identifierSet(text).ids;
}

/** True when both texts name identifiers and the sets differ ("port 8080" vs "port 9090"). */
export function identifiersDiffer(a: string, b: string): boolean {
  const x = identifierSet(a).key;
  const y = identifierSet(b).key;
  return x !== "" && y !== "" && x !== y;
}

/** A stemmed word of a text and whether it is a content term (not a stopword or cue word). */
interface Word {
  w: string;
  content: boolean;
}
const seqCache = new Map<string, Word[]>();

/** Stemmed words of a text in order, each flagged as a content term. Cached like contentTerms (do not mutate). */
function wordSeq(text: string): Word[] {
  return memoized(seqCache, text, () => {
    const t = tokenize(text.replace(/\[REDACTED\]/g, " "));
    return t.words.map((w, i) => ({ w, content: w.length >= 2 && !STOP.has(w) && !STOP.has(t.raw[i] ?? "") }));
  });
}

/**
 * True when two texts are instances of one template: aligned word by word (longest common subsequence of
 * stemmed words), some stretch is replaced by different content words on both sides ("touch the ledger
 * tables" vs "touch the feature flags"). A paraphrase replaces words with the same stems or only adds
 * cue words ("committing" vs "you commit"), so it is not a substitution. Such pairs are distinct rules.
 */
export function templateSubstitution(a: string, b: string): boolean {
  const x = wordSeq(a);
  const y = wordSeq(b);
  const n = x.length;
  const m = y.length;
  if (n === 0 || m === 0 || n * m > 40_000) return false;
  // L[i * w + j]: length of the longest common subsequence of x[i..] and y[j..] (one flat table per call).
  const w = m + 1;
  const L = new Uint16Array((n + 1) * w);
  for (let i = n - 1; i >= 0; i--) {
    const xi = (x[i] as Word).w;
    for (let j = m - 1; j >= 0; j--) {
      L[i * w + j] = xi === (y[j] as Word).w ? (L[(i + 1) * w + j + 1] as number) + 1 : Math.max(L[(i + 1) * w + j] as number, L[i * w + j + 1] as number);
    }
  }
  let i = 0;
  let j = 0;
  let hx: string[] = [];
  let hy: string[] = [];
  while (i < n || j < m) {
    const xi = x[i];
    const yj = y[j];
    if (xi && yj && xi.w === yj.w) {
      if (hunkDiffers(hx, hy)) return true;
      hx = [];
      hy = [];
      i++;
      j++;
    } else if (yj === undefined || (xi && (L[(i + 1) * w + j] as number) >= (L[i * w + j + 1] as number))) {
      if (xi?.content) hx.push(xi.w);
      i++;
    } else {
      if (yj.content) hy.push(yj.w);
      j++;
    }
  }
  return hunkDiffers(hx, hy);
}

/** True when both sides of a hunk have content words and they share none (a substitution). */
function hunkDiffers(hx: readonly string[], hy: readonly string[]): boolean {
  return hx.length > 0 && hy.length > 0 && !hx.some((w) => hy.includes(w));
}

/** Normalised key of a rule text: its content terms joined by spaces (CRLF, case, punctuation and cue words ignored). */
export function normKey(text: string): string {
  return contentTerms(text).join(" ");
}

/** Jaccard, overlap coefficient and shared-term count of two term sets. */
export function similarity(a: readonly string[], b: readonly string[]): { jaccard: number; overlap: number; shared: number } {
  const sb = new Set(b);
  let shared = 0;
  for (const x of new Set(a)) if (sb.has(x)) shared++;
  const union = new Set([...a, ...b]).size;
  const min = Math.min(new Set(a).size, sb.size);
  return { jaccard: union === 0 ? 0 : shared / union, overlap: min === 0 ? 0 : shared / min, shared };
}

/** Stable rule id: "r" + first 10 hex of sha256(key + globs). */
export function ruleId(key: string, globs: readonly string[]): string {
  return `r${createHash("sha256").update(`${key}\u0000${globs.join("\u0000")}`).digest("hex").slice(0, 10)}`;
}

/** How strong a wording is: standing/normative cue (2) + content terms + inline code (1). Higher = more complete. */
export function wordingStrength(text: string, terms: readonly string[]): number {
  const cue = /\b(?:always|never|must|don'?t|do not|from now on|only)\b/i.test(text) ? 2 : 0;
  return cue + terms.length + (/`[^`]+`/.test(text) ? 1 : 0);
}

/** A sentence judged durable (or a retraction/exception), ready to be applied to the store. */
export interface Statement {
  text: string;
  type: "constraint" | "procedural";
  globs: string[];
  score: number;
  source: RuleSource;
  origin: "transcript" | "pin";
  kind: "rule" | "retraction" | "exception";
  /** For a retraction: keep the statement itself as a permission rule (it relaxes a standing rule). */
  keepAsPermission?: boolean;
  until?: string;
  /** An explicit withdrawal ("forget the rule about X", "scrap …", "vergiss …"): its target may be found by meaning (withdraw.ts). */
  withdraw?: boolean;
  /** A refinement ("make that 15 minutes", "Korrektur: …", 更正): it supersedes the rule it refines (found by meaning, withdraw.ts). */
  refine?: boolean;
  /** For a retraction that names nothing ("That's over now."): the sentence before it, which names the target. */
  context?: string;
  /** An exception that points back at the rule it narrows ("I said X, but …", "X って言ったけど"): its parent may be found by meaning. */
  pointsBack?: boolean;
  /** A refinement too weak to stand alone ("make that 15 minutes"): stored only when it finds the rule it refines. */
  needsParent?: boolean;
  /** ISO time after which the rule no longer applies (expiry.ts). */
  expires?: string;
}

/** What applying one statement did. */
export interface Applied {
  action: "added" | "merged" | "reworded" | "retired" | "refined" | "duplicate-source" | "no-target";
  ruleId?: string;
  retired: string[];
}

const sameGlobs = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && a.every((g, i) => g === b[i]);
const sourceKey = (s: RuleSource): string => `${s.session}\u0000${s.offset}\u0000${s.n ?? 0}`;
const MAX_SOURCES = 50;

/**
 * Most candidate rules one similarity search looks at per statement (the duplicate, contradiction,
 * retraction-target and refinement-target searches): the CANDIDATE_CAP / 2 earliest and the
 * CANDIDATE_CAP / 2 most recent, in store order, of the rules in the search's scope that share enough
 * content terms with the statement. This bounds consolidation at O(CANDIDATE_CAP) rules per statement
 * whatever the transcript. At or below the cap every candidate is looked at, so results are exactly those
 * of the uncapped search. Why 1,024: the most candidates a search meets is 1 in the 15 labelled
 * transcripts and 600 in tests/memory (3,000 template rules, then a retraction); with 256, a 5,000-rule
 * template family with paraphrased restatements already consolidated differently. Why both ends: the
 * earliest rules hold a rule's first wording (what a restatement merges into), the latest the rules just
 * stated (what a retraction or a correction most often targets).
 */
export const CANDIDATE_CAP = 1024;

/**
 * Inverted index over a store's rules (content term -> rules), so each statement is compared only with
 * the rules that share a term with it instead of with every rule (extraction was quadratic: 10,000 rule
 * sentences took 148 s). Built lazily per store object and extended with rules appended since the last
 * call; rebuilt when the rules array is replaced or shrinks. A reworded rule is re-posted under its new
 * terms and key. Every list is in store order, so a search can read the earliest and the latest rules
 * first (CANDIDATE_CAP).
 */
interface RuleIndex {
  rules: Rule[];
  indexed: number;
  pos: Map<Rule, number>;
  terms: Map<Rule, { text: string; terms: string[]; key: string; ids: string }>;
  /** Postings by polarity and term (postingKey): a search reads only the polarity it needs. */
  postings: Map<string, Rule[]>;
  /** Postings by polarity, identifier set and term: the duplicate search reads only rules whose identifiers cannot differ. */
  idPostings: Map<string, Rule[]>;
  ids: Map<string, Rule>;
  /** Next collision suffix to try per base id (newRule), so k rules with one base cost O(k), not O(k²). */
  idNext: Map<string, number>;
  bySource: Map<string, Rule[]>;
  retiredKeys: Map<string, number>;
  /** Rules by exact key (globs, content terms, polarity: exactKey), for the restatement fast path. */
  byKey: Map<string, KeyGroup>;
  /** Active rules with an `expires` time, checked before every statement (few: only rules stated with a day as their end). */
  expiring: Rule[];
}
/** The rules of one exact key: all of them, and by identifier set ("" = naming none); each list in store order. */
interface KeyGroup {
  all: Rule[];
  byIds: Map<string, Rule[]>;
}
const indexes = new WeakMap<Store, RuleIndex>();

/** Exact key of a rule or statement: its globs, content terms and polarity. */
const exactKey = (globs: readonly string[], terms: readonly string[], polarity: "pos" | "neg"): string => `${globs.join("\u0000")}\u0001${terms.join(" ")}\u0001${polarity}`;

/** Insert `r` into a list kept in store order (appending is the common case; a reworded rule may go earlier). */
function insertInOrder(ix: RuleIndex, list: Rule[], r: Rule): void {
  const p = ix.pos.get(r) as number;
  const last = list[list.length - 1];
  if (last === undefined || (ix.pos.get(last) as number) < p) {
    list.push(r);
    return;
  }
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((ix.pos.get(list[mid] as Rule) as number) < p) lo = mid + 1;
    else hi = mid;
  }
  if (list[lo] !== r) list.splice(lo, 0, r);
}

const postingKey = (polarity: "pos" | "neg", term: string): string => `${polarity}\u0002${term}`;
const idPostingKey = (polarity: "pos" | "neg", ids: string, term: string): string => `${polarity}\u0002${ids}\u0002${term}`;

/** Add `r` to (d = 1) or remove it from (d = -1) the postings of `terms`, under its polarity and identifier set `ids`. */
function post(ix: RuleIndex, r: Rule, terms: readonly string[], ids: string, d: 1 | -1): void {
  for (const t of terms) {
    for (const [map, k] of [
      [ix.postings, postingKey(r.polarity, t)],
      [ix.idPostings, idPostingKey(r.polarity, ids, t)],
    ] as const) {
      const list = map.get(k);
      if (d < 0) {
        if (list) map.set(k, list.filter((x) => x !== r));
      } else if (!list) map.set(k, [r]);
      else insertInOrder(ix, list, r);
    }
  }
}

function indexSource(ix: RuleIndex, r: Rule, src: RuleSource): void {
  for (const k of src.uuid === undefined ? [sourceKey(src)] : [sourceKey(src), uuidKey(src)]) {
    const list = ix.bySource.get(k);
    if (!list) ix.bySource.set(k, [r]);
    else if (!list.includes(r)) list.push(r);
  }
}

/** Key of a source by its transcript line's uuid and sentence index (a replayed line has another offset, the same uuid). */
const uuidKey = (s: RuleSource): string => `uuid\u0000${s.uuid ?? ""}\u0000${s.n ?? 0}`;

const retiredKey = (r: Rule): string | undefined => (r.retiredAt && r.retiredBy !== undefined ? `${sourceKey(r.retiredAt)}\u0000${r.retiredBy}` : undefined);

function bump(ix: RuleIndex, key: string | undefined, d: number): void {
  if (key === undefined) return;
  const n = (ix.retiredKeys.get(key) ?? 0) + d;
  if (n > 0) ix.retiredKeys.set(key, n);
  else ix.retiredKeys.delete(key);
}

/** The index of `store`, brought up to date with its rules array (O(new rules)). */
function indexOf(store: Store): RuleIndex {
  let ix = indexes.get(store);
  if (!ix || ix.rules !== store.rules || ix.indexed > store.rules.length) {
    ix = {
      rules: store.rules,
      indexed: 0,
      pos: new Map(),
      terms: new Map(),
      postings: new Map(),
      idPostings: new Map(),
      ids: new Map(),
      idNext: new Map(),
      bySource: new Map(),
      retiredKeys: new Map(),
      byKey: new Map(),
      expiring: [],
    };
    indexes.set(store, ix);
  }
  for (; ix.indexed < store.rules.length; ix.indexed++) {
    const r = store.rules[ix.indexed] as Rule;
    ix.pos.set(r, ix.indexed);
    if (!ix.ids.has(r.id)) ix.ids.set(r.id, r);
    for (const s of r.sources) indexSource(ix, r, s);
    bump(ix, retiredKey(r), 1);
    termsOfRule(ix, r);
    if (r.expires !== undefined && r.status === "active") ix.expiring.push(r);
  }
  return ix;
}

/** Add `r` to (d = 1) or remove it from (d = -1) the exact-key lists of `key` and identifier set `ids`. */
function keyGroup(ix: RuleIndex, r: Rule, key: string, ids: string, d: 1 | -1): void {
  let g = ix.byKey.get(key);
  if (!g) {
    if (d < 0) return;
    g = { all: [], byIds: new Map() };
    ix.byKey.set(key, g);
  }
  let same = g.byIds.get(ids);
  if (!same) {
    same = [];
    g.byIds.set(ids, same);
  }
  if (d > 0) {
    insertInOrder(ix, g.all, r);
    insertInOrder(ix, same, r);
  } else {
    g.all = g.all.filter((x) => x !== r);
    g.byIds.set(ids, same.filter((x) => x !== r));
  }
}

/** Content terms of a rule's current text (re-indexed when the text changed). */
function termsOfRule(ix: RuleIndex, r: Rule): string[] {
  const hit = ix.terms.get(r);
  if (hit && hit.text === r.text) return hit.terms;
  const terms = computeTerms(r.text);
  const key = exactKey(r.globs, terms, r.polarity);
  const ids = identifierSet(r.text).key;
  ix.terms.set(r, { text: r.text, terms, key, ids });
  if (hit) {
    // Reworded (rare): re-post the rule under its new terms, identifiers and exact key.
    keyGroup(ix, r, hit.key, hit.ids, -1);
    post(ix, r, hit.terms, hit.ids, -1);
  }
  post(ix, r, terms, ids, 1);
  keyGroup(ix, r, key, ids, 1);
  return terms;
}

/** A candidate rule with its content terms and the similarity measures of similarity(), from shared counts. */
interface Cand {
  rule: Rule;
  terms: string[];
  shared: number;
  jaccard: number;
  overlap: number;
}

/** Size of the intersection of two sorted, unique term arrays (merge walk). */
function sharedCount(a: readonly string[], b: readonly string[]): number {
  let i = 0;
  let j = 0;
  let n = 0;
  while (i < a.length && j < b.length) {
    const x = a[i] as string;
    const y = b[j] as string;
    if (x === y) {
      n++;
      i++;
      j++;
    } else if (x < y) i++;
    else j++;
  }
  return n;
}

/**
 * The rules of several store-ordered lists, merged without repeats: from the earliest when `dir` is 1,
 * from the latest when it is -1. Each list holds a rule at most once, so repeats are at the list heads.
 */
function* merged(ix: RuleIndex, lists: readonly Rule[][], dir: 1 | -1): Generator<Rule> {
  const at = lists.map((l) => (dir > 0 ? 0 : l.length - 1));
  for (;;) {
    let next: Rule | undefined;
    let nextPos = 0;
    lists.forEach((l, i) => {
      const r = l[at[i] as number];
      if (r === undefined) return;
      const p = ix.pos.get(r) as number;
      if (next === undefined || (dir > 0 ? p < nextPos : p > nextPos)) {
        next = r;
        nextPos = p;
      }
    });
    if (next === undefined) return;
    lists.forEach((l, i) => {
      if (l[at[i] as number] === next) at[i] = (at[i] as number) + dir;
    });
    yield next;
  }
}

/**
 * Which rules a search reads: every rule (no fields), one polarity, or, for the duplicate search, one
 * polarity and the rules whose identifiers cannot differ from a statement naming `ids` (the same set, or
 * none; every rule when the statement names none).
 */
interface Scope {
  polarity?: "pos" | "neg";
  ids?: string;
}

const NONE: Rule[] = [];

/** The posting lists of `term` within `scope` (disjoint: a rule is in at most one of them). */
function listsFor(ix: RuleIndex, term: string, scope: Scope): Rule[][] {
  const p = scope.polarity;
  if (p === undefined) return [ix.postings.get(postingKey("pos", term)) ?? NONE, ix.postings.get(postingKey("neg", term)) ?? NONE];
  if (scope.ids === undefined || scope.ids === "") return [ix.postings.get(postingKey(p, term)) ?? NONE];
  return [ix.idPostings.get(idPostingKey(p, scope.ids, term)) ?? NONE, ix.idPostings.get(idPostingKey(p, "", term)) ?? NONE];
}

/** `rule` as a candidate for a statement with content terms `terms`, or undefined when they share fewer than `minShared`. */
function toCand(ix: RuleIndex, terms: readonly string[], minShared: number, rule: Rule): Cand | undefined {
  const rt = termsOfRule(ix, rule);
  const shared = sharedCount(terms, rt);
  if (shared < minShared) return undefined;
  const union = terms.length + rt.length - shared;
  const min = Math.min(terms.length, rt.length);
  return { rule, terms: rt, shared, jaccard: union === 0 ? 0 : shared / union, overlap: min === 0 ? 0 : shared / min };
}

/**
 * Rules in `scope` sharing at least `minShared` content terms with `terms` (sorted, unique: contentTerms),
 * with their similarity, in store order: all of them when there are at most `cap`, else the cap / 2
 * earliest and the cap / 2 latest (CANDIDATE_CAP). Prefix filtering: a rule sharing >= minShared of the
 * |terms| terms must hold one of any |terms| - minShared + 1 of them, so only that many terms' postings
 * are read, the shortest ones, from both ends. Cost: the posting entries read until the cap is met, not
 * the number of rules.
 */
function candidates(ix: RuleIndex, terms: readonly string[], minShared = 1, scope: Scope = {}, cap = CANDIDATE_CAP): Cand[] {
  if (terms.length === 0 || minShared > terms.length) return [];
  const probe = terms
    .map((t) => {
      const lists = listsFor(ix, t, scope);
      return { lists, size: lists.reduce((n, l) => n + l.length, 0) };
    })
    .sort((x, y) => x.size - y.size)
    .slice(0, terms.length - Math.max(1, minShared) + 1)
    .flatMap((p) => p.lists);
  const head: Cand[] = [];
  let headEnd = -1;
  for (const rule of merged(ix, probe, 1)) {
    if (head.length >= Math.ceil(cap / 2)) {
      // Cap met from the front: the rest come from the back, down to (not including) the last one read.
      const tail: Cand[] = [];
      for (const r of merged(ix, probe, -1)) {
        if (tail.length >= Math.floor(cap / 2) || (ix.pos.get(r) as number) <= headEnd) break;
        const c = toCand(ix, terms, minShared, r);
        if (c) tail.push(c);
      }
      return head.concat(tail.reverse());
    }
    headEnd = ix.pos.get(rule) as number;
    const c = toCand(ix, terms, minShared, rule);
    if (c) head.push(c);
  }
  return head;
}

function addSource(rule: Rule, src: RuleSource, ix?: RuleIndex): boolean {
  if (rule.sources.some((s) => sourceKey(s) === sourceKey(src))) return false;
  if (rule.sources.length < MAX_SOURCES) {
    rule.sources.push(src);
    if (ix) indexSource(ix, rule, src);
  }
  rule.count += 1;
  return true;
}

function retire(rule: Rule, by: Statement, byId: string | undefined, reason: string, ix?: RuleIndex): void {
  if (ix) bump(ix, retiredKey(rule), -1);
  rule.status = "retired";
  rule.retiredBy = by.text;
  if (byId) rule.retiredById = byId;
  rule.retiredAt = by.source;
  rule.retiredReason = reason;
  if (ix) bump(ix, retiredKey(rule), 1);
}

/** Retire the active rules whose `expires` time is before the statement's own time (reason "expired"). */
function retireExpired(ix: RuleIndex, st: Statement): void {
  const at = Date.parse(st.source.at as string);
  if (Number.isNaN(at)) return;
  ix.expiring = ix.expiring.filter((r) => {
    if (r.status !== "active") return false;
    if (Date.parse(r.expires as string) >= at) return true;
    // Recorded as retired by its own end, not by the statement that happened to come after it.
    retire(r, { ...st, text: `(expired ${r.expires})` }, undefined, "expired", ix);
    return false;
  });
}

/** Best target among active rules for a retraction/exception, by overlap coefficient (ties: most recent). */
export function findTarget(store: Store, text: string, minOverlap = RETRACT_OVERLAP): Rule | undefined {
  return findTargetByTerms(store, contentTerms(text), minOverlap);
}

/** findTarget over precomputed content terms. */
function findTargetByTerms(store: Store, terms: readonly string[], minOverlap = RETRACT_OVERLAP): Rule | undefined {
  if (terms.length === 0) return undefined;
  const ix = indexOf(store);
  let best: Rule | undefined;
  let bestScore = 0;
  const need = Math.min(2, terms.length);
  for (const sim of candidates(ix, terms, need)) {
    const r = sim.rule;
    if (r.status !== "active") continue;
    if (sim.shared < need || sim.overlap < minOverlap) continue;
    const score = sim.overlap + sim.jaccard;
    if (score >= bestScore) {
      best = r;
      bestScore = score;
    }
  }
  return best;
}

/** Stemmed words of the exception cues themselves (not content when matching a bare exception to its rule). */
const EXCEPTION_WORDS = new Set(["except", "unless", "where", "other", "than", "apart", "exception", "but"]);

/**
 * Split a statement at its first exception cue (except, unless, other than, außer, 除了 ... from
 * durability.ts): `head` is the rule's own action/object, `clause` the exception ("" when none).
 * "except in internal/migrations, where raw SQL is fine" has an empty head (a bare exception).
 */
export function splitException(text: string): { head: string; clause: string } {
  const bare = text.replace(/`[^`]*`/g, (m) => " ".repeat(m.length));
  let at = -1;
  for (const re of [EXCEPTION_RE, EXCEPTION_CJK]) {
    const m = new RegExp(re.source, re.flags.replace("g", "")).exec(bare);
    if (m && (at < 0 || m.index < at)) at = m.index;
  }
  return at < 0 ? { head: text, clause: "" } : { head: text.slice(0, at), clause: text.slice(at) };
}

/**
 * The rule a scoped exception refines, or undefined. A bare exception ("except in X, ...") refines the
 * active rule with the largest term overlap (findTarget). Otherwise the exception must be about the same
 * action/object: at least REFINE_HEAD_SHARE of the candidate's head terms (and at least two, or all of a
 * one-term head) appear in the exception's head, and no identifier (inline code, path, number) differs.
 * Permissions are never refined. Ties: the most recent rule.
 */
export function findRefinementTarget(store: Store, text: string): Rule | undefined {
  const head = splitException(text).head;
  const headTerms = contentTerms(head);
  if (headTerms.length === 0) {
    // A bare exception ("except in internal/migrations, where raw SQL is fine"): match on its content words.
    const clauseTerms = contentTerms(text).filter((t) => !EXCEPTION_WORDS.has(t));
    return findTargetByTerms(store, clauseTerms);
  }
  const ix = indexOf(store);
  let best: Rule | undefined;
  let bestScore = 0;
  // A rule's head terms are a subset of its content terms, so a target shares a term with headTerms.
  for (const { rule: r } of candidates(ix, headTerms, 1)) {
    if (r.status !== "active" || r.kind === "permission") continue;
    const rHead = splitException(r.text).head;
    const rTerms = contentTerms(rHead);
    if (rTerms.length === 0) continue;
    const sim = similarity(headTerms, rTerms);
    if (sim.shared < Math.min(2, rTerms.length) || sim.shared / rTerms.length < REFINE_HEAD_SHARE) continue;
    if (identifiersDiffer(head, rHead)) continue;
    const score = sim.shared / rTerms.length + sim.jaccard;
    if (score >= bestScore) {
      best = r;
      bestScore = score;
    }
  }
  return best;
}

/** Collision suffixes of the form "x", "xx", ... up to this many x's (the ids earlier versions gave); then "x" + k. */
const MAX_X_SUFFIX = 8;

/**
 * A free rule id for `base` (ruleId): base itself, else base + "x", "xx", ... (MAX_X_SUFFIX x's), then
 * base + "x9", "x10", ... Resumes where the last search for the same base stopped, so k rules sharing a
 * base (same content terms and globs, different identifiers) cost O(k) in total and ids stay short.
 */
function freeId(ix: RuleIndex, base: string): string {
  for (let k = ix.idNext.get(base) ?? 0; ; k++) {
    const id = k === 0 ? base : k <= MAX_X_SUFFIX ? `${base}${"x".repeat(k)}` : `${base}x${k}`;
    if (ix.ids.has(id)) continue;
    ix.idNext.set(base, k + 1);
    return id;
  }
}

function newRule(st: Statement, terms: string[], store: Store): Rule {
  const id = freeId(indexOf(store), ruleId(terms.join(" ") || st.text, st.globs));
  const r: Rule = {
    id,
    text: st.text,
    type: st.type,
    globs: [...st.globs],
    polarity: polarityOf(st.text),
    count: 1,
    sources: [st.source],
    status: "active",
    origin: st.origin,
    score: st.score,
  };
  if (st.until) r.until = st.until;
  if (st.expires) r.expires = st.expires;
  if (st.keepAsPermission) r.kind = "permission";
  return r;
}

/**
 * The earliest rule that restates `st` word for word as far as consolidation can tell: same exact key
 * (globs, content terms, polarity), no differing identifier (the same set, or one side naming none) and
 * no template substitution. Map lookups, then at most CANDIDATE_CAP rules of the key in store order.
 */
function exactDuplicate(ix: RuleIndex, st: Statement, terms: readonly string[], polarity: "pos" | "neg"): Cand | undefined {
  if (terms.length === 0) return undefined;
  const g = ix.byKey.get(exactKey(st.globs, terms, polarity));
  if (!g) return undefined;
  const ids = identifierSet(st.text).key;
  const lists = ids === "" ? [g.all] : [g.byIds.get(ids) ?? [], g.byIds.get("") ?? []];
  let looked = 0;
  for (const r of merged(ix, lists, 1)) {
    if (++looked > CANDIDATE_CAP) break;
    if (!sameGlobs(r.globs, st.globs) || templateSubstitution(st.text, r.text)) continue;
    return { rule: r, terms: termsOfRule(ix, r), shared: terms.length, jaccard: 1, overlap: 1 };
  }
  return undefined;
}

/**
 * True when two rule texts are the same words in the same order, ignoring case, spacing and punctuation
 * ("Never use eval()." and "never use eval()!"; not "Never use eval(x).", not "Use spaces, not tabs." for "Use tabs, not spaces.").
 */
export function sameWording(a: string, b: string): boolean {
  const norm = (s: string): string => s.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, " ").trim();
  return norm(a) === norm(b);
}

/**
 * Apply one statement to the store (mutating it) and say what happened. Idempotent per source:
 * a statement whose (session, offset) is already recorded changes nothing. `recent` is the id of the
 * rule added just before (a bare "scratch that" retracts it).
 */
export function applyStatement(store: Store, st: Statement, recent?: string): Applied {
  const terms = contentTerms(st.text);
  const ix = indexOf(store);
  // Rules whose day has passed by the time of this line leave the loaded files (retired "expired", kept in the sidecar).
  if (st.source.at !== undefined && ix.expiring.length > 0) retireExpired(ix, st);
  const sk = sourceKey(st.source);
  const seen = (ix.bySource.get(sk) ?? []).find((r) => r.sources.some((s) => sourceKey(s) === sk) && r.origin === st.origin && r.text === st.text);
  if (seen && st.origin === "transcript") return { action: "duplicate-source", ruleId: seen.id, retired: [] };
  // The same line replayed in a later run (same uuid, another offset): read once, so a withdrawn rule stays withdrawn.
  if (st.source.uuid !== undefined && st.origin === "transcript") {
    const uk = uuidKey(st.source);
    const again = (ix.bySource.get(uk) ?? []).find((r) => r.text === st.text && r.sources.some((s) => s.uuid !== undefined && uuidKey(s) === uk));
    if (again) return { action: "duplicate-source", ruleId: again.id, retired: [] };
  }
  if (ix.retiredKeys.has(`${sk}\u0000${st.text}`)) {
    return { action: "duplicate-source", retired: [] };
  }

  if (st.kind === "retraction") {
    // An explicit withdrawal finds its rule by meaning first (withdraw.ts), then by term overlap.
    let target: Rule | undefined;
    const about = st.context !== undefined ? `${st.context} ${st.text}` : st.text;
    if (st.withdraw) {
      const active = store.rules.filter((r) => r.status === "active" && r.kind !== "permission");
      // "Forget the Friday freeze and the changelog rule": each subject named takes back its own rule.
      const several = findWithdrawTargets(active, about).map((f) => ix.ids.get(f.id)).filter((r): r is Rule => r !== undefined);
      if (several.length >= 2) {
        for (const r of several) retire(r, st, undefined, "retraction", ix);
        return { action: "retired", retired: several.map((r) => r.id) };
      }
      const found = findWithdrawTarget(active, about, { explicit: true });
      if (found) target = ix.ids.get(found.id);
    }
    target ??= findTarget(store, st.text);
    // A retraction worded without a withdrawal cue ("den Changelog brauchst du nicht mehr zu pflegen") may still name
    // its rule by meaning rather than by its terms.
    if (!target && !st.withdraw) {
      const found = findWithdrawTarget(store.rules.filter((r) => r.status === "active" && r.kind !== "permission"), about);
      if (found) target = ix.ids.get(found.id);
    }
    if (!target && terms.length === 0 && recent) {
      const r = ix.ids.get(recent);
      if (r?.status === "active") target = r;
    }
    // A rule the user pinned by hand is taken back only by a withdrawal that names it (two of its content terms):
    // "Actually, forget it, don't deploy" cancels a request, not "Never deploy on Fridays." (found by a fresh-user pass).
    if (target && target.origin === "pin" && st.origin === "transcript") {
      const own = new Set(termsOfRule(ix, target));
      if (contentTerms(about).filter((t) => own.has(t)).length < Math.min(2, own.size)) target = undefined;
    }
    if (!target) return { action: "no-target", retired: [] };
    // "Scratch that — tabs are fine in the Makefile": a grant for a case the rule does not name narrows the rule, it
    // does not take it back. The rule stays; the narrowing is kept under it (refines), as an exception is.
    const narrowing = narrowingOf(st.text, target.text);
    if (narrowing !== undefined) {
      const rule = newRule({ ...st, text: narrowing, kind: "exception", globs: st.globs.length ? st.globs : target.globs }, contentTerms(narrowing), store);
      rule.refines = target.id;
      store.rules.push(rule);
      return { action: "refined", ruleId: rule.id, retired: [] };
    }
    const retired = [target.id];
    if (st.keepAsPermission) {
      const perm = newRule({ ...st, globs: st.globs.length ? st.globs : target.globs }, terms, store);
      perm.retires = retired;
      store.rules.push(perm);
      retire(target, st, perm.id, "retraction", ix);
      return { action: "retired", ruleId: perm.id, retired };
    }
    // "Never deploy on Fridays and always tag releases" / "the Friday thing is over": only the clause it names goes; the
    // user's other clause stays a rule (its words as written, its source the original line; the sidecar keeps the whole).
    const rest = untouchedClauses(target.text, targetClause(about));
    if (rest !== undefined) {
      const kept = newRule({ ...st, text: rest, kind: "rule", type: target.type, globs: target.globs, score: target.score ?? st.score, source: target.sources[0] ?? st.source }, contentTerms(rest), store);
      kept.retires = retired;
      store.rules.push(kept);
      retire(target, st, kept.id, "retraction", ix);
      return { action: "retired", ruleId: kept.id, retired };
    }
    retire(target, st, undefined, "retraction", ix);
    return { action: "retired", retired };
  }

  const polarity = polarityOf(st.text);
  // Near-duplicate (same scope, same polarity): merge, keep the stronger wording only if strictly more complete.
  // Candidates share a term (Jaccard >= DUPLICATE_JACCARD > 0 needs one); a term-less statement is never a duplicate.
  // Fast path for a restatement: a rule with the very same key (earliest first). A rule added after a near-
  // duplicate of it would have merged into that one, so the earliest exact match is the first duplicate.
  const exactDup = exactDuplicate(ix, st, terms, polarity);
  // Jaccard >= DUPLICATE_JACCARD implies shared >= DUPLICATE_JACCARD x |terms| (the union holds all of them).
  const dupScope = { polarity, ids: identifierSet(st.text).key };
  const reordered: string[] = [];
  for (const sim of exactDup ? [exactDup] : candidates(ix, terms, Math.max(1, Math.ceil(DUPLICATE_JACCARD * terms.length - 1e-9)), dupScope)) {
    const r = sim.rule;
    if (sim.jaccard < DUPLICATE_JACCARD || !sameGlobs(r.globs, st.globs) || r.polarity !== polarity) continue;
    const rt = sim.terms;
    // A pinned rule is the user's explicit words: only a restatement with the same terms is a duplicate of it ("Do not
    // use tabs in YAML." is not "Never use tabs."; transcript lines merge at DUPLICATE_JACCARD).
    const sameTerms = terms.join(" ") === rt.join(" ") && terms.length > 0;
    // Word order carries the meaning of a pin ("Use tabs, not spaces." is the reverse of "Use spaces, not tabs."): only
    // the same words in the same order are the same pin; the same terms reordered replace it (below, `reordered`).
    const samePin = st.origin === "pin" && sameTerms && sameWording(st.text, r.text);
    const dup =
      (st.origin === "pin" ? samePin : sameTerms || sim.jaccard >= DUPLICATE_JACCARD) &&
      !identifiersDiffer(st.text, r.text) &&
      !templateSubstitution(st.text, r.text);
    if (!dup) {
      if (st.origin === "pin" && sameTerms && !samePin && r.status === "active") reordered.push(r.id);
      continue;
    }
    if (r.status === "retired") {
      // The same line replayed (stream transcripts repeat lines around a compaction, with their own timestamp): not a restatement.
      if (st.source.at !== undefined && r.text === st.text && r.sources.some((x) => x.at === st.source.at)) return { action: "duplicate-source", retired: [] };
      // Restated after a retraction: the rule is back; the permission that retired it goes.
      bump(ix, retiredKey(r), -1);
      r.status = "active";
      const back = r.retiredById;
      const p = back === undefined ? undefined : ix.ids.get(back);
      if (p && p.id === back && p.status === "active") retire(p, st, r.id, "replaced", ix);
      delete r.retiredBy;
      delete r.retiredById;
      delete r.retiredAt;
      delete r.retiredReason;
      addSource(r, st.source, ix);
      return { action: "added", ruleId: r.id, retired: back ? [back] : [] };
    }
    addSource(r, st.source, ix);
    const sup = rt.every((t) => terms.includes(t));
    if (sup && wordingStrength(st.text, terms) > wordingStrength(r.text, rt) + 1) {
      r.text = st.text;
      termsOfRule(ix, r);
      return { action: "reworded", ruleId: r.id, retired: [] };
    }
    return { action: "merged", ruleId: r.id, retired: [] };
  }

  if (st.kind === "exception") {
    let parent = findRefinementTarget(store, st.text);
    // By meaning when the terms differ and the exception points back at its rule ("Tailwind のみって言ったけど、…だけは例外で…").
    if (!parent && st.pointsBack === true) {
      const found = findWithdrawTarget(store.rules.filter((r) => r.status === "active" && r.kind !== "permission"), targetClause(st.text), { refinement: true });
      if (found) parent = ix.ids.get(found.id);
    }
    // A grant for a case of a rule found by meaning ("热修复周五也可以发" after "永远不要在周五发布"): a narrowing of it.
    if (!parent) {
      const found = findWithdrawTarget(store.rules.filter((r) => r.status === "active" && r.kind !== "permission"), st.text, { refinement: true });
      if (found && narrowingOf(st.text, found.text) !== undefined) parent = ix.ids.get(found.id);
    }
    // Not an exception to any rule: the caller decides whether it is a rule of its own (score >= threshold).
    if (!parent) return { action: "no-target", retired: [] };
    const rule = newRule(st, terms, store);
    rule.refines = parent.id;
    store.rules.push(rule);
    return { action: "refined", ruleId: rule.id, retired: [] };
  }

  // Contradiction: same content, opposite polarity, same scope -> the later statement replaces the earlier. A pin of the
  // same terms in another order replaces its rule too.
  const retired: string[] = [...reordered];
  // Both tests below need 3 shared terms when the statement has 3 or more (Jaccard >= 0.8 of a union of >= 3).
  for (const sim of candidates(ix, terms, Math.min(3, Math.max(2, terms.length)), { polarity: polarity === "pos" ? "neg" : "pos" })) {
    const r = sim.rule;
    if (r.status !== "active" || !sameGlobs(r.globs, st.globs) || r.polarity === polarity) continue;
    if (((sim.shared >= 2 && sim.jaccard >= 0.8) || (sim.shared >= 3 && sim.overlap >= 0.8)) && !templateSubstitution(st.text, r.text)) {
      retired.push(r.id);
    }
  }
  // One language at a time: "Actually, answer in English from now on" replaces "Always answer in German" (the same
  // output, the same place, another language).
  const lang = outputLanguageOf(st.text);
  if (lang) {
    for (const r of store.rules) {
      if (r.status !== "active" || r.kind === "permission" || retired.includes(r.id) || !sameGlobs(r.globs, st.globs)) continue;
      const other = outputLanguageOf(r.text);
      if (other && other.output === lang.output && other.language !== lang.language) retired.push(r.id);
    }
  }
  const rule = newRule(st, terms, store);
  if (st.refine) {
    // The refined parent is superseded: retired with reason "refined" and the new rule's id (the sidecar's record).
    // A procedure (steps) is refined only by a statement with steps of its own: a one-line change of format or number
    // refines a one-line rule, not a checklist that happens to share a word with it.
    const steps = (t: string): boolean => /\n|\s2[.)]\s/.test(t);
    const parent = findWithdrawTarget(
      store.rules.filter((r) => r.status === "active" && r.kind !== "permission" && !retired.includes(r.id) && (!steps(r.text) || steps(st.text))),
      st.text,
      { refinement: true },
    );
    if (parent) {
      retired.push(parent.id);
      // "Correction on payouts: …" applies where the rule it refines applies, unless it names a place of its own.
      const p = ix.ids.get(parent.id);
      if (p && rule.globs.length === 0 && p.globs.length > 0) rule.globs = [...p.globs];
    } else if (st.needsParent) return { action: "no-target", retired: [] };
  }
  if (retired.length) rule.retires = retired;
  store.rules.push(rule);
  for (const id of retired) {
    const r = ix.ids.get(id);
    if (r) retire(r, st, rule.id, st.refine && id === retired[retired.length - 1] ? "refined" : "replaced", ix);
  }
  return { action: "added", ruleId: rule.id, retired };
}

/** Language names of output-language rules, by language (lower-cased; Russian stems take any ending). */
const LANGUAGE_OF: [string, RegExp][] = [
  ["en", /english|englisch|ingl[eé]s|английск|英語|英文|英语|영어/u],
  ["de", /german|deutsch|alem[aá]n|немецк|ドイツ語|德语|德文|독일어/u],
  ["es", /spanish|spanisch|español|espanol|испанск|スペイン語|西班牙语|스페인어/u],
  ["ru", /russian|russisch|ruso|русск|по-русски|ロシア語|俄语|俄文|러시아어/u],
  ["zh", /chinese|chinesisch|chino|китайск|中文|汉语|中国語|중국어/u],
  ["ja", /japanese|japanisch|japon[eé]s|японск|日本語|日语|日文|일본어/u],
  ["ko", /korean|koreanisch|coreano|корейск|韓国語|韩语|한국어/u],
];
/** What an output-language rule governs: commit messages, code comments, or (by default) the answers. */
const OUTPUT_OF: [string, RegExp][] = [
  ["commit", /commit|コミット|提交|커밋|коммит/u],
  ["comment", /comment|kommentar|comentario|комментари|コメント|注释|주석/u],
];

/**
 * The output and the language an output-language rule (OUTPUT_LANGUAGE_RE of durability.ts) sets, or undefined: a rule
 * that names no single language (or several) is not compared.
 */
export function outputLanguageOf(text: string): { output: string; language: string } | undefined {
  if (!OUTPUT_LANGUAGE_RE.test(text)) return undefined;
  const t = text.toLowerCase();
  const named = LANGUAGE_OF.filter(([, re]) => re.test(t)).map(([l]) => l);
  if (named.length !== 1) return undefined;
  const output = OUTPUT_OF.find(([, re]) => re.test(t))?.[0] ?? "answer";
  return { output, language: named[0] as string };
}
