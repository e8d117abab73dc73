/**
 * Type-blind baselines for the compaction-cliff benchmark. Each takes a markdown text and a token
 * budget (estimateTokens) and returns the kept lines joined with "\n" (+ "\n"), never over budget.
 */
import { estimateTokens } from "../scripts/engine/budget.js";
import { terms } from "../scripts/operators/bm25.js";

const cost = (line: string): number => estimateTokens(line) + 1;
const lines = (text: string): string[] => text.replace(/\n$/, "").split("\n");
const join = (ls: string[]): string => (ls.length ? `${ls.join("\n")}\n` : "");

/** Head truncation: lines from the top until the budget is spent. */
export function headTruncate(text: string, budget: number): string {
  const out: string[] = [];
  let used = 0;
  for (const l of lines(text)) {
    if (used + cost(l) > budget) break;
    out.push(l);
    used += cost(l);
  }
  return join(out);
}

/**
 * tf-idf salience summary: every non-blank line scored by the sum of tf x smooth idf
 * (ln((1+N)/(1+df))+1 over the file's lines) of its terms; best lines first while they fit; original order.
 */
export function tfidfSummary(text: string, budget: number): string {
  const ls = lines(text);
  const tl = ls.map((l) => terms(l));
  const df = new Map<string, number>();
  for (const t of tl) for (const w of new Set(t)) df.set(w, (df.get(w) ?? 0) + 1);
  const n = ls.length;
  const score = tl.map((t) => t.reduce((s, w) => s + Math.log((1 + n) / (1 + (df.get(w) ?? 0))) + 1, 0));
  const order = ls.map((_, i) => i).filter((i) => (ls[i] as string).trim() !== "").sort((a, b) => (score[b] as number) - (score[a] as number) || a - b);
  const keep = new Set<number>();
  let used = 0;
  for (const i of order) {
    const c = cost(ls[i] as string);
    if (used + c <= budget) {
      keep.add(i);
      used += c;
    }
  }
  return join(ls.filter((_, i) => keep.has(i)));
}

/** Uniform sampling at the budget rate: evenly spaced lines (rate = budget / tokens), trimmed to the budget. */
export function uniformSample(text: string, budget: number): string {
  const ls = lines(text);
  const rate = Math.min(1, budget / Math.max(1, estimateTokens(text)));
  const out: string[] = [];
  let used = 0;
  ls.forEach((l, i) => {
    if (Math.floor((i + 1) * rate) > Math.floor(i * rate) && used + cost(l) <= budget) {
      out.push(l);
      used += cost(l);
    }
  });
  return join(out);
}

export const BASELINES: Record<string, (text: string, budget: number) => string> = {
  "head truncation": headTruncate,
  "tf-idf salience": tfidfSummary,
  "uniform sampling": uniformSample,
};
