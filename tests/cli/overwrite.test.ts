/**
 * Regression tests of the "nothing a user wrote is overwritten silently" contract of the CLI (the
 * shared --force convention of scripts/io/write-files.ts refuseOverwrite), one-line write errors, the capped
 * COMPACTION_UNSAFE message, ratio bounds, export's hand-edit detection and `classify` of an empty file.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ensureBundle, expectOneLineError, fixtures, removeTempDirs, tempDir, triage } from "./helpers.js";

vi.setConfig({ testTimeout: 60_000 });
beforeAll(() => ensureBundle(), 180_000);
afterAll(() => removeTempDirs());

const regex = ["--model", "/dev/null"];
/** Two top-level sections, so `decompose` writes rules.md and testing.md partitions. */
const RULES = "## Rules\n\n- Never push to main.\n\n## Testing\n\n- Run `npm test` before a commit.\n";

function project(files: Record<string, string>): string {
  const d = tempDir("kt-overwrite-");
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(d, name, ".."), { recursive: true });
    writeFileSync(join(d, name), text);
  }
  return d;
}

describe("decompose --out", () => {
  it("refuses to overwrite its own input with a partition (--out .) and writes nothing", () => {
    const d = project({ "rules.md": RULES });
    const line = expectOneLineError(triage(["decompose", "rules.md", "--out", ".", ...regex], { cwd: d }));
    expect(line).toContain("rules.md");
    expect(line).toContain("--force");
    expect(readFileSync(join(d, "rules.md"), "utf8")).toBe(RULES);
    expect(existsSync(join(d, "manifest.json"))).toBe(false);
    expect(existsSync(join(d, "testing.md"))).toBe(false);
  });

  it("--force allows replacing the input", () => {
    const d = project({ "rules.md": RULES });
    const r = triage(["decompose", "rules.md", "--out", ".", "--force", ...regex], { cwd: d });
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(join(d, "rules.md"), "utf8")).not.toBe(RULES);
  });

  it("refuses an existing file in DIR that no earlier run wrote; --force replaces it", () => {
    const d = project({ "rules.md": RULES, "out/testing.md": "my own notes\n" });
    const line = expectOneLineError(triage(["decompose", "rules.md", "--out", "out", ...regex], { cwd: d }));
    expect(line).toContain(join("out", "testing.md"));
    expect(readFileSync(join(d, "out/testing.md"), "utf8")).toBe("my own notes\n");
    expect(existsSync(join(d, "out/manifest.json"))).toBe(false);
    const r = triage(["decompose", "rules.md", "--out", "out", "--force", ...regex], { cwd: d });
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(join(d, "out/testing.md"), "utf8")).toContain("npm test");
  });

  it("a rerun may replace the files its previous manifest lists, but not a foreign manifest.json", () => {
    const d = project({ "rules.md": RULES });
    expect(triage(["decompose", "rules.md", "--out", "out", ...regex], { cwd: d }).code).toBe(0);
    writeFileSync(join(d, "rules.md"), RULES.replace("main", "the release branch"));
    const r = triage(["decompose", "rules.md", "--out", "out", ...regex], { cwd: d });
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(join(d, "out/rules.md"), "utf8")).toContain("release branch");

    const e = project({ "rules.md": RULES, "out/manifest.json": '{"mine": true}\n' });
    expect(expectOneLineError(triage(["decompose", "rules.md", "--out", "out", ...regex], { cwd: e }))).toContain("manifest.json");
    expect(readFileSync(join(e, "out/manifest.json"), "utf8")).toBe('{"mine": true}\n');
  });

  it("a rerun over a broken manifest.json says the manifest is unreadable, not which partition it would overwrite (issue 14)", () => {
    const d = project({ "rules.md": RULES });
    expect(triage(["decompose", "rules.md", "--out", "out", ...regex], { cwd: d }).code).toBe(0);
    const manifest = readFileSync(join(d, "out/manifest.json"), "utf8");
    const torn = manifest.slice(0, Math.floor(manifest.length / 2));
    writeFileSync(join(d, "out/manifest.json"), torn);
    const line = expectOneLineError(triage(["decompose", "rules.md", "--out", "out", ...regex], { cwd: d }));
    expect(line).toMatch(/^triage: refusing to write partitions into out: its manifest\.json is unreadable .*--force$/);
    expect(readFileSync(join(d, "out/manifest.json"), "utf8")).toBe(torn);
    expect(triage(["decompose", "rules.md", "--out", "out", "--force", ...regex], { cwd: d }).code).toBe(0);
  });

  it("a rerun with other partitions removes the old run's partition files, and only those (found by the fourth fresh-user pass)", () => {
    const many = `${RULES}\n## Deploy\n\n- Deploy only from CI.\n\n## Style\n\n- Prefer named exports.\n`;
    const d = project({ "rules.md": many });
    expect(triage(["decompose", "rules.md", "--out", "out", ...regex], { cwd: d }).code).toBe(0);
    const first = readdirSync(join(d, "out")).sort();
    expect(first).toEqual(["deploy.md", "manifest.json", "rules.md", "style.md", "testing.md"]);
    writeFileSync(join(d, "out", "style.md"), "my edit\n"); // edited since: the user's now, kept
    writeFileSync(join(d, "out", "notes.md"), "mine\n"); // never listed: kept
    writeFileSync(join(d, "rules.md"), RULES);
    const r = triage(["decompose", "rules.md", "--out", "out", ...regex], { cwd: d });
    expect(r.code, r.stderr).toBe(0);
    expect(readdirSync(join(d, "out")).sort()).toEqual(["manifest.json", "notes.md", "rules.md", "style.md", "testing.md"]);
    const listed = (JSON.parse(readFileSync(join(d, "out", "manifest.json"), "utf8")) as { partitions: Array<{ file: string }> }).partitions.map((p) => p.file).sort();
    expect(listed).toEqual(["rules.md", "testing.md"]);
    expect(readFileSync(join(d, "out", "style.md"), "utf8")).toBe("my edit\n");
  });

  it("a folder holding files of its own and no manifest of ours is refused unless --force, nothing written", () => {
    const d = project({ "rules.md": RULES, "out/README.md": "my notes\n" });
    const line = expectOneLineError(triage(["decompose", "rules.md", "--out", "out", ...regex], { cwd: d }));
    expect(line).toContain("README.md");
    expect(line).toContain("--force");
    expect(readdirSync(join(d, "out"))).toEqual(["README.md"]);
    const r = triage(["decompose", "rules.md", "--out", "out", "--force", ...regex], { cwd: d });
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(join(d, "out", "README.md"), "utf8")).toBe("my notes\n");
  });

  it("--out naming an existing file is a one-line usage error, not EEXIST", () => {
    const d = project({ "rules.md": RULES, "notes.txt": "keep\n" });
    const line = expectOneLineError(triage(["decompose", "rules.md", "--out", "notes.txt", ...regex], { cwd: d }));
    expect(line).toMatch(/--out must be a folder/);
    expect(line).not.toMatch(/internal error|EEXIST/);
    expect(readFileSync(join(d, "notes.txt"), "utf8")).toBe("keep\n");
  });

  it("--max-ratio outside (0, 1] is refused", () => {
    const d = project({ "rules.md": RULES });
    for (const r of ["1.5", "0", "-0.2"]) expect(expectOneLineError(triage(["decompose", "rules.md", "--out", "out", "--max-ratio", r, ...regex], { cwd: d }))).toContain("--max-ratio");
    expect(existsSync(join(d, "out"))).toBe(false);
  });
});

describe("compact -o, label -o, train -o", () => {
  it("compact refuses an existing -o and its own input; --force allows both", () => {
    const d = project({ "x.md": RULES, "y.md": "precious\n" });
    expect(expectOneLineError(triage(["compact", "x.md", "--budget", "100", "-o", "y.md", ...regex], { cwd: d }))).toContain("y.md");
    expect(readFileSync(join(d, "y.md"), "utf8")).toBe("precious\n");
    expect(expectOneLineError(triage(["compact", "x.md", "--budget", "100", "-o", "x.md", ...regex], { cwd: d }))).toMatch(/x\.md: it is an input file/);
    expect(readFileSync(join(d, "x.md"), "utf8")).toBe(RULES);
    // The same input through another spelling of its path is still the input.
    expect(expectOneLineError(triage(["compact", "x.md", "--budget", "100", "-o", "./sub/../x.md", ...regex], { cwd: d }))).toContain("input file");
    const ok = triage(["compact", "x.md", "--budget", "100", "-o", "y.md", "--force", ...regex], { cwd: d });
    expect(ok.code, ok.stderr).toBe(0);
    expect(readFileSync(join(d, "y.md"), "utf8")).toContain("Never push to main.");
    const fresh = triage(["compact", "x.md", "--budget", "100", "-o", "new.md", ...regex], { cwd: d });
    expect(fresh.code, fresh.stderr).toBe(0);
    expect(existsSync(join(d, "new.md"))).toBe(true);
  });

  it("label refuses an existing -o unless --force", () => {
    const d = project({ "CLAUDE.md": RULES, "out.jsonl": "hand-labelled\n" });
    expect(expectOneLineError(triage(["label", "CLAUDE.md", "-o", "out.jsonl", ...regex], { cwd: d }))).toContain("out.jsonl");
    expect(readFileSync(join(d, "out.jsonl"), "utf8")).toBe("hand-labelled\n");
    expect(expectOneLineError(triage(["label", "CLAUDE.md", "-o", "CLAUDE.md", ...regex], { cwd: d }))).toContain("input file");
    expect(readFileSync(join(d, "CLAUDE.md"), "utf8")).toBe(RULES);
    const r = triage(["label", "CLAUDE.md", "-o", "out.jsonl", "--force", ...regex], { cwd: d });
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(join(d, "out.jsonl"), "utf8")).toContain('"file":"CLAUDE.md"');
  });

  it("train may replace a model file (retrain) but refuses any other existing file unless --force", () => {
    const d = project({ "notes.json": '{"not": "a model"}\n' });
    const fast = ["--folds", "0", "--epochs", "5"];
    const trainDir = join(fixtures, "train");
    expect(expectOneLineError(triage(["train", trainDir, "-o", "notes.json", ...fast], { cwd: d }))).toContain("notes.json");
    expect(readFileSync(join(d, "notes.json"), "utf8")).toBe('{"not": "a model"}\n');
    const first = triage(["train", trainDir, "-o", "model.json", ...fast], { cwd: d });
    expect(first.code, first.stderr).toBe(0);
    const again = triage(["train", trainDir, "-o", "model.json", ...fast, "--seed", "3"], { cwd: d });
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(d, "model.json"), "utf8")).metadata.seed).toBe(3);
    const forced = triage(["train", trainDir, "-o", "notes.json", ...fast, "--force"], { cwd: d });
    expect(forced.code, forced.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(d, "notes.json"), "utf8")).format).toBeDefined();
  });
});

describe("write errors are one line", () => {
  it("a folder as -o gives 'cannot write <path>: is a directory'", () => {
    const d = project({ "x.md": RULES, "dir/keep.md": "k\n" });
    expect(expectOneLineError(triage(["compact", "x.md", "--budget", "100", "-o", "dir", ...regex], { cwd: d }))).toBe("triage: cannot write dir: is a directory");
  });

  it("a file in place of the parent folder gives 'cannot write <path>: <file> is a file, not a folder'", () => {
    const d = project({ "x.md": RULES });
    expect(expectOneLineError(triage(["compact", "x.md", "--budget", "100", "-o", "x.md/y.md", "--force", ...regex], { cwd: d }))).toBe("triage: cannot write x.md/y.md: x.md is a file, not a folder");
    expect(expectOneLineError(triage(["label", "x.md", "-o", "x.md/y.jsonl", ...regex], { cwd: d }))).toBe("triage: cannot write x.md/y.jsonl: x.md is a file, not a folder");
  });

  it.skipIf(process.getuid?.() === 0)("a read-only folder gives 'cannot write <path>: permission denied'", async () => {
    const { chmodSync } = await import("node:fs");
    const d = project({ "x.md": RULES, "ro/.keep": "" });
    chmodSync(join(d, "ro"), 0o555);
    try {
      expect(expectOneLineError(triage(["compact", "x.md", "--budget", "100", "-o", "ro/y.md", ...regex], { cwd: d }))).toBe("triage: cannot write ro/y.md: permission denied");
    } finally {
      chmodSync(join(d, "ro"), 0o755);
    }
  });
});

describe("compact: COMPACTION_UNSAFE message and --ratio", () => {
  it("a 5 MB single-line rule is shown capped with its line number, not dumped", () => {
    const d = project({ "big.md": `# Notes\n\n- Never ${"deploy ".repeat(750_000)}on Fridays.\n` });
    const r = triage(["compact", "big.md", "--budget", "10", ...regex], { cwd: d });
    expect(r.code).toBe(2);
    expect(r.stderr.length).toBeLessThan(1000);
    expect(r.stderr).toMatch(/COMPACTION_UNSAFE/);
    const listed = r.stderr.split("\n").filter((l) => l.startsWith("  L"));
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatch(/^ {2}L3: - Never deploy .*…$/);
    expect((listed[0] as string).length).toBeLessThanOrEqual(205);
  });

  it("lists at most 20 rules then '... and N more'", () => {
    const rules = Array.from({ length: 30 }, (_, i) => `- Never touch module ${i} ${"without review ".repeat(30)}.`).join("\n");
    const d = project({ "many.md": `${rules}\n` });
    const r = triage(["compact", "many.md", "--budget", "5", ...regex], { cwd: d });
    expect(r.code).toBe(2);
    const listed = r.stderr.split("\n").filter((l) => /^ {2}L\d+: /.test(l));
    expect(listed).toHaveLength(20);
    expect(r.stderr).toMatch(/^ {2}\.\.\. and 10 more$/m);
  });

  it("--ratio must be in (0, 1]", () => {
    const d = project({ "x.md": RULES });
    for (const v of ["2", "1.01", "0", "-1"]) expect(expectOneLineError(triage(["compact", "x.md", "--ratio", v, ...regex], { cwd: d }))).toContain("--ratio must be in (0, 1]");
    const ok = triage(["compact", "x.md", "--ratio", "1", ...regex], { cwd: d });
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toContain("Never push to main.");
  });
});

describe("export: hand edits in whole exported files", () => {
  const formats = [
    ["cursor", ".cursor/rules/knowledge-triage.mdc"],
    ["windsurf", ".windsurf/rules/knowledge-triage.md"],
    ["copilot", ".github/instructions/knowledge-triage.instructions.md"],
  ] as const;
  for (const [format, file] of formats) {
    it(`${format}: refuses to overwrite an edited ${file} unless --force`, () => {
      const d = project({ "rules/constraints.md": "# Rules\n\n- Never push to main.\n" });
      const args = ["export", "--format", format, "--rules-dir", "rules", "--out", "."];
      expect(triage(args, { cwd: d }).code).toBe(0);
      // Re-export with new rules: the file is still ours, so it is replaced.
      writeFileSync(join(d, "rules/constraints.md"), "# Rules\n\n- Never push to main.\n- Never skip CI.\n");
      const again = triage(args, { cwd: d });
      expect(again.code, again.stderr).toBe(0);
      expect(readFileSync(join(d, file), "utf8")).toContain("Never skip CI.");
      // A hand edit: refused, file kept byte for byte.
      const edited = `${readFileSync(join(d, file), "utf8")}- My own note, do not lose it.\n`;
      writeFileSync(join(d, file), edited);
      writeFileSync(join(d, "rules/constraints.md"), "# Rules\n\n- Never push to main.\n");
      const line = expectOneLineError(triage(args, { cwd: d }));
      expect(line).toContain(file);
      expect(line).toContain("--force");
      expect(readFileSync(join(d, file), "utf8")).toBe(edited);
      const forced = triage([...args, "--force"], { cwd: d });
      expect(forced.code, forced.stderr).toBe(0);
      expect(readFileSync(join(d, file), "utf8")).not.toContain("My own note");
      // After --force the file is ours again.
      expect(triage(args, { cwd: d }).code).toBe(0);
    });
  }

  it("a mistyped --rules-dir is a one-line error and removes nothing, even with --force", () => {
    const d = project({ "rules/constraints.md": "# Rules\n\n- Never push to main.\n" });
    expect(triage(["export", "--format", "cursor", "--rules-dir", "rules", "--out", "."], { cwd: d }).code).toBe(0);
    const file = join(d, ".cursor/rules/knowledge-triage.mdc");
    const before = readFileSync(file, "utf8");
    for (const extra of [["--out", "."], ["--out", ".", "--force"], ["--stdout"]]) {
      const line = expectOneLineError(triage(["export", "--format", "cursor", "--rules-dir", "typo", ...extra], { cwd: d }));
      expect(line).toMatch(/no rules folder at typo/);
    }
    expect(readFileSync(file, "utf8")).toBe(before);
  });

  it("cursor: a same-named file export never wrote is refused, and so is removing an edited per-glob file", () => {
    const d = project({
      "rules/constraints.md": "# Rules\n\n- Never push to main.\n",
      ".cursor/rules/knowledge-triage.mdc": "hand written\n",
    });
    const args = ["export", "--format", "cursor", "--rules-dir", "rules", "--out", "."];
    expect(expectOneLineError(triage(args, { cwd: d }))).toMatch(/not written by triage export/);
    expect(readFileSync(join(d, ".cursor/rules/knowledge-triage.mdc"), "utf8")).toBe("hand written\n");

    const e = project({ "rules/api.md": '---\npaths:\n  - "src/**"\n---\n- Never log tokens.\n' });
    expect(triage(args, { cwd: e }).code).toBe(0);
    const scopedName = readdirSync(join(e, ".cursor/rules")).find((n) => n.startsWith("knowledge-triage-"));
    expect(scopedName).toBeDefined();
    const scoped = join(".cursor/rules", scopedName as string);
    writeFileSync(join(e, scoped), "edited by hand\n");
    writeFileSync(join(e, "rules/api.md"), "- Never log tokens.\n"); // no longer scoped: the per-glob file would be removed
    expect(expectOneLineError(triage(args, { cwd: e }))).toMatch(/refusing to remove .*knowledge-triage-/);
    expect(readFileSync(join(e, scoped), "utf8")).toBe("edited by hand\n");
  });
});

describe("classify an empty file", () => {
  it("prints the file header and a 0-units line", () => {
    const d = project({ "empty.md": "" });
    const r = triage(["classify", "empty.md", ...regex], { cwd: d });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe("== empty.md\n0 units: 0 constraint, 0 procedural, 0 belief, 0 preference, 0 episodic\n");
  });
});

describe("-o - (standard output)", () => {
  it("compact and label write to standard output and create no file named '-'; train refuses it in one line", () => {
    const d = project({ "CLAUDE.md": RULES });
    const viaDash = triage(["compact", "CLAUDE.md", "--ratio", "1", "-o", "-", ...regex], { cwd: d });
    expect(viaDash.code, viaDash.stderr).toBe(0);
    const plain = triage(["compact", "CLAUDE.md", "--ratio", "1", ...regex], { cwd: d });
    expect(viaDash.stdout).toBe(plain.stdout);
    expect(viaDash.stdout).toContain("Never push to main.");
    const label = triage(["label", "CLAUDE.md", "-o", "-", ...regex], { cwd: d });
    expect(label.code, label.stderr).toBe(0);
    const rows = label.stdout.trim().split("\n").map((l) => JSON.parse(l) as { text: string; type: string });
    expect(rows.map((r) => r.text)).toContain("- Never push to main.");
    expect(label.stderr).toMatch(/-> standard output/);
    const train = triage(["train", join(fixtures, ".."), "-o", "-"], { cwd: d });
    expect(expectOneLineError(train)).toMatch(/-o -: the model must be written to a file/);
    expect(readdirSync(d).sort()).toEqual(["CLAUDE.md"]);
  });
});
