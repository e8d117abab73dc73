import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { estimateTokens, resolveBudget } from "../../scripts/engine/budget.js";
import { bm25Index, bm25Scores, hashTerm, termHashes, terms } from "../../scripts/operators/bm25.js";
import { compactBudget } from "../../scripts/cli/commands/compact-command.js";
import { UsageError } from "../../scripts/errors.js";

describe("estimateTokens", () => {
  it.each([
    ["", 0],
    ["the", 1],
    ["configuration", 4], // ceil(13 / 4)
    ["Never force-push.", 5], // "Never" 2 + "force-push." ceil(11 / 4) = 3
    ["不要npm", 3], // 2 CJK characters + ceil(3 / 4)
    ["不要用。", 4], // CJK punctuation counts like a character
    ["a\nb", 3], // line break = 1
    ["  - x  ", 2], // whitespace is free
    ["\n\n", 2],
  ])("%j -> %d", (text, want) => {
    expect(estimateTokens(text)).toBe(want);
  });

  it("is additive over lines, so budgets can be accounted unit by unit", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme" }), fc.string({ unit: "grapheme" }), (a, b) => {
        expect(estimateTokens(`${a}\n${b}`)).toBe(estimateTokens(a) + 1 + estimateTokens(b));
      }),
    );
  });
});

describe("resolveBudget", () => {
  it("takes a token count or a ratio of the input estimate, never both", () => {
    expect(resolveBudget({ budget: 120 }, 1000)).toBe(120);
    expect(resolveBudget({ ratio: 0.1 }, 1005)).toBe(100);
    expect(resolveBudget({ ratio: 0.0001 }, 10)).toBe(1);
    expect(() => resolveBudget({ budget: 10, ratio: 0.1 }, 100)).toThrow(RangeError);
    expect(() => resolveBudget({}, 100)).toThrow(RangeError);
    expect(() => resolveBudget({ budget: 0 }, 100)).toThrow(RangeError);
    expect(() => resolveBudget({ budget: 1.5 }, 100)).toThrow(RangeError);
    expect(() => resolveBudget({ ratio: -1 }, 100)).toThrow(RangeError);
  });
});

describe("terms and BM25", () => {
  it("lower-cases, drops stopwords, stems lightly and splits CJK into bigrams", () => {
    expect(terms("Committing the Changes to `main`")).toEqual(["commit", "change", "main"]);
    expect(terms("不要部署")).toEqual(["不要", "要部", "部署"]);
    expect(terms("Never deploy on 周五")).toEqual(["never", "deploy", "周五"]);
  });

  it("scores a three-document fixture as worked out by hand", () => {
    // N = 3, avgdl = (2 + 3 + 1) / 3 = 2, k1 = 1.2, b = 0.75.
    // "prod": df 1, idf = ln(1 + 2.5 / 1.5) = 0.980829; d2: tf 2, |d| 3 ->
    //   idf * 2 * 2.2 / (2 + 1.2 * (0.25 + 0.75 * 1.5)) = idf * 4.4 / 3.65 = 1.182369.
    // "deploy": df 2, idf = ln(1 + 1.5 / 2.5) = 0.470004; d1: 2.2 / 2.2 = 1 -> 0.470004;
    //   d2: 2.2 / (1 + 1.65) = 0.830189 -> 0.390192.
    const index = bm25Index([["deploy", "staging"], ["deploy", "prod", "prod"], ["test"]]);
    const prod = index.score(["prod"]);
    expect(prod[0]).toBe(0);
    expect(prod[1]).toBeCloseTo(1.182369, 5);
    expect(prod[2]).toBe(0);
    const deploy = index.score(["deploy"]);
    expect(deploy[0]).toBeCloseTo(0.470004, 5);
    expect(deploy[1]).toBeCloseTo(0.390192, 5);
    // smooth idf ln((1 + N) / (1 + df)) + 1 for "deploy": ln(4 / 3) + 1
    expect(index.idf("deploy")).toBeCloseTo(Math.log(4 / 3) + 1, 10);
  });
});

describe("bm25Scores", () => {
  it("equals the index scores for any documents and query", () => {
    const term = fc.constantFrom("a", "b", "c", "d", "e");
    fc.assert(
      fc.property(fc.array(fc.array(term, { maxLength: 8 }), { minLength: 1, maxLength: 8 }), fc.array(term, { maxLength: 4 }), (docs, q) => {
        const want = bm25Index(docs).score(q);
        bm25Scores(docs, q).forEach((s, i) => {
          expect(s).toBeCloseTo(want[i] as number, 10);
        });
      }),
    );
  });
});

describe("termHashes", () => {
  it("hashes exactly the terms of terms()", () => {
    const word = fc.constantFrom("Running", "the", "changes", "studies", "boxes", "stopped", "class", "v2", "部署环境", "Größe", "Ärzte", "x", "is", "focus", "passes", "___", "42nd");
    fc.assert(
      fc.property(fc.array(fc.oneof(word, fc.string()), { maxLength: 12 }), (ws) => {
        const text = ws.join(" ");
        expect(termHashes(text)).toEqual(terms(text).map(hashTerm));
      }),
      { numRuns: 300 },
    );
  });
});

describe("compactBudget (compact's --budget / --ratio / --ratio min)", () => {
  it.each([
    [{ ratio: "min" }, "min"],
    [{ ratio: "0.5" }, { ratio: 0.5 }],
    [{ ratio: "1" }, { ratio: 1 }],
    [{ budget: "120" }, 120],
  ])("%o -> %o", (flags, want) => {
    expect(compactBudget(flags)).toEqual(want);
  });
  it.each([[{ ratio: "min", budget: "10" }], [{ ratio: "0" }], [{ ratio: "1.5" }], [{ ratio: "minimum" }], [{}], [{ budget: "10", ratio: "0.5" }], [{ budget: "0x10" }]])("%o is a usage error", (flags) => {
    expect(() => compactBudget(flags)).toThrow(UsageError);
  });
});
