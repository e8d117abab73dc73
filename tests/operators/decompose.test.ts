import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { classifyMarkdown } from "../../scripts/engine/classify.js";
import { segment } from "../../scripts/engine/units.js";
import { decompose, type MemoryDoc } from "../../scripts/operators/decompose.js";
import { globsOverlap } from "../../scripts/operators/scope.js";
import { goldClassifier, memoryDoc, poolClassifier } from "./gen.js";

const BL12 = [
  "# Monorepo", // 1
  "", // 2
  "## General", // 3
  "- Never commit .env files.", // 4
  "", // 5
  "## packages/api", // 6
  "- In packages/api, always validate request bodies with zod schemas.", // 7
  "- The API is served by Fastify.", // 8
  "", // 9
  "## apps/web", // 10
  "- Components under apps/web must use the design-system Button instead of a raw <button>.", // 11
  "- The web app is built with Vite.", // 12
  "",
  "## Compact Instructions", // 14
  "When compacting, keep the list of rejected approaches.", // 15
].join("\n");
const gold = goldClassifier([
  { line: 4, type: "constraint" },
  { line: 7, type: "constraint" },
  { line: 8, type: "belief" },
  { line: 11, type: "constraint" },
  { line: 12, type: "belief" },
  { line: 15, type: "procedural" },
]);

describe("decompose by section", () => {
  const result = decompose([{ name: "CLAUDE.md", units: classifyMarkdown(BL12, gold) }], { by: "section" });
  const part = (id: string) => result.partitions.find((p) => p.id === id);

  it("BL-12: copies the global rule into both path partitions and each path rule only into its own", () => {
    expect(result.partitions.map((p) => p.id)).toEqual(["general", "packages-api", "apps-web", "compact-instructions"]);
    const api = part("packages-api")?.text ?? "";
    const web = part("apps-web")?.text ?? "";
    expect(api).toContain("- Never commit .env files.");
    expect(web).toContain("- Never commit .env files.");
    expect(api).toContain("In packages/api, always validate");
    expect(api).not.toContain("Components under apps/web");
    expect(web).toContain("Components under apps/web");
    expect(web).not.toContain("In packages/api, always validate");
    expect(part("packages-api")?.copied.map((c) => c.why)).toEqual(["global rule"]);
    expect(result.violations).toEqual([]);
  });

  it("BL-32: an instruction about compaction stays in its own section", () => {
    for (const id of ["packages-api", "apps-web", "general"]) expect(part(id)?.text).not.toContain("When compacting");
  });
});

describe("decompose: properties over random memory bases", () => {
  it("never drops a governing rule and places every unit in exactly one partition", () => {
    fc.assert(
      fc.property(fc.array(memoryDoc, { minLength: 1, maxLength: 3 }), fc.boolean(), fc.integer({ min: 20, max: 400 }), (texts, bySection, maxTokens) => {
        const docs: MemoryDoc[] = texts.map((t, i) => ({ name: `mem${i}.md`, units: classifyMarkdown(t, poolClassifier) }));
        const r = decompose(docs, bySection ? { by: "section" } : { by: "size", maxTokens });
        expect(r.violations).toEqual([]);
        const owner = new Map<string, number>();
        for (const p of r.partitions) for (const [d, i] of p.units) owner.set(`${d}:${i}`, (owner.get(`${d}:${i}`) ?? 0) + 1);
        docs.forEach((doc, d) => {
          for (let i = 0; i < doc.units.length; i++) expect(owner.get(`${d}:${i}`)).toBe(1);
        });
        for (const rule of r.rules) {
          for (const p of r.partitions) {
            const governed = rule.home === p.id || rule.scope.kind === "global" || (rule.scope.kind === "path" && globsOverlap(rule.scope.globs, p.paths));
            if (governed) expect(p.text, `${p.id} lacks ${rule.unit.text}`).toContain(rule.unit.text);
          }
        }
        for (const p of r.partitions) {
          for (const u of segment(p.text)) if (u.kind === "code") expect(u.fence?.close).not.toBeNull();
        }
      }),
      { numRuns: 80 },
    );
  });
});

describe("decompose: linked facts", () => {
  const DOC = [
    "## Privacy", // 1
    "- Shared artefacts must use the hashed `acct_key`, never the raw account id.", // 2
    "", // 3
    "## Data quirks", // 4
    "- March extracts repeat rows for migrated accounts; dedupe on `acct_key` + `month`.", // 5
    "- The `score` column is capped at 100 by the source.", // 6
    "- On 2026-03-04 we found duplicates for `acct_key` in the March extract.", // 7
    "", // 8
    "## Plots", // 9
    "- Plots are rendered with matplotlib.", // 10
  ].join("\n");
  const units = classifyMarkdown(DOC, goldClassifier([{ line: 2, type: "constraint" }, { line: 7, type: "episodic" }]));
  const withLinks = decompose([{ name: "m.md", units }], { by: "section" });
  const without = decompose([{ name: "m.md", units }], { by: "section", linkFacts: false });

  it("copies a fact that names a rule's identifier into the partitions its scope governs, and says why", () => {
    const privacy = withLinks.partitions.find((p) => p.id === "privacy");
    const linked = privacy?.copied.find((c) => c.rule.unit.line === 5);
    expect(linked?.why).toContain("linked fact: names `acct_key`, as the rule at L2 does");
    expect(privacy?.text).toContain("dedupe on `acct_key` + `month`.");
    expect(withLinks.violations).toEqual([]);
  });

  it("leaves facts without a shared identifier, episodes and the no-link mode alone", () => {
    const lines = withLinks.rules.filter((r) => r.linked).map((r) => r.unit.line);
    expect(lines).toEqual([5]);
    expect(without.rules.some((r) => r.linked)).toBe(false);
    expect(without.partitions.find((p) => p.id === "privacy")?.text).not.toContain("dedupe on");
  });
});
