/**
 * bench/real-compact.ts on a real-shaped file of our own (the real texts live only in .cache/real/):
 * the smallest accepted ratio, gold rule recall there and after five rounds, and the no-cache path.
 */
import { join } from "node:path";
import { tmpdir } from "node:os";
import { describe, expect, it } from "vitest";
import { appendedNotes, goldClassifier, groupedThreshold, type MeasuredFile, measureFile, measureRealCompaction, median, ratioDistribution } from "../../bench/real-compact.js";
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
    expect(r.decision).toEqual({ tp: 2, fp: 0, fn: 0 });
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

  it("prints the ratio distribution with percentiles and a count per tenth (an upper edge counts in its tenth)", () => {
    const d = ratioDistribution([0.6, 0.05, 0.3, 1, 0.45]);
    expect(d).toContain("min 0.05");
    expect(d).toContain("median 0.45");
    expect(d).toContain("max 1.00");
    expect(d).toContain("0.0-0.1: 1 | 0.1-0.2: 0 | 0.2-0.3: 1 | 0.3-0.4: 0 | 0.4-0.5: 1 | 0.5-0.6: 1");
    expect(d).toContain("0.9-1.0: 1");
    expect(ratioDistribution([])).toBe("no files");
  });

  it("chooses each fold's keep threshold on the other folds' files only", () => {
    // Ten files f0..f9, dealt round robin into 5 folds (fold 0 = f0, f5; fold 4 = f4, f9). At threshold 0.2,
    // f0, f1, f2, f3, f5 cost 0.3 and the others 0.7: over all ten files the median is 0.5 (0.2 would pass the
    // 0.60 floor), but without fold 0's two cheap files it is 0.7, so fold 0 alone must fall back to 0.4.
    const row = (id: string, ratio: number, recall: number): MeasuredFile => ({
      id, lang: "en", kind: "claude-md", tokens: 100, goldRules: 10, smallestRatio: ratio, recallAtSmallest: recall, recallAfterRounds: recall,
      recallAtFloorRatio: recall, roundsRefused: 0, decision: { tp: 0, fp: 0, fn: 0 }, recalledAtSmallest: recall * 10, recalledAfterRounds: recall * 10, recalledAtFloorRatio: recall * 10,
    });
    const ids = Array.from({ length: 10 }, (_, i) => `f${i}`);
    const cheapAt02 = new Set(["f0", "f1", "f2", "f3", "f5"]);
    const byT = new Map<number, MeasuredFile[]>([
      [0.2, ids.map((id) => row(id, cheapAt02.has(id) ? 0.3 : 0.7, 1))],
      [0.4, ids.map((id) => row(id, 0.5, 0.8))],
    ]);
    const g = groupedThreshold(byT);
    expect(g.chosen).toEqual([0.4, 0.2, 0.2, 0.2, 0.2]);
    // Each file is scored at its own fold's threshold: f0 and f5 at 0.4 (recall 0.8), the others at 0.2 (recall 1).
    expect(g.heldOut.files.filter((f) => f.recallAtSmallest === 0.8).map((f) => f.id)).toEqual(["f0", "f5"]);
    expect(g.heldOut.files).toHaveLength(10);
    const cheap = new Map<number, MeasuredFile[]>([[0.2, ids.map((id) => row(id, 0.3, 1))], [0.4, ids.map((id) => row(id, 0.5, 0.8))]]);
    expect(groupedThreshold(cheap).chosen).toEqual([0.2, 0.2, 0.2, 0.2, 0.2]);
  });
});
