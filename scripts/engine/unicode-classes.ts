/**
 * Character classes of the tokenizer, per code point: WORD_LETTER (\p{L}), WORD_OTHER (\p{N} or "_"),
 * UNSPACED (Script=Han, Hiragana, Katakana or Thai, or U+30FC), THAI (Script=Thai). Each code point is
 * tested once against the property regexes and remembered, so the scans of tokenize.ts cost one
 * table lookup per character. Pure (the memo is an implementation detail: same input, same flags).
 */
export const WORD_LETTER = 1;
export const WORD_OTHER = 2;
export const UNSPACED = 4;
export const THAI = 8;

const LETTER = /^\p{L}$/u;
const OTHER = /^[\p{N}_]$/u;
const UNSPACED_RE = /^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\u30fc]$/u;
const THAI_RE = /^\p{Script=Thai}$/u;
/** 255 = not yet computed (flags use the low four bits only). */
const UNKNOWN = 255;
const bmp = new Uint8Array(0x10000).fill(UNKNOWN);
const astral = new Map<number, number>();

function compute(cp: number): number {
  if (cp >= 0xd800 && cp <= 0xdfff) return 0; // lone surrogates
  const s = String.fromCodePoint(cp);
  return (LETTER.test(s) ? WORD_LETTER : OTHER.test(s) ? WORD_OTHER : 0) | (UNSPACED_RE.test(s) ? UNSPACED : 0) | (THAI_RE.test(s) ? THAI : 0);
}

/** The flags of a code point (0 for surrogates, unassigned and other characters). */
export function charFlags(cp: number): number {
  if (cp < 0x80) {
    // ASCII without a regex: letters, digits and "_".
    return (cp >= 97 && cp <= 122) || (cp >= 65 && cp <= 90) ? WORD_LETTER : (cp >= 48 && cp <= 57) || cp === 95 ? WORD_OTHER : 0;
  }
  if (cp < 0x10000) {
    let f = bmp[cp] as number;
    if (f === UNKNOWN) {
      f = compute(cp);
      bmp[cp] = f;
    }
    return f;
  }
  let f = astral.get(cp);
  if (f === undefined) {
    f = compute(cp);
    astral.set(cp, f);
  }
  return f;
}
