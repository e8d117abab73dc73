/**
 * The hooks never write into a project folder that is the filesystem root or the home folder (issue 14): `.claude/rules/`
 * there is loaded in every project. A payload with `"cwd":"/"`, or CLAUDE_PROJECT_DIR naming / or $HOME, gets one stderr
 * line saying so, exit 0, and nothing written (no rules, no .state, no transcript archive). Without CLAUDE_PROJECT_DIR,
 * the walk up from cwd stops at the repository root. Built bundle, real payloads; HOME points into a temp folder.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { filesUnder } from "../memory/helpers.js";
import { cleanup, P, payload, runHook, tempProject } from "./helpers.js";

afterAll(cleanup);

const ROOT_RULES = "/.claude/rules/knowledge-triage";

/** A temp project plus a temp home folder (used as $HOME) holding a copy of nothing. */
function setup(): { home: string; project: string; transcript: string } {
  const t = tempProject();
  const home = join(t.root, "home");
  mkdirSync(home);
  return { home, project: t.project, transcript: t.transcript };
}

describe("a project folder that is / or $HOME", { timeout: 60_000 }, () => {
  it.each([
    ["pre-compact", P.preManual],
    ["session-start", P.startCompact],
  ] as const)("%s with cwd / and no CLAUDE_PROJECT_DIR: one line, exit 0, nothing written under /", (event, i) => {
    const s = setup();
    const before = existsSync(ROOT_RULES);
    const r = runHook(event, payload(i, s.transcript, "/"), { HOME: s.home });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe(`triage hook ${event}: project folder / is the filesystem root, not a project; nothing written\n`);
    if (!before) expect(existsSync(ROOT_RULES)).toBe(false);
  });

  it("CLAUDE_PROJECT_DIR=/ is refused the same way", () => {
    const s = setup();
    const r = runHook("pre-compact", payload(P.preAuto, s.transcript, "/"), { HOME: s.home, CLAUDE_PROJECT_DIR: "/" });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("triage hook pre-compact: project folder / is the filesystem root, not a project; nothing written\n");
  });

  it.each([
    ["CLAUDE_PROJECT_DIR", true],
    ["cwd", false],
  ] as const)("$HOME as the project (%s): one line, exit 0, nothing written in the home folder", (_how, viaEnv) => {
    const s = setup();
    const env: Record<string, string> = { HOME: s.home, ...(viaEnv ? { CLAUDE_PROJECT_DIR: s.home } : {}) };
    const r = runHook("pre-compact", payload(P.preManual, s.transcript, s.home), env);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(`triage hook pre-compact: project folder ${s.home} is the home folder, not a project; nothing written\n`);
    expect(filesUnder(s.home)).toEqual([]);
  });

  it("a project below $HOME still works, and never falls back to $HOME's user-level rules folder", () => {
    const s = setup();
    const userRules = join(s.home, ".claude", "rules", "knowledge-triage");
    mkdirSync(userRules, { recursive: true });
    const proj = join(s.home, "code", "shop");
    mkdirSync(join(proj, ".git"), { recursive: true });
    mkdirSync(join(proj, "src"));
    const r = runHook("pre-compact", payload(P.preManual, s.transcript, join(proj, "src")), { HOME: s.home });
    expect(r.code).toBe(0);
    expect(readdirSync(userRules)).toEqual([]);
    expect(readFileSync(join(proj, ".claude", "rules", "knowledge-triage", "constraints.md"), "utf8")).toMatch(/^- /m);
  });

  it("without CLAUDE_PROJECT_DIR, a repository's hook does not write into an outer folder's rules", () => {
    const s = setup();
    const outer = join(s.project, "outer");
    const outerRules = join(outer, ".claude", "rules", "knowledge-triage");
    mkdirSync(outerRules, { recursive: true });
    const inner = join(outer, "repo");
    mkdirSync(join(inner, ".git"), { recursive: true });
    const r = runHook("pre-compact", payload(P.preManual, s.transcript, inner), { HOME: s.home });
    expect(r.code).toBe(0);
    expect(filesUnder(outerRules)).toEqual([]);
    expect(existsSync(join(inner, ".claude", "rules", "knowledge-triage", "constraints.md"))).toBe(true);
  });
});

describe("a payload cwd that is a symbolic link to $HOME or into ~/.claude (issue 14)", { timeout: 60_000 }, () => {
  it.each([
    ["the home folder", (home: string) => home, "the home folder"],
    ["~/.claude", (home: string) => join(home, ".claude"), "inside Claude Code's configuration folder"],
  ] as const)("a link to %s: one line, exit 0, nothing written in the home folder", (_to, target, says) => {
    const s = setup();
    mkdirSync(join(s.home, ".claude"));
    const link = join(s.project, "..", "cl");
    symlinkSync(target(s.home), link);
    const r = runHook("pre-compact", payload(P.preManual, s.transcript, link), { HOME: s.home, CLAUDE_CONFIG_DIR: "" });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`project folder ${link} is ${says}`);
    expect(filesUnder(s.home)).toEqual([]);
  });
});
