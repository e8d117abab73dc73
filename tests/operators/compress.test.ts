import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compressText, jaccard, protectedTokens } from "../../scripts/operators/compress.js";
import { nearDuplicates } from "../../scripts/operators/merge.js";
import { terms } from "../../scripts/operators/bm25.js";

describe("compressText", () => {
  it.each([
    ["- The API **basically** listens on port 8080 (as you know) and I think it is very fast.", "- The API listens on port 8080 and it is fast."],
    ["- Actually, the staging database is not replicated (we checked).", "- The staging database is not replicated."],
    ["  1. Note that `src/config.ts` is *really* the single source of truth.", "  1. `src/config.ts` is the single source of truth."],
    ["其实我们的服务基本上部署在 eu-west-1。", "我们的服务部署在 eu-west-1。"],
    ["Payments go through Stripe (since 2021).", "Payments go through Stripe (since 2021)."],
    ["It seems that the cache is kind of slow in order to save memory.", "The cache is slow to save memory."],
    ["The nightly job (not the hourly one) rebuilds the index.", "The nightly job (not the hourly one) rebuilds the index."],
  ])("%j -> %j", (input, want) => {
    expect(compressText(input)).toBe(want);
  });

  it("never loses a number, path, identifier, name or negation, and never grows", () => {
    const word = fc.constantFrom(
      "the", "service", "runs", "on", "port", "8080", "basically", "really", "(mostly)", "(since 2021)", "**bold**", "*soft*",
      "not", "never", "Dana", "`fooBar`", "packages/api/src", "I", "think", "just", "in order to", "kind of", "v1.2.3", "no", "don't", "其实", "部署",
    );
    fc.assert(
      fc.property(fc.array(word, { minLength: 1, maxLength: 14 }), fc.constantFrom("", "- ", "  1. "), (ws, prefix) => {
        const input = `${prefix}${ws.join(" ")}.`;
        const out = compressText(input);
        expect(out.length).toBeLessThanOrEqual(input.length);
        const have = protectedTokens(out);
        for (const t of new Set(protectedTokens(input))) {
          expect(have.filter((x) => x === t).length).toBeGreaterThanOrEqual(protectedTokens(input).filter((x) => x === t).length);
        }
        expect(out.startsWith(prefix)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});

describe("near-duplicates", () => {
  const item = (s: string) => ({ set: new Set(terms(s)), text: s, prot: () => protectedTokens(s) });

  it("BL-23: folds restatements of one preference into the most complete wording", () => {
    const lines = [
      "prefer running prettier before committing",
      "Prefer running Prettier before you commit.",
      "Prefer tabs for indentation.",
      "PREFER RUNNING PRETTIER BEFORE COMMITTING!!",
      "Prefer running Prettier on staged files before you commit.",
    ];
    // terms: {prefer, runn, prettier, commit} for 0, 1 and 3; 4 adds {stag, file}: Jaccard 4/6 = 0.67 with them.
    expect(nearDuplicates(lines.map(item), 0.6)).toEqual([
      [0, 4],
      [1, 4],
      [3, 4],
    ]);
    expect(nearDuplicates(lines.map(item), 0.9)).toEqual([
      [1, 0],
      [3, 0],
    ]);
  });

  it("does not fold facts that differ in a number", () => {
    expect(nearDuplicates([item("The API listens on port 8080."), item("The API listens on port 8081.")], 0.5)).toEqual([]);
  });

  it("jaccard is |A∩B| / |A∪B|", () => {
    expect(jaccard(new Set(["a", "b", "c"]), new Set(["b", "c", "d"]))).toBeCloseTo(2 / 4, 10);
  });
});
