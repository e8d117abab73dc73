/**
 * Hook payload handling through the built bundle: valid, malformed, empty, huge, wrong types, odd bytes,
 * missing or empty transcript_path. Exit code 0 every time, at most one stderr line, never JSON on stdout.
 * (BL-15, BL-16, BL-17, BL-18, BL-20.)
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { bytesOf, cleanup, fixtures, looksLikeJson, P, payload, rulesDirOf, runHook, snapshot, tempProject } from "./helpers.js";

// Each case spawns the bundle (node start-up ~0.3-1 s, more on a busy CI machine): no per-test timing.
vi.setConfig({ testTimeout: 60_000 });
afterAll(cleanup);

const fixture = (f: string): Buffer => readFileSync(join(fixtures, f));
const stderrLines = (s: string): string[] => s.split("\n").filter((l) => l.trim() !== "");

function expectQuiet(r: ReturnType<typeof runHook>, stderrPattern: RegExp): void {
  expect(r.code).toBe(0);
  expect(r.stdout).toBe("");
  const lines = stderrLines(r.stderr);
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(stderrPattern);
  expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
}

describe("malformed and empty payloads exit 0 with one stderr line", () => {
  it.each([
    ["truncated JSON", fixture("malformed-truncated.json"), /payload is not JSON/],
    ["a JSON array", fixture("malformed-array.json"), /payload rejected: \(root\)/],
    ["wrong field types", fixture("malformed-types.json"), /payload rejected: session_id/],
    ["empty stdin", Buffer.alloc(0), /empty payload/],
    ["only whitespace", Buffer.from(" \n\t\r\n"), /empty payload/],
    ["binary noise", Buffer.from([0xff, 0xfe, 0x00, 0x8f, 0x7b]), /payload is not JSON/],
  ])("%s", (_name, stdin, pattern) => {
    for (const event of ["pre-compact", "session-start", "session-end"]) expectQuiet(runHook(event, stdin), pattern);
  });

  it("Claude Code's own event names run the same hook as ours (PreCompact = pre-compact, ...)", () => {
    const ours = tempProject();
    const theirs = tempProject();
    const a = runHook("pre-compact", payload(P.preManual, ours.transcript, ours.project));
    const b = runHook("PreCompact", payload(P.preManual, theirs.transcript, theirs.project));
    expect(b.code).toBe(0);
    expect(b.stderr).toBe("");
    expect(b.stdout).toBe(a.stdout);
    expect(b.stdout).toMatch(/^Knowledge Triage: \d+ rules? (?:is|are) pinned/);
    const rules = (project: string): Record<string, string> => Object.fromEntries(Object.entries(bytesOf(snapshot(rulesDirOf(project)))).filter(([f]) => f.endsWith(".md")));
    expect(Object.keys(rules(theirs.project)).length).toBeGreaterThan(0);
    expect(rules(theirs.project)).toEqual(rules(ours.project));
    const start = runHook("SessionStart", payload(P.startCompact, theirs.transcript, theirs.project));
    expect(start.code).toBe(0);
    expect(start.stdout).toBe(runHook("session-start", payload(P.startCompact, ours.transcript, ours.project)).stdout);
    expect(start.stdout).toContain("Do not add a co-author line to commit messages.");
    // SessionEnd hands off to the worker: accepted (no "unknown hook event" line).
    expect(runHook("SessionEnd", payload(P.end, theirs.transcript, theirs.project)).stderr).not.toMatch(/unknown hook event/);
  });

  it("an unknown event or no event at all is reported, not failed", () => {
    expectQuiet(runHook("post-tool-use", "{}"), /unknown hook event 'post-tool-use'/);
    expectQuiet(runHook("", "{}"), /unknown hook event ''/);
  });

  it("a payload over 16 MiB is refused at the cap", () => {
    const big = `{"session_id":"s","pad":"${"x".repeat(17 * 1024 * 1024)}"}`;
    expectQuiet(runHook("pre-compact", big), /payload over 16777216 bytes on stdin; stopped reading there/);
  });
});

describe("transcript_path problems touch nothing (BL-16, BL-17)", () => {
  const base = { session_id: "s2", hook_event_name: "PreCompact", trigger: "auto" };
  it.each([
    ["key absent", {}, /no transcript_path/],
    ["empty string", { transcript_path: "" }, /no transcript_path/],
    ["null", { transcript_path: null }, /no transcript_path/],
    ["file does not exist", { transcript_path: "/tmp/none-kt/4c1d.jsonl" }, /does not exist/],
  ])("%s", (_name, extra, pattern) => {
    const { project } = tempProject();
    for (const event of ["pre-compact", "session-start", "session-end"]) {
      const r = runHook(event, JSON.stringify({ ...base, cwd: project, ...extra }));
      expectQuiet(r, pattern);
    }
    expect(snapshot(project)).toEqual({});
  });

  it("a 0-byte transcript leaves existing rule files byte- and mtime-identical", () => {
    const { project, transcript } = tempProject();
    writeFileSync(transcript, "");
    const rules = rulesDirOf(project);
    mkdirSync(rules, { recursive: true });
    writeFileSync(join(rules, "constraints.md"), "- Never push directly to main.\n");
    writeFileSync(join(rules, "procedures.md"), "- Run `npm test` before committing.\n");
    const before = snapshot(join(project, ".claude"));
    const r = runHook("pre-compact", payload(P.preManual, transcript, project));
    expect(r.code).toBe(0);
    expect(stderrLines(r.stderr)).toEqual([expect.stringMatching(/no transcript content/)]);
    expect(r.stdout).toMatch(/^Knowledge Triage: 2 rules are pinned for this project /); // the pinned rules still count
    // SessionStart(compact) still prints the rules already pinned, even with nothing to extract.
    const s = runHook("session-start", payload(P.startCompact, transcript, project));
    expect(s.code).toBe(0);
    expect(stderrLines(s.stderr)).toEqual([expect.stringMatching(/no transcript content/)]);
    expect(s.stdout).toContain("Run `npm test` before committing.");
    expect(looksLikeJson(s.stdout)).toBe(false);
    expect(snapshot(join(project, ".claude"))).toEqual(before);
  });

  it("no absolute project folder: nothing is written anywhere", () => {
    const { transcript } = tempProject();
    const r = runHook("pre-compact", JSON.stringify({ session_id: "s", transcript_path: transcript, cwd: "relative/dir" }));
    expectQuiet(r, /no absolute project folder/);
  });
});

describe("valid payloads", () => {
  it("accept unknown fields and non-ASCII bytes; cwd round-trips (BL-15)", () => {
    const { project, transcript } = tempProject("Zoë 中文 proj");
    const line = '{"type":"user","isSidechain":false,"sessionId":"s","uuid":"u-bl15","message":{"role":"user","content":"Never rename the 中文 → docs folder 🚀';
    appendFileSync(transcript, Buffer.concat([Buffer.from(line), Buffer.from([0x8f]), Buffer.from('."}}\n')]));
    const obj = JSON.parse(payload(P.preAuto, transcript, project));
    const text = JSON.stringify({ ...obj, future_field: { nested: [1, "→"] }, effort: { level: "high" } });
    // A raw invalid byte (0x8F) inside an unknown string field: decoded as U+FFFD, parsing continues.
    const bytes = Buffer.concat([Buffer.from(text.slice(0, -1)), Buffer.from(',"junk":"'), Buffer.from([0x8f]), Buffer.from('"}')]);
    const r = runHook("pre-compact", bytes);
    expect(r.code).toBe(0);
    expect(looksLikeJson(r.stdout)).toBe(false);
    expect(r.stderr).toBe("");
    expect(existsSync(rulesDirOf(project))).toBe(true); // written under the exact (non-ASCII) cwd
    const files = bytesOf(snapshot(rulesDirOf(project)));
    const md = readFileSync(join(rulesDirOf(project), "constraints.md"), "utf8");
    expect(md).toContain("Never rename the 中文 → docs folder 🚀"); // the invalid byte did not stop the rest
    // Same bytes whatever the locale (BL-15: cp1252/cp932 decoding bugs elsewhere).
    const locales: Array<Record<string, string>> = [{ LC_ALL: "C" }, { LANG: "ja_JP.SJIS", LC_ALL: "ja_JP.SJIS" }, { LANG: "en_US.CP1252" }];
    for (const env of locales) {
      const again = runHook("pre-compact", bytes, env);
      expect([again.code, again.stdout, again.stderr]).toEqual([0, r.stdout, ""]);
      expect(bytesOf(snapshot(rulesDirOf(project)))).toEqual(files);
    }
  });

  it("take the transcript from stdin, never from an env var or a positional argument (BL-18)", () => {
    const { project, transcript } = tempProject();
    const decoy = tempProject();
    const r = runHook("pre-compact", payload(P.preManual, transcript, project), { TRANSCRIPT_PATH: decoy.transcript }, [""]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
    expect(existsSync(rulesDirOf(project))).toBe(true);
    expect(snapshot(decoy.project)).toEqual({});
  });

  it("SessionStart with source startup prints nothing and writes nothing", () => {
    const { project, transcript } = tempProject();
    const r = runHook("session-start", payload(P.startStartup, transcript, project));
    expect(r).toMatchObject({ code: 0, stdout: "", stderr: "" });
    expect(bytesOf(snapshot(project))).toEqual({});
  });

  it("a 3 MB unknown field is accepted", () => {
    const { project, transcript } = tempProject();
    const obj = JSON.parse(payload(P.preManual, transcript, project));
    const r = runHook("pre-compact", JSON.stringify({ ...obj, last_assistant_message: "y".repeat(3 * 1024 * 1024) }));
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
    expect(looksLikeJson(r.stdout)).toBe(false);
  });
});
