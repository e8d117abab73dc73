/**
 * Deterministic, meaning-preserving compression of one belief or preference line, and the
 * near-duplicate test used to merge repeated facts and preferences. Pure.
 */
import { terms } from "./bm25.js";

const PREFIX = /^(\s*(?:(?:[-*+•]|\d{1,9}[.)])\s+)?(?:\[[ xX]\]\s+)?)/;
const PROTECT = /`[^`\n]*`|https?:\/\/\S+|(?:\.{0,2}\/)?[\w@.-]+(?:\/[\w@.*{},-]+)+\/?|\*\*?\.[\w{},]+/g;
// Filler and hedges (plain-English style guides: "omit needless words"). Never a negation, number or name.
const FILLER = [
  "please note that", "note that", "it is worth noting that", "it's worth noting that", "keep in mind that",
  "as far as i know", "as far as we know", "i think that", "i think", "i believe that", "i believe", "we think that",
  "in my opinion", "it seems that", "it seems like", "it appears that", "for what it's worth", "to be honest",
  "basically", "essentially", "actually", "really", "simply", "just", "very", "quite", "pretty much",
  "kind of", "sort of", "more or less", "at the end of the day", "needless to say", "of course", "obviously",
];
const CJK_FILLER = /其实|基本上|我觉得|我认为|说实话/g;
const FILLER_RE = new RegExp(
  `(^|[\\s,(])(?:${FILLER.map((f) => f.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|")}),?(?=[\\s.;:!?)]|$)`,
  "gi",
);
const REWRITES: [RegExp, string][] = [
  [/\bin order to\b/gi, "to"],
  [/\bdue to the fact that\b/gi, "because"],
  [/\bat this point in time\b/gi, "now"],
  [/\bfor the purpose of\b/gi, "for"],
  [/\bis able to\b/gi, "can"],
  [/\bare able to\b/gi, "can"],
];
const NEG1 = /\b(?:not|no|never|none|nothing|nobody|neither|nor|without|cannot)\b|n't\b|[不没無无别非未]/i;
const NEGATION = /\b(?:not|no|never|none|nothing|nobody|neither|nor|without|cannot)\b|n't\b|[不没無无别非未]/gi;
const NUMBER = /\d+(?:[.,:/-]\d+)*/g;
const IDENT = /`[^`\n]*`|\b[a-z]+[A-Z]\w*\b|\b[A-Z][a-z0-9]+[A-Z]\w*\b|\b\w+_\w+\b|(?:\.{0,2}\/)?[\w@.-]+(?:\/[\w@.*{},-]+)+\/?/g;

/** Tokens compression must keep (numbers, paths, identifiers, names, negations), lower-cased, as a sorted multiset. */
export function protectedTokens(text: string): string[] {
  const out: string[] = [];
  if (/\d/.test(text)) for (const m of text.matchAll(NUMBER)) out.push(m[0]);
  if (text.includes("`") || text.includes("/") || text.includes("_") || /[a-z][A-Z]/.test(text)) for (const m of text.matchAll(IDENT)) out.push(m[0].toLowerCase());
  for (const m of text.matchAll(NEGATION)) out.push(m[0].toLowerCase());
  pushNames(text, out);
  return out.sort();
}

/**
 * Capitalised words that do not start a sentence (names: "Dana", "Stripe", "API"), lower-cased.
 * In shouted text (more than 60% of letters upper-case) capitalisation marks no names.
 */
function pushNames(text: string, out: string[]): void {
  let upper = 0;
  let letters = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 65 && c <= 90) {
      letters++;
      upper++;
    } else if (c >= 97 && c <= 122) letters++;
    else if (c > 127) {
      const ch = text[i] as string;
      if (ch.toLowerCase() !== ch.toUpperCase()) {
        letters++;
        if (ch === ch.toUpperCase()) upper++;
      }
    }
  }
  if (letters === 0 || upper / letters > 0.6) return;
  let prev = "";
  for (const m of text.matchAll(/\S+/g)) {
    const w = m[0];
    const first = w[0] as string;
    const last = prev[prev.length - 1] ?? "";
    if (prev !== "" && first !== first.toLowerCase() && w.length > 1 && /[\p{L}\p{N},;:)]/u.test(last)) {
      const name = /^[\p{L}\p{N}'-]+/u.exec(w)?.[0];
      if (name && name.length > 1) out.push(name.toLowerCase());
    }
    prev = w;
  }
}

function containsAll(haystack: string[], needles: string[]): boolean {
  const count = new Map<string, number>();
  for (const h of haystack) count.set(h, (count.get(h) ?? 0) + 1);
  for (const n of needles) {
    const c = count.get(n) ?? 0;
    if (c === 0) return false;
    count.set(n, c - 1);
  }
  return true;
}

// One cheap test before the full pipeline: most lines hold nothing compressText would remove.
const QUICK = new RegExp(`[*_(（]|\\s{2}|\\s[,.;:!?]|(?:^|\\W)(?:${[...FILLER, "in order to", "due to the fact", "at this point", "for the purpose", "is able to", "are able to"].map((f) => f.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|")})(?:\\W|$)|其实|基本上|我觉得|我认为|说实话`, "i");

function compressContent(body: string): string {
  if (!QUICK.test(body)) return body;
  const kept: string[] = [];
  let s = body.replace(PROTECT, (m) => {
    kept.push(m);
    return `\u0000${kept.length - 1}\u0000`;
  });
  s = s.replace(/\*\*(\S(?:[^*\n]*\S)?)\*\*|__(\S(?:[^_\n]*\S)?)__/g, (_m, a, b) => a ?? b);
  s = s.replace(/(^|[\s(])[*_](\p{L}[^*_\n]*?)[*_](?=[\s).,;:!?]|$)/gu, "$1$2");
  // Parentheticals with no digit, protected token, capitalised name or negation add colour, not facts.
  s = s.replace(/\s*[(（]([^()（）\u0000]*)[)）]/g, (m, inner: string) =>
    /\d|\p{Lu}/u.test(inner) || NEG1.test(inner) ? m : "",
  );
  s = s.replace(FILLER_RE, "$1").replace(CJK_FILLER, "");
  for (const [re, to] of REWRITES) s = s.replace(re, to);
  s = s.replace(/[ \t]{2,}/g, " ").replace(/\s+([,.;:!?])/g, "$1").replace(/^[\s,]+/, "").replace(/,\s*([.;:!?]|$)/g, "$1");
  s = s.trimEnd();
  if (/^\p{Lu}/u.test(body.trimStart()) && /^\p{Ll}/u.test(s)) s = s[0]?.toUpperCase() + s.slice(1);
  return s.replace(/\u0000(\d+)\u0000/g, (_m, i: string) => kept[Number(i)] ?? "");
}

/**
 * Compress a belief or preference unit's text within meaning: drop filler and hedges, emphasis
 * markup and parentheticals without facts; keep list markers, indentation and line breaks.
 * Guarantee: every number, path, identifier, capitalised name and negation of the input is still
 * present (checked; on any loss the input is returned unchanged). Output is never longer.
 */
export function compressText(text: string): string {
  const lines = text.split("\n").map((line) => {
    const m = PREFIX.exec(line);
    const prefix = m?.[1] ?? "";
    const body = line.slice(prefix.length);
    if (body.trim() === "") return line;
    const c = compressContent(body);
    return c === "" ? line : prefix + c;
  });
  const out = lines.join("\n");
  if (out.length >= text.length) return text;
  return containsAll(protectedTokens(out), protectedTokens(text)) ? out : text;
}

/** Distinct index terms of a text (see terms()), for near-duplicate tests. */
export function termSet(text: string): Set<string> {
  return new Set(terms(text));
}

/** Jaccard similarity |A ∩ B| / |A ∪ B| of two term sets, in [0,1] (1 for two empty sets). */
export function jaccard<T>(a: ReadonlySet<T>, b: ReadonlySet<T>): number {
  if (a.size === 0 && b.size === 0) return 1;
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  let inter = 0;
  for (const t of small) if (large.has(t)) inter++;
  return inter / (a.size + b.size - inter);
}

/**
 * True when `dup` can be folded into `keep` without losing a fact: term-set Jaccard >= threshold
 * and every protected token of `dup` (numbers, paths, identifiers, names, negations) occurs in
 * `keep`'s lower-cased text.
 */
export function foldable<T>(keep: { set: ReadonlySet<T>; readonly lower: string }, dup: { set: ReadonlySet<T>; readonly prot: string[] }, threshold: number): boolean {
  const lo = Math.min(keep.set.size, dup.set.size);
  const hi = Math.max(keep.set.size, dup.set.size);
  if (hi === 0 || lo / hi < threshold || jaccard(keep.set, dup.set) < threshold) return false;
  return dup.prot.every((t) => keep.lower.includes(t));
}
