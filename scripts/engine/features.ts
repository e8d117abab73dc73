/**
 * Feature extraction for one unit in context. Feature strings carry a group prefix:
 *   w: stemmed word unigram      b: stemmed word bigram       c: character 3-5-gram within a word
 *   k: CJK/Thai character 1-2-gram   f: first word            s: shape feature
 *   h: word of the nearest two headings   p: word of the lead-in (parent item / "...:" line)
 *   n: shape of the neighbouring units
 *   x: cue mix of the unit's section (share of sibling units with hard modals, soft modals,
 *      commands, dates/past tense), and the cues of the previous and next unit
 * Counts are raw term frequencies; tf-idf weighting happens in the vectoriser (model.ts).
 */
import { tokenize } from "./tokenize.js";
import { COMMAND, EPISODIC, HARD, SOFT } from "./regex-tier.js";
import type { Unit } from "./types.js";

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
};

const IMPERATIVE = new Set([
  "run", "use", "never", "always", "do", "don't", "add", "keep", "make", "avoid", "prefer", "write", "check", "ensure",
  "call", "install", "set", "create", "update", "delete", "remove", "put", "follow", "return", "open", "commit", "push",
  "deploy", "test", "read", "send", "ask", "escalate", "refer", "cite", "verify", "confirm", "include", "document", "log",
  "respond", "reply", "start", "stop", "build", "export", "restart", "apply", "merge", "rebase", "tag", "name", "store",
  "treat", "flag", "mark", "report", "move", "copy", "wrap", "validate", "try", "consider", "only", "must", "please",
]);

const DATE_RE = /\b(19|20)\d\d[-/.](0?[1-9]|1[0-2])([-/.]\d\d?)?\b|\b(jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.? \d{1,2}\b|\b(yesterday|today|last (week|night|sprint|month|friday|monday))\b|\d{4}年\d{1,2}月|\d{1,2}月\d{1,2}日|\d{4}년|\d{1,2}월 \d{1,2}일/i;
const PAST_RE = /\b(was|were|had|tried|fixed|added|removed|implemented|completed|merged|shipped|deployed|reverted|migrated|upgraded|switched|found|discovered|noticed|broke|failed|resolved|released|landed|moved|replaced|refactored|wrote|ran|did)\b|(しました|しました。|でした|完了|已完成|修复了|已经|было|были|сделал|сделали|исправил|исправлено|behoben|wurde|haben .* (gemacht|behoben)|hemos|se (arregló|corrigió)|했습니다|했다|완료)/i;
const PATH_RE = /(^|[\s`'"(])(\.{0,2}\/)?[\w.@-]+\/[\w.*@{}-]+|\*\*?\/|\*\.\w+|\b[\w-]+\.(ts|tsx|js|mjs|py|go|rs|java|kt|rb|cs|swift|php|ex|yml|yaml|json|toml|md|sql|sh|env|lock)\b/;
const FLAG_RE = /(^|\s)--?[a-z][\w-]*/i;
const ENV_RE = /\b(export\s+)?[A-Z][A-Z0-9_]{2,}=\S*/;
const CAPS_RE = /\b[A-Z]{3,}\b/;

function lengthBucket(n: number): string {
  return n <= 3 ? "1" : n <= 8 ? "2" : n <= 16 ? "3" : n <= 32 ? "4" : "5";
}

/** Strip list markers, checkboxes and heading hashes from the first line of a unit's text. */
export function bodyText(u: Pick<Unit, "text" | "kind">): string {
  if (u.kind === "code") return u.text;
  return u.text.replace(/^\s*(?:[-*+•]|\d{1,9}[.)])\s+(\[[ xX]\]\s+)?/, "").replace(/^\s*#{1,6}\s+/, "");
}

/** Add the character 3-5-grams of one word (with "<" and ">" boundary marks) to `out`. */
function charGrams(word: string, out: Map<string, number>): void {
  if (word.length < 2) return;
  const w = `<${word}>`;
  for (let n = 3; n <= 5; n++) {
    for (let i = 0; i + n <= w.length; i++) {
      const g = `c:${w.slice(i, i + n)}`;
      out.set(g, (out.get(g) ?? 0) + 1);
    }
  }
}

function add(out: Map<string, number>, key: string, v = 1): void {
  out.set(key, (out.get(key) ?? 0) + v);
}

const contextCache = new Map<string, string[]>();
/** Stemmed words of a context string (heading or lead-in), cached: headings repeat across units. */
function contextWords(text: string): string[] {
  let w = contextCache.get(text);
  if (!w) {
    w = Array.from(new Set(tokenize(text).words)).slice(0, 24);
    if (contextCache.size > 50_000) contextCache.clear();
    contextCache.set(text, w);
  }
  return w;
}

/**
 * Raw feature counts of a unit in context. `prev`/`next` are the neighbouring non-structure units
 * (or undefined). Pure and deterministic; the returned map's key order is insertion order.
 */
export function unitFeatures(u: Unit, prev?: Unit, next?: Unit): Map<string, number> {
  const out = new Map<string, number>();
  const body = bodyText(u);
  const scan = u.kind === "code" ? body.slice(0, 2000) : body.slice(0, 4000);
  const tok = tokenize(scan);
  const words = tok.words;
  for (let i = 0; i < words.length; i++) {
    add(out, `w:${words[i]}`);
    if (i + 1 < words.length) add(out, `b:${words[i]} ${words[i + 1]}`);
  }
  for (const r of tok.raw) if (!/^\d+$/.test(r)) charGrams(r, out);
  for (const g of tok.cjk) add(out, `k:${g}`);
  const first = words[0];
  if (first) add(out, `f:${first}`);
  if (words.length === 0) add(out, "s:empty");

  // Shape features (issue 2: inline code, leading $, --flag, path/glob, imperative first verb, date/past, list marker).
  if (/`[^`]+`/.test(body)) add(out, "s:code");
  if (/^\s*(\$|>|#!)\s?\S/.test(body)) add(out, "s:dollar");
  if (FLAG_RE.test(body)) add(out, "s:flag");
  if (PATH_RE.test(body)) add(out, "s:path");
  if (first && IMPERATIVE.has(tok.raw[0] ?? "")) add(out, "s:imper");
  if (DATE_RE.test(body)) add(out, "s:date");
  if (PAST_RE.test(body)) add(out, "s:past");
  if (ENV_RE.test(body)) add(out, "s:env");
  if (CAPS_RE.test(body)) add(out, "s:caps");
  if (/\*\*[^*]+\*\*|__[^_]+__/.test(body)) add(out, "s:bold");
  if (/[:：]\s*(\*\*)?\s*$/.test(body)) add(out, "s:colon");
  if (/\?\s*$/.test(body)) add(out, "s:question");
  if (/https?:\/\//.test(body)) add(out, "s:url");
  if (/✅|☑|✔|\[x\]/i.test(u.text)) add(out, "s:done");
  if (/\[ \]/.test(u.text)) add(out, "s:todo");
  if (/⚠|❌|🚫|⛔|❗/.test(u.text)) add(out, "s:warn");
  if (/\d/.test(body)) add(out, "s:digit");
  if (/^\s*\d{1,9}[.)]\s/.test(u.text)) add(out, "s:numbered");
  add(out, `s:kind:${u.kind}`);
  if (u.kind === "code" && u.lang) add(out, `s:lang:${u.lang.toLowerCase()}`);
  add(out, `s:depth:${Math.min(u.depth, 2)}`);
  add(out, `s:len:${lengthBucket(words.length + tok.cjk.length / 4)}`);
  if (u.kind === "heading") add(out, `s:level:${u.level}`);

  // Context: nearest two headings, the lead-in, neighbours' shape.
  const hs = u.headings.slice(-2);
  for (const h of hs) {
    for (const w of contextWords(h)) add(out, `h:${w}`);
    if (DATE_RE.test(h)) add(out, "h:#date");
  }
  if (hs.length === 0) add(out, "h:#none");
  if (u.leadIn) {
    for (const w of contextWords(u.leadIn)) add(out, `p:${w}`);
  }
  add(out, `n:prev:${prev ? prev.kind : "none"}`);
  add(out, `n:next:${next ? next.kind : "none"}`);
  if (prev && DATE_RE.test(prev.text)) add(out, "n:prevdate");
  return out;
}

/** Cue signature of a unit: which of the regex tier's cue families it contains. */
function cues(u: Unit): string[] {
  const out: string[] = [];
  if (HARD.test(u.text)) out.push("hard");
  if (SOFT.test(u.text)) out.push("soft");
  if (u.kind === "code" || COMMAND.test(u.text)) out.push("cmd");
  if (EPISODIC.test(u.text) || DATE_RE.test(u.text)) out.push("past");
  return out;
}

/**
 * Add section-context features in place: for each unit, the share of the OTHER units under the same
 * heading path that carry each cue family (bucketed none / <1/3 / <2/3 / more), plus the cue families
 * of the previous and next unit. Lets a line borrow the character of the list it sits in.
 */
export function addSectionFeatures(units: readonly Unit[], feats: Map<string, number>[]): void {
  const sig = units.map(cues);
  const sections = new Map<string, number[]>();
  units.forEach((u, i) => {
    const key = u.headings.join("\u0001");
    const list = sections.get(key);
    if (list) list.push(i);
    else sections.set(key, [i]);
  });
  for (const members of sections.values()) {
    const totals = new Map<string, number>();
    for (const i of members) for (const c of sig[i] as string[]) totals.set(c, (totals.get(c) ?? 0) + 1);
    const others = members.length - 1;
    for (const i of members) {
      const f = feats[i] as Map<string, number>;
      if (others === 0) {
        f.set("x:alone", 1);
        continue;
      }
      for (const c of ["hard", "soft", "cmd", "past"]) {
        const own = (sig[i] as string[]).includes(c) ? 1 : 0;
        const share = ((totals.get(c) ?? 0) - own) / others;
        const bucket = share === 0 ? "0" : share < 1 / 3 ? "1" : share < 2 / 3 ? "2" : "3";
        f.set(`x:${c}:${bucket}`, 1);
      }
    }
  }
  units.forEach((_, i) => {
    const f = feats[i] as Map<string, number>;
    for (const c of sig[i - 1] ?? []) f.set(`x:prev:${c}`, 1);
    for (const c of sig[i + 1] ?? []) f.set(`x:next:${c}`, 1);
  });
}
