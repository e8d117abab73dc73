/**
 * The fake-secret corpus (tests/fixtures/memory/secrets.ts) through every exit of the built bundle (issue 13,
 * item 4): `triage redact`, `triage extract` (rule files, sidecar, cursor, report, --explain), the hooks' stdout
 * and stderr and the hook log (debug on), and hand-written rule files printed by PreCompact and SessionStart.
 * No needle may appear anywhere; the sentences without a secret come out of `triage redact` byte for byte.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ensureBundle } from "../cli/helpers.js";
import { jsonl, user } from "../fixtures/memory/jsonl.js";
import { FAKE_SECRETS, NOT_SECRETS } from "../fixtures/memory/secrets.js";
import { filesUnder } from "../memory/helpers.js";
import { bundle, childEnv, cleanup, rulesDirOf, runHook, tempProject } from "./helpers.js";

vi.setConfig({ testTimeout: 120_000 });
beforeAll(() => ensureBundle(), 180_000);
afterAll(cleanup);

const triage = (args: string[], input = "", cwd?: string) =>
  spawnSync(process.execPath, [bundle, ...args], { input, cwd, env: childEnv(), encoding: "utf8", timeout: 120_000 });

/** Names of the corpus needles found in `text` (expected: none). */
const leaks = (text: string): string[] => FAKE_SECRETS.filter((s) => text.includes(s.needle)).map((s) => s.name);

/** Every file under `dir` (relative path and content) as one string. */
const allFiles = (dir: string): string => filesUnder(dir).map((f) => `${f}\n${readFileSync(join(dir, f), "utf8")}`).join("\n");

describe("triage redact (built bundle)", () => {
  it("removes every corpus shape from stdin and keeps the rest of each sentence", () => {
    const input = FAKE_SECRETS.map((s) => s.text).join("\n\n");
    const r = triage(["redact", "--count"], input);
    expect(r.status).toBe(0);
    expect(leaks(r.stdout)).toEqual([]);
    expect(leaks(r.stderr)).toEqual([]);
    const n = Number(/triage: (\d+) redactions/.exec(r.stderr)?.[1]);
    expect(n).toBeGreaterThanOrEqual(FAKE_SECRETS.length);
    expect(r.stdout).toContain("log in as deploy, password is [REDACTED]");
    expect(r.stdout).toContain("user deploy pass [REDACTED] on the jump host");
  });

  it("leaves sentences without a secret byte for byte (7 languages), from a file", () => {
    const { root } = tempProject();
    const f = join(root, "plain.txt");
    const text = `${NOT_SECRETS.join("\n")}\n`;
    writeFileSync(f, text);
    const r = triage(["redact", f]);
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(text);
  });

  it("a missing file is a one-line error with exit 1", () => {
    const r = triage(["redact", "/nonexistent/notes.txt"]);
    expect(r.status).toBe(1);
    expect(r.stderr).toBe("triage: cannot read /nonexistent/notes.txt: no such file\n");
  });
});

describe("the corpus in a transcript reaches no file, report, log or stdout", () => {
  // Each secret sits in a sentence with a rule in it, so the sentence is kept and written.
  const transcriptText = (session: string): string => jsonl(FAKE_SECRETS.map((s) => user(`${s.text}. Never share it outside the team.`, session)));

  it("triage extract: rule files, sidecar, cursor, JSON report and --explain", () => {
    const { root, project } = tempProject();
    const t = join(root, "corpus.jsonl");
    writeFileSync(t, transcriptText("corpus"));
    const explain = triage(["extract", t, "--dry-run", "--explain"], "", project);
    expect(explain.status).toBe(0);
    expect(explain.stdout).toContain("[REDACTED]");
    expect(leaks(explain.stdout + explain.stderr)).toEqual([]);
    const r = triage(["extract", t, "--json"], "", project);
    expect(r.status).toBe(0);
    expect(leaks(r.stdout + r.stderr)).toEqual([]);
    const files = allFiles(rulesDirOf(project));
    expect(files).toContain("[REDACTED]");
    expect(leaks(files)).toEqual([]);
  });

  it("hooks pre-compact, session-start and the session-end worker with the debug log on", () => {
    const { root, project } = tempProject();
    const t = join(root, "corpus.jsonl");
    writeFileSync(t, transcriptText("hooked"));
    const env = { KNOWLEDGE_TRIAGE_HOOK_DEBUG: "1" };
    const base = { session_id: "hooked", transcript_path: t, cwd: project };
    const pre = runHook("pre-compact", JSON.stringify({ ...base, hook_event_name: "PreCompact", trigger: "auto" }), env);
    const start = runHook("session-start", JSON.stringify({ ...base, hook_event_name: "SessionStart", source: "compact" }), env);
    const worker = runHook("session-end-worker", "", { ...env, KNOWLEDGE_TRIAGE_HOOK_PAYLOAD: JSON.stringify({ ...base, reason: "other" }) });
    for (const r of [pre, start, worker]) {
      expect(r.code).toBe(0);
      expect(leaks(r.stdout + r.stderr)).toEqual([]);
    }
    expect(pre.stdout).toContain("[REDACTED]"); // the listed rules are there, redacted
    expect(start.stdout).toContain("[REDACTED]");
    // The archive keeps the transcript itself byte-exact (git-ignored, issue 15 item 1); everything else, its
    // search index included, holds no secret.
    const copy = join(project, ".claude", "rules", "knowledge-triage", "archive", "hooked", "transcript.jsonl");
    expect(readFileSync(copy).equals(readFileSync(t))).toBe(true);
    expect(readFileSync(join(project, ".claude", "rules", "knowledge-triage", "archive", ".gitignore"), "utf8")).toMatch(/^\*$/m);
    const files = filesUnder(join(project, ".claude"))
      .filter((f) => !/archive\/hooked\/transcript\.jsonl$/.test(f))
      .map((f) => `${f}\n${readFileSync(join(project, ".claude", f), "utf8")}`)
      .join("\n");
    expect(files).toMatch(/archive\/hooked\/index\.jsonl\n/);
    expect(files).toMatch(new RegExp(`hook\\.log\\n[\\s\\S]*pre-compact .*extracted: lines=${FAKE_SECRETS.length} `));
    expect(leaks(files)).toEqual([]);
  });

  it("hand-written rule files holding secrets are printed redacted by PreCompact and SessionStart", () => {
    const { root, project } = tempProject();
    const dir = rulesDirOf(project);
    mkdirSync(dir, { recursive: true });
    const none = join(root, "none.jsonl");
    // Small files, so that every line fits in the PreCompact list (4,000 characters) and is printed.
    for (let i = 0; i < FAKE_SECRETS.length; i += 12) {
      const chunk = FAKE_SECRETS.slice(i, i + 12);
      writeFileSync(join(dir, "notes.md"), `${chunk.map((s) => `- ${s.text.replace(/\n/g, "\n  ")}`).join("\n")}\n`);
      for (const [event, name] of [["pre-compact", "PreCompact"], ["session-start", "SessionStart"]] as const) {
        const r = runHook(event, JSON.stringify({ session_id: "h", transcript_path: none, cwd: project, hook_event_name: name, source: "compact" }));
        expect(r.code).toBe(0);
        expect(r.stdout.split("[REDACTED]").length - 1, `${event} ${chunk[0]?.name}`).toBeGreaterThanOrEqual(chunk.length);
        expect(leaks(r.stdout + r.stderr), event).toEqual([]);
      }
    }
  });
});
