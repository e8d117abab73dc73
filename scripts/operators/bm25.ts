/**
 * Terms and Okapi BM25 relevance for the operators (retrieve ranking, compact value scores).
 * Pure and deterministic.
 */

const STOP = new Set(
  "a an the and or but if then else of to in on at by for with from as is are was were be been being it its this that these those there here we you i he she they them our your their my me us do does did done so not no can will would should could may might must shall than too very just into out up down over about after before when where which who whom what how all any each".split(
    " ",
  ),
);
// Negations and modals stay terms: a query "never deploy" must not match "deploy" rules by chance alone,
// but removing "not"/"never"/"must" would also erase what distinguishes rules; keep them out of STOP.
for (const w of ["not", "no", "never", "must", "should", "can", "will"]) STOP.delete(w);

/** Light English suffix stripping (plural -s/-es, -ing, -ed): "commits" and "committing" -> "commit". */
function stem(w: string): string {
  if (w.length <= 3 || /\d/.test(w)) return w;
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
  const n = lower.length;
  let i = 0;
  while (i < n) {
    const cls = charClass(lower.charCodeAt(i));
    if (cls === 0) {
      i++;
      continue;
    }
    let j = i + 1;
    while (j < n && charClass(lower.charCodeAt(j)) === cls) j++;
    if (cls === 1) {
      const w = lower.slice(i, j);
      if (!STOP.has(w)) out.push(stem(w));
    } else if (j - i === 1) {
      out.push(lower[i] as string);
    } else {
      for (let k = i; k + 1 < j; k++) out.push(lower.slice(k, k + 2));
    }
    i = j;
  }
  return out;
}

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
