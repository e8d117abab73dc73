/**
 * Hooks doing real work through the built bundle: PreCompact extraction and its plain-text stdout,
 * repeated firing (BL-19), SessionStart(compact) with and without a prior PreCompact, SessionEnd's
 * detached worker, an unwritable rules folder and a held lock (BL-29), output caps (BL-21).
 */
import { appendFileSync, chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { bytesOf, cleanup, looksLikeJson, P, payload, rulesDirOf, runHook, snapshot, tempProject } from "./helpers.js";

// Each case spawns the bundle (node start-up ~0.3-1 s, more on a busy CI machine): no per-test timing.
vi.setConfig({ testTimeout: 60_000 });
afterAll(cleanup);

const rulesText = (project: string): string =>
  readdirSync(rulesDirOf(project))
    .filter((f) => f.endsWith(".md"))
    .map((f) => readFileSync(join(rulesDirOf(project), f), "utf8"))
    .join("\n");
const stderrLines = (s: string): string[] => s.split("\n").filter((l) => l.trim() !== "");

/** Hold the rules-folder lock as a live process would: lock folder + owner.json with this (alive) process's pid. */
function holdLock(state: string): void {
  mkdirSync(join(state, "lock"), { recursive: true });
  writeFileSync(join(state, "lock", "owner.json"), JSON.stringify({ pid: process.pid, host: hostname(), token: "held-by-test" }));
}

/** A user line in Claude Code's transcript format (2.1.197 field set). */
function userLine(text: string, i: number): string {
  return `${JSON.stringify({
    parentUuid: null, isSidechain: false, userType: "external", cwd: "/home/dev/shop", sessionId: "big-session",
    version: "2.1.197", type: "user", message: { role: "user", content: text },
    uuid: `00000000-0000-4000-9000-${String(i).padStart(12, "0")}`, timestamp: "2026-11-21T10:00:00.000Z",
  })}\n`;
}

describe("PreCompact", () => {
  it("extracts the user's rules and prints a short plain-text instruction (never JSON)", () => {
    const { project, transcript } = tempProject();
    const r = runHook("pre-compact", payload(P.preManual, transcript, project));
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
    expect(looksLikeJson(r.stdout)).toBe(false);
    expect(r.stdout).toMatch(/^Knowledge Triage: \d+ rules? (?:is|are) pinned for this project \(\d+ stated in this session\)/);
    expect(r.stdout.length).toBeLessThan(1000);
    const rules = rulesText(project);
    expect(rules).toContain("Do not add a co-author line to commit messages.");
    expect(rules).toContain("Always run `npm run lint` before you open a pull request."); // inline code byte for byte
    expect(rules).not.toMatch(/computeTotal/); // a one-off task is not a rule
    expect(rules).not.toMatch(/Never trust this comment/); // tool output is not the user's words
  });

  it("three firings (manual, auto, auto) leave byte-identical files (BL-19)", () => {
    const { project, transcript } = tempProject();
    const outs = [P.preManual, P.preAuto, P.preAuto].map((p) => runHook("pre-compact", payload(p, transcript, project)));
    const after1 = bytesOf(snapshot(rulesDirOf(project)));
    const again = runHook("pre-compact", payload(P.preAuto, transcript, project));
    expect([...outs, again].map((o) => o.code)).toEqual([0, 0, 0, 0]);
    expect(new Set([...outs, again].map((o) => o.stdout)).size).toBe(1);
    expect(bytesOf(snapshot(rulesDirOf(project)))).toEqual(after1);
    const lines = rulesText(project).split("\n").filter((l) => l.startsWith("- "));
    expect(new Set(lines).size).toBe(lines.length); // no duplicated rule lines
  });

  it("picks up lines appended after the previous run (incremental)", () => {
    const { project, transcript } = tempProject();
    runHook("pre-compact", payload(P.preManual, transcript, project));
    appendFileSync(transcript, userLine("Never log customer email addresses.", 99));
    const r = runHook("pre-compact", payload(P.preAuto, transcript, project));
    expect(r.code).toBe(0);
    expect(rulesText(project)).toContain("Never log customer email addresses.");
  });
});

describe("SessionStart (compact)", () => {
  it("after PreCompact: prints the pinned rules as plain text; the catch-up extraction changes no byte", () => {
    const { project, transcript } = tempProject();
    runHook("pre-compact", payload(P.preManual, transcript, project));
    const before = bytesOf(snapshot(rulesDirOf(project)));
    const r = runHook("session-start", payload(P.startCompact, transcript, project));
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
    expect(looksLikeJson(r.stdout)).toBe(false);
    expect(r.stdout).toMatch(/^Knowledge Triage: rules the user stated/);
    expect(r.stdout).toContain("- Do not add a co-author line to commit messages.");
    expect(bytesOf(snapshot(rulesDirOf(project)))).toEqual(before);
  });

  it("catches up on a line appended after PreCompact read the transcript (late flush)", () => {
    const { project, transcript } = tempProject();
    runHook("pre-compact", payload(P.preManual, transcript, project));
    appendFileSync(transcript, userLine("Never store session tokens in localStorage.", 77));
    const r = runHook("session-start", payload(P.startCompact, transcript, project));
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Never store session tokens in localStorage.");
  });

  it("when PreCompact did not fire: extracts now, then prints", () => {
    const { project, transcript } = tempProject();
    const r = runHook("session-start", payload(P.startCompact, transcript, project));
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Never push directly to main.");
    expect(existsSync(rulesDirOf(project))).toBe(true);
  });

  it("keeps its output under 10,000 characters and bytes with 60 long rules (BL-21)", () => {
    const { project, transcript } = tempProject();
    // 60 distinct rules of ~200 characters (with non-ASCII, so bytes > characters) in a hand-kept rule file.
    const syl = ["ka", "ro", "vel", "tin", "mur", "sa", "qui", "dor", "pex", "lan", "zo", "bri", "fen", "gath", "hol", "jem"];
    const w = (i: number, k: number): string => [0, 1, 2].map((j) => syl[(i * 7 + k * 5 + j * 3 + i * k) % syl.length]).join("");
    const rules = Array.from({ length: 60 }, (_, i) =>
      `- Never let the ${w(i, 1)} service write to the ${w(i, 2)} store unless ${w(i, 3)} approved it — ${w(i, 4)} and ${w(i, 5)} read that store every hour, and one bad row there costs a whole day of clean-up (règle ${i + 1}).`,
    );
    mkdirSync(rulesDirOf(project), { recursive: true });
    writeFileSync(join(rulesDirOf(project), "team-rules.md"), `# Team rules\n\n${rules.join("\n")}\n`);
    expect(rules.join("\n").length).toBeGreaterThan(12_000);
    const r = runHook("session-start", payload(P.startCompact, transcript, project));
    expect(r.code).toBe(0);
    expect(r.stdout.length).toBeGreaterThan(5000);
    expect(r.stdout.length).toBeLessThan(10_000);
    expect(r.stdout.length).toBeLessThan(10_000);
    expect(r.stdout).toContain(rules[0]?.slice(2));
    expect(readFileSync(join(rulesDirOf(project), "team-rules.md"), "utf8")).toContain(rules[59]); // the file keeps them all
  });
});

describe("SessionEnd", () => {
  it("returns at once and a detached worker writes the rules", async () => {
    const { project, transcript } = tempProject();
    const r = runHook("session-end", payload(P.end, transcript, project));
    expect(r).toMatchObject({ code: 0, stdout: "", stderr: "" });
    for (let t = 0; t < 300 && !existsSync(join(rulesDirOf(project), "constraints.md")); t++) await new Promise((res) => setTimeout(res, 100));
    await new Promise((res) => setTimeout(res, 300));
    expect(rulesText(project)).toContain("Do not add a co-author line to commit messages.");
  });
});

describe("failures never block (BL-29, BL-20)", () => {
  it("an unwritable rules folder: exit 0, one stderr line, retry succeeds once it is writable", () => {
    const { project, transcript } = tempProject();
    // chmod does not stop root, so block the folder with a FILE where .claude/rules must be a directory.
    mkdirSync(join(project, ".claude"), { recursive: true });
    writeFileSync(join(project, ".claude", "rules"), "not a folder");
    if (process.getuid?.() !== 0) chmodSync(join(project, ".claude"), 0o555);
    const r = runHook("pre-compact", payload(P.preManual, transcript, project));
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("");
    expect(stderrLines(r.stderr)).toHaveLength(1);
    expect(r.ms).toBeLessThan(10_000); // a stall guard (hooks must not hang), not a speed target
    chmodSync(join(project, ".claude"), 0o755);
    rmSync(join(project, ".claude", "rules"));
    expect(runHook("pre-compact", payload(P.preManual, transcript, project)).stdout).toMatch(/^Knowledge Triage/);
  });

  it("a held lock: exit 0 with a stderr reason, nothing half-written; the next run succeeds", () => {
    const { project, transcript } = tempProject();
    const state = join(rulesDirOf(project), ".state");
    holdLock(state); // held by a live process (this test runner) for longer than the hook waits
    const r = runHook("pre-compact", payload(P.preManual, transcript, project), { KNOWLEDGE_TRIAGE_HOOK_LOCK_WAIT_MS: "500" });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("");
    expect(stderrLines(r.stderr)).toEqual([expect.stringMatching(/lock/i)]);
    expect(r.ms).toBeLessThan(10_000); // stall guard
    expect(readdirSync(rulesDirOf(project)).filter((f) => f.endsWith(".md"))).toEqual([]);
    expect(readFileSync(join(state, "hook.log"), "utf8")).toMatch(/pre-compact .*lock/);
    rmSync(join(state, "lock"), { recursive: true });
    expect(runHook("pre-compact", payload(P.preManual, transcript, project)).stdout).toMatch(/^Knowledge Triage/);
  });

  it("the hook log is capped: an oversized log is rotated to hook.log.1", () => {
    const { project, transcript } = tempProject();
    const state = join(rulesDirOf(project), ".state");
    holdLock(state);
    writeFileSync(join(state, "hook.log"), "x".repeat(300 * 1024));
    runHook("pre-compact", payload(P.preManual, transcript, project), { KNOWLEDGE_TRIAGE_HOOK_LOCK_WAIT_MS: "500" });
    expect(readFileSync(join(state, "hook.log.1"), "utf8").length).toBe(300 * 1024);
    expect(readFileSync(join(state, "hook.log"), "utf8").split("\n").filter(Boolean)).toHaveLength(1);
  });
});
