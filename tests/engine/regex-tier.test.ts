import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { classifyMarkdown, regexClassifier } from "../../scripts/engine/classify.js";
import { modelClassifier } from "../../scripts/engine/inference.js";
import { cueText, HARD, SOFT } from "../../scripts/engine/regex-tier.js";
import { readModel } from "../../scripts/io/model-file.js";

// The cue regexes as they were with the u flag (Unicode case folding); HARD and SOFT now use "i"
// (4 ms less compilation at every cold start) on cueText.
const HARD_IU = new RegExp(HARD.source, "iu");
const SOFT_IU = new RegExp(SOFT.source, "iu");

describe("regex tier: HARD and SOFT without the u flag", () => {
  it("match like /iu on the letters whose case folding reaches ASCII (long s, Kelvin sign) and on the whole corpus", () => {
    const samples = ["muſt", "Alwayſ run tests", "ſhall not", "\u212Aeinesfalls löschen", "NEVER", "Muss", "нельзя", "禁止", "prefer ſmall diffs", "ſhould", "con\u212Aider", "ideally", "plain text"];
    const repo = join(import.meta.dirname, "..", "..");
    const corpus = readdirSync(join(repo, "data", "test")).filter((f) => f.endsWith(".md")).flatMap((f) => readFileSync(join(repo, "data", "test", f), "utf8").split("\n"));
    for (const s of [...samples, ...corpus]) {
      expect(HARD.test(cueText(s)), s).toBe(HARD_IU.test(s));
      expect(SOFT.test(cueText(s)), s).toBe(SOFT_IU.test(s));
    }
    expect(corpus.length).toBeGreaterThan(500);
  });

  it("a rule written with long s is still a constraint, in the regex tier and as a heading of the model tier's restriction", () => {
    const text = "## ALWAYſ\n\n- You muſt run the tests.\n";
    const units = classifyMarkdown(text, regexClassifier);
    expect(units.find((u) => u.text === "- You muſt run the tests.")?.type).toBe("constraint");
    // Headings of the model tier may only be constraint when HARD matches (classify.ts headingTypes).
    const model = modelClassifier(readModel(join(import.meta.dirname, "..", "..", "model", "model.json")));
    const heading = classifyMarkdown(text, model).find((u) => u.kind === "heading");
    expect(heading?.scores.constraint).toBeGreaterThan(0);
    const plain = classifyMarkdown("## Always\n\n- You must run the tests.\n", model).find((u) => u.kind === "heading");
    expect(heading?.type).toBe(plain?.type);
  });
});
