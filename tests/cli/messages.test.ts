/**
 * Messages a fresh-user pass found wrong (issue 14, item 8), through the built bundle: `--debug` after the
 * subcommand, `export` into a folder it cannot write, and a no-op `extract` rerun.
 */
import { chmodSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ensureBundle, expectOneLineError, repo, tempDir, triage, removeTempDirs } from "./helpers.js";

vi.setConfig({ testTimeout: 60_000 });
beforeAll(() => ensureBundle(), 180_000);
afterAll(removeTempDirs);

describe("--debug", () => {
  it.each([
    ["before the subcommand", ["--debug", "classify", "missing.md"]],
    ["after the subcommand", ["classify", "missing.md", "--debug"]],
    ["between the arguments", ["classify", "--debug", "missing.md"]],
  ])("%s prints the error and its stack", (_name, args) => {
    const d = tempDir("kt-msg-");
    const r = triage(args, { cwd: d });
    expect(r.code).toBe(1);
    expect(r.stderr.split("\n")[0]).toBe("triage: cannot read missing.md: no such file");
    expect(r.stderr).toMatch(/\n\s+at /);
  });

  it("after `--` it is an argument, not the flag", () => {
    const r = triage(["classify", "--", "--debug"], { cwd: tempDir("kt-msg-") });
    expect(expectOneLineError(r)).toBe("triage: cannot read --debug: no such file");
  });
});

describe("export into a folder it cannot write", () => {
  function project(): string {
    const p = tempDir("kt-msg-");
    const r = triage(["pin", "Never push directly to main.", "--model", "/dev/null"], { cwd: p });
    expect(r.code, r.stderr).toBe(0);
    return p;
  }

  it("a file where the target folder must be: names the file it could not write (not 'internal error')", () => {
    const p = project();
    const out = tempDir("kt-msg-");
    writeFileSync(join(out, ".cursor"), "a file, not a folder\n");
    expect(expectOneLineError(triage(["export", "--format", "cursor", "--out", out], { cwd: p }))).toBe(`triage: cannot write ${join(out, ".cursor", "rules", "knowledge-triage.mdc")}: ${join(out, ".cursor")} is a file, not a folder`);
    expect(expectOneLineError(triage(["export", "--format", "agents", "--out", join(out, ".cursor")], { cwd: p }))).toBe(`triage: cannot write ${join(out, ".cursor", "AGENTS.md")}: ${join(out, ".cursor")} is a file, not a folder`);
  });

  it.skipIf(process.getuid?.() === 0)("a read-only folder: cannot write <path>: permission denied", () => {
    const p = project();
    const out = tempDir("kt-msg-");
    mkdirSync(join(out, "ro"));
    chmodSync(join(out, "ro"), 0o555);
    try {
      expect(expectOneLineError(triage(["export", "--format", "agents", "--out", join(out, "ro")], { cwd: p }))).toBe(`triage: cannot write ${join(out, "ro", "AGENTS.md")}: permission denied`);
    } finally {
      chmodSync(join(out, "ro"), 0o755);
    }
  });
});

describe("extract rerun", () => {
  it("says 'wrote' only for files it changed, 'unchanged' for the rest", () => {
    const p = tempDir("kt-msg-");
    const transcript = join(repo, "tests", "fixtures", "hooks", "transcript.jsonl");
    const first = triage(["extract", transcript, "--model", "/dev/null"], { cwd: p });
    expect(first.code, first.stderr).toBe(0);
    const wrote = first.stdout.split("\n").filter((l) => l.startsWith("wrote "));
    expect(wrote.length).toBeGreaterThan(0);
    const rules = wrote.map((l) => l.slice("wrote ".length));
    const before = rules.map((f) => readFileSync(f, "utf8"));
    for (const args of [[], ["--dry-run"]]) {
      const again = triage(["extract", transcript, "--model", "/dev/null", ...args], { cwd: p });
      expect(again.code, again.stderr).toBe(0);
      expect(again.stdout).not.toMatch(/^(wrote|would write) /m);
      expect(again.stdout.split("\n").filter((l) => l.startsWith("unchanged "))).toEqual(rules.map((f) => `unchanged ${f}`));
    }
    expect(rules.map((f) => readFileSync(f, "utf8"))).toEqual(before);
  });
});

describe("numbers past what a run can use, and a file given as a folder (found by a fresh-user pass)", () => {
  it.each([
    [["decompose", "examples/AGENTS.md", "--out", "OUT", "--max-tokens", "99999999999999999999"], "triage: --max-tokens is too large, got \"99999999999999999999\""],
    [["compact", "examples/AGENTS.md", "--budget", "99999999999999999999"], "triage: --budget is too large, got \"99999999999999999999\""],
    [["train", "data/test", "-o", "OUT/m.json", "--folds", "99999999999999999999"], "triage: --folds must be at most 1,000,000 (got \"99999999999999999999\")"],
    ...["doctor", "status", "dig", "export", "pin", "unpin", "extract", "mcp"].map((cmd) => {
      const args = { dig: ["dig", "refund"], export: ["export", "--format", "agents"], pin: ["pin", "Never push to main."], unpin: ["unpin", "push"], extract: ["extract", "data/sessions/s2-zh-etl/transcript.jsonl"] }[cmd] ?? [cmd];
      return [[...args, "--rules-dir", "README.md"], "triage: --rules-dir README.md: is a file, not a folder"] as [string[], string];
    }),
    [["mcp", "--project-dir", "OUT/missing"], "triage: --project-dir OUT/missing: no such folder"],
    [["pin", "x".repeat(2001), "--rules-dir", "OUT/rules"], "triage: pin: the rule is 2,001 characters; at most 2,000 (it is loaded into every session whole)"],
    [["pin", "Never edit generated code.", "--paths", "../shared/**", "--rules-dir", "OUT/rules", "--type", "constraint"], "triage: pin: \"../shared/**\" leaves the project; paths are relative to the project root"],
  ])("%j is one line and exit 1, not an internal error", (args, message) => {
    const out = tempDir("kt-msg-");
    const r = triage(args.map((a) => a.replace("OUT", out)), { cwd: repo });
    expect(expectOneLineError(r)).toBe(message.replace("OUT", out));
    expect(r.code).toBe(1);
  });
});

describe("decompose rerun into its own output folder (found by a fresh-user pass)", () => {
  it("replaces the partitions it wrote, refuses one the user edited (nothing written), and --force replaces it", () => {
    const out = join(tempDir("kt-msg-"), "parts");
    const first = triage(["decompose", "examples/CLAUDE.md", "--out", out, "--model", "/dev/null"], { cwd: repo });
    expect(first.code, first.stderr).toBe(0);
    const manifest = JSON.parse(readFileSync(join(out, "manifest.json"), "utf8")) as { partitions: { file: string; sha256: string }[] };
    const part = join(out, (manifest.partitions[0] as { file: string }).file);
    expect(triage(["decompose", "examples/CLAUDE.md", "--out", out, "--model", "/dev/null"], { cwd: repo }).code).toBe(0); // unedited: replaced
    writeFileSync(part, `${readFileSync(part, "utf8")}- my own note\n`);
    const again = triage(["decompose", "examples/CLAUDE.md", "--out", out, "--model", "/dev/null"], { cwd: repo });
    expect(expectOneLineError(again)).toMatch(/refusing to overwrite existing file .*--force/);
    expect(readFileSync(part, "utf8")).toContain("- my own note");
    expect(triage(["decompose", "examples/CLAUDE.md", "--out", out, "--model", "/dev/null", "--force"], { cwd: repo }).code).toBe(0);
    expect(readFileSync(part, "utf8")).not.toContain("- my own note");
  });
});

describe("retrieve with nothing to return (found by a fresh-user pass)", () => {
  it("says so in one stderr line and exits 0 instead of printing nothing", () => {
    const dir = tempDir("kt-msg-");
    const base = join(dir, "AGENTS.md");
    writeFileSync(base, "# A\n\nThe service runs on Node 20.\n\n# B\n\nLedger rows live in Postgres.\n");
    const r = triage(["retrieve", "kubernetes", "--base", base, "--model", "/dev/null"], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe('triage: no rule is in scope and no unit matches "kubernetes"\n');
  });
});

describe("messages that named the wrong thing (found by the fourth fresh-user pass)", () => {
  it("export through AGENTS.md -> CLAUDE.md names the file it changed and the link", () => {
    const d = tempDir("kt-msg-");
    mkdirSync(join(d, ".git"));
    writeFileSync(join(d, "CLAUDE.md"), "# Project\n\nThe API lives in packages/api.\n");
    symlinkSync("CLAUDE.md", join(d, "AGENTS.md"));
    expect(triage(["pin", "Never commit generated files.", "--model", "/dev/null"], { cwd: d }).code).toBe(0);
    const r = triage(["export", "--format", "agents"], { cwd: d });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`wrote ${join(d, "CLAUDE.md")} (through the link ${join(d, "AGENTS.md")})\n`);
    expect(readFileSync(join(d, "CLAUDE.md"), "utf8")).toContain("- Never commit generated files.");
  });

  it("--pin-mass out of range says what the number means, not an interval with 1.01", () => {
    const d = tempDir("kt-msg-");
    writeFileSync(join(d, "CLAUDE.md"), "# Rules\n\n- Never push to main.\n");
    const line = expectOneLineError(triage(["compact", "CLAUDE.md", "--ratio", "0.5", "--pin-mass", "2", "--model", "/dev/null"], { cwd: d }));
    expect(line).toBe('triage: --pin-mass must be a probability from 0 to 1 (or 1.01: keep the rules alone), got "2"');
  });
});
