/**
 * projectDirFrom (scripts/io/project-folders.ts): the walk up from the working folder stops at the repository root
 * (the nearest folder holding `.git`) and never reaches the home folder or the filesystem root (issue 14: a repo
 * without a rules folder wrote into an ancestor's, including $HOME's user-level rules). Real temp folders; the home
 * folder is passed in, never the real one.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { notAProjectFolder, projectDirFrom, rulesDirFrom } from "../../scripts/io/project-folders.js";

const root = mkdtempSync(join(tmpdir(), "kt-project-dir-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Make `rel` folders under a fresh case folder; returns its absolute path. */
function tree(name: string, ...rels: string[]): string {
  const base = join(root, name);
  for (const r of ["", ...rels]) mkdirSync(join(base, r), { recursive: true });
  return base;
}
const RULES = ".claude/rules/knowledge-triage";

describe("projectDirFrom", () => {
  it("a repository without a rules folder is its own project, not an ancestor that has one", () => {
    const b = tree("outer", RULES, "repo/.git", "repo/src/api");
    const home = join(b, "not-home");
    expect(projectDirFrom(join(b, "repo"), home)).toBe(join(b, "repo"));
    expect(projectDirFrom(join(b, "repo", "src", "api"), home)).toBe(join(b, "repo"));
  });

  it("a rules folder between the working folder and the repository root still wins", () => {
    const b = tree("nested", "repo/.git", `repo/packages/web/${RULES}`, "repo/packages/web/src");
    expect(projectDirFrom(join(b, "repo", "packages", "web", "src"), join(b, "h"))).toBe(join(b, "repo", "packages", "web"));
  });

  it("outside any repository, the nearest folder up with a rules folder, else the working folder", () => {
    const b = tree("plain", RULES, "notes/2026");
    expect(projectDirFrom(join(b, "notes", "2026"), join(b, "h"))).toBe(b);
    const c = tree("bare", "a/b");
    expect(projectDirFrom(join(c, "a", "b"), join(c, "h"))).toBe(join(c, "a", "b"));
  });

  it("never the home folder: its user-level rules folder and its dotfiles .git are not a project", () => {
    const home = tree("home", RULES, ".git", "proj/src");
    expect(projectDirFrom(join(home, "proj", "src"), home)).toBe(join(home, "proj", "src"));
    expect(() => projectDirFrom(home, home)).toThrow(/is the home folder, not a project folder/);
    expect(() => projectDirFrom(`${home}/`, home)).toThrow(/home folder/);
  });

  it("never the filesystem root", () => {
    expect(() => projectDirFrom("/", join(root, "h"))).toThrow(/^\/ is the filesystem root, not a project folder/);
    expect(notAProjectFolder("/")).toBe("the filesystem root");
    expect(notAProjectFolder(root, join(root, "h"))).toBeUndefined();
  });
});

describe("rulesDirFrom", () => {
  it.each(["", " "])("refuses an empty --rules-dir %j (it would be the working folder)", (opt) => {
    expect(() => rulesDirFrom(opt, root)).toThrow(/^--rules-dir is empty/);
  });
});

describe("rulesDirFrom refuses the filesystem root and the home folder (pin --rules-dir / wrote /constraints.md and /.state)", () => {
  it.each(["/", "//", "/tmp/..", "/./"])("refuses %j as the filesystem root", (opt) => {
    expect(() => rulesDirFrom(opt, root)).toThrow(`--rules-dir ${opt}: is the filesystem root; rule files and .state/ would land there`);
  });
  it("refuses the home folder given in any spelling, accepts a folder below it", () => {
    const home = tree("home-as-rules");
    for (const opt of [home, `${home}/`, `${home}/sub/..`]) expect(() => rulesDirFrom(opt, root, home)).toThrow(/is the home folder/);
    expect(rulesDirFrom(join(home, RULES), root, home)).toBe(join(home, RULES));
  });
});

describe("notAProjectFolder resolves symbolic links (issue 14: hooks, CLI lookup and mcp share it)", () => {
  it("a link to the home folder, into ~/.claude, or into $CLAUDE_CONFIG_DIR is refused like the folder itself", () => {
    const base = tree("links", "h/.claude/projects", "cfg", "work");
    const home = join(base, "h");
    symlinkSync(home, join(base, "to-home"));
    symlinkSync(join(home, ".claude"), join(base, "to-claude"));
    symlinkSync(join(base, "cfg"), join(base, "to-cfg"));
    expect(notAProjectFolder(join(base, "to-home"), home, undefined)).toBe("the home folder");
    expect(notAProjectFolder(join(base, "to-claude"), home, undefined)).toMatch(/^inside Claude Code's configuration folder /);
    expect(notAProjectFolder(join(base, "to-claude", "projects"), home, undefined)).toMatch(/^inside Claude Code's configuration folder /);
    expect(notAProjectFolder(join(base, "to-cfg"), home, join(base, "cfg"))).toMatch(/^inside Claude Code's configuration folder /);
    expect(() => projectDirFrom(join(base, "to-home"), home)).toThrow(/is the home folder, not a project folder/);
    // A link to an ordinary folder stays a project.
    symlinkSync(join(base, "work"), join(base, "to-work"));
    expect(notAProjectFolder(join(base, "to-work"), home, undefined)).toBeUndefined();
  });
});
