/**
 * Feature extraction for one unit in context. Feature strings carry a group prefix:
 *   w: stemmed word unigram      b: stemmed word bigram       c: character 3-5-gram within a word
 *   k: CJK/Thai character 1-2-gram   f: first word            s: shape feature
 *   h: word of the nearest two headings   p: word of the lead-in (parent item / "...:" line)
 *   n: shape of the neighbouring units
 *   x: cue mix of the unit's section (share of sibling units with hard modals, soft modals,
 *      commands, dates/past tense, noun phrases), and the cues of the previous and next unit
 *   q: the line's form (cues.ts FORMS: command, prohibition, obligation, softened, narrated work,
 *      noun phrase, checklist mark, table row, tree, ...) alone, the section's kind (cues.ts
 *      SECTION_KINDS, from headings and lead-in) alone, and their conjunctions kind|form, kind|unit kind
 * Features are hashed, not stored as strings (the "hashing trick", Weinberger et al. 2009): each is
 * FNV-1a 32-bit over its characters, seeded by its group, folded to HASH_BITS bits; its id is
 * bucket | (group index << HASH_BITS). A unit's features are returned as a list of ids with repeats
 * (term frequencies); tf-idf weighting happens in the vectoriser (inference.ts).
 */
import { FORMS, lineForms, sectionKind } from "./cues.js";
import { clearTokenizerCaches, tokenize } from "./tokenize.js";
import type { Unit } from "./types.js";

/** Bits of the hashed feature space (2^20 buckets). */
export const HASH_BITS = 20;
export const HASH_MASK = (1 << HASH_BITS) - 1;
/** Feature groups in id order: group index g is stored as id >>> HASH_BITS. */
export const GROUPS = "wbckfshpnxq";

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/**
 * FNV-1a 32-bit step over one UTF-16 code unit. Hashes are kept as signed 32-bit integers: the same
 * bits as the usual unsigned value (every use goes through ^, & or >>>), but a signed int32 is a small
 * integer to V8 while a uint32 above 2^31 is a boxed heap number, allocated at every step of the
 * not-yet-optimised first pass of a cold start.
 */
function fnv(h: number, code: number): number {
  return Math.imul(h ^ code, FNV_PRIME);
}
/** FNV-1a of a string continuing from hash h. */
function fnvStr(h: number, s: string): number {
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), FNV_PRIME);
  return h;
}
const SEEDS = Array.from(GROUPS, (g) => fnv(fnv(FNV_OFFSET, g.charCodeAt(0)), 58));
/** Fold a 32-bit hash to a bucket and tag it with its group: id = bucket | group << HASH_BITS. */
function toId(h: number, group: number): number {
  return ((h ^ (h >>> HASH_BITS)) & HASH_MASK) + group * (HASH_MASK + 1);
}

/** Id of a feature given as "g:text" (the group letter, a colon, then the text). Used for tests and debugging. */
export function featureId(key: string): number {
  const g = GROUPS.indexOf(key[0] as string);
  if (g < 0 || key[1] !== ":") throw new Error(`bad feature key ${key}`);
  return toId(fnvStr(SEEDS[g] as number, key.slice(2)), g);
}

/** Relative weight of each feature group, applied after tf-idf and before L2 normalisation. */
export const GROUP_WEIGHTS: Readonly<Record<string, number>> = {
  w: 1,
  b: 0.8,
  c: 0.3,
  k: 0.8,
  f: 0.8,
  s: 1.2,
  h: 1.2,
  p: 1,
  n: 0.8,
  x: 0.8,
  q: 1,
};

const IMPERATIVE = new Set([
  "run", "use", "never", "always", "do", "don't", "add", "keep", "make", "avoid", "prefer", "write", "check", "ensure",
  "call", "install", "set", "create", "update", "delete", "remove", "put", "follow", "return", "open", "commit", "push",
  "deploy", "test", "read", "send", "ask", "escalate", "refer", "cite", "verify", "confirm", "include", "document", "log",
  "respond", "reply", "start", "stop", "build", "export", "restart", "apply", "merge", "rebase", "tag", "name", "store",
  "treat", "flag", "mark", "report", "move", "copy", "wrap", "validate", "try", "consider", "only", "must", "please",
]);

const DATE_RE = /\b(19|20)\d\d[-/.](0?[1-9]|1[0-2])([-/.]\d\d?)?\b|\b(jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.? \d{1,2}\b|\b(yesterday|today|last (week|night|sprint|month|friday|monday))\b|\d{4}年\d{1,2}月|\d{1,2}月\d{1,2}日|\d{4}년|\d{1,2}월 \d{1,2}일/i;
const PATH_RE = /(^|[\s`'"(])(\.{0,2}\/)?[\w.@-]+\/[\w.*@{}-]+|\*\*?\/|\*\.\w+|\b[\w-]+\.(ts|tsx|js|mjs|py|go|rs|java|kt|rb|cs|swift|php|ex|yml|yaml|json|toml|md|sql|sh|env|lock)\b/;
const FLAG_RE = /(^|\s)--?[a-z][\w-]*/i;
const ENV_RE = /\b(export\s+)?[A-Z][A-Z0-9_]{2,}=\S*/;
const CAPS_RE = /\b[A-Z]{3,}\b/;
const DIGIT_RE = /\d/;
/** Gate for PATH_RE's "file.ext" branch: a dot followed by a word character. */
const DOT_WORD_RE = /\.\w/;
const NON_ASCII_RE = /[^\x00-\x7f]/;

function lengthBucket(n: number): string {
  return n <= 3 ? "1" : n <= 8 ? "2" : n <= 16 ? "3" : n <= 32 ? "4" : "5";
}

/** Strip list markers, checkboxes and heading hashes from the first line of a unit's text. */
export function bodyText(u: Pick<Unit, "text" | "kind">): string {
  if (u.kind === "code") return u.text;
  return u.text.replace(/^\s*(?:[-*+•]|\d{1,9}[.)])\s+(\[[ xX]\]\s+)?/, "").replace(/^\s*#{1,6}\s+/, "");
}

const G_W = 0;
const G_B = 1;
const G_C = 2;
const G_K = 3;
const G_F = 4;
const G_H = 6;
const G_P = 7;

/** Push the ids of the character 3-5-grams of one word (with "<" and ">" boundary marks). No strings built. */
function charGrams(word: string, out: FeatureBuffer): void {
  const n = word.length;
  if (n < 2) return;
  const len = n + 2;
  const seed = SEEDS[G_C] as number;
  // Written straight into the buffer (at most 3 grams per start position): no push call per gram,
  // which the interpreter pays ~13,000 times in a cold classify of examples/CLAUDE.md.
  const ids = out.reserve(3 * len);
  let k = out.n;
  for (let i = 0; i + 3 <= len; i++) {
    let h = seed;
    const stop = Math.min(len, i + 5);
    for (let p = i; p < stop; p++) {
      const c = p === 0 ? 60 : p === len - 1 ? 62 : word.charCodeAt(p - 1);
      h = Math.imul(h ^ c, FNV_PRIME);
      if (p - i >= 2) ids[k++] = ((h ^ (h >>> HASH_BITS)) & HASH_MASK) + G_C * (HASH_MASK + 1);
    }
  }
  out.n = k;
}

/** True when a token is all ASCII digits (numbers carry no character n-grams). */
function isDigits(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return s.length > 0;
}

const keyIds = new Map<string, number>();
/** Push the id of a "g:text" feature key; ids of the small, repeating shape/neighbour keys are cached. */
function add(out: FeatureBuffer, key: string): void {
  let id = keyIds.get(key);
  if (id === undefined) {
    id = featureId(key);
    if (keyIds.size < 10_000) keyIds.set(key, id);
  }
  out.push(id);
}

const contextCaches = new Map<number, Map<string, number[]>>();

/**
 * Empty every memo table of feature extraction, the tokenizer's included (results never depend on
 * them; benchmarks use this to measure unseen text with warm code).
 */
export function clearFeatureCaches(): void {
  contextCaches.clear();
  clearTokenizerCaches();
}
/** Ids of the stemmed words of a context string under a group (heading or lead-in), cached: headings repeat. */
function contextIds(text: string, group: number): number[] {
  let cache = contextCaches.get(group);
  if (!cache) {
    cache = new Map();
    contextCaches.set(group, cache);
  }
  let ids = cache.get(text);
  if (!ids) {
    const seed = SEEDS[group] as number;
    ids = Array.from(new Set(tokenize(text).words))
      .slice(0, 24)
      .map((w) => toId(fnvStr(seed, w), group));
    if (DATE_RE.test(text)) ids.push(featureId(group === G_H ? "h:#date" : "p:#date"));
    if (cache.size > 50_000) cache.clear();
    cache.set(text, ids);
  }
  return ids;
}

/**
 * Cue words per family, matched against a unit's raw (unstemmed, lowercased) tokens and CJK n-grams;
 * token-set lookups instead of regexes keep feature extraction fast. Sources: references/taxonomy.md Hard cases 1-4
 * (hard modality, softeners) and 11-12 (narrated past work), in the seven corpus languages.
 */
const HARD_WORDS = new Set([
  "never", "must", "mustn't", "always", "don't", "cannot", "can't", "forbidden", "prohibited", "mandatory", "required",
  "only", "shall", "not", "no", "read", "allowed", "under", "strictly", "banned",
  "nunca", "siempre", "debe", "deben", "prohibido", "obligatorio", "jamás", "nie", "niemals", "immer", "muss", "müssen",
  "darf", "dürfen", "verboten", "keinesfalls", "никогда", "всегда", "нельзя", "запрещено", "обязательно", "должен",
  "должны", "не", "禁止", "必须", "务必", "不要", "不得", "严禁", "绝不", "必ず", "絶対に", "厳禁", "절대", "반드시", "금지",
]);
const SOFT_WORDS = new Set([
  "prefer", "preferably", "ideally", "try", "possible", "should", "avoid", "consider", "recommended", "favor", "favour",
  "nicer", "rather", "preferir", "preferiblemente", "evita", "evitar", "vorzugsweise", "möglichst", "sollte", "sollten",
  "vermeide", "лучше", "желательно", "следует", "尽量", "最好", "推荐", "建议", "なるべく", "できれば", "推奨", "가급적", "권장",
]);
const PAST_WORDS = new Set([
  "was", "were", "had", "tried", "fixed", "added", "removed", "implemented", "completed", "merged", "shipped", "deployed",
  "reverted", "migrated", "upgraded", "switched", "found", "discovered", "noticed", "broke", "failed", "resolved", "released",
  "landed", "moved", "replaced", "refactored", "wrote", "ran", "did", "yesterday", "today", "ago", "last",
  "было", "были", "сделал", "сделали", "исправил", "исправлено", "behoben", "wurde", "wurden", "hemos", "arregló", "corrigió",
  "완료", "했습니다", "했다", "完了", "已完成", "修复了", "已经", "でした", "しました",
]);
const MONTHS = new Set(["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec", "january",
  "february", "march", "april", "june", "july", "august", "september", "october", "november", "december"]);
const CMD_WORDS = new Set(["npm", "npx", "pnpm", "yarn", "bun", "pip", "uv", "poetry", "cargo", "go", "make", "docker", "kubectl",
  "helm", "terraform", "git", "ssh", "scp", "curl", "python", "python3", "node", "tsx", "export", "psql", "mvn", "gradle",
  "dotnet", "bundle", "rails", "rake", "mix", "pytest", "ansible", "aws", "gcloud", "az", "flutter", "xcodebuild", "composer"]);

const CUE_HARD = 1;
const CUE_SOFT = 2;
const CUE_CMD = 4;
const CUE_PAST = 8;
const CUE_NP = 32;
const MONTH_BIT = 16;
const formBit = (name: (typeof FORMS)[number]): number => 1 << FORMS.indexOf(name);
const F_PROHIB = formBit("prohib");
const F_OBLIG = formBit("oblig");
const F_SOFT = formBit("soft");
const F_PAST = formBit("past");
const F_CMD = formBit("cmd");
const F_NP = formBit("np");
const F_NOUNSTOP = formBit("nounstop");
/** Cue bits of each cue word and month name, so one map lookup per token replaces four set lookups. */
const CUE_OF = new Map<string, number>();
for (const [set, bit] of [[HARD_WORDS, CUE_HARD], [SOFT_WORDS, CUE_SOFT], [PAST_WORDS, CUE_PAST], [MONTHS, MONTH_BIT]] as const) {
  for (const w of set) CUE_OF.set(w, (CUE_OF.get(w) ?? 0) | bit);
}

/** What one pass over a unit yields: its interned tokens and their stemmer slots, body text, cue bitmask (CUE_*). */
export interface UnitAnalysis {
  /** Stemmed words (for word n-grams). */
  words: string[];
  /** Unstemmed tokens (for character n-grams and cue words). */
  raw: string[];
  cjk: string[];
  body: string;
  cues: number;
  date: boolean;
  /** The body has a digit. */
  digit: boolean;
  /** Line-form bitmask (cues.ts FORMS). */
  forms: number;
}

/** Tokenise a unit once and compute its cue families and date flag. Pure. */
export function analyze(u: Unit): UnitAnalysis {
  const body = bodyText(u);
  const { words, raw, cjk } = tokenize(u.kind === "code" ? body.slice(0, 2000) : body.slice(0, 4000));
  let cues = u.kind === "code" ? CUE_CMD : 0;
  for (const r of raw) cues |= CUE_OF.get(r) ?? 0;
  for (const g of cjk) cues |= (CUE_OF.get(g) ?? 0) & ~MONTH_BIT;
  const month = (cues & MONTH_BIT) !== 0;
  cues &= ~MONTH_BIT;
  const first = raw[0] ?? "";
  if (CMD_WORDS.has(first) || body.includes("`") || body.includes("--") || body.trimStart().startsWith("$")) cues |= CUE_CMD;
  const digit = DIGIT_RE.test(body);
  const date = (month || digit) && DATE_RE.test(body);
  if (date) cues |= CUE_PAST;
  const forms = lineForms(body, u.text, u.kind);
  if (forms & (F_PROHIB | F_OBLIG)) cues |= CUE_HARD;
  if (forms & F_SOFT) cues |= CUE_SOFT;
  if (forms & F_PAST) cues |= CUE_PAST;
  if (forms & F_CMD) cues |= CUE_CMD;
  if (forms & (F_NP | F_NOUNSTOP)) cues |= CUE_NP;
  return { words, raw, cjk, body, cues, date, digit, forms };
}

/**
 * A growable buffer of feature ids (with repeats: a repeated id is a term frequency > 1), reused
 * from unit to unit so feature extraction allocates nothing per unit. `ids[0..n)` is the content.
 */
export class FeatureBuffer {
  ids = new Int32Array(512);
  n = 0;
  push(id: number): void {
    if (this.n === this.ids.length) this.reserve(1);
    this.ids[this.n++] = id;
  }
  /** Make room for `extra` more ids (growing by doubling) and return the id array to write into from index n. */
  reserve(extra: number): Int32Array {
    if (this.n + extra > this.ids.length) {
      const grown = new Int32Array(Math.max(this.ids.length * 2, this.n + extra));
      grown.set(this.ids.subarray(0, this.n));
      this.ids = grown;
    }
    return this.ids;
  }
  /** The content as a plain array (for training, which keeps every unit's features). */
  toArray(): number[] {
    return Array.from(this.ids.subarray(0, this.n));
  }
}

const KIND_IDS = new Map<string, number>();
const PREV_IDS = new Map<string, number>();
const NEXT_IDS = new Map<string, number>();
/** Cached id of a feature key built from a small closed set of values (unit kinds). */
function keyed(cache: Map<string, number>, prefix: string, value: string): number {
  let id = cache.get(value);
  if (id === undefined) {
    id = featureId(prefix + value);
    cache.set(value, id);
  }
  return id;
}
const DEPTH_IDS = [0, 1, 2].map((d) => featureId(`s:depth:${d}`));
const LEN_IDS = new Map(["1", "2", "3", "4", "5"].map((b) => [b, featureId(`s:len:${b}`)] as const));
const LEVEL_IDS = [0, 1, 2, 3, 4, 5, 6].map((l) => featureId(`s:level:${l}`));

/**
 * Append the hashed feature ids of a unit in context to `out` (with repeats).
 * `prev`/`next` are the neighbouring units (or undefined); `a` its analysis.
 * Pure and deterministic: the ids depend only on the arguments.
 */
export function unitFeatures(out: FeatureBuffer, u: Unit, prev: Unit | undefined, next: Unit | undefined, a: UnitAnalysis, prevDate: boolean): void {
  const { words, raw, body } = a;
  const sw = SEEDS[G_W] as number;
  const sb = SEEDS[G_B] as number;
  const nw = words.length;
  for (let i = 0; i < nw; i++) {
    const w = words[i] as string;
    out.push(toId(fnvStr(sw, w), G_W));
    if (i + 1 < nw) out.push(toId(fnvStr(fnv(fnvStr(sb, w), 32), words[i + 1] as string), G_B));
  }
  for (let i = 0; i < raw.length; i++) {
    const r = raw[i] as string;
    if (!isDigits(r)) charGrams(r, out);
  }
  const sk = SEEDS[G_K] as number;
  for (const g of a.cjk) out.push(toId(fnvStr(sk, g), G_K));
  if (nw > 0) out.push(toId(fnvStr(SEEDS[G_F] as number, words[0] as string), G_F));
  else out.push(S.empty);

  // Shape features (issue 2: inline code, leading $, --flag, path/glob, imperative first verb, date/past, list marker).
  // Cheap substring pre-checks gate the regexes.
  if (body.includes("`") && /`[^`]+`/.test(body)) out.push(S.code);
  if (/^\s*(\$|>|#!)\s?\S/.test(body)) out.push(S.dollar);
  if (body.includes("-") && FLAG_RE.test(body)) out.push(S.flag);
  if ((body.includes("/") || body.includes("*") || DOT_WORD_RE.test(body)) && PATH_RE.test(body)) out.push(S.path);
  if (IMPERATIVE.has(raw[0] ?? "")) out.push(S.imper);
  if (a.date) out.push(S.date);
  if (a.cues & CUE_PAST) out.push(S.past);
  if (body.includes("=") && ENV_RE.test(body)) out.push(S.env);
  if (CAPS_RE.test(body)) out.push(S.caps);
  if ((body.includes("**") || body.includes("__")) && /\*\*[^*]+\*\*|__[^_]+__/.test(body)) out.push(S.bold);
  if (/[:：]\s*(\*\*)?\s*$/.test(body)) out.push(S.colon);
  if (/\?\s*$/.test(body)) out.push(S.question);
  if (body.includes("://")) out.push(S.url);
  const nonAscii = NON_ASCII_RE.test(u.text);
  if ((nonAscii || u.text.includes("[")) && /✅|☑|✔|\[x\]/i.test(u.text)) out.push(S.done);
  if (u.text.includes("[ ]")) out.push(S.todo);
  if (nonAscii && /⚠|❌|🚫|⛔|❗/.test(u.text)) out.push(S.warn);
  if (a.digit) out.push(S.digit);
  if (/^\s*\d{1,9}[.)]\s/.test(u.text)) out.push(S.numbered);
  out.push(keyed(KIND_IDS, "s:kind:", u.kind));
  if (u.kind === "code" && u.lang) add(out, `s:lang:${u.lang.toLowerCase()}`);
  out.push(DEPTH_IDS[Math.min(u.depth, 2)] as number);
  out.push(LEN_IDS.get(lengthBucket(nw + a.cjk.length / 4)) as number);
  if (u.kind === "heading") out.push((LEVEL_IDS[u.level] as number | undefined) ?? featureId(`s:level:${u.level}`));

  // Context: nearest two headings, the lead-in, neighbours' shape.
  const hn = u.headings.length;
  for (let h = Math.max(0, hn - 2); h < hn; h++) for (const id of contextIds(u.headings[h] as string, G_H)) out.push(id);
  if (hn === 0) out.push(S.noHeading);
  if (u.leadIn) for (const id of contextIds(u.leadIn, G_P)) out.push(id);
  out.push(keyed(PREV_IDS, "n:prev:", prev ? prev.kind : "none"));
  out.push(keyed(NEXT_IDS, "n:next:", next ? next.kind : "none"));
  if (prevDate) out.push(S.prevDate);

  // Conjunctions of the section's kind with the line's own form (issue 12 item 3): the same line
  // shape means different things under "NEVER", "Style", "Progress" and "Project structure".
  const secKind = sectionKind(u.headings, u.leadIn);
  add(out, `q:sec:${secKind}`);
  add(out, `q:${secKind}|kind:${u.kind}`);
  for (let i = 0; i < FORMS.length; i++) {
    if ((a.forms & (1 << i)) === 0) continue;
    const f = FORMS[i] as string;
    add(out, `q:f:${f}`);
    add(out, `q:${secKind}|${f}`);
  }
  if (a.forms === 0) add(out, `q:${secKind}|none`);
}

const S = {
  empty: featureId("s:empty"),
  code: featureId("s:code"),
  dollar: featureId("s:dollar"),
  flag: featureId("s:flag"),
  path: featureId("s:path"),
  imper: featureId("s:imper"),
  date: featureId("s:date"),
  past: featureId("s:past"),
  env: featureId("s:env"),
  caps: featureId("s:caps"),
  bold: featureId("s:bold"),
  colon: featureId("s:colon"),
  question: featureId("s:question"),
  url: featureId("s:url"),
  done: featureId("s:done"),
  todo: featureId("s:todo"),
  warn: featureId("s:warn"),
  digit: featureId("s:digit"),
  numbered: featureId("s:numbered"),
  noHeading: featureId("h:#none"),
  prevDate: featureId("n:prevdate"),
};

const CUE_FAMILIES = [CUE_HARD, CUE_SOFT, CUE_CMD, CUE_PAST, CUE_NP];
const CUE_NAMES = ["hard", "soft", "cmd", "past", "np"];
const X_ALONE = featureId("x:alone");
/** X_SHARE[family * 4 + bucket]: share of the section's other units with that cue family. */
const X_SHARE = CUE_NAMES.flatMap((c) => [0, 1, 2, 3].map((b) => featureId(`x:${c}:${b}`)));
const X_PREV = CUE_NAMES.map((c) => featureId(`x:prev:${c}`));
const X_NEXT = CUE_NAMES.map((c) => featureId(`x:next:${c}`));
/** At most 5 section-share ids + 5 previous-unit + 5 next-unit cue ids per unit. */
const SECTION_SLOTS = 15;

/**
 * Section-context features of every unit: the share of the OTHER units under the same heading path
 * that carry each cue family (bucketed none / <1/3 / <2/3 / more; "alone" when the unit is the only
 * one), plus the cue families of the previous and next unit. Lets a line borrow the character of the
 * list it sits in. Returns ids[i * SECTION_SLOTS ..] with count[i] entries per unit.
 */
export function sectionFeatures(units: readonly Unit[], analyses: readonly UnitAnalysis[]): { ids: Int32Array; count: Uint8Array } {
  const n = units.length;
  const ids = new Int32Array(n * SECTION_SLOTS);
  const count = new Uint8Array(n);
  const put = (i: number, id: number): void => {
    const c = count[i] as number;
    ids[i * SECTION_SLOTS + c] = id;
    count[i] = c + 1;
  };
  const sections = new Map<string, number[]>();
  let lastHeadings: readonly string[] | null = null;
  let lastKey = "";
  for (let i = 0; i < n; i++) {
    const hs = (units[i] as Unit).headings;
    if (hs !== lastHeadings) {
      lastKey = hs.join("\u0001");
      lastHeadings = hs;
    }
    const list = sections.get(lastKey);
    if (list) list.push(i);
    else sections.set(lastKey, [i]);
  }
  for (const members of sections.values()) {
    const totals = [0, 0, 0, 0, 0];
    for (const i of members) {
      const cues = (analyses[i] as UnitAnalysis).cues;
      for (let c = 0; c < CUE_FAMILIES.length; c++) if (cues & (CUE_FAMILIES[c] as number)) totals[c] = (totals[c] as number) + 1;
    }
    const others = members.length - 1;
    for (const i of members) {
      if (others === 0) {
        put(i, X_ALONE);
        continue;
      }
      const cues = (analyses[i] as UnitAnalysis).cues;
      for (let c = 0; c < CUE_FAMILIES.length; c++) {
        const own = cues & (CUE_FAMILIES[c] as number) ? 1 : 0;
        const share = ((totals[c] as number) - own) / others;
        const bucket = share === 0 ? 0 : share < 1 / 3 ? 1 : share < 2 / 3 ? 2 : 3;
        put(i, X_SHARE[c * 4 + bucket] as number);
      }
    }
  }
  for (let i = 0; i < n; i++) {
    const prev = i > 0 ? (analyses[i - 1] as UnitAnalysis).cues : 0;
    const next = i + 1 < n ? (analyses[i + 1] as UnitAnalysis).cues : 0;
    for (let c = 0; c < CUE_FAMILIES.length; c++) if (prev & (CUE_FAMILIES[c] as number)) put(i, X_PREV[c] as number);
    for (let c = 0; c < CUE_FAMILIES.length; c++) if (next & (CUE_FAMILIES[c] as number)) put(i, X_NEXT[c] as number);
  }
  return { ids, count };
}

/**
 * Feature ids of every unit of a sequence, with its neighbours and its section as context: calls
 * `each(i, buffer)` once per unit in order; the buffer is reused, so copy what must be kept.
 */
export function forEachUnitFeatures(units: readonly Unit[], each: (i: number, features: FeatureBuffer) => void): void {
  const analyses = units.map(analyze);
  // A unit on its own (decideUnits scores every unit alone) is "alone" in its section with no neighbours: the
  // same ids sectionFeatures gives, without its per-call tables.
  const section = units.length === 1 ? ALONE : sectionFeatures(units, analyses);
  // The buffer is reused from call to call (a fresh 2 KB typed array per one-unit call cost more than the
  // unit's features); a call made from inside `each` gets its own.
  const buf = spare ?? new FeatureBuffer();
  spare = undefined;
  try {
    forEachWith(units, analyses, section, buf, each);
  } finally {
    spare = buf;
  }
}

/** The section ids of a one-unit sequence (see sectionFeatures): "alone", nothing before or after it. */
const ALONE = { ids: Int32Array.of(X_ALONE), count: Uint8Array.of(1) };
/** A FeatureBuffer not in use by any forEachUnitFeatures call. */
let spare: FeatureBuffer | undefined = new FeatureBuffer();

function forEachWith(units: readonly Unit[], analyses: readonly UnitAnalysis[], section: { ids: Int32Array; count: Uint8Array }, buf: FeatureBuffer, each: (i: number, features: FeatureBuffer) => void): void {
  for (let i = 0; i < units.length; i++) {
    buf.n = 0;
    unitFeatures(buf, units[i] as Unit, units[i - 1], units[i + 1], analyses[i] as UnitAnalysis, analyses[i - 1]?.date ?? false);
    const base = i * SECTION_SLOTS;
    const c = section.count[i] as number;
    for (let k = 0; k < c; k++) buf.push(section.ids[base + k] as number);
    each(i, buf);
  }
}
