/**
 * The hook loads the classifier lazily: a run with nothing new in the transcript never reads the model.
 * The built bundle is copied next to a model/model.json that cannot be parsed, so every load attempt
 * leaves a "model not loaded" line in the debug log; with no model/utterance.json, each load of the sentence model
 * leaves a "sentence model unavailable" line and the cues decide alone. Also checks the SessionStart(compact) wording.
 */
import { appendFileSync, copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { afterAll, describe, expect, it, vi } from "vitest";
import { bundle, childEnv, cleanup, P, payload, rulesDirOf, tempProject } from "./helpers.js";

vi.setConfig({ testTimeout: 60_000 });
afterAll(cleanup);

function run(entry: string, event: string, stdin: string): { code: number | null; stdout: string } {
  const r = spawnSync(process.execPath, [entry, "hook", event], {
    input: stdin,
    env: childEnv({ KNOWLEDGE_TRIAGE_HOOK_DEBUG: "1" }),
    encoding: "utf8",
    timeout: 60_000,
  });
  return { code: r.status, stdout: r.stdout ?? "" };
}

describe("hook classifier loading", () => {
  it("reads the model only when there is new user text to classify", () => {
    const { root, project, transcript } = tempProject();
    const entry = join(root, "app", "dist", "triage.mjs");
    mkdirSync(join(root, "app", "dist"), { recursive: true });
    mkdirSync(join(root, "app", "model"), { recursive: true });
    copyFileSync(bundle, entry);
    writeFileSync(join(root, "app", "model", "model.json"), "{ not a model");
    const logFile = join(rulesDirOf(project), ".state", "hook.log");
    const loads = (): number => readFileSync(logFile, "utf8").split("\n").filter((l) => l.includes("model not loaded")).length;
    // No model/utterance.json next to the bundle: each load attempt of the sentence model leaves its own line.
    const sentenceLoads = (): number => readFileSync(logFile, "utf8").split("\n").filter((l) => l.includes("sentence model unavailable")).length;

    const first = run(entry, "pre-compact", payload(P.preManual, transcript, project));
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/Knowledge Triage: \d+ rules? (?:is|are) pinned for this project/);
    expect(loads()).toBe(1);
    expect(sentenceLoads()).toBe(1);
    // Nothing new: the incremental run classifies nothing, so the model is never touched.
    expect(run(entry, "pre-compact", payload(P.preManual, transcript, project)).code).toBe(0);
    expect(run(entry, "session-start", payload(P.startCompact, transcript, project)).code).toBe(0);
    expect(loads()).toBe(1);
    // A new rule arrives: now the classifier is needed (and falls back to the regex tier).
    appendFileSync(
      transcript,
      `${JSON.stringify({ parentUuid: null, isSidechain: false, userType: "external", cwd: project, sessionId: "5b0c2f1e-7d3a-4c8e-9f21-0a6b4d2e8c17", version: "2.1.197", type: "user", message: { role: "user", content: "Never deploy on Fridays." }, uuid: "00000000-0000-4000-9000-000000000999", timestamp: "2026-11-29T10:00:00.000Z" })}\n`,
    );
    expect(run(entry, "pre-compact", payload(P.preManual, transcript, project)).code).toBe(0);
    expect(loads()).toBe(2);
    expect(sentenceLoads()).toBe(2);
    expect(readFileSync(join(rulesDirOf(project), "constraints.md"), "utf8")).toContain("- Never deploy on Fridays.\n");
  });

  it("SessionStart(compact) output does not claim the rules come from earlier sessions", () => {
    const { root, project, transcript } = tempProject();
    const entry = join(root, "app", "dist", "triage.mjs");
    mkdirSync(join(root, "app", "dist"), { recursive: true });
    copyFileSync(bundle, entry);
    const r = run(entry, "session-start", payload(P.startCompact, transcript, project));
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Rules the user stated (kept verbatim by Knowledge Triage");
    expect(r.stdout).not.toMatch(/earlier sessions|earlier in this session/);
  });
});
