/**
 * Hook regressions from a fresh-user run (built bundle, as Claude Code runs it): six PreCompact hooks at
 * once on one project all save their rules; a missing project folder gets nothing written; a transcript
 * with no rules leaves no state folder; the PreCompact count is true; SIGTERM stops a busy extract.
 */
import { spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { distinctRules } from "../fixtures/memory/many-rules.js";
import { bundle, childEnv, cleanup, rulesDirOf, runHook, tempProject } from "./helpers.js";
import { filesUnder } from "../memory/helpers.js";

vi.setConfig({ testTimeout: 90_000 });
afterAll(cleanup);

function userLine(text: string, session: string, i: number): string {
  return JSON.stringify({ parentUuid: null, isSidechain: false, userType: "external", cwd: "/x", sessionId: session, version: "2.1.197", type: "user", message: { role: "user", content: text }, uuid: `u-${session}-${i}`, timestamp: "2026-11-29T10:00:00.000Z" });
}

const hookPayload = (session: string, transcript: string, cwd: string): string =>
  JSON.stringify({ session_id: session, transcript_path: transcript, cwd, hook_event_name: "PreCompact", trigger: "auto" });

/** Spawn the bundle asynchronously (so several run at once); resolves with exit code and output. */
function spawnBundle(args: string[], stdin: string, env: Record<string, string> = {}): { done: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>; pid: number } {
  const child = spawn(process.execPath, [bundle, ...args], { env: childEnv(env) });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => {
    stdout += d.toString();
  });
  child.stderr.on("data", (d: Buffer) => {
    stderr += d.toString();
  });
  child.stdin.end(stdin);
  return { pid: child.pid as number, done: new Promise((res) => child.on("close", (code, signal) => res({ code, signal, stdout, stderr }))) };
}

describe("item 3: six PreCompact hooks at once on one project", () => {
  it("all exit 0 without a lock message and every session's rules are saved", async () => {
    const { root, project } = tempProject();
    const runs = Array.from({ length: 6 }, (_, i) => {
      const t = join(root, `s${i}.jsonl`);
      writeFileSync(t, `${userLine(`Never rotate the signing keys of region ${i} without a change ticket.`, `s${i}`, 0)}\n`);
      return spawnBundle(["hook", "pre-compact"], hookPayload(`s${i}`, t, project)).done;
    });
    const results = await Promise.all(runs);
    for (const r of results) {
      expect(r.code).toBe(0);
      expect(r.stderr).not.toMatch(/lock/i);
      expect(r.stdout).toMatch(/^Knowledge Triage: \d+ rules? (?:is|are) pinned for this project \(1 stated in this session\)/);
    }
    const text = readFileSync(join(rulesDirOf(project), "constraints.md"), "utf8");
    for (let i = 0; i < 6; i++) expect(text).toContain(`- Never rotate the signing keys of region ${i} without a change ticket.\n`);
    expect(existsSync(join(rulesDirOf(project), ".state", "lock"))).toBe(false);
  });
});

describe("item 7: nothing is written where it should not be", () => {
  it("a payload cwd that does not exist: one stderr line, no folder created", () => {
    const { root, transcript } = tempProject();
    const missing = join(root, "no", "such", "dir");
    const r = runHook("pre-compact", hookPayload("s1", transcript, missing));
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("");
    expect(r.stderr.trim().split("\n")).toEqual([expect.stringMatching(/does not exist; nothing written/)]);
    expect(existsSync(join(root, "no"))).toBe(false);
  });

  it("CLAUDE_PROJECT_DIR that does not exist wins over cwd and is not created either", () => {
    const { root, project, transcript } = tempProject();
    const missing = join(root, "gone");
    const r = runHook("pre-compact", hookPayload("s1", transcript, project), { CLAUDE_PROJECT_DIR: missing });
    expect(r.code).toBe(0);
    expect(existsSync(missing)).toBe(false);
    expect(existsSync(join(project, ".claude"))).toBe(false);
  });

  it("a transcript with no rules leaves nothing but the git-ignored archive (PreCompact and SessionStart)", () => {
    const { root, project } = tempProject();
    const t = join(root, "chat.jsonl");
    writeFileSync(t, `${[userLine("fix the login test", "s1", 0), userLine("thanks, looks good", "s1", 1)].join("\n")}\n{torn`);
    for (const event of ["pre-compact", "session-start"]) {
      const r = runHook(event, JSON.stringify({ session_id: "s1", transcript_path: t, cwd: project, source: "compact" }));
      expect(r.code).toBe(0);
      // No rules to print; SessionStart(compact) prints only the working state (the user's last requests).
      if (event === "pre-compact") expect(r.stdout).toBe("");
      else expect(r.stdout).toMatch(/^Knowledge Triage: working state before this compaction[\s\S]*> fix the login test\n> thanks, looks good\n/);
    }
    // Only the transcript archive (issue 15 item 1), git-ignored: no rule file, no state folder.
    expect(filesUnder(join(project, ".claude")).sort()).toEqual(
      ["archive/.gitignore", "archive/.retention", "archive/s1/index.jsonl", "archive/s1/state.json", "archive/s1/transcript.jsonl"].map((f) => `rules/knowledge-triage/${f}`),
    );
  });
});

describe("item 8: the PreCompact count is true", () => {
  it("counts the project's pinned rules, the ones of this session and permissions apart", () => {
    const { root, project } = tempProject();
    const a = join(root, "a.jsonl");
    writeFileSync(a, `${[userLine("Never push to main.", "a", 0), userLine("Always sign release tags.", "a", 1)].join("\n")}\n`);
    expect(runHook("pre-compact", hookPayload("a", a, project)).stdout).toMatch(/^Knowledge Triage: 2 rules are pinned for this project \(2 stated in this session\);/);
    const b = join(root, "b.jsonl");
    writeFileSync(b, `${[userLine("Never deploy on Fridays.", "b", 0), userLine("actually, you may push to main now", "b", 1)].join("\n")}\n`);
    const out = runHook("pre-compact", hookPayload("b", b, project)).stdout;
    // "Never push to main." was relaxed by a permission: 2 rules (1 from b), plus 1 permission.
    expect(out).toMatch(/^Knowledge Triage: 2 rules are pinned for this project \(1 stated in this session\), with 1 permission that relax/);
    expect(out).not.toMatch(/\{/);
  });
});

describe("item 4: SIGTERM stops a busy extract", () => {
  it("exits 143 promptly, releases the lock and writes no rule file", async () => {
    const { root, project } = tempProject();
    const t = join(root, "big.jsonl");
    const rules = distinctRules(10_000);
    const lines: string[] = [];
    for (let k = 0; k < 3; k++) for (const [i, r] of rules.entries()) lines.push(userLine(r, "big", k * 10_000 + i));
    writeFileSync(t, `${lines.join("\n")}\n`);
    const rulesDir = rulesDirOf(project);
    const run = spawnBundle(["extract", t, "--rules-dir", rulesDir, "--model", "/dev/null"], "");
    const lock = join(rulesDir, ".state", "lock");
    for (let i = 0; i < 400 && !existsSync(join(lock, "owner.json")); i++) await new Promise((r) => setTimeout(r, 25));
    expect(existsSync(join(lock, "owner.json"))).toBe(true);
    await new Promise((r) => setTimeout(r, 300));
    const t0 = Date.now();
    process.kill(run.pid, "SIGTERM");
    const r = await run.done;
    const waited = Date.now() - t0;
    expect(r.code).toBe(143);
    expect(r.stderr).toMatch(/interrupted by SIGTERM/);
    expect(waited).toBeLessThan(10_000); // stall guard: a trapped-but-busy process would run to the end
    expect(existsSync(lock)).toBe(false);
    expect(existsSync(join(rulesDir, "constraints.md"))).toBe(false);
  });
});
