/**
 * Unicode-aware tokenisation for the classifier.
 * - Text is NFKC-normalised and lowercased; curly apostrophes become "'".
 * - Latin, Cyrillic, Hangul and other spaced scripts: word tokens from \p{L}\p{N} runs (apostrophes
 *   inside words kept, so "don't" stays one token). Words are stemmed with natural's Snowball/Porter
 *   stemmers for English, Spanish, German and Russian (the stemmer is picked per unit from function
 *   words for Latin script; Cyrillic always uses Russian). Negations and modals are never stemmed or
 *   dropped, and no stopword is removed.
 * - Chinese, Japanese and Thai runs are split with Intl.Segmenter (word granularity); their character
 *   unigrams and bigrams are emitted as well, the standard features for unspaced scripts.
 */
import PorterStemmer from "natural/lib/natural/stemmers/porter_stemmer.js";
import PorterStemmerDe from "natural/lib/natural/stemmers/porter_stemmer_de.js";
import PorterStemmerEs from "natural/lib/natural/stemmers/porter_stemmer_es.js";
import PorterStemmerRu from "natural/lib/natural/stemmers/porter_stemmer_ru.js";
import { THAI, UNSPACED, WORD_LETTER, WORD_OTHER, charFlags } from "./unicode-classes.js";

/** A language code whose stemmer we use ("none" for unstemmed scripts). */
export type StemLang = "en" | "es" | "de" | "ru" | "none";

interface Stemmer {
  stem(word: string): string;
}
const STEMMERS: Record<Exclude<StemLang, "none">, Stemmer> = {
  en: PorterStemmer as Stemmer,
  es: PorterStemmerEs as Stemmer,
  de: PorterStemmerDe as Stemmer,
  ru: PorterStemmerRu as Stemmer,
};

/**
 * Negations and modals kept as written (never stemmed): the cue words of references/taxonomy.md Hard cases 1-4 in
 * English, Spanish, German and Russian. CJK and Korean cues survive as segmenter words and n-grams.
 */
export const KEEP_WORDS: ReadonlySet<string> = new Set([
  "never", "must", "mustn't", "always", "don't", "do", "not", "no", "should", "shouldn't", "prefer", "preferably",
  "avoid", "cannot", "can't", "won't", "only", "required", "ideally", "may", "might", "try",
  "nunca", "siempre", "debe", "deben", "debes", "evita", "evitar", "prohibido", "jamás", "preferiblemente",
  "niemals", "nie", "nicht", "immer", "muss", "müssen", "darf", "dürfen", "sollte", "sollten", "vermeide", "möglichst",
  "никогда", "нельзя", "не", "всегда", "обязательно", "должен", "должны", "следует", "желательно", "лучше", "запрещено",
]);

const ES_HINT = new Set(["el", "la", "los", "las", "que", "para", "con", "por", "una", "del", "nunca", "siempre", "usa", "debe", "hay", "sin", "cuando", "antes", "después", "es", "se", "de", "en", "y"]);
const DE_HINT = new Set(["der", "die", "das", "und", "nicht", "ist", "mit", "für", "ein", "eine", "immer", "niemals", "wir", "auf", "zu", "bei", "vor", "nach", "wird", "werden", "muss", "den", "dem", "im"]);
const EN_HINT = new Set(["the", "and", "is", "to", "a", "of", "for", "with", "never", "always", "in", "on", "use", "run", "we", "it", "be", "do", "not", "this", "that", "before", "after"]);
/** Bit 0 Spanish, bit 1 German, bit 2 English hint: one map lookup per word instead of three set lookups. */
const HINT_BITS = new Map<string, number>();
for (const [set, bit] of [[ES_HINT, 1], [DE_HINT, 2], [EN_HINT, 4]] as const) for (const w of set) HINT_BITS.set(w, (HINT_BITS.get(w) ?? 0) | bit);

/** Character classes of ASCII codes for scanAsciiWords: 1 = [a-z], 2 = [0-9_]. */
const ASCII_CLASS = Uint8Array.from({ length: 128 }, (_, c) => (c >= 97 && c <= 122 ? 1 : (c >= 48 && c <= 57) || c === 95 ? 2 : 0));

/**
 * Push the words of lowercased ASCII text: the matches of /[a-z0-9_]+(?:'[a-z]+)*\/g ("don't" is one
 * word), found by a hand-written scan (about 3x faster than matchAll, which allocates a match array
 * per word). Tested against the regex.
 */
export function scanAsciiWords(text: string, out: string[]): void {
  const n = text.length;
  let i = 0;
  while (i < n) {
    if (ASCII_CLASS[text.charCodeAt(i)] === 0) {
      i++;
      continue;
    }
    const start = i;
    while (i < n && ASCII_CLASS[text.charCodeAt(i)] !== 0) i++;
    while (i + 1 < n && text.charCodeAt(i) === 39 && ASCII_CLASS[text.charCodeAt(i + 1)] === 1) {
      i += 2;
      while (i < n && ASCII_CLASS[text.charCodeAt(i)] === 1) i++;
    }
    out.push(text.slice(start, i));
  }
}
/** The code point at i of a string whose code unit at i is c (a high surrogate followed by a low one is combined). */
function codePointAt(text: string, i: number, c: number): number {
  if (c < 0xd800 || c > 0xdbff || i + 1 >= text.length) return c;
  const d = text.charCodeAt(i + 1);
  return d >= 0xdc00 && d <= 0xdfff ? (c - 0xd800) * 0x400 + (d - 0xdc00) + 0x10000 : c;
}

const WORD = WORD_LETTER | WORD_OTHER;

/**
 * Push the words of text in any script: the matches of /[\p{L}\p{N}_]+(?:'[\p{L}]+)*\/gu, found by
 * a scan over code points with the classes of unicode-classes.ts (tested to give the same matches as
 * the regex).
 */
export function scanWords(text: string, out: string[]): void {
  const n = text.length;
  let i = 0;
  while (i < n) {
    const cp = codePointAt(text, i, text.charCodeAt(i));
    if ((charFlags(cp) & WORD) === 0) {
      i += cp > 0xffff ? 2 : 1;
      continue;
    }
    const start = i;
    i = runEnd(text, i, cp, WORD);
    // (?:'[\p{L}]+)*: an apostrophe joins the word only when a letter follows it.
    while (i + 1 < n && text.charCodeAt(i) === 39) {
      const next = codePointAt(text, i + 1, text.charCodeAt(i + 1));
      if ((charFlags(next) & WORD_LETTER) === 0) break;
      i = runEnd(text, i + 1, next, WORD_LETTER);
    }
    out.push(text.slice(start, i));
  }
}

/**
 * The end (code-unit index) of the run of code points that starts at i with code point cp (which
 * has a flag of `mask`) and goes on while each code point has a flag of `mask`.
 */
function runEnd(text: string, i: number, cp: number, mask: number): number {
  const n = text.length;
  do {
    i += cp > 0xffff ? 2 : 1;
    if (i >= n) break;
    cp = codePointAt(text, i, text.charCodeAt(i));
  } while ((charFlags(cp) & mask) !== 0);
  return i;
}

/**
 * The unspaced runs of text (maximal runs of Han, Hiragana, Katakana, Thai and U+30FC), as the
 * matches of /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}ー]+/gu would
 * give them: `starts[k]` is the code-unit index of `runs[k]`. Table-driven like scanWords.
 */
export function unspacedRuns(text: string): { runs: string[]; starts: number[] } {
  const runs: string[] = [];
  const starts: number[] = [];
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c < 0x0e00) {
      i++;
      continue;
    }
    const cp = codePointAt(text, i, c);
    if ((charFlags(cp) & UNSPACED) === 0) {
      i += cp > 0xffff ? 2 : 1;
      continue;
    }
    const start = i;
    i = runEnd(text, i, cp, UNSPACED);
    runs.push(text.slice(start, i));
    starts.push(start);
  }
  return { runs, starts };
}

/** True when text has a character of Script=Thai. */
export function hasThai(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    // Thai is U+0E00-U+0E7F; no other code point has the flag.
    if (c >= 0x0e00 && c <= 0x0e7f && (charFlags(c) & THAI) !== 0) return true;
  }
  return false;
}

const LATIN_RE = /^[a-zà-ÿß0-9_']+$/;

const NON_ASCII = /[^\x00-\x7f]/;
/** Normalise for tokenisation: NFKC, lowercase, curly apostrophes to "'". ASCII text skips NFKC (a no-op on it). */
export function normalize(text: string): string {
  if (!NON_ASCII.test(text)) return text.toLowerCase();
  return text.normalize("NFKC").toLowerCase().replace(/[\u2018\u2019\u02bc]/g, "'");
}

/** Guess the stemmer for a unit's Latin-script words from function-word hits (ties -> English). */
export function guessLatinLang(words: readonly string[]): StemLang {
  let es = 0;
  let de = 0;
  let en = 0;
  for (let i = 0; i < words.length; i++) {
    const bits = HINT_BITS.get(words[i] as string);
    if (bits === undefined) continue;
    es += bits & 1;
    de += (bits >> 1) & 1;
    en += (bits >> 2) & 1;
  }
  if (es > en && es >= de && es > 0) return "es";
  if (de > en && de > es) return "de";
  return "en";
}

type Lang = Exclude<StemLang, "none">;
const stemCaches: Record<Lang, Map<string, string>> = { en: new Map(), es: new Map(), de: new Map(), ru: new Map() };

/**
 * Stem tables shipped in the model file: per language, the words stemmed in training as sorted
 * lines, "word" when the stem is the word itself, else "word stem". natural's stemmers build and run
 * dozens of regular expressions per word (20-40 us a word before V8 optimises them, most of a cold
 * `classify`), so a binary search in the table (over line offsets found on first use, no map built) serves
 * the words seen in training, and only the rest are stemmed. A table only saves time: it holds what
 * the stemmer returns.
 */
const stemTables: Partial<Record<Lang, { text: string; starts?: Int32Array }>> = {};

/** Register stem tables (model.json `stems`); unknown languages are ignored. Nothing is parsed until used. */
export function useStemTables(packed: Readonly<Record<string, string>>): void {
  for (const [lang, text] of Object.entries(packed)) if (lang in stemCaches && text !== "") stemTables[lang as Lang] = { text };
}

/** Start offsets of the lines of a table, plus text.length + 1 as the end of the last line. */
function lineStarts(text: string): Int32Array {
  // Two passes, count then fill: no growing array of ~9,000 numbers (the English table) to copy.
  let lines = 1;
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) lines++;
  const starts = new Int32Array(lines + 1);
  let k = 1;
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) starts[k++] = i + 1;
  starts[k] = text.length + 1;
  return starts;
}

/**
 * The stem of a word from the language's table, or undefined when the table does not list it. A
 * binary search over the table text itself (line offsets, no strings made per line: splitting the
 * English table into ~9,000 strings was a young-generation GC of its own at every cold start);
 * comparison by UTF-16 code units, the order the table is sorted in.
 */
export function tableStem(word: string, lang: Lang): string | undefined {
  const table = stemTables[lang];
  if (!table) return undefined;
  const text = table.text;
  table.starts ??= lineStarts(text);
  const starts = table.starts;
  const wn = word.length;
  let lo = 0;
  let hi = starts.length - 2;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const at = starts[mid] as number;
    const end = (starts[mid + 1] as number) - 1;
    // Compare word with the line's first field (up to a space or the line end).
    let i = 0;
    let cmp = 0;
    for (;;) {
      const p = at + i;
      const lc = p < end ? text.charCodeAt(p) : -1;
      const line = lc === 32 ? -1 : lc;
      const w = i < wn ? word.charCodeAt(i) : -1;
      if (w !== line) {
        cmp = w - line;
        break;
      }
      if (w === -1) break;
      i++;
    }
    if (cmp === 0) return at + wn < end ? text.slice(at + wn + 1, end) : word;
    if (cmp > 0) lo = mid + 1;
    else hi = mid - 1;
  }
  return undefined;
}

/**
 * Stem tables of every word stemmed so far in this process (training stems its whole corpus), in
 * useStemTables' format: per language, lines sorted by UTF-16 code units (the order of JS string
 * comparison, which tableStem's binary search relies on).
 */
export function packStems(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [lang, cache] of Object.entries(stemCaches)) {
    const words = [...cache.keys()].filter((w) => !/\s/.test(w)).sort();
    out[lang] = words.map((w) => (cache.get(w) === w ? w : `${w} ${cache.get(w)}`)).join("\n");
  }
  return out;
}

/**
 * Stem one lowercased word with natural's stemmer for the language, uncached: KEEP_WORDS (negations
 * and modals) are returned unchanged, as is a word the stemmer fails on or empties.
 */
export function naturalStem(word: string, lang: Lang): string {
  if (KEEP_WORDS.has(word)) return word;
  try {
    return STEMMERS[lang].stem(word) || word;
  } catch {
    return word;
  }
}

/**
 * Stem one lowercased word for a language (words under 4 characters and "none" are returned
 * unchanged): from the per-process cache, else the model's stem table, else naturalStem.
 */
export function stemWord(word: string, lang: StemLang): string {
  if (lang === "none" || word.length < 4) return word;
  const cache = stemCaches[lang];
  let s = cache.get(word);
  if (s === undefined) {
    s = tableStem(word, lang) ?? naturalStem(word, lang);
    if (cache.size > 100_000) cache.clear();
    cache.set(word, s);
  }
  return s;
}

const segmenters = new Map<string, Intl.Segmenter>();
function segmenterFor(run: string): Intl.Segmenter {
  // One segmenter for Han and kana (ICU uses the same CJ dictionary for ja and zh; creating a
  // second one costs another ~15 ms at cold start), one for Thai.
  const locale = hasThai(run) ? "th" : "ja";
  let s = segmenters.get(locale);
  if (!s) {
    s = new Intl.Segmenter(locale, { granularity: "word" });
    segmenters.set(locale, s);
  }
  return s;
}

const runWords = new Map<string, string[]>();

/**
 * Empty the tokenizer's memo tables (stems per language, segmented runs). They only save time, so
 * this never changes a result; benchmarks call it to measure text the process has not seen yet.
 */
export function clearTokenizerCaches(): void {
  for (const cache of Object.values(stemCaches)) cache.clear();
  runWords.clear();
}
/** Bound on memoised runs; the memo is cleared when it is reached. */
const RUN_MEMO_MAX = 20_000;

/**
 * Word-like segments of each unspaced run, memoised per run (as spaCy's tokenizer caches each
 * whitespace-delimited chunk: Intl.Segmenter costs ~0.6 us per segment plus ~3 us per call, and short
 * runs repeat). Runs not yet seen are segmented in one call over those runs joined by spaces when none
 * has Thai (a space is always a word boundary, so each run's words are the same as when it is
 * segmented alone; if a segment ever straddled a join, each run is segmented alone instead).
 */
function segmentRuns(runs: readonly string[]): string[][] {
  const out = runs.map((run) => runWords.get(run));
  const todo = runs.filter((_, i) => out[i] === undefined);
  if (todo.length > 0) {
    const fresh = segmentFresh(todo);
    if (runWords.size + todo.length > RUN_MEMO_MAX) runWords.clear();
    for (let i = 0; i < todo.length; i++) runWords.set(todo[i] as string, fresh[i] as string[]);
    let k = 0;
    for (let i = 0; i < out.length; i++) if (out[i] === undefined) out[i] = fresh[k++];
  }
  return out as string[][];
}

function segmentFresh(runs: readonly string[]): string[][] {
  const alone = (): string[][] =>
    runs.map((run) => {
      const words: string[] = [];
      for (const seg of segmenterFor(run).segment(run)) if (seg.isWordLike) words.push(seg.segment);
      return words;
    });
  if (runs.length < 2 || runs.some(hasThai)) return alone();
  const joined = runs.join(" ");
  const out: string[][] = runs.map(() => []);
  let r = 0;
  let runEnd = (runs[0] as string).length;
  for (const seg of segmenterFor(joined).segment(joined)) {
    if (!seg.isWordLike) continue;
    while (seg.index >= runEnd + 1 && r + 1 < runs.length) {
      r++;
      runEnd += 1 + (runs[r] as string).length;
    }
    if (seg.index + seg.segment.length > runEnd) return alone();
    (out[r] as string[]).push(seg.segment);
  }
  return out;
}

/** Tokens of one text: `words` (stemmed, for word n-grams), `raw` (unstemmed, for char n-grams), `cjk` char 1-2 grams. */
export interface Tokens {
  words: string[];
  raw: string[];
  cjk: string[];
}

/**
 * Tokenise text (see module doc). Deterministic; never throws.
 * Output arrays are in text order; `cjk` holds character unigrams and bigrams of unspaced runs.
 */
export function tokenize(text: string): Tokens {
  const norm = normalize(text);
  const raw: string[] = [];
  const cjk: string[] = [];
  if (!NON_ASCII.test(norm)) {
    // Fast path: ASCII text (most memory files): no Unicode property classes, no segmenter.
    scanAsciiWords(norm, raw);
    const lang = guessLatinLang(raw);
    const words = new Array<string>(raw.length);
    for (let i = 0; i < raw.length; i++) words[i] = stemWord(raw[i] as string, lang);
    return { words, raw, cjk };
  }
  const { runs, starts } = unspacedRuns(norm);
  if (runs.length === 0) {
    scanWords(norm, raw);
  } else {
    // Tokens in order; unspaced (Han, kana, Thai) runs are word-segmented, all runs of the text in
    // one Intl.Segmenter call (each call costs several microseconds of setup): see segmentRuns.
    const words = segmentRuns(runs);
    let last = 0;
    for (let r = 0; r < runs.length; r++) {
      const run = runs[r] as string;
      const at = starts[r] as number;
      if (at > last) scanWords(norm.slice(last, at), raw);
      const segmented = words[r] as string[];
      for (let k = 0; k < segmented.length; k++) raw.push(segmented[k] as string);
      const chars = Array.from(run);
      for (let i = 0; i < chars.length; i++) {
        cjk.push(chars[i] as string);
        if (i + 1 < chars.length) cjk.push((chars[i] as string) + (chars[i + 1] as string));
      }
      last = at + run.length;
    }
    if (last < norm.length) scanWords(norm.slice(last), raw);
  }
  const latin = raw.filter((w) => LATIN_RE.test(w));
  const lang = guessLatinLang(latin);
  const words = raw.map((w) => {
    const c = w.charCodeAt(0);
    if (c >= 0x400 && c <= 0x4ff) return stemWord(w, "ru");
    return c < 0x250 && LATIN_RE.test(w) ? stemWord(w, lang) : w;
  });
  return { words, raw, cjk };
}
