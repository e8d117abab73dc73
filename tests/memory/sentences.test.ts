import { describe, expect, it } from "vitest";
import { MAX_SENTENCE_CHARS, splitSentences } from "../../scripts/memory/sentences.js";

describe("splitSentences", () => {
  it.each([
    ["Fix the test. From now on, never skip CI!", ["Fix the test.", "From now on, never skip CI!"]],
    ["Use `npm run a. b` here. Then stop.", ["Use `npm run a. b` here.", "Then stop."]],
    ["e.g. use tabs. ok?", ["e.g. use tabs.", "ok?"]],
    ["see https://x.example.com/a.b and go. done", ["see https://x.example.com/a.b and go.", "done"]],
    ["以后不要推送。这次可以。", ["以后不要推送。", "这次可以。"]],
    ["- first rule\r\n- second rule\r\n", ["first rule", "second rule"]],
    ["notes:\n```\nnever do this. always that.\n```\nreal rule.", ["notes:", "real rule."]],
    ["> quoted: never push\nmine: always test", ["mine: always test"]],
    ["version 1.2.3 is out", ["version 1.2.3 is out"]],
  ])("%j", (input, expected) => {
    expect(splitSentences(input)).toEqual(expected);
  });
  it("drops pasted blobs longer than the cap and lines without letters", () => {
    expect(splitSentences(`${"word ".repeat(MAX_SENTENCE_CHARS)}\n12345\nkeep me`)).toEqual(["keep me"]);
  });
});

describe("sentence ends after accented letters", () => {
  it("a word ending in a letter after an accented one ends the sentence (it is no one-letter abbreviation)", () => {
    expect(splitSentences("En usuarios no se toca el esquema hasta que termine la migración. La migración acaba el jueves.")).toEqual([
      "En usuarios no se toca el esquema hasta que termine la migración.",
      "La migración acaba el jueves.",
    ]);
    expect(splitSentences("Nutze z.B. pnpm statt npm. Danke.")).toEqual(["Nutze z.B. pnpm statt npm.", "Danke."]);
  });
});
