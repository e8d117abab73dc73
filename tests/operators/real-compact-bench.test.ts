/**
 * bench/real-compact.ts on a real-shaped file of our own (the real texts live only in .cache/real/):
 * the smallest accepted ratio, gold rule recall there and after five rounds, and the no-cache path.
 */
import { join } from "node:path";
import { tmpdir } from "node:os";
import { describe, expect, it } from "vitest";
import { appendedNotes, goldClassifier, measureFile, measureRealCompaction, median } from "../../bench/real-compact.js";
import { regexClassifier } from "../../scripts/engine/classify.js";

const DOC = [
  "# Ledger service",
  "",
  "## Rules",
  "",
  "- Never write to the ledger table outside a transaction.",
  "- Run `make check` before you open a pull request.",
  "",
  "## Progress log",
  "",
  "- 2025-06-01: Split the reconciliation job into two steps.",
  "- 2025-06-02: Added retries to the bank statement importer.",
  "- 2025-06-03: Removed the legacy CSV export.",
  "",
  "## Architecture",
  "",
  "The importer reads statements from SFTP and writes them to Postgres.",
  "Reports are rendered nightly by a cron job.",
  "",
].join("\n");
const LABELS = [
  [5, "constraint"],
  [6, "procedural"],
  [10, "episodic"],
  [11, "episodic"],
  [12, "episodic"],
  [16, "belief"],
  [17, "belief"],
]
  .map(([line, type]) => JSON.stringify({ line, type }))
  .join("\n");

describe("bench/real-compact", () => {
  it("with gold decisions: the smallest ratio keeps only the rules (and their headings), every gold rule survives five rounds", () => {
    const r = measureFile("x01", { lang: "en", kind: "claude-md" }, DOC, LABELS, goldClassifier(DOC, LABELS));
    expect(r.goldRules).toBe(2);
    expect(r.recallAtSmallest).toBe(1);
    expect(r.recallAfterRounds).toBe(1);
    expect(r.roundsRefused).toBe(0);
    expect(r.smallestRatio).toBeGreaterThan(0.2);
    expect(r.smallestRatio).toBeLessThan(0.5);
  });

  it("counts a gold rule the decision misses as lost (regex tier on a rule it cannot see)", () => {
    const doc = DOC.replace("- Run `make check` before you open a pull request.", "- The release checklist lives in docs/release.md.");
    const labels = LABELS.replace('{"line":6,"type":"procedural"}', '{"line":6,"type":"constraint"}');
    const r = measureFile("x02", { lang: "en", kind: "claude-md" }, doc, labels, regexClassifier);
    expect(r.goldRules).toBe(2);
    expect(r.recallAtSmallest).toBeLessThan(1);
  });

  it("appends notes of our own each round, and the median is the usual one", () => {
    expect(appendedNotes(1)).not.toBe(appendedNotes(2));
    expect(appendedNotes(3)).toContain("## Session notes 3");
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 2, 3])).toBe(2.5);
    expect(Number.isNaN(median([]))).toBe(true);
  });

  it("returns null without the cache (the runner then prints how to build it)", () => {
    expect(measureRealCompaction(regexClassifier, join(tmpdir(), "kt-no-such-real-cache"))).toBeNull();
  });
});
