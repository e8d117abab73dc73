/**
 * Compaction keeps near-rules (operators/policy.ts isPinned): a unit whose argmax is belief, preference
 * or episodic but whose rule mass P(constraint) + P(procedural) reaches PIN_MASS is kept word for word,
 * still reported with its own type. The input is an authored memory-bank file in the shape real ones have
 * (tests/fixtures/operators/active-context.md: rules written without a modal, a progress log, notes);
 * the scores are scripted per line, in the pattern the model gives such lines on the real dev set
 * (a modal-free rule: argmax belief or preference with 0.35 to 0.5 of rule mass).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Classifier } from "../../scripts/engine/classify.js";
import type { ClassifiedUnit, KnowledgeType } from "../../scripts/engine/types.js";
import { segment } from "../../scripts/engine/units.js";
import { compact } from "../../scripts/operators/compact.js";
import { decideUnits, isPinned, isRule, PIN_MASS } from "../../scripts/operators/policy.js";
import { CompactReportSchema } from "../../scripts/cli/operator-json.js";
import { ensureBundle, triage } from "../cli/helpers.js";

const DOC = readFileSync(join(import.meta.dirname, "..", "fixtures", "operators", "active-context.md"), "utf8");
const DATES = "- Dates in ISO 8601, always UTC.";
const MONEY = "- Money as integer cents; no floats anywhere in the pipeline.";
const SMALL_PRS = "- Keep pull requests small, one topic each.";

/** Probability rows by line prefix: C P B R E (constraint, procedural, belief, preference, episodic). */
const ROWS: [string, number[]][] = [
  ["- Never write", [0.9, 0.05, 0.03, 0.01, 0.01]],
  ["- Run `make check`", [0.1, 0.85, 0.03, 0.01, 0.01]],
  [DATES, [0.4, 0.0, 0.45, 0.15, 0.0]], // rule mass 0.40: a near-rule
  [MONEY, [0.25, 0.15, 0.0, 0.6, 0.0]], // rule mass 0.40: a near-rule
  [SMALL_PRS, [0.1, 0.0, 0.1, 0.8, 0.0]], // rule mass 0.10: a preference
  ["- Parsing the new", [0.0, 0.05, 0.3, 0.05, 0.6]],
  ["- The importer reads", [0.0, 0.1, 0.8, 0.05, 0.05]],
  ["- 20", [0.0, 0.02, 0.05, 0.03, 0.9]],
  ["- The staging database", [0.05, 0.0, 0.85, 0.05, 0.05]],
  ["- I'd rather", [0.05, 0.0, 0.1, 0.85, 0.0]],
];
const scripted: Classifier = {
  name: "scripted",
  scores: (us) =>
    us.map((u) => {
      const v = ROWS.find(([p]) => u.text.startsWith(p))?.[1] ?? [0, 0, 1, 0, 0];
      return { constraint: v[0], procedural: v[1], belief: v[2], preference: v[3], episodic: v[4] } as Record<KnowledgeType, number>;
    }),
};
const lineOf = (text: string): number => DOC.split("\n").indexOf(text) + 1;

describe("near-rules are kept word for word by compaction", () => {
  const units = decideUnits(segment(DOC), scripted);

  it("the smallest safe compaction keeps rules and near-rules, reports the near-rules' own types, and drops the rest", () => {
    const r = compact(units, { budget: "min" });
    const lines = new Set(r.text.split("\n"));
    for (const t of ["- Never write to the `ledger` table outside a transaction.", "- Run `make check` before every push.", DATES, MONEY]) expect(lines.has(t), t).toBe(true);
    expect(lines.has(SMALL_PRS)).toBe(false);
    expect(r.text).not.toContain("2025-04-02");
    expect(r.units.find((u) => u.line === lineOf(DATES))).toMatchObject({ type: "belief", pinned: true, action: "kept" });
    expect(r.units.find((u) => u.line === lineOf(MONEY))).toMatchObject({ type: "preference", pinned: true, action: "kept" });
    expect(r.units.find((u) => u.line === lineOf(SMALL_PRS))).toMatchObject({ type: "preference", pinned: false, action: "dropped" });
    // Only the section that keeps content keeps its heading.
    expect(r.text).toBe(`# Active context: invoice importer\n\n## Conventions\n\n- Never write to the \`ledger\` table outside a transaction.\n- Run \`make check\` before every push.\n${DATES}\n${MONEY}\n`);
  });

  it("a keep threshold above 1 pins the argmax rules alone: a smaller safe budget, the near-rules dropped", () => {
    const wide = compact(units, { budget: "min" });
    const narrow = compact(units, { budget: "min", pinMass: 1.01 });
    expect(narrow.needed).toBeLessThan(wide.needed);
    expect(narrow.smallestRatio).toBeLessThan(wide.smallestRatio);
    expect(narrow.text).not.toContain(DATES);
    expect(narrow.text).not.toContain(MONEY);
    // The types every command reports do not depend on the threshold.
    expect(narrow.units.map((u) => u.type)).toEqual(wide.units.map((u) => u.type));
  });

  it("five rounds of appending notes and compacting to the smallest round-0 budget keep every near-rule", () => {
    const r0 = compact(units, { budget: "min" });
    let memory = r0.text;
    for (let round = 1; round <= 5; round++) {
      const notes = `\n## Session ${round}\n\n- 2025-04-1${round}: Reviewed the importer logs; nothing new.\n- The importer reads statements from SFTP every fifteen minutes.\n`;
      memory = compact(decideUnits(segment(`${memory}${notes}`), scripted), { budget: r0.budget }).text;
      for (const t of [DATES, MONEY]) expect(memory.split("\n"), `round ${round}: ${t}`).toContain(t);
    }
  });
});

describe("isPinned", () => {
  const base: ClassifiedUnit = {
    line: 5, endLine: 5, text: "- Dates in ISO 8601, always UTC.", kind: "list-item", headings: ["Conventions"], level: 0, depth: 0, leadIn: "",
    type: "belief", confidence: 0.55, scores: { constraint: 0.3, procedural: 0, belief: 0.55, preference: 0.15, episodic: 0 },
  };
  const withMass = (m: number): ClassifiedUnit => ({ ...base, scores: { constraint: m, procedural: 0, belief: 1 - m, preference: 0, episodic: 0 } });
  it.each([
    ["a rule by argmax", { ...base, type: "constraint" as const }, true],
    ["rule mass at the threshold", withMass(PIN_MASS), true],
    ["rule mass just below it", withMass(PIN_MASS - 0.001), false],
    ["a heading, however rule-like", { ...base, kind: "heading" as const, level: 2, text: "## NEVER", type: "constraint" as const, scores: { ...base.scores, constraint: 0.95, belief: 0.05, preference: 0 } }, false],
    ["a table header", { ...base, kind: "table-header" as const, text: "| rule | why |" }, false],
    ["the frontmatter (compaction keeps it as written, not as a rule)", { ...base, kind: "frontmatter" as const }, false],
    // labelling-rules.md §5: an output-language directive is a rule without a modal, even under a style heading where the model says preference.
    ["a reply-language directive the model calls a preference", { ...withMass(0.05), text: "- Reply in Spanish to the shop's customers; code comments stay short.", headings: ["Tone and style"], type: "preference" as const }, true],
    ["a reply-language directive in Japanese", { ...withMass(0.05), text: "- 回答は日本語で、丁寧語を使う。", type: "preference" as const }, true],
    ["a line that only names a language", { ...withMass(0.05), text: "- The docs site is built with a Spanish theme.", type: "belief" as const }, false],
    ["a code block that prints a language name", { ...withMass(0.05), kind: "code" as const, text: 'echo "reply in english"', type: "belief" as const }, false],
  ])("%s", (_name, u, want) => {
    expect(isPinned(u)).toBe(want);
  });
  it("above 1 it is isRule", () => {
    const directive: ClassifiedUnit = { ...withMass(0.05), text: "- Reply in Spanish to the shop's customers.", type: "preference" };
    for (const u of [base, { ...base, type: "procedural" as const }, withMass(0.99), directive]) expect(isPinned(u, 1.01)).toBe(isRule(u));
  });
});

describe("compact --pin-mass through the built CLI", { timeout: 120_000 }, () => {
  const file = join(import.meta.dirname, "..", "fixtures", "operators", "active-context.md");
  const report = (args: string[]) => {
    const r = triage(["compact", file, "--ratio", "min", "--json", ...args]);
    expect(r.code, r.stderr).toBe(0);
    return CompactReportSchema.parse(JSON.parse(r.stdout));
  };

  it("the threshold changes what is pinned, never a type, and the argmax rules stay pinned at every threshold", () => {
    ensureBundle();
    const rulesOnly = report(["--pin-mass", "1.01"]);
    const byDefault = report([]);
    const everything = report(["--pin-mass", "0"]);
    expect(byDefault.units.map((u) => u.type)).toEqual(rulesOnly.units.map((u) => u.type));
    expect(everything.units.map((u) => u.type)).toEqual(rulesOnly.units.map((u) => u.type));
    const pinned = (rep: typeof rulesOnly): Set<number> => new Set(rep.units.filter((u) => u.pinned).map((u) => u.line));
    for (const line of pinned(rulesOnly)) expect(pinned(byDefault).has(line)).toBe(true);
    for (const line of pinned(byDefault)) expect(pinned(everything).has(line)).toBe(true);
    expect(rulesOnly.needed).toBeLessThanOrEqual(byDefault.needed);
    // At 0 every content unit is kept word for word; headings still are never pinned.
    for (const u of everything.units) expect(u.pinned, `line ${u.line}`).toBe(!DOC.split("\n")[u.line - 1]?.startsWith("#"));
  });

  it.each(["2", "-0.1", "abc"])("--pin-mass %s is a one-line usage error", (v) => {
    ensureBundle();
    const r = triage(["compact", file, "--ratio", "min", "--pin-mass", v]);
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toMatch(/^triage: --pin-mass must be a probability from 0 to 1 \(or 1\.01: keep the rules alone\)/);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
  });
});
