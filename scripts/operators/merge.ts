/**
 * Near-duplicate detection for compaction: which preferences (or repeated beliefs) fold into one.
 * Candidate pairs come from prefix filtering (Chaudhuri, Ganti & Kaushik 2006: two sets with Jaccard
 * >= t share a term among the first |s| - ceil(t|s|) + 1 terms of each, in one global rare-first order),
 * so the cost stays near linear instead of comparing every pair. Pure.
 */
import { foldable } from "./compress.js";

/** A set that may be folded into another: its term set and a lazy list of its protected tokens. */
export interface FoldItem {
  set: ReadonlySet<string>;
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
  const df = new Map<string, number>();
  for (const it of items) for (const t of it.set) df.set(t, (df.get(t) ?? 0) + 1);
  const order = (a: string, b: string): number => (df.get(a) as number) - (df.get(b) as number) || (a < b ? -1 : a > b ? 1 : 0);
  const postings = new Map<string, number[]>();
  const clusterOf = new Int32Array(items.length).fill(-1);
  const cache = new Map<number, string[]>();
  const view = (k: number) => {
    const it = items[k] as FoldItem;
    return {
      set: it.set,
      lower: it.text.toLowerCase(),
      get prot() {
        let p = cache.get(k);
        if (!p) cache.set(k, (p = it.prot()));
        return p;
      },
    };
  };
  items.forEach((it, b) => {
    if (it.set.size < 2) return;
    const sorted = [...it.set].sort(order);
    const prefix = sorted.slice(0, sorted.length - Math.ceil(threshold * sorted.length) + 1);
    const seen = new Set<number>();
    for (const t of prefix) {
      for (const c of postings.get(t) ?? []) {
        if (seen.has(c) || clusterOf[b] !== -1) continue;
        seen.add(c);
        const root = clusterOf[c] === -1 ? c : (clusterOf[c] as number);
        if (root === c && foldable(view(c), view(b), threshold)) clusterOf[b] = c;
      }
      const list = postings.get(t);
      if (list) list.push(b);
      else postings.set(t, [b]);
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
