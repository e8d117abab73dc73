import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { clearTokenizerCaches, guessLatinLang, KEEP_WORDS, naturalStem, packStems, scanAsciiWords, stemWord, tableStem, tokenize, useStemTables } from "../../scripts/engine/tokenize.js";

describe("tokenize: English", () => {
  it("lowercases, keeps negations and modals unstemmed, keeps don't as one token", () => {
    const t = tokenize("Don't push to MAIN; you must NEVER skip the failing tests.");
    expect(t.raw).toEqual(["don't", "push", "to", "main", "you", "must", "never", "skip", "the", "failing", "tests"]);
    expect(t.words).toContain("don't");
    expect(t.words).toContain("must");
    expect(t.words).toContain("never");
    // Ordinary words are Porter-stemmed.
    expect(t.words).toContain("fail");
    expect(t.words).toContain("test");
    expect(t.cjk).toEqual([]);
  });

  it("curly apostrophes are normalised, so don’t == don't", () => {
    expect(tokenize("Don\u2019t do that").words[0]).toBe("don't");
  });

  it("keeps 'do not', 'should', 'prefer', 'avoid' as separate kept words, in order", () => {
    const t = tokenize("You should prefer small diffs and avoid rebases; do not squash.");
    for (const w of ["should", "prefer", "avoid", "do", "not"]) {
      expect(KEEP_WORDS.has(w)).toBe(true);
      expect(t.words).toContain(w);
    }
    expect(t.words.indexOf("do")).toBe(t.words.indexOf("not") - 1);
  });

  it("flags and paths break into word tokens without losing their letters", () => {
    const t = tokenize("pnpm -w test:int -- --runInBand");
    expect(t.raw).toEqual(["pnpm", "w", "test", "int", "runinband"]);
  });

  it("no stopword removal: function words stay", () => {
    expect(tokenize("it is the one and only").raw).toEqual(["it", "is", "the", "one", "and", "only"]);
  });
});

describe("tokenize: Russian", () => {
  it("stems Cyrillic words with the Russian stemmer but keeps не / никогда / нельзя", () => {
    const t = tokenize("Никогда не коммить секреты в репозиторий, нельзя.");
    expect(t.raw).toEqual(["никогда", "не", "коммить", "секреты", "в", "репозиторий", "нельзя"]);
    expect(t.words).toContain("никогда");
    expect(t.words).toContain("не");
    expect(t.words).toContain("нельзя");
    expect(t.words).toContain(stemWord("секреты", "ru"));
    expect(stemWord("секреты", "ru")).not.toBe("секреты");
  });

  it("mixed Cyrillic + Latin: Latin words are stemmed as English", () => {
    const t = tokenize("Всегда запускай tests перед deploying");
    expect(t.words[0]).toBe("всегда");
    expect(t.words).toContain("test");
    expect(t.words).toContain("deploi");
  });
});

describe("tokenize: Spanish and German (stemmer chosen from function words)", () => {
  it("Spanish function words select the Spanish stemmer; nunca is kept", () => {
    const words = "nunca subas los secretos al repositorio".split(" ");
    expect(guessLatinLang(words)).toBe("es");
    const t = tokenize("Nunca subas los secretos al repositorio.");
    expect(t.words[0]).toBe("nunca");
    // The Spanish stemmer strips "-os" where the English one leaves "secreto".
    expect(stemWord("secretos", "en")).toBe("secreto");
    expect(t.words).toContain(stemWord("secretos", "es"));
    expect(t.words).not.toContain("secreto");
  });

  it("German function words select the German stemmer; niemals / nicht / immer are kept", () => {
    const words = "die tests laufen immer und niemals nicht".split(" ");
    expect(guessLatinLang(words)).toBe("de");
    const t = tokenize("Die Tests laufen immer, und niemals nicht auf main pushen.");
    for (const w of ["immer", "niemals", "nicht"]) expect(t.words).toContain(w);
    expect(stemWord("laufen", "en")).toBe("laufen");
    expect(t.words).toContain(stemWord("laufen", "de"));
    expect(stemWord("laufen", "de")).not.toBe("laufen");
  });

  it("English wins ties and plain English text", () => {
    expect(guessLatinLang(["run", "the", "tests"])).toBe("en");
    expect(guessLatinLang([])).toBe("en");
  });
});

describe("tokenize: CJK, Korean, Thai", () => {
  it("Chinese: Intl.Segmenter words plus character unigrams and bigrams; 不要 survives", () => {
    const t = tokenize("不要直接推送到主分支");
    expect(t.words).toContain("不要");
    expect(t.cjk).toContain("不");
    expect(t.cjk).toContain("不要");
    expect(t.cjk).toContain("主分");
    // n chars give n unigrams and n-1 bigrams.
    expect(t.cjk).toHaveLength(10 + 9);
  });

  it("Latin words inside CJK text stay separate tokens and are not split into characters", () => {
    const t = tokenize("用pnpm安装依赖，不要用npm");
    expect(t.raw).toContain("pnpm");
    expect(t.raw).toContain("npm");
    expect(t.cjk.some((g) => /[a-z]/.test(g))).toBe(false);
    expect(t.raw.indexOf("pnpm")).toBeLessThan(t.raw.indexOf("npm"));
  });

  it("Japanese: segmenter words include the 絶対に modal; kana and kanji get bigrams", () => {
    const t = tokenize("本番DBには絶対に接続しないでください");
    expect(t.words).toContain("絶対に");
    expect(t.words).toContain("db");
    expect(t.cjk).toContain("絶対");
    expect(t.cjk).toContain("しな");
  });

  it("Korean is a spaced script: word tokens, no character n-grams; 절대 kept", () => {
    const t = tokenize("절대 main 브랜치에 직접 푸시하지 마세요");
    expect(t.words).toEqual(["절대", "main", "브랜치에", "직접", "푸시하지", "마세요"]);
    expect(t.cjk).toEqual([]);
  });

  it("Thai (no spaces) is split into words by Intl.Segmenter", () => {
    const t = tokenize("ห้ามใช้ฐานข้อมูลจริง");
    expect(t.raw.length).toBeGreaterThan(1);
    expect(t.raw.join("")).toBe("ห้ามใช้ฐานข้อมูลจริง");
    expect(t.raw).toContain("ห้าม");
  });

  it("is deterministic and never throws on odd input", () => {
    for (const s of ["", "   ", "\uFFFD\u0000", "🚫🚫", "ｆｕｌｌｗｉｄｔｈ ＡＢＣ", "a".repeat(100_000)]) {
      expect(tokenize(s)).toEqual(tokenize(s));
    }
    // NFKC folds full-width letters.
    expect(tokenize("ＮＥＶＥＲ").words).toEqual(["never"]);
  });
});

describe("tokenize: fast paths give the reference tokens", () => {
  it("scanAsciiWords matches /[a-z0-9_]+(?:'[a-z]+)*/g on awkward ASCII", () => {
    const re = /[a-z0-9_]+(?:'[a-z]+)*/g;
    const samples = [
      "don't won't it's'' 'quoted' rock'n'roll o'9 a'b'c' __init__ x_1 9'a",
      "run `npm test -- --watch=false` && git push origin HEAD:main; ssh -A deploy@10.0.3.7",
      "'''  '' ' a' 'b",
      "tabs\tand\nnewlines\r\nand   spaces; (parens) [brackets] {braces} <angle>",
      "",
    ];
    for (const s of samples) {
      const out: string[] = [];
      scanAsciiWords(s, out);
      expect(out).toEqual(s.match(re) ?? []);
    }
  });

  it("a text with several Han/kana runs gets the same words as segmenting each run alone", () => {
    const seg = new Intl.Segmenter("ja", { granularity: "word" });
    const alone = (run: string): string[] => [...seg.segment(run)].filter((s) => s.isWordLike).map((s) => s.segment);
    const text = "本番では、必ずバックアップを取ること。CI（GitHub Actions）経由で、提交前必须运行测试";
    const runs = text.match(/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}ー]+/gu) ?? [];
    expect(runs.length).toBeGreaterThan(3);
    const expected = runs.flatMap(alone);
    const got = tokenize(text).raw.filter((w) => /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u.test(w));
    expect(got).toEqual(expected);
    // The memo serves a repeat of the same text identically.
    expect(tokenize(text)).toEqual(tokenize(text));
  });
});

describe("stem tables shipped in the model", () => {
  const model = JSON.parse(readFileSync(join(import.meta.dirname, "..", "..", "model", "model.json"), "utf8")) as { stems?: Record<string, string> };

  it("every entry of the committed model's tables is what natural's stemmer returns (a table only saves time)", () => {
    const stems = model.stems ?? {};
    expect(Object.keys(stems).sort()).toEqual(["de", "en", "es", "ru"]);
    let n = 0;
    for (const [lang, text] of Object.entries(stems)) {
      const lines = text.split("\n");
      expect([...lines].sort()).toEqual(lines);
      for (const line of lines) {
        const [word, stem = word] = line.split(" ") as [string, string?];
        expect(naturalStem(word, lang as "en" | "es" | "de" | "ru"), `${lang} ${word}`).toBe(stem);
        n++;
      }
    }
    expect(n).toBeGreaterThan(5000);
  });

  it("the binary search over a table's text finds every entry and nothing else", () => {
    useStemTables(model.stems ?? {});
    let found = 0;
    for (const [lang, text] of Object.entries(model.stems ?? {})) {
      const l = lang as "en" | "es" | "de" | "ru";
      const lines = text.split("\n");
      const words = new Set(lines.map((line) => line.split(" ")[0] as string));
      for (const line of lines) {
        const [word, stem = word] = line.split(" ") as [string, string?];
        expect(tableStem(word, l), `${lang} ${word}`).toBe(stem);
        found++;
        // Neighbours in sort order that are not entries: a prefix, an extension, a changed last letter.
        for (const other of [word.slice(0, -1), `${word}a`, `${word.slice(0, -1)}~`, ""]) if (!words.has(other)) expect(tableStem(other, l), `${lang} ${other}`).toBeUndefined();
      }
    }
    expect(found).toBeGreaterThan(5000);
  });

  it("packStems gives tables that useStemTables serves back, found by binary search", () => {
    const words = ["deploying", "migrations", "zebras", "aardvarks", "running", "café", "überprüfen"];
    for (const w of words) stemWord(w, "en");
    const packed = packStems();
    const lines = (packed.en ?? "").split("\n");
    expect(lines.length).toBeGreaterThanOrEqual(words.length);
    useStemTables(packed);
    for (const w of words) expect(stemWord(w, "en")).toBe(naturalStem(w, "en"));
    clearTokenizerCaches();
    for (const w of words) expect(stemWord(w, "en")).toBe(naturalStem(w, "en"));
  });
});
