/**
 * `compact --ratio min` (issue 14, item 8): the smallest safe compaction keeps the pinned units and only what their
 * layout needs (operators/layout.ts closeOver: enclosing headings, parent list items, lead-in lines, table header and
 * separator). An episodic unit survives only as such a dependency: dropping it would re-attach a nested rule to another
 * list item, orphan a table row or remove the lead-in the rule was classified with. Checked on the bundled examples
 * and, when built (`npx tsx bench/real/rebuild.ts`), on the real dev set in .cache/real/.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { segment } from "../../scripts/engine/units.js";
import { loadClassifier } from "../../scripts/io/model-file.js";
import { compact } from "../../scripts/operators/compact.js";
import { buildLayout, closeOver } from "../../scripts/operators/layout.js";
import { decideUnits, isPinned } from "../../scripts/operators/policy.js";

const repo = join(import.meta.dirname, "..", "..");
const real = join(repo, ".cache", "real");
const files = [
  join(repo, "examples", "CLAUDE.md"),
  join(repo, "examples", "AGENTS.md"),
  ...(existsSync(real) ? readdirSync(real).filter((f) => f.endsWith(".md")).sort().map((f) => join(real, f)) : []),
];

describe("--ratio min drops every episodic unit the rules do not need", { timeout: 300_000 }, () => {
  const classifier = loadClassifier();
  it.each(files.map((f) => [f.slice(repo.length + 1), f]))("%s", (_name, file) => {
    const units = decideUnits(segment(readFileSync(file, "utf8")), classifier);
    const r = compact(units, { budget: "min" });
    const needed = new Uint8Array(units.length);
    units.forEach((u, i) => {
      if (isPinned(u) || u.kind === "frontmatter" || u.kind === "comment") needed[i] = 1;
    });
    closeOver(buildLayout(units), needed);
    const kept = r.units.filter((x) => x.action !== "dropped" && x.type === "episodic" && !x.pinned);
    for (const k of kept) {
      const i = units.findIndex((u) => u.line === k.line);
      expect(needed[i], `${file}:${k.line} kept at --ratio min but no pinned unit needs it`).toBe(1);
    }
  });
});
