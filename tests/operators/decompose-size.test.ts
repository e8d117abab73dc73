/**
 * `triage decompose` output stays proportional to its input (issue 14, item 3) and a failed run leaves
 * nothing behind; partition file names never carry the input's folders. Runs the built bundle with the
 * regex tier (deterministic, no model file).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeAllOrNothing } from "../../scripts/io/write-files.js";
import { ensureBundle, expectOneLineError, removeTempDirs, repo, tempDir, triage } from "../cli/helpers.js";

beforeAll(() => ensureBundle(), 180_000);
afterAll(removeTempDirs);

const regex = ["--model", "/dev/null"];
const example = readFileSync(join(repo, "examples", "CLAUDE.md"), "utf8");
const bytesUnder = (dir: string): number => readdirSync(dir).reduce((n, f) => n + statSync(join(dir, f)).size, 0);
const partitionFiles = (dir: string): string[] => readdirSync(dir).filter((f) => f.endsWith(".md")).sort();

describe("decompose output is proportional to its input", { timeout: 120_000 }, () => {
  it("a file pasted 10 times gives the partitions of one copy, not one per repeated heading", () => {
    const d = tempDir("kt-dec-");
    writeFileSync(join(d, "once.md"), example);
    writeFileSync(join(d, "ten.md"), example.repeat(10));
    expect(triage(["decompose", "once.md", "--out", "once", ...regex], { cwd: d }).code).toBe(0);
    const r = triage(["decompose", "ten.md", "--out", "ten", ...regex], { cwd: d });
    expect(r.code, r.stderr).toBe(0);
    // Same sections, same partition files (main wrote 10 x as many, each with every global rule copied 9 x over).
    expect(partitionFiles(join(d, "ten"))).toEqual(partitionFiles(join(d, "once")));
    // Partitions plus manifest: on main 1.6 MB for 86 KB of input (19 x); proportional now.
    expect(bytesUnder(join(d, "ten"))).toBeLessThan(4 * example.length * 10);
    // A rule repeated in the input is copied into a partition at most once.
    for (const f of partitionFiles(join(d, "ten"))) {
      const copied = readFileSync(join(d, "ten", f), "utf8").split("<!-- rules copied from other sections: see manifest.json -->")[1] ?? "";
      const bullets = copied.split("\n").filter((l) => l.startsWith("- "));
      expect(new Set(bullets).size, f).toBe(bullets.length);
    }
  });

  it("input whose partitions would pass 16 x its size + 1 MB is refused with one line, and nothing is written", () => {
    // 300 distinct global rules and 300 distinct sections: every rule governs every section (90,000 copies, ~5 MB).
    const lines = ["# Memory", "", "## Critical rules", ""];
    for (let i = 0; i < 300; i++) lines.push(`- Never change the retention setting number ${i} without asking me first.`);
    for (let i = 0; i < 300; i++) lines.push("", `## Area ${i}`, "", `Area ${i} holds the reports of team ${i}.`);
    const d = tempDir("kt-dec-");
    writeFileSync(join(d, "wide.md"), `${lines.join("\n")}\n`);
    const line = expectOneLineError(triage(["decompose", "wide.md", "--out", "out", ...regex], { cwd: d }));
    expect(line).toMatch(/^triage: decompose refused: the partitions would pass 1\.\d MB for \d+ KB of input \(16 x the input \+ 1 MB\); nothing written/);
    expect(existsSync(join(d, "out"))).toBe(false);
    // With fewer, larger partitions it fits.
    const ok = triage(["decompose", "wide.md", "--out", "out", "--max-tokens", "4000", ...regex], { cwd: d });
    expect(ok.code, ok.stderr).toBe(0);
    expect(bytesUnder(join(d, "out"))).toBeLessThan(16 * statSync(join(d, "wide.md")).size + 1024 * 1024);
  });

  it("partition file names hold the input's file name, never its folders (an absolute path)", () => {
    const d = tempDir("kt-dec-");
    mkdirSync(join(d, "home", "dev", "shop"), { recursive: true });
    writeFileSync(join(d, "home", "dev", "shop", "CLAUDE.md"), example);
    writeFileSync(join(d, "AGENTS.md"), readFileSync(join(repo, "examples", "AGENTS.md")));
    const r = triage(["decompose", join(d, "home", "dev", "shop", "CLAUDE.md"), join(d, "AGENTS.md"), "--out", join(d, "out"), ...regex]);
    expect(r.code, r.stderr).toBe(0);
    const names = partitionFiles(join(d, "out"));
    expect(names.length).toBeGreaterThan(2);
    for (const n of names) expect(n).toMatch(/^(claude|agents)-/);
    expect(names.join(" ")).not.toMatch(/home|shop|kt-dec/);
  });
});

describe("writeAllOrNothing", () => {
  it("a failure part-way leaves no file, no temp folder, and no folder it created", () => {
    const d = tempDir("kt-dec-");
    const out = join(d, "new", "out");
    // The third file's folder does not exist: writing it fails after two files were written.
    expect(() => writeAllOrNothing(out, [["a.md", "a\n"], ["b.md", "b\n"], ["missing/c.md", "c\n"], ["manifest.json", "{}\n"]])).toThrow(/^cannot write .*missing\/c\.md: no such file or folder$/);
    expect(existsSync(join(d, "new"))).toBe(false);
  });

  it("into an existing folder: a failure keeps what was there; success replaces files and removes a killed run's temp folder", () => {
    const d = tempDir("kt-dec-");
    writeFileSync(join(d, "a.md"), "old\n");
    writeFileSync(join(d, "mine.txt"), "the user's\n");
    expect(() => writeAllOrNothing(d, [["a.md", "new\n"], ["missing/c.md", "c\n"]])).toThrow(/: no such file or folder$/);
    expect(readdirSync(d).sort()).toEqual(["a.md", "mine.txt"]);
    expect(readFileSync(join(d, "a.md"), "utf8")).toBe("old\n");
    // A temp folder of a run that was killed (no such process: pid 2^22 + 1 is above Linux's pid_max limit).
    mkdirSync(join(d, ".decompose-4194305.tmp"));
    writeFileSync(join(d, ".decompose-4194305.tmp", "x.md"), "half\n");
    writeAllOrNothing(d, [["a.md", "new\n"], ["manifest.json", "{}\n"]]);
    expect(readdirSync(d).sort()).toEqual(["a.md", "manifest.json", "mine.txt"]);
    expect(readFileSync(join(d, "a.md"), "utf8")).toBe("new\n");
  });
});
