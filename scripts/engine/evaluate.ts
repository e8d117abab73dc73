import { type Classifier, topType } from "./classify.js";
import { computeMetrics, type Metrics } from "./metrics.js";
import { isScored, type LabelledDoc } from "./train.js";
import type { KnowledgeType } from "./types.js";

/** Per-unit prediction record for error analysis. */
export interface Prediction {
  group: string;
  line: number;
  text: string;
  gold: KnowledgeType;
  pred: KnowledgeType;
  lang: string;
  confidence: number;
}

/**
 * Classify every labelled document as `classify` would (units in context) and score the
 * scored units against gold. Returns metrics and per-unit predictions.
 */
export function evaluateDocs(docs: readonly LabelledDoc[], classifier: Classifier): { metrics: Metrics; predictions: Prediction[] } {
  const predictions: Prediction[] = [];
  for (const d of docs) {
    const rows = classifier.scores(d.units);
    d.units.forEach((u, i) => {
      const gold = d.gold[i];
      if (!gold || !isScored(u)) return;
      const s = rows[i] as Record<KnowledgeType, number>;
      const best = topType(s);
      predictions.push({ group: d.group, line: u.line, text: u.text, gold, pred: best, lang: d.lang[i] ?? "en", confidence: s[best] });
    });
  }
  return { metrics: computeMetrics(predictions.map((p) => p.gold), predictions.map((p) => p.pred)), predictions };
}
