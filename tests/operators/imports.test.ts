/**
 * Claude Code `@path` imports in a memory file (../shared/research/integration.md §4: the imported file loads with
 * the memory file): compaction keeps every line that imports one as written, whatever type the line gets, since
 * dropping it drops every rule of the imported file. Found by a fresh-user pass (an `@~/...` line was dropped).
 */
import { describe, expect, it } from "vitest";
import { classifyMarkdown } from "../../scripts/engine/classify.js";
import { loadClassifier } from "../../scripts/io/model-file.js";
import { compact, importsFile } from "../../scripts/operators/compact.js";
import { decideUnits } from "../../scripts/operators/policy.js";
import { segment } from "../../scripts/engine/units.js";

const doc = [
  "# Project",
  "",
  "See @docs/rules.md for the security rules.",
  "@~/.claude/my-team-rules.md",
  "",
  "The service runs on Node 20 and stores data in Postgres 16 with a read replica.",
  "The frontend is Next.js 15 with the app router and React server components.",
  "Deploys go out from the release branch after the nightly build has passed.",
  "Mail the team at dev@example.com about the `@types/node` bump.",
  "",
  "## Rules",
  "- Never run migrations against production.",
  "",
].join("\n");

describe("compaction keeps @path imports", () => {
  it("recognises imports, not e-mail addresses, scoped packages in code spans or bare @mentions", () => {
    expect(importsFile("See @docs/rules.md for the security rules.")).toBe(true);
    expect(importsFile("@~/.claude/my-team-rules.md")).toBe(true);
    expect(importsFile("- @AGENTS.md")).toBe(true);
    expect(importsFile("Mail the team at dev@example.com about it.")).toBe(false);
    expect(importsFile("Bump `@types/node` to 20.19.")).toBe(false);
    expect(importsFile("Ask @alice before merging.")).toBe(false);
  });

  it("a tight budget drops beliefs but keeps both import lines word for word", () => {
    const units = decideUnits(segment(doc), loadClassifier());
    const r = compact(units, { budget: { ratio: 0.6 } });
    expect(r.text).toContain("See @docs/rules.md for the security rules.\n");
    expect(r.text).toContain("@~/.claude/my-team-rules.md\n");
    expect(r.text).toContain("- Never run migrations against production.");
    expect(r.text).not.toContain("app router and React server components");
    // The classifier calls the import lines non-rules; they are kept for what they load.
    expect(classifyMarkdown(doc, loadClassifier()).filter((u) => u.text.startsWith("@~/")).map((u) => u.type)).not.toContain("constraint");
  });
});
