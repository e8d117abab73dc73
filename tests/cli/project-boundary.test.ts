/**
 * Where the CLI may write, and bad input at that boundary (issue 14, found by a fresh-user pass): the rules folder of a
 * repository never falls back to an ancestor's or to $HOME's; an empty --rules-dir is refused by every command; doctor
 * reports a missing --rules-dir; `pin --paths` refuses control characters and absolute paths; `triage mcp` refuses a
 * missing $CLAUDE_PROJECT_DIR; `extract -` reads the transcript from stdin. Runs the built bundle with HOME (and TMPDIR)
 * pointing into a temp folder.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { filesUnder } from "../memory/helpers.js";
import { expectOneLineError, removeTempDirs, repo, tempDir, triage } from "./helpers.js";

afterAll(removeTempDirs);

const RULES = [".claude", "rules", "knowledge-triage"];
/** A real-CLI session (data/sessions/README.md): English, payments service. */
const SESSION = join(repo, "data", "sessions", "s1-en-payments", "transcript.jsonl");

/** A temp world: `home` (used as $HOME) and `work` beside it. */
function world(): { home: string; work: string; env: Record<string, string> } {
  const base = tempDir("kt-boundary-");
  const home = join(base, "home");
  const work = join(base, "work");
  mkdirSync(home);
  mkdirSync(work);
  return { home, work, env: { HOME: home, CLAUDE_CONFIG_DIR: join(home, ".claude") } };
}

describe("the rules folder stops at the repository root (issue repro)", () => {
  it("a repository with no rules folder of its own gets one; the outer folder's is left alone", () => {
    const w = world();
    const outer = join(w.work, "outer");
    const inner = join(outer, "repo");
    mkdirSync(inner, { recursive: true });
    expect(triage(["pin", "Outer rule.", "--model", "/dev/null"], { cwd: outer, env: w.env }).code).toBe(0);
    const outerFile = join(outer, ...RULES, "constraints.md");
    const before = readFileSync(outerFile, "utf8");
    mkdirSync(join(inner, ".git"));
    const r = triage(["pin", "Repo rule.", "--model", "/dev/null"], { cwd: inner, env: w.env });
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(join(inner, ...RULES, "constraints.md"), "utf8")).toContain("Repo rule.");
    expect(readFileSync(outerFile, "utf8")).toBe(before);
    // status in the repository reads the repository's folder, not the outer one.
    expect(triage(["status"], { cwd: inner, env: w.env }).stdout).toContain(join(inner, ...RULES));
  });

  it("$HOME's user-level rules folder is never the project of a folder below it", () => {
    const w = world();
    mkdirSync(join(w.home, ...RULES), { recursive: true });
    const proj = join(w.home, "proj");
    mkdirSync(proj);
    expect(triage(["pin", "Never push directly to main.", "--model", "/dev/null"], { cwd: proj, env: w.env }).code).toBe(0);
    expect(readdirSync(join(w.home, ...RULES))).toEqual([]);
    expect(existsSync(join(proj, ...RULES, "constraints.md"))).toBe(true);
  });

  it.each([[["pin", "Never push directly to main.", "--model", "/dev/null"]], [["status"]], [["export", "--format", "agents"]]])("%j run in $HOME itself is refused (it would write Claude Code's user-level rules)", (args) => {
    const w = world();
    const r = triage(args, { cwd: w.home, env: w.env });
    expect(expectOneLineError(r)).toBe(`triage: ${w.home} is the home folder, not a project folder: run triage inside a project, or give --rules-dir`);
    expect(filesUnder(w.home)).toEqual([]);
  });
});

describe("an empty --rules-dir", () => {
  it.each(["doctor", "status", "dig", "export", "pin", "unpin", "extract", "mcp"])("`%s --rules-dir ''` is one line and exit 1, nothing written", (cmd) => {
    const w = world();
    mkdirSync(join(w.work, ".git"));
    const args = { dig: ["dig", "refund"], export: ["export", "--format", "agents"], pin: ["pin", "Never push to main."], unpin: ["unpin", "push"], extract: ["extract", SESSION] }[cmd] ?? [cmd];
    const r = triage([...args, "--rules-dir", ""], { cwd: w.work, env: w.env });
    expect(expectOneLineError(r)).toBe("triage: --rules-dir is empty: give a folder (default: .claude/rules/knowledge-triage of the project)");
    expect(readdirSync(w.work)).toEqual([".git"]);
  });
});

describe("--rules-dir naming the home folder (found by the fourth fresh-user pass: pin wrote ~/constraints.md and ~/.state)", () => {
  it.each(["pin", "unpin", "extract", "export", "mcp"])("`%s --rules-dir $HOME` (and $HOME/) is one line and exit 1, nothing written", (cmd) => {
    const w = world();
    mkdirSync(join(w.work, ".git"));
    const args = { export: ["export", "--format", "agents"], pin: ["pin", "Never G.", "--model", "/dev/null"], unpin: ["unpin", "push"], extract: ["extract", SESSION, "--model", "/dev/null"] }[cmd] ?? [cmd];
    for (const dir of [w.home, `${w.home}/`, `${w.home}/./`]) {
      const r = triage([...args, "--rules-dir", dir], { cwd: w.work, env: w.env });
      expect(expectOneLineError(r)).toBe(`triage: --rules-dir ${dir}: is the home folder; rule files and .state/ would land there (give a rules folder, e.g. .claude/rules/knowledge-triage)`);
    }
    expect(filesUnder(w.home)).toEqual([]);
    expect(readdirSync(w.work)).toEqual([".git"]);
  });
});

describe("doctor --rules-dir naming a missing folder", () => {
  it("reports it as a finding (exit 3) instead of linting it as an empty folder", () => {
    const w = world();
    const missing = join(w.work, "rulez");
    const r = triage(["doctor", "--rules-dir", missing, "--json"], { cwd: w.work, env: w.env });
    expect(r.code).toBe(3);
    const out = JSON.parse(r.stdout) as { findings: Array<{ ok: boolean; file: string; message: string }> };
    expect(out.findings).toContainEqual({ ok: false, file: missing, message: "no such folder (--rules-dir)" });
    // The same folder, once it exists, is no finding.
    mkdirSync(missing);
    const again = JSON.parse(triage(["doctor", "--rules-dir", missing, "--json"], { cwd: w.work, env: w.env }).stdout) as typeof out;
    expect(again.findings.filter((f) => f.file === missing)).toEqual([]);
  });
});

describe("pin --paths", () => {
  it.each([
    ["src/**\n---\n# injected", '"src/**\\n---\\n# injected"'],
    ["src/**\r", '"src/**\\r"'],
    ["src/\t**", '"src/\\t**"'],
    // Not escaped by JSON.stringify; the terminal output escapes them (scripts/terminal.ts).
    ["src/\u2028**", '"src/\\u2028**"'],
    ["src/\u0085**", '"src/\\u0085**"'],
  ])("refuses a glob with a control character %j; nothing written", (glob, shown) => {
    const w = world();
    const rules = join(w.work, "rules");
    const r = triage(["pin", "Never edit generated code.", "--type", "constraint", "--paths", glob, "--rules-dir", rules, "--model", "/dev/null"], { cwd: w.work, env: w.env });
    expect(expectOneLineError(r)).toContain(`pin: the path ${shown} holds a control character`);
    expect(existsSync(rules)).toBe(false);
  });

  it.each(["/etc/**", "/src/**", "C:\\x\\**", "c:/work/**", "\\\\server\\share\\**", "~/notes/**"])("refuses the absolute path %j instead of rewriting it", (glob) => {
    const w = world();
    const rules = join(w.work, "rules");
    const r = triage(["pin", "Never edit generated code.", "--type", "constraint", "--paths", glob, "--rules-dir", rules, "--model", "/dev/null"], { cwd: w.work, env: w.env });
    expect(expectOneLineError(r)).toBe(`triage: pin: "${glob}" is an absolute path; paths are relative to the project root (e.g. "src/**")`);
    expect(existsSync(rules)).toBe(false);
  });

  it("still takes relative globs, including names that start with a tilde or a drive-like word", () => {
    const w = world();
    const rules = join(w.work, "rules");
    for (const glob of ["src/**", "~backup/**", "C-drive/**"]) {
      const r = triage(["pin", `Never edit ${glob} by hand.`, "--type", "constraint", "--paths", glob, "--rules-dir", rules, "--model", "/dev/null"], { cwd: w.work, env: w.env });
      expect(r.code, r.stderr).toBe(0);
    }
    const text = readdirSync(rules).filter((f) => f.endsWith(".md")).map((f) => readFileSync(join(rules, f), "utf8")).join("");
    expect(text).toContain('  - "src/**"');
    expect(text).toContain('  - "~backup/**"');
  });
});

describe("triage mcp with $CLAUDE_PROJECT_DIR naming a missing folder", () => {
  it("refuses at start, like --project-dir, and creates nothing", () => {
    const w = world();
    const missing = join(w.work, "gone", "project");
    const r = triage(["mcp"], { cwd: w.work, env: { ...w.env, CLAUDE_PROJECT_DIR: missing } });
    expect(expectOneLineError(r)).toBe(`triage: CLAUDE_PROJECT_DIR ${missing}: no such folder`);
    expect(existsSync(join(w.work, "gone"))).toBe(false);
  });
});

describe("extract - (the transcript on stdin)", () => {
  it("extracts the same rule files as from the file, and leaves no temp file behind", () => {
    const w = world();
    const tmp = join(w.work, "tmp");
    mkdirSync(tmp);
    const fromFile = join(w.work, "a");
    const fromStdin = join(w.work, "b");
    const a = triage(["extract", SESSION, "--rules-dir", fromFile, "--model", "/dev/null"], { cwd: w.work, env: w.env });
    expect(a.code, a.stderr).toBe(0);
    const b = triage(["extract", "-", "--rules-dir", fromStdin, "--model", "/dev/null"], { cwd: w.work, input: readFileSync(SESSION), env: { ...w.env, TMPDIR: tmp } });
    expect(b.code, b.stderr).toBe(0);
    expect(b.stdout).toMatch(/ [1-9]\d* kept: [1-9]\d* added/);
    const md = (d: string): Record<string, string> => Object.fromEntries(readdirSync(d).filter((f) => f.endsWith(".md")).map((f) => [f, readFileSync(join(d, f), "utf8")]));
    expect(Object.keys(md(fromStdin)).length).toBeGreaterThan(0);
    expect(md(fromStdin)).toEqual(md(fromFile));
    expect(readdirSync(tmp)).toEqual([]);
  });

  it("says standard input is not a transcript when it is not one", () => {
    const w = world();
    const r = triage(["extract", "-", "--rules-dir", join(w.work, "rules")], { cwd: w.work, input: "# Notes\n\n- Never push directly to main.\n", env: w.env });
    expect(expectOneLineError(r)).toMatch(/^triage: standard input is not a Claude Code transcript/);
    expect(existsSync(join(w.work, "rules"))).toBe(false);
  });
});

describe("--rules-dir naming Claude Code's configuration folder itself (issue 14)", () => {
  it.each([
    ["~/.claude", (home: string) => join(home, ".claude"), {}],
    ["$CLAUDE_CONFIG_DIR", (home: string) => join(home, "cfg"), { CLAUDE_CONFIG_DIR: "cfg" }],
  ] as const)("pin --rules-dir %s is refused and writes nothing; ~/.claude/rules/knowledge-triage stays allowed", (_name, dir, extra) => {
    const w = world();
    const env: Record<string, string> = { ...w.env, ...Object.fromEntries(Object.entries(extra).map(([k, v]) => [k, join(w.home, v)])) };
    const d = dir(w.home);
    mkdirSync(d, { recursive: true });
    const r = triage(["pin", "Never X.", "--rules-dir", d, "--model", "/dev/null"], { cwd: w.work, env });
    expect(expectOneLineError(r)).toContain("is Claude Code's configuration folder");
    expect(r.code).toBe(1);
    expect(readdirSync(d)).toEqual([]);
    const ok = triage(["pin", "Never X.", "--rules-dir", join(d, "rules", "knowledge-triage"), "--model", "/dev/null"], { cwd: w.work, env });
    expect(ok.code, ok.stderr).toBe(0);
    expect(existsSync(join(d, "rules", "knowledge-triage", "constraints.md"))).toBe(true);
  });
});
