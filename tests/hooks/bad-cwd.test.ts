/**
 * Hook payloads whose project folder cannot be one (issue 14, fresh-user leftovers): a cwd that is a file is said to be
 * a file (not "does not exist"); a cwd in Claude Code's configuration folder (~/.claude, or any folder inside it, or
 * $CLAUDE_CONFIG_DIR) is refused like $HOME. One stderr line, exit 0, nothing written. And rule text with control
 * characters (a bell, ANSI colours, a bidi override, NUL, backspaces) pasted into a session reaches neither the rule
 * files nor the hook's stdout. Built bundle, real payloads (tests/fixtures/hooks/payloads.jsonl); HOME in a temp folder.
 */
import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { filesUnder } from "../memory/helpers.js";
import { cleanup, P, payload, runHook, tempProject } from "./helpers.js";

afterAll(cleanup);

describe("a payload cwd that is not a folder", { timeout: 60_000 }, () => {
  it.each([
    ["pre-compact", P.preManual],
    ["session-start", P.startCompact],
    ["session-end", P.end],
  ] as const)("%s: a file as cwd is 'not a folder (a regular file)', exit 0, nothing written", (event, i) => {
    const t = tempProject();
    const file = join(t.project, "notes.md");
    writeFileSync(file, "# notes\n");
    const r = runHook(event, payload(i, t.transcript, file), { HOME: join(t.root, "home") });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("");
    // (The hook's stderr line is redacted: a random temp-folder name may read as a secret.)
    expect(r.stderr).toMatch(new RegExp(`^triage hook ${event}: project folder /\\S+ is not a folder \\(a regular file\\); nothing written\n$`));
    expect(filesUnder(t.project)).toEqual(["notes.md"]);
  });

  it("a cwd through a file or in a loop of links says why in words", () => {
    const t = tempProject();
    writeFileSync(join(t.project, "f"), "x");
    symlinkSync("b", join(t.project, "a"));
    symlinkSync("a", join(t.project, "b"));
    const through = runHook("pre-compact", payload(P.preManual, t.transcript, join(t.project, "f", "sub")), { HOME: join(t.root, "home") });
    expect(through.code).toBe(0);
    expect(through.stderr).toMatch(/^triage hook pre-compact: project folder \/\S+ cannot be used: \/\S+ is a file, not a folder; nothing written\n$/);
    const loop = runHook("pre-compact", payload(P.preManual, t.transcript, join(t.project, "a")), { HOME: join(t.root, "home") });
    expect(loop.code).toBe(0);
    expect(loop.stderr).toMatch(/^triage hook pre-compact: project folder \/\S+ cannot be used: a loop of symbolic links; nothing written\n$/);
    expect(readdirSync(t.project).sort()).toEqual(["a", "b", "f"]);
  });
});

describe("a payload cwd holding a NUL character (issue 14)", { timeout: 60_000 }, () => {
  it("says so in words, not ERR_INVALID_ARG_VALUE; exit 0, nothing written", () => {
    const t = tempProject();
    const r = runHook("pre-compact", payload(P.preManual, t.transcript, `${t.project}\u0000/sub`), { HOME: join(t.root, "home") });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/cannot be used: not a usable path \(it holds a NUL character\); nothing written\n$/);
    expect(r.stderr).not.toMatch(/ERR_|\bE[A-Z]{3,}\b/);
    expect(filesUnder(t.project)).toEqual([]);
  });
});

describe("a project folder inside Claude Code's configuration folder", { timeout: 60_000 }, () => {
  it.each([
    ["~/.claude", (home: string) => join(home, ".claude"), {}],
    ["a plugin clone inside ~/.claude (a git repository)", (home: string) => join(home, ".claude", "plugins", "marketplaces", "x"), {}],
    ["$CLAUDE_CONFIG_DIR", (home: string) => join(home, "cfg", "sub"), { CLAUDE_CONFIG_DIR: "cfg" }],
  ] as const)("%s: refused like $HOME, exit 0, nothing written", (_what, dirOf, extra) => {
    const t = tempProject();
    const home = join(t.root, "home");
    const cwd = dirOf(home);
    mkdirSync(join(cwd, ".git"), { recursive: true });
    const env: Record<string, string> = { HOME: home };
    if ("CLAUDE_CONFIG_DIR" in extra) env.CLAUDE_CONFIG_DIR = join(home, extra.CLAUDE_CONFIG_DIR);
    const before = filesUnder(home);
    for (const [event, i] of [["pre-compact", P.preManual], ["session-start", P.startCompact]] as const) {
      const r = runHook(event, payload(i, t.transcript, cwd), env);
      expect(r.code).toBe(0);
      expect(r.stdout).toBe("");
      expect(r.stderr).toMatch(new RegExp(`^triage hook ${event}: project folder /\\S+ is inside Claude Code's configuration folder /\\S+, not a project; nothing written\n$`));
    }
    // Also when Claude Code names it in CLAUDE_PROJECT_DIR.
    const r = runHook("pre-compact", payload(P.preManual, t.transcript, cwd), { ...env, CLAUDE_PROJECT_DIR: cwd });
    expect(r.stderr).toMatch(/is inside Claude Code's configuration folder/);
    expect(filesUnder(home)).toEqual(before);
  });
});

describe("control characters in a stated rule", { timeout: 60_000 }, () => {
  it("are stripped before the rule file and the PreCompact stdout; the words stay", () => {
    const t = tempProject();
    mkdirSync(join(t.project, ".git"));
    const line = (n: number, text: string): string =>
      JSON.stringify({ parentUuid: null, isSidechain: false, userType: "external", cwd: t.project, sessionId: "s-ctrl", version: "2.1.197", type: "user", message: { role: "user", content: text }, uuid: `00000000-0000-4000-8000-00000000000${n}`, timestamp: "2026-11-20T09:0" + n + ":00.000Z" });
    writeFileSync(
      t.transcript,
      [
        line(1, "Never push directly to main \u0007branch. \u001b[31mAlways run the linter before you open a pull request.\u001b[0m"),
        line(2, "Always use \u202epnpm\u202c instead of npm in this repository."),
        line(3, "Never\u0000 delete the migrations folder.\b\b\b"),
      ].join("\n") + "\n",
    );
    const r = runHook("pre-compact", payload(P.preManual, t.transcript, t.project), { HOME: join(t.root, "home") });
    expect(r.code).toBe(0);
    const rules = readFileSync(join(t.project, ".claude", "rules", "knowledge-triage", "constraints.md"), "utf8");
    const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
    for (const text of [rules, r.stdout]) {
      expect(text).not.toMatch(CONTROL);
      expect(text).toContain("- Never push directly to main branch.");
      expect(text).toContain("Always run the linter before you open a pull request.");
      expect(text).toContain("- Always use pnpm instead of npm in this repository.");
      expect(text).toContain("- Never delete the migrations folder.");
      expect(text).not.toContain("[31m");
    }
  });
});
