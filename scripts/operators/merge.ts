/**
 * Near-duplicate detection for compaction: which preferences (or repeated beliefs) fold into one.
 * Candidate pairs come from prefix filtering (Chaudhuri, Ganti & Kaushik 2006: two sets with Jaccard
 * >= t share a term among the first |s| - ceil(t|s|) + 1 terms of each, in any one global term order),
 * so the cost stays near linear instead of comparing every pair. Pure.
 */
import { foldable } from "./compress.js";

/** A set that may be folded into another: its term set and a lazy list of its protected tokens. */
export interface FoldItem {
  set: ReadonlySet<string | number>;
  /** The item's text. */
  text: string;
  prot: () => string[];
}

/**
 * Greedy clusters of near-duplicates (term-set Jaccard >= threshold, protected tokens of the folded
 * item all present in the kept one), in input order. In each cluster the most complete wording (most
 * terms; the earliest on ties) is kept. Output: [folded index, kept index] pairs.
 */
export function nearDuplicates(items: readonly FoldItem[], threshold: number): [number, number][] {
  // Any fixed global term order is valid for prefix filtering; terms are 32-bit hashes (or strings), sorted as such.
  const postings = new Map<string | number, number[]>();
  const clusterOf = new Int32Array(items.length).fill(-1);
  const cache = new Map<number, string[]>();
  const views: { set: ReadonlySet<string | number>; readonly lower: string; readonly prot: string[] }[] = [];
  const view = (k: number) => {
    let v = views[k];
    if (!v) {
      const it = items[k] as FoldItem;
      let lower: string | undefined;
      v = views[k] = {
        set: it.set,
        get lower() {
          if (lower === undefined) lower = it.text.toLowerCase();
          return lower;
        },
        get prot() {
          let p = cache.get(k);
          if (!p) cache.set(k, (p = it.prot()));
          return p;
        },
      };
    }
    return v;
  };
  items.forEach((it, b) => {
    if (it.set.size < 2) return;
    const ranks = [...it.set].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
    const prefixLength = ranks.length - Math.ceil(threshold * ranks.length) + 1;
    const seen = new Set<number>();
    for (let x = 0; x < prefixLength; x++) {
      const r = ranks[x] as string | number;
      const list = postings.get(r);
      for (const c of list ?? []) {
        if (seen.has(c) || clusterOf[b] !== -1) continue;
        seen.add(c);
        if (clusterOf[c] === -1 && foldable(view(c), view(b), threshold)) clusterOf[b] = c;
      }
      if (list) list.push(b);
      else postings.set(r, [b]);
    }
  });
  const clusters = new Map<number, number[]>();
  clusterOf.forEach((root, b) => {
    if (root < 0) return;
    const list = clusters.get(root);
    if (list) list.push(b);
    else clusters.set(root, [root, b]);
  });
  const out: [number, number][] = [];
  for (const members of clusters.values()) {
    let keep = members[0] as number;
    for (const m of members) if ((items[m] as FoldItem).set.size > (items[keep] as FoldItem).set.size) keep = m;
    for (const m of members) if (m !== keep && foldable(view(keep), view(m), threshold)) out.push([m, keep]);
  }
  return out.sort((x, y) => x[0] - y[0]);
}
