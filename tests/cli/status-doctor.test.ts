/**
 * `triage status`, `triage doctor` and `triage unpin` through the built bundle, in a temporary project and
 * HOME: status says "never measured" (null in JSON) until something was measured; doctor finds wiring and
 * rule-file problems, names the file and exits 3; unpin retires a rule and records it in the sidecar.
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { checkWiring } from "../../scripts/cli/doctor.js";
import { lintGlobList, lintRuleFiles, ruleAction } from "../../scripts/memory/store/rule-lint.js";
import { parseHookLog } from "../../scripts/memory/store/status-report.js";
import { childEnv, ensureBundle, repo, triage } from "./helpers.js";

beforeAll(() => ensureBundle(), 180_000);

const project = (): { d: string; home: string; rd: string } => {
  const d = mkdtempSync(join(tmpdir(), "kt-status-"));
  const home = join(d, "home");
  mkdirSync(home);
  const p = join(d, "project");
  mkdirSync(p);
  return { d: p, home, rd: join(p, ".claude", "rules", "knowledge-triage") };
};
const run = (args: string[], cwd: string, home: string) => triage(args, { cwd, env: childEnv({ HOME: home }) });

describe("triage status", () => {
  it("never measured is null in JSON and 'never measured' in text, not 0", () => {
    const { d, home } = project();
    const j = run(["status", "--json"], d, home);
    expect(j.code).toBe(0);
    const s = JSON.parse(j.stdout);
    expect(s).toMatchObject({ files: [], problems: [], active: null, retired: null, expired: null, pending: null, lastExtraction: null, hookLog: null });
    const t = run(["status"], d, home).stdout;
    expect(t).toContain("retired: never measured");
    expect(t).not.toMatch(/retired: 0/);
  });

  it("a binary .md file in the rules folder is listed under problems, in JSON and in text (issue 14)", () => {
    const { d, home, rd } = project();
    expect(run(["pin", "Never push directly to main."], d, home).code).toBe(0);
    // A PNG saved with a .md name: PNG signature bytes, then a NUL.
    writeFileSync(join(rd, "diagram.md"), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d]));
    const s = JSON.parse(run(["status", "--json"], d, home).stdout);
    expect(s.problems).toEqual([{ file: "diagram.md", why: "not text (binary, or not UTF-8)" }]);
    expect(s.files.map((f: { file: string }) => f.file)).toEqual(["constraints.md"]);
    expect(run(["status"], d, home).stdout).toContain("problem: diagram.md: not text (binary, or not UTF-8); its rules are not loaded");
  });

  it("counts rules by file, type and scope after pins, an unpin, an extraction and a logged hook error", () => {
    const { d, home, rd } = project();
    expect(run(["pin", "Never push directly to main.", "--type", "constraint"], d, home).code).toBe(0);
    expect(run(["pin", "Run `npm test` before every commit.", "--type", "procedural"], d, home).code).toBe(0);
    expect(run(["pin", "Validate request bodies with zod.", "--type", "constraint", "--paths", "packages/api"], d, home).code).toBe(0);
    const u = run(["unpin", "npm test"], d, home);
    expect(u.code, u.stderr).toBe(0);
    expect(u.stdout).toMatch(/^unpinned \S+: Run `npm test` before every commit\.\n$/);
    // A real transcript read by extract leaves a cursor; appending to it leaves unread bytes (pending 1).
    const transcript = join(d, "session.jsonl");
    copyFileSync(join(repo, "tests", "fixtures", "hooks", "transcript.jsonl"), transcript);
    expect(run(["extract", transcript, "--rules-dir", rd, "--model", "/dev/null"], d, home).code).toBe(0);
    writeFileSync(transcript, `${readFileSync(transcript, "utf8")}{"type":"user","message":{"role":"user","content":"hi"}}\n`);
    mkdirSync(join(rd, ".state"), { recursive: true });
    writeFileSync(join(rd, ".state", "hook.log"), "2026-12-01T10:00:00.000Z pre-compact session=abc 12ms error: cannot read /x: EACCES\n2026-12-01T10:05:00.000Z session-end session=abc 3ms warning: 2 unparseable lines skipped\n");
    const s = JSON.parse(run(["status", "--json"], d, home).stdout);
    expect(s.files.map((f: { file: string }) => f.file)).toContain("constraints.md");
    expect(s.files.find((f: { globs: string[] }) => f.globs.length > 0)?.globs).toEqual(["packages/api/**"]);
    expect(s.active.scoped).toBe(1);
    expect(s.active.procedural).toBe(0);
    expect(s.active.constraint).toBeGreaterThanOrEqual(2);
    expect(s.retired).toBeGreaterThanOrEqual(1);
    expect(s.expired).toBe(0);
    expect(s.pending).toBe(1);
    expect(s.lastExtraction).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(s.hookLog).toMatchObject({ entries: 2, errors: 1, warnings: 1 });
    expect(s.hookLog.last[0]).toEqual({ at: "2026-12-01T10:00:00.000Z", event: "pre-compact", session: "abc", ms: 12, message: "error: cannot read /x: EACCES" });
    // The sidecar records the unpin.
    const store = JSON.parse(readFileSync(join(rd, ".state", "rules.json"), "utf8"));
    expect(store.rules.find((r: { text: string }) => r.text.includes("npm test"))).toMatchObject({ status: "retired", retiredReason: "unpinned" });
    // Its line left the rule files: procedures.md held only that rule, so it is gone.
    expect(readFileSync(join(rd, "constraints.md"), "utf8")).not.toContain("npm test");
    expect(existsSync(join(rd, "procedures.md"))).toBe(false);
  });

  it("counts hook failures as errors, as hooks log them now and as older versions did", () => {
    const { d, home, rd } = project();
    mkdirSync(join(rd, ".state"), { recursive: true });
    const lines = [
      "2026-12-01T10:00:00.000Z pre-compact session=s1 20ms archive failed: refusing to write into /p/.claude/rules/knowledge-triage/archive: (a symbolic link)",
      "2026-12-01T10:00:01.000Z pre-compact session=s1 25ms extraction failed: rules folder is locked by another triage process",
      "2026-12-01T10:00:02.000Z pre-compact session=s2 21ms error: archive failed: ENOSPC: no space left on device",
      "2026-12-01T10:00:03.000Z session-start session=s2 30ms error: working state failed: EACCES",
      "2026-12-01T10:00:04.000Z pre-compact session=s3 7ms warning: transcript_path /etc/passwd is not a Claude Code transcript; not archived or read",
      "2026-12-01T10:00:05.000Z pre-compact session=s3 9ms warning: sentence model unavailable (bad file); using the cues alone",
    ];
    writeFileSync(join(rd, ".state", "hook.log"), `${lines.join("\n")}\n`);
    const s = JSON.parse(run(["status", "--json"], d, home).stdout);
    expect(s.hookLog).toMatchObject({ entries: 6, errors: 4, warnings: 2 });
    expect(run(["status"], d, home).stdout).toMatch(/^hook log: 6 entries, 4 errors, 2 warnings$/m);
  });

  it("unpin with no match or several matches is a one-line error, exit 1, nothing changed", () => {
    const { d, home, rd } = project();
    run(["pin", "Never push directly to main.", "--type", "constraint"], d, home);
    run(["pin", "Never push directly to the release branch.", "--type", "constraint"], d, home);
    const before = readFileSync(join(rd, "constraints.md"), "utf8");
    const none = run(["unpin", "deploy on fridays"], d, home);
    expect(none.code).toBe(1);
    // One line naming what is pinned, with the ids unpin takes.
    expect(none.stderr).toMatch(/^triage: unpin: no pinned rule matches "deploy on fridays"; pinned: r\w+ "Never push directly to main\."; r\w+ "Never push directly to the release branch\."\n$|^triage: unpin: no pinned rule matches "deploy on fridays"; pinned: r\w+ "Never push directly to the release branch\."; r\w+ "Never push directly to main\."\n$/);
    const two = run(["unpin", "never push"], d, home);
    expect(two.code).toBe(1);
    expect(two.stderr).toMatch(/^triage: unpin: 2 rules match; give one id: \S+ "Never push/);
    expect(two.stderr.split("\n")).toHaveLength(2);
    expect(readFileSync(join(rd, "constraints.md"), "utf8")).toBe(before);
  });
});

describe("triage doctor", () => {
  it("a project with no hooks registered: exit 3, names the settings files", () => {
    const { d, home } = project();
    const r = run(["doctor"], d, home);
    expect(r.code).toBe(3);
    expect(r.stdout).toMatch(/^ok: Node \d+\./m);
    expect(r.stdout).toMatch(/^problem: .*settings\.json.*: no Knowledge Triage hooks registered/m);
    expect(r.stderr).toBe("triage: doctor found 1 problem (listed above)\n");
  });

  it("hooks installed by install.sh's merge and clean rules: exit 0", () => {
    const { d, home } = project();
    mkdirSync(join(d, ".claude"), { recursive: true });
    const bundle = join(repo, "dist", "triage.mjs");
    const hook = (e: string) => [{ hooks: [{ type: "command", command: "node", args: [bundle, "hook", e] }] }];
    writeFileSync(join(d, ".claude", "settings.json"), JSON.stringify({ hooks: { PreCompact: hook("pre-compact"), SessionStart: hook("session-start"), SessionEnd: hook("session-end") } }));
    run(["pin", "Never push directly to main.", "--type", "constraint"], d, home);
    const r = run(["doctor"], d, home);
    expect(r.stdout, r.stdout).toContain("no problems found");
    expect(r.code).toBe(0);
  });

  it("a moved bundle, rule-file problems and a brace glob in a Cursor rule: each named with its file", () => {
    const { d, home, rd } = project();
    mkdirSync(join(home, ".claude"), { recursive: true });
    const gone = join(d, "old-clone", "dist", "triage.mjs");
    writeFileSync(join(home, ".claude", "settings.json"), JSON.stringify({ hooks: { PreCompact: [{ hooks: [{ type: "command", command: "node", args: [gone, "hook", "pre-compact"] }] }] } }));
    mkdirSync(rd, { recursive: true });
    writeFileSync(join(rd, "team.md"), "# Team rules\n\n- Always squash merge pull requests.\n");
    writeFileSync(join(rd, "release.md"), "# Release\n\n- Never squash merge pull requests.\n");
    writeFileSync(join(rd, "api.md"), '---\npaths:\n  - "packages/api/**"\n  - "packages/web/**"\n---\n\n- Validate with zod.\n');
    writeFileSync(join(rd, "huge.md"), `# Notes\n\n${"- Keep the changelog in sync with the release notes.\n".repeat(900)}`);
    mkdirSync(join(d, ".cursor", "rules"), { recursive: true });
    writeFileSync(join(d, ".cursor", "rules", "web.mdc"), "---\ndescription: web\nglobs: src/**/*.{ts,tsx}\nalwaysApply: false\n---\n\n- Use hooks.\n");
    const r = run(["doctor", "--json"], d, home);
    expect(r.code).toBe(3);
    const j = JSON.parse(r.stdout);
    const problems = j.findings.filter((f: { ok: boolean }) => !f.ok).map((f: { file: string; message: string }) => `${f.file.replace(d, "<p>")} | ${f.message.split(":")[0]}`);
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/settings\.json \| the PreCompact hook runs .*old-clone/),
        "<p>/.claude/rules/knowledge-triage/api.md | several-globs",
        "<p>/.claude/rules/knowledge-triage/huge.md | file-too-long",
        "<p>/.claude/rules/knowledge-triage/team.md | contradiction",
        "<p>/.claude/rules/knowledge-triage | session-start-too-long",
        "<p>/.cursor/rules/web.mdc | brace-in-comma-list",
      ]),
    );
    expect(j.problems).toBe(problems.length);
  });
});

describe("doctor: hooks registered twice (found by the fourth fresh-user pass; each hook then runs twice)", () => {
  const bundle = join(repo, "dist", "triage.mjs");
  const hooks = () => ({
    hooks: Object.fromEntries(
      [["PreCompact", "pre-compact"], ["SessionStart", "session-start"], ["SessionEnd", "session-end"]].map(([ev, name]) => [ev, [{ hooks: [{ type: "command", command: "node", args: [bundle, "hook", name] }] }]]),
    ),
  });
  const setup = (files: Record<string, unknown>): { d: string; cfg: string } => {
    const { d, home } = project();
    const cfg = join(home, ".claude");
    for (const [rel, data] of Object.entries(files)) {
      const f = rel.startsWith("~/") ? join(cfg, rel.slice(2)) : join(d, rel);
      mkdirSync(join(f, ".."), { recursive: true });
      writeFileSync(f, JSON.stringify(data));
    }
    return { d, cfg };
  };
  const doubles = (d: string, cfg: string) => checkWiring(d, cfg).filter((f) => !f.ok && /more than one place/.test(f.message));

  it("the same hooks in ~/.claude/settings.json and the project's settings.json", () => {
    const { d, cfg } = setup({ "~/settings.json": hooks(), ".claude/settings.json": hooks() });
    const found = doubles(d, cfg);
    expect(found).toHaveLength(1);
    expect(found[0]?.message).toBe(
      `Knowledge Triage hooks are registered in more than one place (${join(cfg, "settings.json")}, ${join(d, ".claude", "settings.json")}): Claude Code runs each, so PreCompact, SessionStart, SessionEnd run twice; keep one (uninstall.sh --scope …, or disable the plugin)`,
    );
  });

  it("the plugin enabled plus install.sh's hooks in settings.local.json", () => {
    const { d, cfg } = setup({ "~/settings.json": { enabledPlugins: { "knowledge-triage@kt": true } }, ".claude/settings.local.json": hooks() });
    expect(doubles(d, cfg)[0]?.message).toMatch(/more than one place \(the knowledge-triage plugin, .*settings\.local\.json\)/);
  });

  it("one place only is not a problem", () => {
    const { d, cfg } = setup({ ".claude/settings.json": hooks() });
    expect(doubles(d, cfg)).toEqual([]);
    const plugin = setup({ "~/settings.json": { enabledPlugins: { "knowledge-triage@kt": true } } });
    expect(doubles(plugin.d, plugin.cfg)).toEqual([]);
  });
});

describe("rule lint (pure)", () => {
  it.each([
    ["- Always run the linter before pushing.", { polarity: "always", action: "run the linter before pushing" }],
    ["- **Never** run the linter before pushing!", { polarity: "never", action: "run the linter before pushing" }],
    ["- Don't use `any` in TypeScript.", { polarity: "never", action: "use any in typescript" }],
    ["- Prefer small commits.", null],
  ])("ruleAction(%s)", (rule, expected) => {
    expect(ruleAction(rule)).toEqual(expected);
  });
  it("flags paths: in user-level rules, and no contradiction between different actions", () => {
    const files = [{ name: "a.md", text: '---\npaths:\n  - "src/**"\n---\n- Always use tabs.\n- Never use semicolons.\n' }];
    expect(lintRuleFiles(files, { userLevel: true, sessionStartChars: 100 }).map((p) => p.code)).toEqual(["user-level-paths"]);
    expect(lintRuleFiles(files, { userLevel: false, sessionStartChars: 100 })).toEqual([]);
  });
  it("lintGlobList: braces with commas in globs/applyTo are problems, comma lists and plain braces are not", () => {
    expect(lintGlobList("x.instructions.md", '---\napplyTo: "src/**/*.{ts,tsx}"\n---\n').map((p) => p.code)).toEqual(["brace-in-comma-list"]);
    expect(lintGlobList("x.mdc", "---\nglobs: src/**/*.ts,src/**/*.tsx\n---\n")).toEqual([]);
  });
  it("parseHookLog reads dispatch.ts's line format and skips other lines", () => {
    expect(parseHookLog("garbage\n2026-12-01T10:00:00.000Z session-start session=s1 40ms ok stdout=120\n")).toEqual([
      { at: "2026-12-01T10:00:00.000Z", event: "session-start", session: "s1", ms: 40, message: "ok stdout=120" },
    ]);
  });
});

describe("triage unpin", () => {
  it("warns when the rule stays in a rule file the user edited (that file is never rewritten)", () => {
    const { d, home, rd } = project();
    expect(run(["pin", "Never push directly to main.", "--type", "constraint"], d, home).code).toBe(0);
    expect(run(["pin", "Never store card numbers in logs.", "--type", "constraint"], d, home).code).toBe(0);
    const file = join(rd, "constraints.md");
    writeFileSync(file, `${readFileSync(file, "utf8")}- Ask before deleting a branch.\n`); // a hand edit
    const u = run(["unpin", "Never push directly to main."], d, home);
    expect(u.code, u.stderr).toBe(0);
    expect(u.stdout).toMatch(/^unpinned \S+: Never push directly to main\.\n$/);
    expect(u.stderr).toMatch(/constraints\.md was edited by hand and still lists this rule/);
    expect(readFileSync(file, "utf8")).toContain("- Ask before deleting a branch."); // the user's line is kept
  });
});
