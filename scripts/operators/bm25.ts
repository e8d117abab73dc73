/**
 * Terms and Okapi BM25 relevance for the operators (retrieve ranking, compact value scores).
 * Pure and deterministic.
 */

const STOP = new Set(
  "a an the and or but if then else of to in on at by for with from as is are was were be been being it its this that these those there here we you i he she they them our your their my me us do does did done so not no can will would should could may might must shall than too very just into out up down over about after before when where which who whom what how all any each".split(
    " ",
  ),
);
/** True for a function word that carries no topic ("the", "on", "can"; English, lower-cased): the STOP list above. */
export function isStopWord(word: string): boolean {
  return STOP.has(word);
}
// Negations and modals stay terms: a query "never deploy" must not match "deploy" rules by chance alone,
// but removing "not"/"never"/"must" would also erase what distinguishes rules; keep them out of STOP.
for (const w of ["not", "no", "never", "must", "should", "can", "will"]) STOP.delete(w);

/** Light English suffix stripping (plural -s/-es, -ing, -ed): "commits" and "committing" -> "commit". */
function stem(w: string, digit = false): string {
  if (w.length <= 3 || digit) return w;
  if (w.endsWith("ies") && w.length > 4) return `${w.slice(0, -3)}y`;
  if (w.endsWith("ing") && w.length > 5) return undouble(w.slice(0, -3));
  if (w.endsWith("ed") && w.length > 4) return undouble(w.slice(0, -2));
  if (w.endsWith("es") && /(?:ss|sh|ch|x|z)es$/.test(w)) return w.slice(0, -2);
  if (w.endsWith("s") && !w.endsWith("ss") && !w.endsWith("us") && !w.endsWith("is")) return w.slice(0, -1);
  return w;
}

function undouble(w: string): string {
  const last = w[w.length - 1] ?? "";
  return w.length > 3 && last === w[w.length - 2] && !"aeiouls".includes(last) ? w.slice(0, -1) : w;
}

/** 1 for a word character (ASCII letter/digit/_ or a letter of Latin-1 to Cyrillic), 2 for CJK, 0 otherwise. */
function charClass(c: number): number {
  if ((c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 95) return 1;
  if (c < 0xc0) return 0;
  if (c <= 0x52f) return c === 0xd7 || c === 0xf7 ? 0 : 1;
  if ((c >= 0x3040 && c <= 0x30ff) || (c >= 0x3400 && c <= 0x4dbf) || (c >= 0x4e00 && c <= 0x9fff) || (c >= 0xac00 && c <= 0xd7af) || (c >= 0xf900 && c <= 0xfaff)) return 2;
  if (c >= 0x0530 && c < 0x2000) return 1; // other alphabetic scripts (Armenian ... Greek extended)
  return 0;
}

/**
 * Index terms of a text: lower-cased words (ASCII letters, digits, "_", Latin-1 to Cyrillic and other
 * alphabetic letters) minus English stopwords, lightly stemmed; each run of CJK characters becomes its
 * character bigrams (a single character stays a unigram). Output: terms in text order, with repeats.
 */
export function terms(text: string): string[] {
  const out: string[] = [];
  const lower = text.toLowerCase();
  const sp = spans(lower);
  for (let t = 0; t < sp.length; t += 4) {
    const cls = sp[t] as number;
    const i = sp[t + 1] as number;
    const j = sp[t + 2] as number;
    if (cls === 1) {
      const w = lower.slice(i, j);
      if (!STOP.has(w)) out.push(stem(w, sp[t + 3] === 1));
    } else if (j - i === 1) {
      out.push(lower[i] as string);
    } else {
      for (let k = i; k + 1 < j; k++) out.push(lower.slice(k, k + 2));
    }
  }
  return out;
}

/**
 * Token spans of lower-cased text, shared by terms() and termHashes(): a flat array of
 * (character class, start, end, 1 if the run has a digit) quadruples; class 1 is a word, others CJK.
 */
function spans(s: string): number[] {
  const out: number[] = [];
  const n = s.length;
  let i = 0;
  while (i < n) {
    const c0 = s.charCodeAt(i);
    const cls = c0 < 128 ? (ASCII_CLASS[c0] as number) : charClass(c0);
    if (cls === 0) {
      i++;
      continue;
    }
    let j = i + 1;
    let digit = c0 >= 48 && c0 <= 57;
    while (j < n) {
      const c = s.charCodeAt(j);
      if ((c < 128 ? ASCII_CLASS[c] : charClass(c)) !== cls) break;
      if (c >= 48 && c <= 57) digit = true;
      j++;
    }
    out.push(cls, i, j, digit ? 1 : 0);
    i = j;
  }
  return out;
}

const ASCII_CLASS = Uint8Array.from({ length: 128 }, (_, c) => charClass(c));

/** FNV-1a 32-bit hash of a string's UTF-16 code units (Fowler, Noll, Vo). */
export function hashTerm(t: string): number {
  return fnv(t, 0, t.length, 0x811c9dc5) >>> 0;
}

function fnv(s: string, from: number, to: number, seed: number): number {
  let h = seed;
  for (let k = from; k < to; k++) h = Math.imul(h ^ s.charCodeAt(k), 0x01000193);
  return h;
}

const STOP_HASH = new Set([...STOP].map(hashTerm));
const Y = 121;

/**
 * The terms of terms(text) as 32-bit FNV-1a hashes (termHashes(x)[i] === hashTerm(terms(x)[i])),
 * computed without building strings: the fast path for BM25 and value scores on every call.
 */
export function termHashes(text: string): number[] {
  const out: number[] = [];
  const s = text.toLowerCase();
  const sp = spans(s);
  for (let t = 0; t < sp.length; t += 4) {
    const cls = sp[t] as number;
    const i = sp[t + 1] as number;
    const j = sp[t + 2] as number;
    if (cls === 1) {
      const whole = fnv(s, i, j, 0x811c9dc5) >>> 0;
      if (!STOP_HASH.has(whole) || !STOP.has(s.slice(i, j))) out.push(stemHash(s, i, j, sp[t + 3] === 1, whole));
    } else if (j - i === 1) {
      out.push(fnv(s, i, j, 0x811c9dc5) >>> 0);
    } else {
      for (let k = i; k + 1 < j; k++) out.push(fnv(s, k, k + 2, 0x811c9dc5) >>> 0);
    }
  }
  return out;
}

/** stem() on s[i, j) as a hash (same rules, same order). No closures: this runs once per word. */
function stemHash(s: string, i: number, j: number, digit: boolean, whole: number): number {
  const len = j - i;
  if (len <= 3 || digit) return whole;
  if (len > 4 && endsAt(s, i, j, "ies")) return Math.imul(fnv(s, i, j - 3, 0x811c9dc5) ^ Y, 0x01000193) >>> 0;
  if (len > 5 && endsAt(s, i, j, "ing")) return fnv(s, i, undoubled(s, i, j - 3), 0x811c9dc5) >>> 0;
  if (len > 4 && endsAt(s, i, j, "ed")) return fnv(s, i, undoubled(s, i, j - 2), 0x811c9dc5) >>> 0;
  if (endsAt(s, i, j, "es") && (endsAt(s, i, j, "sses") || endsAt(s, i, j, "shes") || endsAt(s, i, j, "ches") || endsAt(s, i, j, "xes") || endsAt(s, i, j, "zes"))) {
    return fnv(s, i, j - 2, 0x811c9dc5) >>> 0;
  }
  if (endsAt(s, i, j, "s") && !endsAt(s, i, j, "ss") && !endsAt(s, i, j, "us") && !endsAt(s, i, j, "is")) return fnv(s, i, j - 1, 0x811c9dc5) >>> 0;
  return whole;
}

function endsAt(s: string, i: number, j: number, suffix: string): boolean {
  if (suffix.length > j - i) return false;
  for (let k = 0; k < suffix.length; k++) if (s.charCodeAt(j - suffix.length + k) !== suffix.charCodeAt(k)) return false;
  return true;
}

/** End of s[i, end) after undouble(): a doubled final consonant other than l or s loses one. */
function undoubled(s: string, i: number, end: number): number {
  const last = s.charCodeAt(end - 1);
  return end - i > 3 && last === s.charCodeAt(end - 2) && !UNDOUBLE_KEEP.has(last) ? end - 1 : end;
}

const UNDOUBLE_KEEP = new Set([..."aeiouls"].map((c) => c.charCodeAt(0)));

/** A BM25 index over a fixed list of documents (each a list of terms). */
export interface Bm25Index {
  /** BM25 score of every document for the query terms, in document order. */
  score(query: readonly string[]): number[];
  /** Smooth idf of a term (scikit-learn form ln((1+N)/(1+df))+1), for value scores. */
  idf(term: string): number;
}

/**
 * Build an Okapi BM25 index (Robertson & Zaragoza 2009) with k1 = 1.2, b = 0.75 and the
 * Lucene idf ln(1 + (N - df + 0.5) / (df + 0.5)), which is never negative.
 * Input: documents as term lists. Output: an index whose scores are >= 0.
 */
export function bm25Index(docs: readonly (readonly string[])[], k1 = 1.2, b = 0.75): Bm25Index {
  const n = docs.length;
  const df = new Map<string, number>();
  const tfs: Map<string, number>[] = [];
  let total = 0;
  for (const d of docs) {
    const tf = new Map<string, number>();
    for (const t of d) tf.set(t, (tf.get(t) ?? 0) + 1);
    for (const t of tf.keys()) df.set(t, (df.get(t) ?? 0) + 1);
    tfs.push(tf);
    total += d.length;
  }
  const avgdl = n > 0 ? total / n : 0;
  return {
    score(query) {
      const q = [...new Set(query)];
      const out = new Array<number>(n).fill(0);
      for (const t of q) {
        const f = df.get(t);
        if (!f) continue;
        const idf = Math.log(1 + (n - f + 0.5) / (f + 0.5));
        for (let i = 0; i < n; i++) {
          const tf = (tfs[i] as Map<string, number>).get(t);
          if (!tf) continue;
          const len = (docs[i] as readonly string[]).length;
          out[i] = (out[i] as number) + (idf * tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * len) / (avgdl || 1)));
        }
      }
      return out;
    },
    idf(term) {
      return Math.log((1 + n) / (1 + (df.get(term) ?? 0))) + 1;
    },
  };
}

/**
 * Okapi BM25 scores of every document for one query, computed directly (no index kept): the same
 * formula and constants as bm25Index (k1 = 1.2, b = 0.75, Lucene idf), cheaper for a single query.
 */
export function bm25Scores<T>(docs: readonly (readonly T[])[], query: readonly T[], k1 = 1.2, b = 0.75): number[] {
  const n = docs.length;
  const q = [...new Set(query)];
  const out = new Array<number>(n).fill(0);
  if (q.length === 0 || n === 0) return out;
  const slot = new Map(q.map((t, i) => [t, i]));
  const tf = new Float64Array(n * q.length);
  const df = new Float64Array(q.length);
  let total = 0;
  for (let d = 0; d < n; d++) {
    const doc = docs[d] as readonly T[];
    total += doc.length;
    for (const t of doc) {
      const s = slot.get(t);
      if (s === undefined) continue;
      if (tf[d * q.length + s] === 0) df[s] = (df[s] as number) + 1;
      tf[d * q.length + s] = (tf[d * q.length + s] as number) + 1;
    }
  }
  const avgdl = total / n || 1;
  for (let s = 0; s < q.length; s++) {
    const f = df[s] as number;
    if (f === 0) continue;
    const idf = Math.log(1 + (n - f + 0.5) / (f + 0.5));
    for (let d = 0; d < n; d++) {
      const x = tf[d * q.length + s] as number;
      if (x === 0) continue;
      const len = (docs[d] as readonly string[]).length;
      out[d] = (out[d] as number) + (idf * x * (k1 + 1)) / (x + k1 * (1 - b + (b * len) / avgdl));
    }
  }
  return out;
}
