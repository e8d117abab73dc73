/**
 * The one token estimate used wherever a budget appears (compact, decompose, hooks, benchmarks).
 * Deterministic, pure, and additive over lines: estimateTokens(a + "\n" + b) ===
 * estimateTokens(a) + 1 + estimateTokens(b), so a budget can be accounted unit by unit.
 */

/** True for a code point in a CJK block: Han, kana, Hangul, CJK punctuation, full-width forms. */
function isCjk(cp: number): boolean {
  return (
    (cp >= 0x3000 && cp <= 0x30ff) || // CJK punctuation, hiragana, katakana
    (cp >= 0x3400 && cp <= 0x4dbf) || // Han extension A
    (cp >= 0x4e00 && cp <= 0x9fff) || // Han unified ideographs
    (cp >= 0xac00 && cp <= 0xd7af) || // Hangul syllables
    (cp >= 0x1100 && cp <= 0x11ff) || // Hangul jamo
    (cp >= 0xf900 && cp <= 0xfaff) || // Han compatibility
    (cp >= 0xff00 && cp <= 0xffef) || // full-width forms
    (cp >= 0x20000 && cp <= 0x2ffff) // Han extensions B-F
  );
}

/**
 * Estimated token count of a text (the project's budget unit).
 * Counting: each line break "\n" is 1 token; other whitespace separates chunks and costs 0; every
 * CJK character (Han, kana, Hangul, CJK and full-width punctuation) is 1 token; the other characters
 * of a chunk (Latin, digits, symbols, other scripts) cost ceil(n / 4) tokens, the usual ~4 characters
 * per token of BPE tokenizers on English text (so "the" = 1, "configuration" = 4, "不要npm" = 2 + 1).
 * Never throws; "" -> 0.
 */
export function estimateTokens(text: string): number {
  let tokens = 0;
  let run = 0; // non-CJK, non-space characters in the current chunk
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10) {
      tokens += 1 + ((run + 3) >> 2);
      run = 0;
    } else if (c === 32 || c === 9 || c === 13 || c === 11 || c === 12) {
      tokens += (run + 3) >> 2;
      run = 0;
    } else if (c < 0x1100) {
      run++;
    } else {
      let cp = c;
      if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
        cp = text.codePointAt(i) ?? c;
        if (cp > 0xffff) i++;
      }
      if (isCjk(cp)) {
        tokens += 1 + ((run + 3) >> 2);
        run = 0;
      } else if (cp === 0x00a0 || cp === 0x2028 || cp === 0x2029 || (cp >= 0x2000 && cp <= 0x200b)) {
        tokens += (run + 3) >> 2;
        run = 0;
      } else {
        run++;
      }
    }
  }
  return tokens + ((run + 3) >> 2);
}

/** A budget request: exactly one of an absolute token count or a ratio of the input's estimate. */
export interface BudgetRequest {
  budget?: number;
  ratio?: number;
}

/**
 * Resolve a budget in tokens: `budget` as given, or floor(ratio x inputTokens) (at least 1).
 * Throws RangeError when both or neither are set, or when a value is not a positive finite number.
 */
export function resolveBudget(req: BudgetRequest, inputTokens: number): number {
  const hasB = req.budget !== undefined;
  const hasR = req.ratio !== undefined;
  if (hasB === hasR) throw new RangeError("give exactly one of a budget (tokens) or a ratio");
  if (hasB) {
    const b = req.budget as number;
    if (!Number.isFinite(b) || b <= 0 || !Number.isInteger(b)) throw new RangeError(`budget must be a positive integer, got ${b}`);
    return b;
  }
  const r = req.ratio as number;
  if (!Number.isFinite(r) || r <= 0) throw new RangeError(`ratio must be a positive number, got ${r}`);
  return Math.max(1, Math.floor(r * inputTokens));
}
