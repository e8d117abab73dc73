/**
 * Character classes of the tokenizer as a table, so tokenising text that is not ASCII needs no
 * Unicode property regex (the first match of /[\p{L}\p{N}_]+/u costs 5-19 ms of regex compilation in
 * every process). Flags per code point: WORD_LETTER (\p{L}), WORD_OTHER (\p{N} or "_"), UNSPACED
 * (Script=Han, Hiragana, Katakana or Thai, or U+30FC), THAI (Script=Thai). The ranges are generated
 * from Node's own regexes into unicode-ranges.ts (scripts/dev/gen-unicode-classes.ts);
 * tests/engine/unicode-classes.test.ts checks every code point against those regexes.
 */
import { RANGES } from "./unicode-ranges.js";

export { UNICODE_VERSION } from "./unicode-ranges.js";
export const WORD_LETTER = 1;
export const WORD_OTHER = 2;
export const UNSPACED = 4;
export const THAI = 8;

const BMP = new Uint8Array(0x10000);
const astralStarts: number[] = [];
const astralFlags: number[] = [];
{
  let start = 0;
  const starts: number[] = [];
  const flags: number[] = [];
  for (const t of RANGES.split(",")) {
    start += Number.parseInt(t.slice(0, -1), 36);
    starts.push(start);
    flags.push(t.charCodeAt(t.length - 1) - 65);
  }
  for (let i = 0; i < starts.length; i++) {
    const s = starts[i] as number;
    const e = i + 1 < starts.length ? (starts[i + 1] as number) : 0x110000;
    const f = flags[i] as number;
    if (s < 0x10000 && f !== 0) BMP.fill(f, s, Math.min(e, 0x10000));
    if (e > 0x10000) {
      astralStarts.push(Math.max(s, 0x10000));
      astralFlags.push(f);
    }
  }
}

/** The flags of a code point (0 for surrogates, unassigned and other characters). */
export function charFlags(cp: number): number {
  if (cp < 0x10000) return BMP[cp] as number;
  let lo = 0;
  let hi = astralStarts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((astralStarts[mid] as number) <= cp) lo = mid;
    else hi = mid - 1;
  }
  return astralFlags[lo] as number;
}
