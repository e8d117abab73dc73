/**
 * The second linear stage (issue 12 item 3): a small multinomial logistic regression over each
 * unit's own first-stage probabilities, its section's aggregated probabilities (mean and max over the
 * other units under the same headings), its neighbours' probabilities, the file's mean, and the
 * section kind / line form of cues.ts with their conjunctions with the unit's own scores. It lets a
 * line's class depend on what the rest of its section looks like to the model ("Label: value" lines
 * in a section of status snapshots, noun-phrase to-dos in a list of steps) with a few hundred
 * parameters, fitted on grouped folds of realistic files (bench/real-stage2.ts). Pure.
 */
import { FORMS, lineForms, SECTION_KINDS, sectionKind } from "./cues.js";
import { bodyText } from "./features.js";
import { TYPES, type KnowledgeType, type Unit } from "./types.js";

const K = TYPES.length;
const UNIT_KINDS = ["line", "list-item", "code", "table-row", "table-header", "frontmatter", "heading"] as const;
/** Version tag of the feature layout below; a model's stage-2 weights are only used when it matches. */
export const STAGE2_LAYOUT = "s2.v1" as const;

const OWN = 0;
const SEC_MEAN = OWN + K;
const SEC_MAX = SEC_MEAN + K;
const PREV = SEC_MAX + K;
const NEXT = PREV + K;
const DOC = NEXT + K;
const SEC_KIND = DOC + K;
const FORM = SEC_KIND + SECTION_KINDS.length;
const UKIND = FORM + FORMS.length;
const SECX_OWN = UKIND + UNIT_KINDS.length;
const SECX_MEAN = SECX_OWN + SECTION_KINDS.length * K;
/** Number of stage-2 features per unit. */
export const STAGE2_DIM = SECX_MEAN + SECTION_KINDS.length * K;

/** Floor of a probability before its logarithm (log 1e-4 = -9.2). */
const P_FLOOR = 1e-4;

/**
 * Stage-2 feature vectors of the units of one document, given their first-stage probability rows
 * (same order, one row per unit, each summing to 1). Returns one Float64Array of STAGE2_DIM per unit.
 */
export function stage2Features(units: readonly Unit[], rows: readonly Readonly<Record<KnowledgeType, number>>[]): Float64Array[] {
  const n = units.length;
  const p = rows.map((r) => TYPES.map((t) => r[t]));
  const sections = new Map<string, number[]>();
  for (let i = 0; i < n; i++) {
    const key = (units[i] as Unit).headings.join("\u0001");
    const list = sections.get(key);
    if (list) list.push(i);
    else sections.set(key, [i]);
  }
  const doc = new Array<number>(K).fill(0);
  for (const r of p) for (let k = 0; k < K; k++) doc[k] = (doc[k] as number) + (r[k] as number) / Math.max(1, n);
  const out: Float64Array[] = [];
  for (let i = 0; i < n; i++) out.push(new Float64Array(STAGE2_DIM));
  for (const members of sections.values()) {
    const sum = new Array<number>(K).fill(0);
    for (const i of members) for (let k = 0; k < K; k++) sum[k] = (sum[k] as number) + ((p[i] as number[])[k] as number);
    for (const i of members) {
      const x = out[i] as Float64Array;
      const own = p[i] as number[];
      const others = members.length - 1;
      for (let k = 0; k < K; k++) {
        x[OWN + k] = Math.log(Math.max(P_FLOOR, own[k] as number));
        x[SEC_MEAN + k] = others > 0 ? ((sum[k] as number) - (own[k] as number)) / others : 0;
        let mx = 0;
        for (const j of members) if (j !== i) mx = Math.max(mx, (p[j] as number[])[k] as number);
        x[SEC_MAX + k] = mx;
        x[PREV + k] = i > 0 ? ((p[i - 1] as number[])[k] as number) : 0;
        x[NEXT + k] = i + 1 < n ? ((p[i + 1] as number[])[k] as number) : 0;
        x[DOC + k] = doc[k] as number;
      }
      const u = units[i] as Unit;
      const sk = SECTION_KINDS.indexOf(sectionKind(u.headings, u.leadIn));
      x[SEC_KIND + sk] = 1;
      const forms = lineForms(bodyText(u), u.text, u.kind);
      for (let f = 0; f < FORMS.length; f++) if (forms & (1 << f)) x[FORM + f] = 1;
      const uk = UNIT_KINDS.indexOf(u.kind as (typeof UNIT_KINDS)[number]);
      if (uk >= 0) x[UKIND + uk] = 1;
      for (let k = 0; k < K; k++) {
        x[SECX_OWN + sk * K + k] = own[k] as number;
        x[SECX_MEAN + sk * K + k] = x[SEC_MEAN + k] as number;
      }
    }
  }
  return out;
}

/** Stage-2 parameters: the feature layout, weights class-major (class k, feature d at k * STAGE2_DIM + d) and K biases. */
export interface Stage2Params {
  layout: string;
  weights: number[];
  bias: number[];
}

/** Softmax probabilities of stage 2 for one feature vector (weights class-major, as in Stage2Params). */
export function stage2Probs(x: Float64Array, s: { weights: ArrayLike<number>; bias: ArrayLike<number> }): number[] {
  const z = new Array<number>(K);
  let max = Number.NEGATIVE_INFINITY;
  for (let k = 0; k < K; k++) {
    let v = s.bias[k] as number;
    const base = k * STAGE2_DIM;
    for (let d = 0; d < STAGE2_DIM; d++) {
      const xv = x[d] as number;
      if (xv !== 0) v += (s.weights[base + d] as number) * xv;
    }
    z[k] = v;
    if (v > max) max = v;
  }
  let sum = 0;
  for (let k = 0; k < K; k++) {
    z[k] = Math.exp((z[k] as number) - max);
    sum += z[k] as number;
  }
  return z.map((v) => v / sum);
}

/**
 * Re-score one document's first-stage rows (one per unit, in order) with stage 2; same shape out.
 * Rows come back unchanged (copied) when the parameters are of another layout or size.
 */
export function applyStage2(units: readonly Unit[], rows: readonly Record<KnowledgeType, number>[], s: Stage2Params): Record<KnowledgeType, number>[] {
  if (s.layout !== STAGE2_LAYOUT || s.weights.length !== K * STAGE2_DIM) return rows.slice();
  const xs = stage2Features(units, rows);
  return xs.map((x) => {
    const q = stage2Probs(x, s);
    return { constraint: q[0] as number, procedural: q[1] as number, belief: q[2] as number, preference: q[3] as number, episodic: q[4] as number };
  });
}

/**
 * Fit stage 2 by full-batch gradient descent (Adam, `iters` steps, step 0.05) on the mean softmax
 * cross-entropy plus l2 * |W|^2 / 2 (biases unpenalised), with optional per-example weights.
 * `xs` feature vectors, `y` class indices (TYPES order). Deterministic (starts at zero).
 */
export function fitStage2(xs: readonly Float64Array[], y: readonly number[], l2: number, iters = 400, sampleWeight?: readonly number[]): Stage2Params {
  const D = STAGE2_DIM;
  const w = new Float64Array(K * D);
  const b = new Float64Array(K);
  const mW = new Float64Array(K * D);
  const vW = new Float64Array(K * D);
  const mB = new Float64Array(K);
  const vB = new Float64Array(K);
  const lr = 0.05;
  const b1 = 0.9;
  const b2 = 0.999;
  const n = xs.length;
  const sw = sampleWeight ?? new Array<number>(n).fill(1);
  const total = sw.reduce((a, c) => a + c, 0) || 1;
  const params = { weights: w, bias: b };
  for (let it = 1; it <= iters; it++) {
    const gW = new Float64Array(K * D);
    const gB = new Float64Array(K);
    for (let i = 0; i < n; i++) {
      const x = xs[i] as Float64Array;
      const q = stage2Probs(x, params);
      const wi = (sw[i] as number) / total;
      for (let k = 0; k < K; k++) {
        const g = ((q[k] as number) - (k === y[i] ? 1 : 0)) * wi;
        if (g === 0) continue;
        gB[k] = (gB[k] as number) + g;
        const base = k * D;
        for (let d = 0; d < D; d++) {
          const xv = x[d] as number;
          if (xv !== 0) gW[base + d] = (gW[base + d] as number) + g * xv;
        }
      }
    }
    for (let j = 0; j < K * D; j++) {
      const g = (gW[j] as number) + l2 * (w[j] as number);
      mW[j] = b1 * (mW[j] as number) + (1 - b1) * g;
      vW[j] = b2 * (vW[j] as number) + (1 - b2) * g * g;
      w[j] = (w[j] as number) - (lr * ((mW[j] as number) / (1 - b1 ** it))) / (Math.sqrt((vW[j] as number) / (1 - b2 ** it)) + 1e-8);
    }
    for (let k = 0; k < K; k++) {
      const g = gB[k] as number;
      mB[k] = b1 * (mB[k] as number) + (1 - b1) * g;
      vB[k] = b2 * (vB[k] as number) + (1 - b2) * g * g;
      b[k] = (b[k] as number) - (lr * ((mB[k] as number) / (1 - b1 ** it))) / (Math.sqrt((vB[k] as number) / (1 - b2 ** it)) + 1e-8);
    }
  }
  return { layout: STAGE2_LAYOUT, weights: Array.from(w), bias: Array.from(b) };
}
