import { TYPES, type KnowledgeType } from "./types.js";

/** Precision, recall, F1 and support of one class. */
export interface ClassMetrics {
  precision: number;
  recall: number;
  f1: number;
  support: number;
}

/** Classification metrics over the five types. `confusion[i][j]` counts gold TYPES[i] predicted as TYPES[j]. */
export interface Metrics {
  confusion: number[][];
  perClass: Record<KnowledgeType, ClassMetrics>;
  macroF1: number;
  accuracy: number;
  units: number;
}

/**
 * Confusion matrix, per-class precision/recall/F1 and macro-F1 (unweighted mean of the five F1s).
 * A class with no predictions has precision 0; with no support, recall 0 (scikit-learn's zero_division=0).
 * Throws if the two arrays differ in length.
 */
export function computeMetrics(gold: readonly KnowledgeType[], pred: readonly KnowledgeType[]): Metrics {
  if (gold.length !== pred.length) throw new Error(`metrics: ${gold.length} gold labels vs ${pred.length} predictions`);
  const K = TYPES.length;
  const confusion = Array.from({ length: K }, () => new Array<number>(K).fill(0));
  let correct = 0;
  for (let i = 0; i < gold.length; i++) {
    const g = TYPES.indexOf(gold[i] as KnowledgeType);
    const p = TYPES.indexOf(pred[i] as KnowledgeType);
    (confusion[g] as number[])[p] = ((confusion[g] as number[])[p] as number) + 1;
    if (g === p) correct++;
  }
  const perClass = {} as Record<KnowledgeType, ClassMetrics>;
  let f1Sum = 0;
  TYPES.forEach((t, k) => {
    const tp = (confusion[k] as number[])[k] as number;
    const support = (confusion[k] as number[]).reduce((a, b) => a + b, 0);
    const predicted = confusion.reduce((a, row) => a + (row[k] as number), 0);
    const precision = predicted ? tp / predicted : 0;
    const recall = support ? tp / support : 0;
    const f1 = precision + recall ? (2 * precision * recall) / (precision + recall) : 0;
    perClass[t] = { precision, recall, f1, support };
    f1Sum += f1;
  });
  return { confusion, perClass, macroF1: f1Sum / K, accuracy: gold.length ? correct / gold.length : 0, units: gold.length };
}

/** Render metrics as a plain-text report: per-class table, macro-F1, accuracy and the confusion matrix. */
export function formatMetrics(title: string, m: Metrics): string {
  const pct = (x: number): string => x.toFixed(3);
  const lines = [`${title} (${m.units} units)`, `  ${"class".padEnd(11)} precision  recall   F1     support`];
  for (const t of TYPES) {
    const c = m.perClass[t];
    lines.push(`  ${t.padEnd(11)} ${pct(c.precision).padStart(9)}  ${pct(c.recall).padStart(6)}  ${pct(c.f1).padStart(5)}  ${String(c.support).padStart(7)}`);
  }
  lines.push(`  macro-F1 ${pct(m.macroF1)}   accuracy ${pct(m.accuracy)}`);
  lines.push(`  confusion matrix (rows gold, columns predicted; C P B R E):`);
  m.confusion.forEach((row, i) => {
    lines.push(`    ${"CPBRE"[i]} ${row.map((v) => String(v).padStart(5)).join("")}`);
  });
  return lines.join("\n");
}

/** The subset of Metrics stored in model metadata (rounded to 4 decimals). */
export function summarizeMetrics(m: Metrics): {
  macroF1: number;
  accuracy: number;
  perClass: Record<string, ClassMetrics>;
  units: number;
} {
  const r = (x: number): number => Math.round(x * 1e4) / 1e4;
  const perClass: Record<string, ClassMetrics> = {};
  for (const t of TYPES) {
    const c = m.perClass[t];
    perClass[t] = { precision: r(c.precision), recall: r(c.recall), f1: r(c.f1), support: c.support };
  }
  return { macroF1: r(m.macroF1), accuracy: r(m.accuracy), perClass, units: m.units };
}
