import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { hasThai, scanWords, unspacedRuns } from "../../scripts/engine/tokenize.js";
import { charFlags, THAI, UNSPACED } from "../../scripts/engine/unicode-classes.js";

// The regexes the scanners of tokenize.ts stand in for.
const WORD_RE = /[\p{L}\p{N}_]+(?:'[\p{L}]+)*/gu;
const UNSPACED_RE = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}ー]+/gu;

describe("unicode-classes: the tokenizer's character classes", () => {
  it("Thai and unspaced characters lie where the scanners' shortcuts assume (Thai in U+0E00-U+0E7F, none below U+0E00)", () => {
    const outside: number[] = [];
    for (let cp = 0; cp < 0x110000; cp++) {
      const f = charFlags(cp);
      if ((f & THAI && (cp < 0x0e00 || cp > 0x0e7f)) || (f & UNSPACED && cp < 0x0e00)) outside.push(cp);
    }
    expect(outside).toEqual([]);
  });

  // Text drawn from the characters where the scanners can go wrong: ASCII word and non-word
  // characters, apostrophes, letters and digits of other scripts, marks, Han/kana/Thai, astral letters
  // and digits, emoji, and lone surrogates.
  const alphabet = [..."aZ_9' -.\t\n", "é", "ß", "ж", "Ж", "٣", "ー", "日", "本", "の", "カ", "ห", "้", "\u0301", "\u200d", "𠀋", "𝟘", "𐐷", "😀", "\ud800", "\udc00", "가", "ǅ", "Ⅻ", "ﾃ"];
  const text = fc.array(fc.constantFrom(...alphabet), { maxLength: 40 }).map((a) => a.join(""));

  it("scanWords gives the matches of /[\\p{L}\\p{N}_]+(?:'[\\p{L}]+)*/gu", () => {
    fc.assert(
      fc.property(text, (s) => {
        const out: string[] = [];
        scanWords(s, out);
        expect(out).toEqual(s.match(WORD_RE) ?? []);
      }),
      { numRuns: 3000 },
    );
  });

  it("unspacedRuns gives the matches (text and index) of the Han/kana/Thai run regex", () => {
    fc.assert(
      fc.property(text, (s) => {
        const { runs, starts } = unspacedRuns(s);
        const want = [...s.matchAll(UNSPACED_RE)];
        expect(runs).toEqual(want.map((m) => m[0]));
        expect(starts).toEqual(want.map((m) => m.index));
        expect(hasThai(s)).toBe(/\p{Script=Thai}/u.test(s));
      }),
      { numRuns: 3000 },
    );
  });

  it("scanWords on real multilingual lines", () => {
    for (const s of ["Никогда не коммить секреты; нельзя!", "Die Prüfung läuft immer – niemals überspringen.", "l'équipe n'a pas 3'4 d'ici", "日本語のテキスト와 한국어 텍스트", "𝐁𝐨𝐥𝐝 mathematical letters and 𝟙𝟚 digits"]) {
      const out: string[] = [];
      scanWords(s, out);
      expect(out).toEqual(s.match(WORD_RE) ?? []);
    }
  });
});
