import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBundle, removeTempDirs, repo, tempDir, triage } from "./helpers.js";
import { readFileSync, writeFileSync } from "node:fs";

beforeAll(ensureBundle);
afterAll(removeTempDirs);

describe("compact --explain", () => {
  it("prints the compacted text unchanged and, on stderr, every unit that did not stay as written", () => {
    const example = join(repo, "examples", "CLAUDE.md");
    const plain = triage(["compact", example, "--ratio", "0.6"]);
    const explained = triage(["compact", example, "--ratio", "0.6", "--explain"]);
    expect(explained.code, explained.stderr).toBe(0);
    expect(explained.stdout).toBe(plain.stdout);
    const lines = explained.stderr.trimEnd().split("\n");
    const head = lines[0] ?? "";
    const m = /^triage: compacted (\d+) -> (\d+) tokens \(budget (\d+); smallest safe ratio 0\.\d\d\): (\d+) kept as written \(\d+ pinned rules and near-rules\), (\d+) compressed, (\d+) merged, (\d+) dropped$/.exec(head);
    expect(m, head).not.toBeNull();
    const [, , after, budget, , compressed, merged, dropped] = (m as RegExpExecArray).map(Number);
    expect(after).toBeLessThanOrEqual(budget as number);
    // One line per unit not kept as written, and each names a line whose text is gone from the output.
    expect(lines.length - 1).toBe((compressed as number) + (merged as number) + (dropped as number));
    expect(dropped).toBeGreaterThan(0);
    const source = readFileSync(example, "utf8").split("\n");
    for (const l of lines.slice(1)) {
      const row = /^triage: {3}(dropped|merged|compressed) +L(\d+)(?:->L\d+)? +(constraint|procedural|belief|preference|episodic) +(.+)$/.exec(l);
      expect(row, l).not.toBeNull();
      const [, action, at] = row as RegExpExecArray;
      const text = (source[Number(at) - 1] ?? "").trim();
      expect((row as RegExpExecArray)[4]?.replace(/…$/, "")).toBe(text.slice(0, (row as RegExpExecArray)[4]?.replace(/…$/, "").length));
      // A dropped line's text is gone from the output (no line of the example repeats another).
      if (action === "dropped" && text !== "") expect(plain.stdout.split("\n").map((x) => x.trim())).not.toContain(text);
    }
  });

  it("names a dropped block HTML comment (not a typed unit) in its place", () => {
    const dir = tempDir("kt-explain-");
    const src = join(dir, "CLAUDE.md");
    writeFileSync(src, "# P\n\nThe API is written in Go and talks to Postgres through pgx, with migrations in db/migrations.\n\n<!-- note\nspanning\nlines -->\n\n## Rules\n- Never push to main.\n");
    const r = triage(["compact", src, "--ratio", "0.9", "--explain"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toContain("spanning");
    expect(r.stderr).toMatch(/, 1 comment dropped\n/);
    expect(r.stderr).toMatch(/ dropped +L5 +comment +<!-- note\n/);
  });

  it("with -o names the file written after the report", () => {
    const dir = tempDir("kt-explain-");
    const src = join(dir, "CLAUDE.md");
    writeFileSync(src, "# Notes\n\n- Never push to main.\n- Last week we moved the CI to GitHub Actions.\n- The API listens on port 8080.\n");
    const r = triage(["compact", src, "--ratio", "0.7", "--explain", "-o", join(dir, "out.md")]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/ dropped +L4 +\w+ +- Last week we moved the CI to GitHub Actions\./);
    expect(r.stderr.trimEnd().split("\n").at(-1)).toBe(`triage: wrote ${join(dir, "out.md")}`);
  });
});
