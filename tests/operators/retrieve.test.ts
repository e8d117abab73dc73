import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { classifyMarkdown } from "../../scripts/engine/classify.js";
import type { MemoryDoc } from "../../scripts/operators/decompose.js";
import { isRule } from "../../scripts/operators/policy.js";
import { retrieve } from "../../scripts/operators/retrieve.js";
import { inferScope } from "../../scripts/operators/scope.js";
import { goldClassifier, memoryDoc, poolClassifier } from "./gen.js";

const BL12 = [
  "- In packages/api, always validate request bodies with zod schemas.",
  "- Components under apps/web must use the design-system Button instead of a raw <button>.",
  "- Never commit .env files.",
  "- The settings page lives in apps/web/src/settings.tsx and renders a form.",
  "- Buttons in the settings page were restyled last week.",
].join("\n");
const gold = goldClassifier([
  { line: 1, type: "constraint" },
  { line: 2, type: "constraint" },
  { line: 3, type: "constraint" },
  { line: 4, type: "belief" },
  { line: 5, type: "episodic" },
]);

describe("retrieve", () => {
  const docs: MemoryDoc[] = [{ name: "CLAUDE.md", units: classifyMarkdown(BL12, gold) }];

  it("BL-12: with a path under apps/web, the apps/web rule and the global rule come first", () => {
    const r = retrieve(docs, "add a save button to the settings page", { k: 4, path: "apps/web/src/x.tsx" });
    expect(r.hits.slice(0, 2).map((h) => h.line)).toEqual([2, 3]);
    expect(r.hits.slice(0, 2).every((h) => h.inScope)).toBe(true);
    const api = r.hits.find((h) => h.line === 1);
    expect(api?.inScope ?? false).toBe(false);
    expect(r.hits.slice(2).map((h) => h.line)).toContain(4);
  });

  it("returns every in-scope rule even when they exceed k, and says so", () => {
    const r = retrieve(docs, "anything", { k: 1, path: "packages/api/src/a.ts" });
    expect(r.exceeded).toBe(true);
    expect(r.hits.map((h) => h.line).sort()).toEqual([1, 3]);
  });

  it("ranks by BM25 when no rule is in scope", () => {
    const r = retrieve([{ name: "m.md", units: classifyMarkdown(BL12, goldClassifier([{ line: 4, type: "belief" }, { line: 5, type: "episodic" }])) }], "settings page form", { k: 2 });
    expect(r.inScope).toBe(0);
    expect(r.hits[0]?.line).toBe(4);
  });

  // A user's CLAUDE.md: three global rules, then a rule in a section the query names in another word form.
  const TEAM = [
    "# Project",
    "",
    "## Rules",
    "",
    "- Never commit directly to `main`.",
    "- Never log customer emails.",
    "- All money values are integer cents.",
    "",
    "## Deployment",
    "",
    "- Never deploy on Fridays after 15:00 CET.",
    "",
    "## 日本語メモ",
    "",
    "- 本番のデータベースには直接接続しないこと。",
  ].join("\n");
  const teamGold = goldClassifier([5, 6, 7, 11, 15].map((line) => ({ line, type: "constraint" as const })));

  it("a query in another word form of a section's topic ranks that section's rule first (deploy / Deployment, -k 1)", () => {
    const r = retrieve([{ name: "CLAUDE.md", units: classifyMarkdown(TEAM, teamGold) }], "can I deploy on friday?", { k: 1 });
    expect(r.hits[0]?.line).toBe(11);
    expect(r.hits[0]?.why).toBe('topic "deployment" matches the query');
  });

  it("derived forms of one word meet (deploying / Deployment, bereitstellen / Bereitstellung)", () => {
    const r = retrieve([{ name: "CLAUDE.md", units: classifyMarkdown(TEAM, teamGold) }], "deploying", { k: 1 });
    expect(r.hits[0]?.line).toBe(11);
    const de = "# P\n\n## Bereitstellung\n\n- Niemals freitags ausrollen.\n\n## Regeln\n\n- Nie direkt auf main pushen.\n";
    const d = retrieve([{ name: "CLAUDE.md", units: classifyMarkdown(de, goldClassifier([{ line: 5, type: "constraint" }, { line: 9, type: "constraint" }])) }], "bereitstellen", { k: 1 });
    expect(d.hits[0]?.line).toBe(5);
    expect(d.hits[0]?.why).toBe('topic "bereitstellung" matches the query');
  });

  it("a rule of an unrelated section whose own words name the query's subject is in scope, ahead of the global rules", () => {
    const moved = TEAM.replace("## Deployment", "## Release train");
    const r = retrieve([{ name: "CLAUDE.md", units: classifyMarkdown(moved, teamGold) }], "can I deploy on friday?", { k: 1 });
    expect(r.hits[0]?.line).toBe(11);
    expect(r.hits[0]?.why).toBe("its text matches the query");
    // Without a shared word it stays out of scope and is cut when the global rules fill k.
    const other = retrieve([{ name: "CLAUDE.md", units: classifyMarkdown(moved, teamGold) }], "rename the invoices table", { k: 1 });
    expect(other.hits.some((h) => h.line === 11)).toBe(false);
  });

  it("a heading that only names a language or a team's notes is no topic: its rules hold for every query", () => {
    const r = retrieve([{ name: "CLAUDE.md", units: classifyMarkdown(TEAM, teamGold) }], "add an index to the orders table", { k: 10 });
    const ja = r.hits.find((h) => h.line === 15);
    expect(ja?.inScope).toBe(true);
    expect(ja?.why).toBe("global rule");
  });

  it("puts every in-scope rule ahead of any other unit and never cuts one (random bases)", () => {
    const words = fc.constantFrom("deploy", "invoice", "tests", "penicillin", "branch", "api", "部署", "button");
    const paths = fc.constantFrom(undefined, "packages/api/src/a.ts", "apps/web/src/x.tsx", "docs/readme.md");
    fc.assert(
      fc.property(fc.array(memoryDoc, { minLength: 1, maxLength: 2 }), fc.array(words, { minLength: 1, maxLength: 3 }), paths, fc.integer({ min: 1, max: 30 }), (texts, q, path, k) => {
        const base: MemoryDoc[] = texts.map((t, i) => ({ name: `m${i}.md`, units: classifyMarkdown(t, poolClassifier) }));
        const r = retrieve(base, q.join(" "), { k, path });
        const firstOther = r.hits.findIndex((h) => !h.inScope);
        if (firstOther >= 0) expect(r.hits.slice(firstOther).every((h) => !h.inScope)).toBe(true);
        expect(r.exceeded).toBe(r.inScope > k);
        expect(r.hits.length).toBeLessThanOrEqual(Math.max(k, r.inScope));
        // independent check: every global rule of the base is among the hits
        const got = new Set(r.hits.map((h) => `${h.doc}:${h.line}`));
        for (const d of base) {
          for (const u of d.units) {
            if (u.kind === "heading" || u.kind === "frontmatter" || !isRule(u)) continue;
            if (inferScope(u.text, u.headings).kind === "global") expect(got.has(`${d.name}:${u.line}`)).toBe(true);
          }
        }
      }),
      { numRuns: 100 },
    );
  });
});
