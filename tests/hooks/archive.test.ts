/**
 * The archive step of the hooks through the built bundle: PreCompact keeps a byte-exact copy and a redacted index
 * that `triage dig` searches; a broken archive never fails the hook (issue 15, items 1 and 2).
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { triage } from "../cli/helpers.js";
import { cleanup, rulesDirOf, runHook, tempProject } from "./helpers.js";

vi.setConfig({ testTimeout: 60_000 });
afterAll(cleanup);

const payload = (event: string, session: string, transcript: string, cwd: string): string =>
  JSON.stringify({ session_id: session, transcript_path: transcript, cwd, hook_event_name: event, trigger: "manual", source: "compact" });

describe("hook archive", () => {
  it("PreCompact archives the transcript byte-exact; dig finds and reads a message of it", () => {
    const { project, transcript } = tempProject();
    const r = runHook("pre-compact", payload("PreCompact", "sess-42", transcript, project));
    expect(r.code).toBe(0);
    const archived = join(rulesDirOf(project), "archive", "sess-42", "transcript.jsonl");
    expect(readFileSync(archived).equals(readFileSync(transcript))).toBe(true);
    const first = readFileSync(transcript, "utf8").split("\n").map((l) => JSON.parse(l || "null")).find((o) => o?.type === "user" && typeof o.message?.content === "string");
    const words = String(first.message.content).split(/\s+/).slice(0, 6).join(" ");
    const found = triage(["dig", words, "--json", "-k", "3"], { cwd: project });
    expect(found.code).toBe(0);
    const hits = JSON.parse(found.stdout).hits as Array<{ id: string; role: string }>;
    expect(hits.length).toBeGreaterThan(0);
    const read = triage(["dig", "read", hits[0]?.id ?? "", "--json"], { cwd: project });
    expect(read.code).toBe(0);
    expect(JSON.parse(read.stdout).text.length).toBeGreaterThan(0);
  });

  it("an unreadable archive setting is logged; the hook still exits 0 and extracts", () => {
    const { project, transcript } = tempProject();
    mkdirSync(join(rulesDirOf(project), "archive"), { recursive: true });
    writeFileSync(join(rulesDirOf(project), "archive", "settings.json"), "{not json");
    const r = runHook("pre-compact", payload("PreCompact", "s", transcript, project));
    expect(r.code).toBe(0);
    expect(readFileSync(join(rulesDirOf(project), ".state", "hook.log"), "utf8")).toMatch(/archive failed: .*settings\.json: not JSON/);
    expect(readdirSync(rulesDirOf(project)).some((f) => f.endsWith(".md"))).toBe(true);
  });

  it("dig read of an unknown id is a one-line error", () => {
    const { project } = tempProject();
    const r = triage(["dig", "read", "nope:1"], { cwd: project });
    expect(r.code).not.toBe(0);
    expect(r.stderr.trim()).toMatch(/^triage: no archived message with id "nope:1"/);
  });
});
