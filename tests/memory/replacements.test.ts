/**
 * Second fresh-user pass (issue 13): a withdrawal that states the rule replacing it, and a new answer language, replace
 * the earlier rule instead of leaving nothing or leaving both. Probe sentences written for these tests, through real
 * extraction runs on real-shaped transcripts.
 */
import { rmSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { outputLanguageOf } from "../../scripts/memory/consolidate.js";
import { loadStore } from "../../scripts/memory/store/state.js";
import { assistant, jsonl, user } from "../fixtures/memory/jsonl.js";
import { extractText, tempProject } from "./helpers.js";

async function activeAfter(turns: readonly string[]): Promise<string[]> {
  const p = tempProject();
  try {
    await extractText(p, jsonl(turns.flatMap((t) => [user(t), assistant("OK.")])));
    return loadStore(p.rulesDir).rules.filter((r) => r.status === "active").map((r) => r.text);
  } finally {
    rmSync(p.dir, { recursive: true, force: true });
  }
}

describe("a withdrawal that goes on to state its replacement", () => {
  it.each([
    ["Use yarn, not npm, in every package.", "Never mind, use pnpm instead of yarn.", "pnpm"],
    ["Always format dates as DD.MM.YYYY in the reports.", "Vergiss das, nimm ISO-Daten statt DD.MM.YYYY.", "ISO"],
  ])("%s / %s -> only the replacement is active", async (rule, replacement, word) => {
    const active = await activeAfter([rule, replacement]);
    expect(active).toHaveLength(1);
    expect(active[0]).toContain(word);
  });
});

describe("one answer language at a time", () => {
  it.each([
    ["Always answer in German.", "Actually, answer in English from now on."],
    ["Antworte immer auf Deutsch.", "Ab sofort antworte bitte auf Englisch."],
    ["回答请用中文。", "以后请用英文回答。"],
  ])("%s then %s -> the later one", async (first, later) => {
    const active = await activeAfter([first, later]);
    expect(active).toHaveLength(1);
    expect(later).toContain(active[0]?.replace(/^\W+/, "").slice(0, 8));
  });

  it("a commit-message language and an answer language are different settings; both stay", async () => {
    const active = await activeAfter(["Always answer in German.", "Write the commit messages in English."]);
    expect(active).toHaveLength(2);
  });

  it("outputLanguageOf names the output and the one language, and nothing for two languages", () => {
    expect(outputLanguageOf("Always answer in German.")).toEqual({ output: "answer", language: "de" });
    expect(outputLanguageOf("Antworte mir bitte auf Deutsch, Code-Kommentare bleiben aber Englisch.")).toBeUndefined();
    expect(outputLanguageOf("Use pnpm.")).toBeUndefined();
  });
});
