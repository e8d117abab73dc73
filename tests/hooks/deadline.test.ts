/**
 * The hooks' extraction deadline through the built bundle: a hook whose budget is spent exits 0, says so in one
 * stderr line and one hook.log line, still prints its plain-text stdout, and the next run continues. The budget
 * is set to 0 with KNOWLEDGE_TRIAGE_HOOK_BUDGET_MS so the stop is certain without timing anything; even then a
 * run finishes the first batch of BATCH_UTTERANCES user messages it starts, so the transcripts here hold more
 * than one batch. Partial progress in the middle of a transcript is covered in process
 * (tests/memory/deadline.test.ts), wall times of the adversarial transcripts in `npm run bench:hooks -- --adversarial`.
 */
import { appendFileSync, existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { BATCH_UTTERANCES } from "../../scripts/memory/pipeline/extract-run.js";
import { distinctRules } from "../fixtures/memory/many-rules.js";
import { bytesOf, cleanup, looksLikeJson, P, payload, rulesDirOf, runHook, snapshot, tempProject } from "./helpers.js";

vi.setConfig({ testTimeout: 60_000 });
afterAll(cleanup);

const SPENT = { KNOWLEDGE_TRIAGE_HOOK_BUDGET_MS: "0" };
const lines = (s: string): string[] => s.split("\n").filter((l) => l.trim() !== "");
const mdFiles = (project: string): string[] => {
  try {
    return readdirSync(rulesDirOf(project)).filter((f) => f.endsWith(".md"));
  } catch {
    return [];
  }
};
/** The rules folder's bytes without the hook's own files (log, PreCompact markers). */
const rulesBytes = (project: string): Record<string, string> =>
  Object.fromEntries(Object.entries(bytesOf(snapshot(rulesDirOf(project)))).filter(([k]) => !k.startsWith(".state/hook") && !k.startsWith(".state/sessions/")));

function userLine(text: string, i: number): string {
  return `${JSON.stringify({
    parentUuid: null, isSidechain: false, userType: "external", cwd: "/home/dev/shop", sessionId: "s-deadline",
    version: "2.1.197", type: "user", message: { role: "user", content: text },
    uuid: `00000000-0000-4000-9000-${String(i).padStart(12, "0")}`, timestamp: "2026-11-21T10:00:00.000Z",
  })}\n`;
}

/** The sample transcript followed by `n` more user turns, each stating a distinct rule. */
function withRuleTurns(transcript: string, n: number): void {
  appendFileSync(transcript, distinctRules(n).map((r, i) => userLine(r, 100 + i)).join(""));
}

describe.each([
  ["pre-compact", P.preManual],
  ["session-start", P.startCompact],
] as const)("%s with its extraction budget spent", (event, p) => {
  it("exits 0, finishes one batch, logs one line saying where it stopped; each later run gets further and they end with the rules of one run", () => {
    const { project, transcript } = tempProject();
    withRuleTurns(transcript, BATCH_UTTERANCES + 40);
    const size = statSync(transcript).size;
    const r = runHook(event, payload(p, transcript, project), SPENT);
    expect(r.code).toBe(0);
    expect(looksLikeJson(r.stdout)).toBe(false);
    const stop = /^stopped at the 0 s deadline: .* of (\d+\.\d) KiB of the transcript done \(\d+%\); the next run continues at byte (\d+)$/;
    expect(lines(r.stderr)).toEqual([expect.stringMatching(new RegExp(`^triage hook ${event}: ${stop.source.slice(1)}`))]);
    const line = (lines(r.stderr)[0] as string).slice(`triage hook ${event}: `.length);
    expect(line.match(stop)?.[1]).toBe((size / 1024).toFixed(1));
    const log = lines(readFileSync(join(rulesDirOf(project), ".state", "hook.log"), "utf8"));
    expect(log).toHaveLength(1);
    expect(log[0]).toMatch(new RegExp(`^\\S+ ${event} session=\\S+ \\d+ms warning: ${line.replace(/[().%]/g, "\\$&")}$`));
    // A zero budget still consolidates the first batch of user messages and writes its rules.
    expect(mdFiles(project).length).toBeGreaterThan(0);
    let at = Number(line.match(stop)?.[2]);
    expect(at).toBeGreaterThan(0);

    // Every later run with no budget stops further on, until one reaches the end (the rest fits in one batch).
    let runs = 1;
    for (;;) {
      const next = runHook(event, payload(p, transcript, project), SPENT);
      expect(next.code).toBe(0);
      runs++;
      if (next.stderr === "") break;
      const m = (lines(next.stderr)[0] as string).match(new RegExp(stop.source.slice(1)));
      expect(Number(m?.[2])).toBeGreaterThan(at);
      at = Number(m?.[2]);
      expect(runs).toBeLessThan(4);
    }
    const control = tempProject();
    withRuleTurns(control.transcript, BATCH_UTTERANCES + 40);
    runHook(event, payload(p, control.transcript, control.project));
    expect(rulesBytes(project)).toEqual(rulesBytes(control.project));
  });
});

describe("pre-compact stopped at its deadline in a project with rules", () => {
  it("still prints the rules pinned so far, and picks the new ones up on the next run", () => {
    const { root, project } = tempProject();
    const t = join(root, "s-deadline.jsonl");
    appendFileSync(t, userLine("Never push to main.", 0));
    const pay = JSON.stringify({ session_id: "s-deadline", transcript_path: t, cwd: project, hook_event_name: "PreCompact", trigger: "auto" });
    expect(runHook("pre-compact", pay).stdout).toMatch(/^Knowledge Triage: 1 rule is pinned for this project \(1 stated in this session\)/);
    // More new user turns than one batch: the run with no budget finishes the first batch, then stops.
    const turns = distinctRules(BATCH_UTTERANCES + 10).map((r, i) => userLine(r, 1 + i));
    const before = statSync(t).size;
    appendFileSync(t, turns.join(""));
    const r = runHook("pre-compact", pay, SPENT);
    expect(r.code).toBe(0);
    const at = before + Buffer.byteLength(turns.slice(0, BATCH_UTTERANCES).join(""));
    expect(lines(r.stderr)).toEqual([expect.stringMatching(new RegExp(`^triage hook pre-compact: stopped at the 0 s deadline: .* the next run continues at byte ${at}$`))]);
    const done = 1 + BATCH_UTTERANCES;
    expect(r.stdout).toMatch(new RegExp(`^Knowledge Triage: ${done} rules are pinned for this project \\(${done} stated in this session\\)`));
    const next = runHook("pre-compact", pay);
    expect(next).toMatchObject({ code: 0, stderr: "" });
    expect(next.stdout).toMatch(new RegExp(`^Knowledge Triage: ${done + 10} rules are pinned for this project \\(${done + 10} stated in this session\\)`));
  });
});

describe("session-end", () => {
  it("hands off to a detached worker that has no deadline (Claude Code does not wait for it), so it extracts everything", async () => {
    const { project, transcript } = tempProject();
    const r = runHook("session-end", payload(P.end, transcript, project), SPENT);
    expect(r).toMatchObject({ code: 0, stdout: "", stderr: "" });
    const cursor = join(rulesDirOf(project), ".state", "sessions");
    for (let t = 0; t < 300 && !(existsSync(cursor) && readdirSync(cursor).length > 0); t++) await new Promise((res) => setTimeout(res, 100));
    await new Promise((res) => setTimeout(res, 300));
    const control = tempProject();
    runHook("pre-compact", payload(P.preManual, control.transcript, control.project));
    expect(rulesBytes(project)).toEqual(rulesBytes(control.project));
  });
});
