/**
 * Regression cases BL-01, BL-03 and BL-04 (references/cases.md) run against the committed model,
 * plus the invariants every classified document must satisfy. Inputs are written out here so the
 * test does not depend on files outside the repo.
 */
import { describe, expect, it } from "vitest";
import { classifyMarkdown, classifySentence, type Classifier } from "../../scripts/engine/classify.js";
import { TYPES, type ClassifiedUnit } from "../../scripts/engine/types.js";
import { loadClassifier } from "../../scripts/io/model-file.js";

// KNOWLEDGE_TRIAGE_MODEL lets the same cases run against a freshly trained model before it is committed.
const model: Classifier = loadClassifier(process.env.KNOWLEDGE_TRIAGE_MODEL || undefined);
const at = (units: ClassifiedUnit[], line: number): ClassifiedUnit => {
  const u = units.find((x) => x.line === line);
  if (!u) throw new Error(`no unit at line ${line}`);
  return u;
};

describe("BL-01: negated rule under a heading", () => {
  const doc = [
    "## Commits",
    "- Do not append a Co-Authored-By line to any commit message.",
    "## Tracker updates",
    "- Post status updates to the tracker as a Markdown table.",
  ].join("\n");
  const units = classifyMarkdown(doc, model);

  it("line 2 is a constraint", () => {
    expect(at(units, 2).type).toBe("constraint");
  });

  it("line 4 is a constraint or procedural, never episodic or belief", () => {
    expect(["constraint", "procedural"]).toContain(at(units, 4).type);
  });

  it("units keep their text byte for byte", () => {
    expect(at(units, 2).text).toBe("- Do not append a Co-Authored-By line to any commit message.");
    expect(at(units, 4).headings).toEqual(["Tracker updates"]);
  });
});

describe("BL-03: rules phrased as statements of fact", () => {
  const doc = [
    "- Per-project skills live in that project's own .claude/skills/ folder, not in the workspace root.",
    "- The staging database is read-only for agents.",
    "- The staging database runs Postgres 16.",
  ].join("\n");
  const units = classifyMarkdown(doc, model);

  it("lines 1 and 2 are constraints", () => {
    expect(at(units, 1).type).toBe("constraint");
    expect(at(units, 2).type).toBe("constraint");
  });

  it("line 3 (same subject, no norm) is a belief", () => {
    expect(at(units, 3).type).toBe("belief");
  });

  it("lines 2 and 3 are separated with margin: constraint probability differs by at least 0.3", () => {
    expect(at(units, 2).scores.constraint - at(units, 3).scores.constraint).toBeGreaterThanOrEqual(0.3);
  });
});

describe("BL-04: exact commands in inline code", () => {
  const line1 = "- Run integration tests with `pnpm -w test:int -- --runInBand --reporter=dot`; plain `pnpm test` skips them.";
  const line2 = "- Preview deploys: `./scripts/preview.sh --region eu-central-1 --no-cache`";
  const units = classifyMarkdown(`${line1}\n${line2}\n`, model);

  it("line 1 is procedural (or constraint) with P probability >= 0.5", () => {
    expect(["procedural", "constraint"]).toContain(at(units, 1).type);
    expect(at(units, 1).scores.procedural).toBeGreaterThanOrEqual(0.5);
  });

  it("line 2 is procedural with P probability >= 0.5", () => {
    expect(at(units, 2).type).toBe("procedural");
    expect(at(units, 2).scores.procedural).toBeGreaterThanOrEqual(0.5);
  });

  it("text is byte-identical (backticks, -w, --, =) and the two lines stay distinct units", () => {
    expect(at(units, 1).text).toBe(line1);
    expect(at(units, 2).text).toBe(line2);
    expect(units).toHaveLength(2);
  });
});

describe("classification invariants on a realistic file (model and regex tier)", () => {
  const doc = [
    "---",
    "description: rules for the api package",
    "globs: packages/api/**",
    "---",
    "# API memory",
    "",
    "## Rules",
    "- Never log request bodies; they may hold card data.",
    "- Migrations are append-only.",
    "",
    "## Commands",
    "```bash",
    "pnpm --filter api test",
    "```",
    "",
    "| task | command |",
    "|------|---------|",
    "| lint | `pnpm lint` |",
    "",
    "## Style",
    "- Prefer early returns.",
    "",
    "---",
    "",
    "## 2025-02-11",
    "- Switched the rate limiter to a token bucket.",
  ].join("\n");

  for (const tier of ["model", "regex"] as const) {
    const c = tier === "model" ? model : loadClassifier("/dev/null");
    const units = classifyMarkdown(doc, c);

    it(`${tier}: scores sum to 1, confidence is the max score, structure units carry zero scores`, () => {
      expect(c.name).toBe(tier);
      for (const u of units) {
        const sum = TYPES.reduce((a, t) => a + u.scores[t], 0);
        if (u.type === "structure") {
          expect(sum).toBe(0);
          expect(["blank", "fence", "rule", "table-separator"]).toContain(u.kind);
          continue;
        }
        expect(sum).toBeCloseTo(1, 6);
        expect(u.confidence).toBe(Math.max(...TYPES.map((t) => u.scores[t])));
        expect(u.scores[u.type as (typeof TYPES)[number]]).toBe(u.confidence);
      }
    });

    it(`${tier}: the rule, the command block and the dated change get their types`, () => {
      expect(at(units, 8).type).toBe("constraint");
      expect(at(units, 13).type).toBe("procedural");
      if (tier === "model") expect(at(units, 26).type).toBe("episodic");
    });
  }

  it("the frontmatter is one unit; the second --- is a rule", () => {
    const units = classifyMarkdown(doc, model);
    expect(at(units, 1).kind).toBe("frontmatter");
    expect(at(units, 1).endLine).toBe(4);
    expect(at(units, 23).type).toBe("structure");
  });

  it("context changes the label: 'Do not …' under Style vs under Critical", () => {
    const style = classifyMarkdown("## Code style\n- Do not use nested ternaries.", model)[1] as ClassifiedUnit;
    const critical = classifyMarkdown("## Critical\n- Do not use nested ternaries.", model)[1] as ClassifiedUnit;
    expect(critical.scores.constraint).toBeGreaterThan(style.scores.constraint);
  });

  it("classifySentence handles chat utterances", () => {
    const u = classifySentence("from now on never push to main without asking me", model);
    expect(u.type).toBe("constraint");
    expect(u.line).toBe(1);
  });
});
