/**
 * install.sh / uninstall.sh, run non-interactively with HOME and the project in temp folders: scopes,
 * JSON merge that keeps other settings, idempotence, exact removal, --purge, .gitignore handling, and a
 * hook run through the command the installer wrote (BL-30: nothing path-scoped under ~/.claude/rules).
 */
import { spawnSync } from "node:child_process";
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";

// Each case spawns the bundle (node start-up ~0.3-1 s, more on a busy CI machine): no per-test timing.
vi.setConfig({ testTimeout: 60_000 });
const made: string[] = [];
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

const repo = resolve(import.meta.dirname, "..", "..");
const bundle = join(repo, "dist", "triage.mjs");

function setup(git = true): { home: string; project: string } {
  const root = mkdtempSync(join(tmpdir(), "kt-install-"));
  made.push(root);
  const home = join(root, "home");
  const project = join(root, "project");
  mkdirSync(home);
  mkdirSync(project);
  if (git) spawnSync("git", ["init", "-q"], { cwd: project });
  return { home, project };
}

function sh(script: string, args: string[], home: string, project: string, env: Record<string, string> = {}) {
  const r = spawnSync("bash", [join(repo, script), ...args], {
    cwd: project,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, ...env },
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}
const install = (a: string[], h: string, p: string, e?: Record<string, string>) => sh("install.sh", a, h, p, e);
const uninstall = (a: string[], h: string, p: string, e?: Record<string, string>) => sh("uninstall.sh", a, h, p, e);
const json = (f: string): Record<string, unknown> => JSON.parse(readFileSync(f, "utf8"));

interface Handler {
  type: string;
  command: string;
  args: string[];
  timeout: number;
}
/** All handlers in a settings object, as [event, matcher, handler]. */
function handlers(settings: Record<string, unknown>): Array<[string, string | undefined, Handler]> {
  const hooks = (settings.hooks ?? {}) as Record<string, Array<{ matcher?: string; hooks: Handler[] }>>;
  return Object.entries(hooks).flatMap(([ev, groups]) => groups.flatMap((g) => g.hooks.map((h) => [ev, g.matcher, h] as [string, string | undefined, Handler])));
}

describe("install.sh", () => {
  it("without a terminal or --scope installs the trial scope: settings.local.json, absolute exec-form hooks, gitignored", () => {
    const { home, project } = setup();
    const r = install([], home, project);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain("No terminal and no --scope: using --scope trial");
    const hs = handlers(json(join(project, ".claude", "settings.local.json")));
    expect(hs.map(([ev, m, h]) => [ev, m, h.command, h.args])).toEqual([
      ["PreCompact", "manual|auto", "node", [bundle, "hook", "pre-compact"]],
      ["SessionStart", "compact", "node", [bundle, "hook", "session-start"]],
      ["SessionEnd", undefined, "node", [bundle, "hook", "session-end"]],
    ]);
    expect(spawnSync("git", ["check-ignore", "-q", ".claude/settings.local.json"], { cwd: project }).status).toBe(0);
    expect(r.out).toMatch(/^\+ PreCompact \(manual\|auto\): node \//m);
  });

  it("is idempotent: a second run changes no byte and says so", () => {
    const { home, project } = setup();
    install(["--scope", "trial"], home, project);
    const f = join(project, ".claude", "settings.local.json");
    const before = [readFileSync(f, "utf8"), readFileSync(join(project, ".gitignore"), "utf8")];
    const r = install(["--scope", "trial"], home, project);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/already installed/);
    expect([readFileSync(f, "utf8"), readFileSync(join(project, ".gitignore"), "utf8")]).toEqual(before);
  });

  it("merges into existing settings without touching other keys or hooks; uninstall restores them", () => {
    const { home, project } = setup();
    const original = {
      model: "opus",
      permissions: { allow: ["Bash(npm test)"] },
      hooks: {
        PreCompact: [{ matcher: "auto", hooks: [{ type: "command", command: "echo mine" }] }],
        Stop: [{ hooks: [{ type: "command", command: "say done" }] }],
      },
    };
    mkdirSync(join(project, ".claude"));
    const f = join(project, ".claude", "settings.json");
    writeFileSync(f, JSON.stringify(original));
    expect(install(["--scope", "project"], home, project).code).toBe(0);
    const merged = json(f);
    expect(merged.model).toBe("opus");
    expect(merged.permissions).toEqual(original.permissions);
    expect(handlers(merged).filter(([, , h]) => h.command !== "node")).toHaveLength(2);
    expect(handlers(merged)).toHaveLength(5);
    const r = uninstall(["--scope", "project"], home, project);
    expect(r.code).toBe(0);
    expect(r.out.match(/^- /gm)).toHaveLength(3);
    expect(json(f)).toEqual(original);
  });

  it("user scope writes ~/.claude/settings.json (or $CLAUDE_CONFIG_DIR) and nothing in the project", () => {
    const { home, project } = setup();
    expect(install(["--scope=user"], home, project).code).toBe(0);
    expect(handlers(json(join(home, ".claude", "settings.json")))).toHaveLength(3);
    expect(readdirSync(project)).toEqual([".git"]);
    const cfg = join(home, "alt-config");
    expect(install(["--scope", "user"], home, project, { CLAUDE_CONFIG_DIR: cfg }).code).toBe(0);
    expect(handlers(json(join(cfg, "settings.json")))).toHaveLength(3);
  });

  it("replaces hooks left by an older checkout instead of adding a second set", () => {
    const { home, project } = setup();
    const old = { type: "command", command: "node", args: ["/old/clone/dist/triage.mjs", "hook", "pre-compact"], timeout: 30 };
    mkdirSync(join(project, ".claude"));
    writeFileSync(join(project, ".claude", "settings.json"), JSON.stringify({ hooks: { PreCompact: [{ matcher: "manual", hooks: [old] }] } }));
    const r = install(["--scope", "project"], home, project);
    expect(r.out).toContain("- PreCompact (manual): node /old/clone/dist/triage.mjs hook pre-compact");
    const hs = handlers(json(join(project, ".claude", "settings.json")));
    expect(hs).toHaveLength(3);
    expect(hs.every(([, , h]) => h.args[0] === bundle)).toBe(true);
  });

  it.each([
    ["invalid JSON", "{ not json", /not valid JSON/],
    ["a JSON array", "[1,2]", /not a JSON object/],
    ["hooks of the wrong type", '{"hooks": []}', /"hooks" is not an object/],
  ])("refuses to touch a settings file holding %s", (_n, content, pattern) => {
    const { home, project } = setup();
    mkdirSync(join(project, ".claude"));
    const f = join(project, ".claude", "settings.local.json");
    writeFileSync(f, content);
    const r = install(["--scope", "trial"], home, project);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(pattern);
    expect(readFileSync(f, "utf8")).toBe(content);
  });

  it("rejects an unknown scope or argument with exit 1", () => {
    const { home, project } = setup();
    expect(install(["--scope", "global"], home, project)).toMatchObject({ code: 1, err: expect.stringMatching(/trial, project or user/) });
    expect(install(["--frobnicate"], home, project)).toMatchObject({ code: 1, err: expect.stringMatching(/unknown argument/) });
  });

  it("--help prints the usage comment only, not the script's first command", () => {
    const { home, project } = setup();
    for (const script of ["install.sh", "uninstall.sh"]) {
      const r = sh(script, ["--help"], home, project);
      expect(r.code).toBe(0);
      expect(r.out).toContain("--scope trial|project|user");
      expect(r.out).not.toMatch(/set -euo|^#/m);
    }
  });

  it("a symlinked ~/.claude/settings.json (dotfiles) is written through the link, which stays a link; uninstall the same", () => {
    const { home, project } = setup();
    mkdirSync(join(home, "dotfiles"));
    mkdirSync(join(home, ".claude"));
    const target = join(home, "dotfiles", "s.json");
    const link = join(home, ".claude", "settings.json");
    writeFileSync(target, '{"model":"opus"}\n');
    symlinkSync(target, link);
    const r = install(["--scope", "user"], home, project);
    expect(r.code).toBe(0);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(r.out).toContain(`through the link ${link}`);
    expect(json(target).model).toBe("opus");
    expect(handlers(json(target))).toHaveLength(3);
    expect(readdirSync(join(home, "dotfiles"))).toEqual(["s.json"]); // no temp file left beside the target
    const u = uninstall(["--scope", "user"], home, project);
    expect(u.code).toBe(0);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(json(target)).toEqual({ model: "opus" });
  });

  it("a symlinked settings file that held only our hooks is emptied through the link on uninstall, the link kept", () => {
    const { home, project } = setup();
    mkdirSync(join(home, "dotfiles"));
    mkdirSync(join(home, ".claude"));
    const target = join(home, "dotfiles", "s.json");
    const link = join(home, ".claude", "settings.json");
    writeFileSync(target, "{}\n");
    symlinkSync(target, link);
    expect(install(["--scope", "user"], home, project).code).toBe(0);
    expect(uninstall(["--scope", "user"], home, project).code).toBe(0);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(json(target)).toEqual({});
  });
});

describe("uninstall.sh", () => {
  it("removes exactly what trial install added: the created settings file and the .gitignore lines", () => {
    const { home, project } = setup();
    writeFileSync(join(project, ".gitignore"), "node_modules/\ndist/");
    install(["--scope", "trial"], home, project);
    expect(readFileSync(join(project, ".gitignore"), "utf8")).toContain(".claude/settings.local.json");
    const r = uninstall(["--scope", "trial"], home, project);
    expect(r.code).toBe(0);
    expect(existsSync(join(project, ".claude", "settings.local.json"))).toBe(false);
    expect(readFileSync(join(project, ".gitignore"), "utf8")).toBe("node_modules/\ndist/"); // byte for byte, final newline included
  });

  it("restores a .gitignore that ended with a newline byte for byte", () => {
    const { home, project } = setup();
    writeFileSync(join(project, ".gitignore"), "node_modules/\n");
    install(["--scope", "trial"], home, project);
    uninstall(["--scope", "trial"], home, project);
    expect(readFileSync(join(project, ".gitignore"), "utf8")).toBe("node_modules/\n");
  });

  it("does not add a .gitignore line when the file is already ignored", () => {
    const { home, project } = setup();
    writeFileSync(join(project, ".gitignore"), ".claude/settings.local.json\n");
    const r = install(["--scope", "trial"], home, project);
    expect(r.out).toContain("already gitignored");
    expect(readFileSync(join(project, ".gitignore"), "utf8")).toBe(".claude/settings.local.json\n");
  });

  /** Pin rules with the bundle, as a user would: the tool writes the rule files and records them in .state/rules.json. */
  function pinRules(project: string, home: string): string {
    for (const args of [["Never push directly to main."], ["Always run the migrations through `make migrate`.", "--paths", "db/**"]]) {
      const r = spawnSync(process.execPath, [bundle, "pin", ...args, "--model", "/dev/null"], { cwd: project, env: { PATH: process.env.PATH, HOME: home }, encoding: "utf8" });
      expect(r.status, r.stderr).toBe(0);
    }
    return join(project, ".claude", "rules", "knowledge-triage");
  }

  it("without --scope cleans all three files; --purge deletes the rules folder the tool wrote; nothing else", () => {
    const { home, project } = setup();
    for (const s of ["trial", "project", "user"]) install(["--scope", s], home, project);
    const rules = pinRules(project, home);
    expect(readdirSync(rules).filter((f) => f.endsWith(".md")).length).toBe(2);
    writeFileSync(join(project, ".claude", "rules", "mine.md"), "- my own rule\n");
    const r = uninstall(["--purge"], home, project);
    expect(r.code).toBe(0);
    expect(r.out.match(/^- .*hook/gm)).toHaveLength(9);
    expect(r.out).toContain(`- purged ${rules}\n`);
    expect(existsSync(rules)).toBe(false);
    expect(readFileSync(join(project, ".claude", "rules", "mine.md"), "utf8")).toBe("- my own rule\n");
    expect(existsSync(join(home, ".claude", "settings.json"))).toBe(false);
    expect(existsSync(join(project, ".gitignore"))).toBe(false);
  });

  it("--purge keeps, and names, a file the user put in the rules folder and a rule file edited since the tool wrote it", () => {
    const { home, project } = setup();
    install(["--scope", "project"], home, project);
    const rules = pinRules(project, home);
    const [edited, untouched] = readdirSync(rules).filter((f) => f.endsWith(".md")).sort();
    expect(edited).toBeDefined();
    writeFileSync(join(rules, edited as string), `${readFileSync(join(rules, edited as string), "utf8")}- a line I added\n`);
    writeFileSync(join(rules, "mine.md"), "- my own rule\n");
    writeFileSync(join(rules, "notes.txt"), "scratch\n");
    const r = uninstall(["--purge"], home, project);
    expect(r.code, r.err).toBe(0);
    expect(readdirSync(rules).sort()).toEqual([edited, "mine.md", "notes.txt"].sort());
    expect(readFileSync(join(rules, "mine.md"), "utf8")).toBe("- my own rule\n");
    expect(r.out).toContain(`- purged ${join(rules, ".state")}\n`);
    expect(r.out).toContain(`- purged ${join(rules, untouched as string)}\n`);
    expect(r.out).toContain(`= kept ${join(rules, "mine.md")}: not written by Knowledge Triage\n`);
    expect(r.out).toContain(`= kept ${join(rules, "notes.txt")}: not written by Knowledge Triage\n`);
    expect(r.out).toContain(`= kept ${join(rules, edited as string)}: edited since Knowledge Triage wrote it\n`);
  });

  it("--purge without a readable sidecar removes only the state folder and keeps every rule file", () => {
    const { home, project } = setup();
    const rules = pinRules(project, home);
    writeFileSync(join(rules, ".state", "rules.json"), "{ torn");
    const before = readdirSync(rules).filter((f) => f.endsWith(".md")).sort();
    const r = uninstall(["--purge"], home, project);
    expect(r.code, r.err).toBe(0);
    expect(readdirSync(rules).sort()).toEqual(before);
    expect(r.out.match(/^= kept .*: not written by Knowledge Triage$/gm)).toHaveLength(before.length);
  });
});

describe("the installed hook command, run as Claude Code would", () => {
  it("user scope: rules land in the project, and no file under ~/.claude/rules has paths: (BL-30)", () => {
    const { home, project } = setup();
    install(["--scope", "user"], home, project);
    const [, , h] = handlers(json(join(home, ".claude", "settings.json"))).find(([ev]) => ev === "PreCompact") ?? [];
    expect(h).toBeDefined();
    const transcript = join(project, "..", "s.jsonl");
    const say = (t: string, i: number) => JSON.stringify({ type: "user", isSidechain: false, message: { role: "user", content: t }, uuid: `u${i}`, sessionId: "s" });
    writeFileSync(transcript, `${say("In packages/api always validate request bodies with zod.", 1)}\n${say("Never commit directly to main.", 2)}\n`);
    const stdin = JSON.stringify({ session_id: "s", transcript_path: transcript, cwd: project, hook_event_name: "PreCompact", trigger: "manual" });
    const r = spawnSync(h?.command ?? "node", h?.args ?? [], { input: stdin, env: { PATH: process.env.PATH, HOME: home, CLAUDE_PROJECT_DIR: project }, encoding: "utf8" });
    expect(r.status).toBe(0);
    const dir = join(project, ".claude", "rules", "knowledge-triage");
    const md = readdirSync(dir).filter((f) => f.endsWith(".md")).map((f) => readFileSync(join(dir, f), "utf8"));
    expect(md.join("\n")).toContain("Never commit directly to main.");
    expect(md.some((t) => /^paths:/m.test(t) && t.includes("packages/api"))).toBe(true);
    const userRules = join(home, ".claude", "rules");
    const walk = (d: string): string[] => (existsSync(d) ? readdirSync(d).flatMap((f) => (statSync(join(d, f)).isDirectory() ? walk(join(d, f)) : [join(d, f)])) : []);
    expect(walk(userRules).filter((f) => /^paths:/m.test(readFileSync(f, "utf8")))).toEqual([]);
  });
});

describe("installer boundaries (issue 14)", () => {
  it("uninstall --scope trial --purge purges the project's rules only, never the user-level rules", () => {
    const { home, project } = setup();
    const userRules = join(home, ".claude", "rules", "knowledge-triage");
    const pin = (args: string[]) => spawnSync(process.execPath, [bundle, "pin", ...args, "--model", "/dev/null"], { cwd: project, env: { PATH: process.env.PATH, HOME: home }, encoding: "utf8" });
    expect(pin(["Always sign commits.", "--rules-dir", userRules]).status).toBe(0);
    expect(pin(["Never push directly to main."]).status).toBe(0);
    const projectRules = join(project, ".claude", "rules", "knowledge-triage");
    install(["--scope", "trial"], home, project);
    const r = uninstall(["--scope", "trial", "--purge"], home, project);
    expect(r.code, r.err).toBe(0);
    expect(existsSync(projectRules)).toBe(false);
    expect(readdirSync(userRules).some((f) => f.endsWith(".md"))).toBe(true);
    expect(r.out).not.toContain(`purged ${userRules}`);
    expect(r.out).toContain(`= kept ${userRules}: user-level rules`);
    const u = uninstall(["--scope", "user", "--purge"], home, project);
    expect(u.code, u.err).toBe(0);
    expect(existsSync(userRules)).toBe(false);
  });

  it.each([["trial"], ["project"]])("install/uninstall --scope %s refuse the home folder as the project", (scope) => {
    const { home } = setup();
    for (const run of [() => install(["--scope", scope], home, home), () => install(["--scope", scope, "--project", home], home, home), () => uninstall(["--scope", scope], home, home)]) {
      const r = run();
      expect(r.code).toBe(1);
      expect(r.err).toMatch(/is the home folder, not a project/);
    }
    expect(readdirSync(home)).toEqual([]);
  });

  it("install refuses a missing --project folder and writes nothing", () => {
    const { home, project } = setup();
    const r = install(["--scope", "trial", "--project", join(project, "does", "not", "exist")], home, project);
    expect(r.code).toBe(1);
    expect(r.err).toContain("project folder not found");
    expect(existsSync(join(project, ".claude"))).toBe(false);
  });

  it("a settings.local.json that is a loop of symbolic links is refused; both links stay links", () => {
    const { home, project } = setup();
    mkdirSync(join(project, ".claude"));
    symlinkSync("loop2", join(project, ".claude", "loop1"));
    symlinkSync("loop1", join(project, ".claude", "loop2"));
    symlinkSync("loop1", join(project, ".claude", "settings.local.json"));
    const r = install(["--scope", "trial"], home, project);
    expect(r.code).toBe(1);
    expect(r.err).toContain("is a loop of symbolic links; nothing written");
    expect(r.out).not.toContain("created");
    expect(readlinkSync(join(project, ".claude", "loop1"))).toBe("loop2");
    expect(readlinkSync(join(project, ".claude", "loop2"))).toBe("loop1");
  });
});
