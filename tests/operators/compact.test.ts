import { readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { estimateTokens } from "../../scripts/engine/budget.js";
import { classifyMarkdown } from "../../scripts/engine/classify.js";
import type { ClassifiedUnit } from "../../scripts/engine/types.js";
import { segment } from "../../scripts/engine/units.js";
import { CompactionUnsafeError } from "../../scripts/errors.js";
import { compact } from "../../scripts/operators/compact.js";
import { renderUnit } from "../../scripts/operators/layout.js";
import { isPinned } from "../../scripts/operators/policy.js";
import { goldClassifier, memoryDoc, parseLabels, poolClassifier } from "./gen.js";

const FIXTURE = readFileSync(new URL("../fixtures/operators/claude-coding.md", import.meta.url), "utf8");
const GOLD = goldClassifier(parseLabels(readFileSync(new URL("../fixtures/operators/claude-coding.labels.jsonl", import.meta.url), "utf8")));
const classify = (text: string): ClassifiedUnit[] => classifyMarkdown(text, poolClassifier);
const pinnedTexts = (units: ClassifiedUnit[]): string[] => units.filter((u) => isPinned(u) || u.kind === "frontmatter").map((u) => renderUnit(u, u.text));

/** The COMPACTION_UNSAFE message of compacting `units` to `budget` tokens (fails the test when it fits). */
function unsafeMessage(units: ClassifiedUnit[], budget: number): string {
  try {
    compact(units, { budget });
  } catch (e) {
    expect(e).toBeInstanceOf(CompactionUnsafeError);
    return (e as Error).message;
  }
  return expect.unreachable("compaction fitted the budget");
}

/** Compact or return null on COMPACTION_UNSAFE (after checking the error's numbers). */
function tryCompact(units: ClassifiedUnit[], budget: number) {
  try {
    return compact(units, { budget });
  } catch (e) {
    expect(e).toBeInstanceOf(CompactionUnsafeError);
    expect((e as CompactionUnsafeError).needed).toBeGreaterThan(budget);
    expect((e as Error).message).toContain("COMPACTION_UNSAFE");
    return null;
  }
}

describe("compact: properties over random documents and budgets", () => {
  it("keeps every pinned unit byte for byte, in order, within budget, with balanced fences", () => {
    fc.assert(
      fc.property(memoryDoc, fc.double({ min: 0.05, max: 1.2, noNaN: true }), (doc, ratio) => {
        const units = classify(doc);
        const budget = Math.max(1, Math.floor(ratio * estimateTokens(doc)));
        const r = tryCompact(units, budget);
        if (!r) return;
        expect(estimateTokens(r.text)).toBeLessThanOrEqual(budget);
        expect(r.after).toBe(estimateTokens(r.text));
        let at = -1;
        for (const p of pinnedTexts(units)) {
          const pos = r.text.indexOf(p, at + 1);
          expect(pos, `pinned unit missing or out of order: ${p}`).toBeGreaterThan(at);
          at = pos;
        }
        for (const u of segment(r.text)) if (u.kind === "code") expect(u.fence?.close).not.toBeNull();
        expect((r.text.match(/^```/gm) ?? []).length % 2).toBe(0);
        if (units[0]?.kind === "frontmatter") expect(r.text.startsWith(`${units[0].text}\n`)).toBe(true);
      }),
      { numRuns: 150 },
    );
  });

  it("refuses exactly when the pinned set cannot fit: needed is the smallest safe budget", () => {
    fc.assert(
      fc.property(memoryDoc, (doc) => {
        const units = classify(doc);
        let needed = -1;
        try {
          compact(units, { budget: 1 });
        } catch (e) {
          needed = (e as CompactionUnsafeError).needed;
        }
        if (needed < 0) return; // a document whose pinned set fits in 1 token (none here)
        expect(() => compact(units, { budget: needed })).not.toThrow();
        expect(() => compact(units, { budget: needed - 1 })).toThrow(CompactionUnsafeError);
      }),
      { numRuns: 60 },
    );
  });

  it("is stable across rounds: compact(compact(x)) pins the same rules", () => {
    fc.assert(
      fc.property(memoryDoc, fc.double({ min: 0.2, max: 0.8, noNaN: true }), (doc, ratio) => {
        const units = classify(doc);
        const budget = Math.floor(ratio * estimateTokens(doc));
        const once = tryCompact(units, budget);
        if (!once) return;
        const again = compact(classify(once.text), { budget });
        expect(new Set(pinnedTexts(classify(again.text)))).toEqual(new Set(pinnedTexts(units)));
      }),
      { numRuns: 60 },
    );
  });

  it("five rounds of append-then-compact to one budget lose no pinned unit", () => {
    fc.assert(
      fc.property(fc.array(memoryDoc, { minLength: 6, maxLength: 6 }), (docs) => {
        const all = classify(docs.join("\n"));
        const budget = Math.ceil(estimateTokens(pinnedTexts(all).join("\n")) * 2.5) + 40;
        let memory = docs[0] as string;
        const pinnedSoFar = new Set<string>();
        for (let round = 1; round <= 5; round++) {
          memory = `${memory}\n${docs[round]}`;
          const units = classify(memory);
          for (const p of pinnedTexts(units)) if (!p.startsWith("---")) pinnedSoFar.add(p);
          const r = tryCompact(units, budget);
          if (!r) return;
          for (const p of pinnedSoFar) expect(r.text).toContain(p);
          memory = r.text;
        }
      }),
      { numRuns: 40 },
    );
  });
});

describe("compact: the fixture", () => {
  const units = classifyMarkdown(FIXTURE, GOLD);

  it("returns the input unchanged when the budget covers it", () => {
    const r = compact(units, { budget: estimateTokens(FIXTURE) });
    expect(r.text).toBe(FIXTURE);
    expect(r.units.every((u) => u.action === "kept")).toBe(true);
  });

  it("drops episodic units before touching beliefs and keeps headings only of sections with content", () => {
    const full = estimateTokens(FIXTURE);
    const r = compact(units, { budget: full - 20 });
    const touched = r.units.filter((u) => u.action !== "kept");
    expect(touched.length).toBeGreaterThan(0);
    expect(touched.every((u) => u.type === "episodic" || u.line === 48)).toBe(true); // line 48 = "## Log" heading
    const tight = compact(units, { budget: Math.ceil(full * 0.45) });
    expect(tight.text).not.toContain("## Log");
    expect(tight.text).toContain("## Deploy");
  });

  it("merges near-duplicate preferences into one line (BL-23) and reports what it did", () => {
    const r = compact(units, { budget: Math.ceil(estimateTokens(FIXTURE) * 0.8) });
    const merged = r.units.filter((u) => u.action === "merged");
    expect(merged.map((u) => [u.line, u.into])).toContainEqual([26, 27]);
    expect(r.text.match(/Prefer server components/g) ?? []).toHaveLength(1);
  });

  it("keeps the fenced command block whole and byte-identical (BL-01 lines too)", () => {
    const r = compact(units, { budget: Math.ceil(estimateTokens(FIXTURE) * 0.5) });
    expect(r.text).toContain("```bash\npnpm build\npnpm deploy --env staging\n```");
    expect(r.text).toContain("- Do not append a Co-Authored-By line to any commit message.\n");
    expect(r.text).toContain("- Post status updates to the tracker as a Markdown table.\n");
  });

  it("BL-32: keeps the project rule pinned under Compact Instructions", () => {
    const doc = "## Compact Instructions\nWhen compacting, keep the list of rejected approaches.\n## Rules\n- Never run migrations against prod.\n";
    const r = compact(classify(doc), { budget: 30 });
    expect(r.text).toContain("- Never run migrations against prod.");
  });
});

describe("compact: block HTML comments", () => {
  // A CLAUDE.md with a long commented-out block of old notes, our export block and one rule.
  const old = Array.from({ length: 40 }, (_, i) => `  ${2020 + (i % 5)}-0${1 + (i % 9)}: moved the nightly batch job ${i} to the new scheduler and retired the cron host`);
  const doc = [
    "# Notes",
    "",
    "The service runs on port 8080 and talks to Postgres 15.",
    "",
    "<!-- TODO: add rules for the Celery tasks and for the nightly batch jobs",
    ...old,
    "-->",
    "",
    "- Never return more than 100 items from a list endpoint.",
    "",
    "<!-- knowledge-triage:begin (generated by `triage export`; edits inside this block are replaced) -->",
    "- Never push to main.",
    "<!-- knowledge-triage:end -->",
    "",
  ].join("\n");
  const units = classifyMarkdown(doc, goldClassifier([{ line: 3, type: "belief" }, { line: 48, type: "constraint" }, { line: 51, type: "constraint" }]));

  it("a note to the file's editors is dropped first and never listed as a rule; our own markers stay", () => {
    const r = compact(units, { budget: { ratio: 0.3 } });
    expect(r.text).not.toContain("TODO");
    expect(r.text).toContain("- Never return more than 100 items from a list endpoint.");
    expect(r.text).toContain("<!-- knowledge-triage:begin");
    expect(r.text).toContain("<!-- knowledge-triage:end -->");
    expect(r.text).toContain("The service runs on port 8080");
    // The smallest safe ratio counts the rules and markers, not the comment (which is most of the file).
    expect(r.smallestRatio).toBeLessThan(0.3);
  });

  it("COMPACTION_UNSAFE lists rules, not the comment", () => {
    const message = unsafeMessage(units, 5);
    expect(message).not.toContain("TODO");
    expect(message).toContain("L48: - Never return more than 100 items");
  });
});

describe("compact: reply-language settings", () => {
  it("lines that set the language of the answers are kept at --ratio min, even when scored as beliefs", () => {
    const settings = ["Output language: English.", "Sprache der Antworten: Deutsch.", "回答语言：中文", "応答言語: 日本語", "Язык ответов: русский.", "Idioma de respuesta: español.", "All responses in Portuguese."];
    const history = Array.from({ length: 12 }, (_, i) => `- 2025-0${1 + (i % 9)}-1${i % 10}: moved the nightly export job ${i} to the new queue and retired the old cron entry`);
    const doc = ["# Assistant settings", "", ...settings.map((l) => `- ${l}`), "", "## History", "", ...history, ""].join("\n");
    // Every line scored as a belief or an episode: only the policy can keep the settings.
    const units = classifyMarkdown(doc, goldClassifier([...settings.map((_, i) => ({ line: 3 + i, type: "belief" as const })), ...history.map((_, i) => ({ line: 13 + i, type: "episodic" as const }))]));
    const r = compact(units, { budget: "min" });
    for (const l of settings) expect(r.text).toContain(`- ${l}`);
    expect(r.text).not.toContain("nightly export job");
  });
});

describe("compact: markers of other tools and of ours", () => {
  const doc = [
    "# Notes",
    "",
    "The API is written in Go and talks to Postgres through pgx, with migrations kept in db/migrations.",
    "",
    "<!-- a note to the editors",
    "spanning several lines -->",
    "",
    "<!-- prettier-ignore -->",
    "| a | b |",
    "|---|---|",
    "| 1 | 2 |",
    "",
    "<!-- knowledge-triage:begin (generated by `triage export`; edits inside this block are replaced) -->",
    "- Never push to main.",
    "<!-- knowledge-triage:end -->",
    "",
  ].join("\n");
  const units = classifyMarkdown(doc, goldClassifier([{ line: 3, type: "belief" }, { line: 9, type: "belief" }, { line: 11, type: "belief" }, { line: 14, type: "constraint" }]));

  it("a one-line marker of another tool stays; a multi-line note goes first", () => {
    const r = compact(units, { budget: { ratio: 0.8 } });
    expect(r.text).toContain("<!-- prettier-ignore -->");
    expect(r.text).not.toContain("a note to the editors");
  });

  it("COMPACTION_UNSAFE lists the rules, never our markers", () => {
    const message = unsafeMessage(units, 3);
    expect(message).not.toContain("knowledge-triage:");
    expect(message).toContain("L14: - Never push to main.");
  });
});
