/**
 * Working state after compaction (issue 15, item 3) on a real Claude Code session with TodoWrite, edits and one
 * compaction (tests/fixtures/hooks/todo-compact.jsonl, recorded with the real CLI), cut where SessionStart(compact)
 * sees it: right after the `compact_boundary` line.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { REQUEST_MAX_CHARS, readWorkingState, renderWorkingState, sessionStartText, WORKING_STATE_MAX_CHARS } from "../../scripts/hooks/working-state.js";
import { HOOK_OUTPUT_MAX_CHARS } from "../../scripts/hooks/hook-output.js";
import { distinctRules } from "../fixtures/memory/many-rules.js";
import { cleanup, fixtures, rulesDirOf, runHook, tempProject } from "./helpers.js";

vi.setConfig({ testTimeout: 60_000 });
afterAll(cleanup);

const project = "/home/dev/projects/tools-todo-compact";
const lines = readFileSync(join(fixtures, "todo-compact.jsonl"), "utf8").split("\n").filter(Boolean);
const boundary = lines.findIndex((l) => l.includes('"subtype":"compact_boundary"'));

function atCompaction(root: string): string {
  const p = join(root, "at-compact.jsonl");
  writeFileSync(p, `${lines.slice(0, boundary + 1).join("\n")}\n`);
  return p;
}

describe("working state", () => {
  it("at the compaction: the latest todo list, the files edited before it, the last three requests", async () => {
    const { root } = tempProject();
    const ws = await readWorkingState(atCompaction(root));
    expect(ws.todos).toEqual([
      { content: "Add divide (throws on zero) to src/calc.js", status: "completed" },
      { content: "Add divide tests", status: "completed" },
      { content: "Document the functions in README.md", status: "pending" },
    ]);
    expect(ws.files).toEqual([`${project}/src/calc.js`, `${project}/test.js`]);
    expect(ws.requests).toHaveLength(2);
    const text = renderWorkingState(ws, project, "triage dig");
    expect(text).toContain("- [pending] Document the functions in README.md");
    expect(text).toContain("Files edited or written since the previous compaction:\n- src/calc.js\n- test.js\n");
    expect(text).toContain("> Also add a divide function that throws on division by zero. Keep the todo list going.");
    expect(text).toMatch(/`triage dig "<words>"` searches the archived transcript/);
  });

  it("after more work past the boundary, the files are only those since that compaction", async () => {
    const ws = await readWorkingState(join(fixtures, "todo-compact.jsonl"));
    expect(ws.files).toEqual([`${project}/README.md`]);
    expect(ws.requests.at(-1)).toBe("OK, finish the remaining item.");
  });

  it("long requests are cut, secrets redacted, and the block stays within its cap", () => {
    const key = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8";
    const long = `Here is the log, token ${key}\n${"error: timeout on shard 7\n".repeat(400)}`;
    const text = renderWorkingState({ todos: null, files: [], requests: [long, long, long] }, project, "triage dig");
    expect(text).not.toContain(key);
    expect(text).toContain("[REDACTED]");
    expect(text.length).toBeLessThanOrEqual(WORKING_STATE_MAX_CHARS);
    const quoted = text.split("\n> Here is").length - 1;
    expect(quoted).toBe(3);
    expect(text).not.toContain("error: timeout on shard 7\n".repeat(REQUEST_MAX_CHARS / 10));
  });

  it("with many pinned rules the whole SessionStart output stays under the cap and keeps the working state", async () => {
    const { root, project: proj } = tempProject();
    const dir = rulesDirOf(proj);
    const { mkdirSync } = await import("node:fs");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "constraints.md"), `${distinctRules(400).map((r) => `- ${r}`).join("\n")}\n`);
    const working = renderWorkingState(await readWorkingState(atCompaction(root)), project, "triage dig");
    const out = sessionStartText(dir, "Knowledge Triage: rules.", working);
    expect(out.length).toBeLessThanOrEqual(HOOK_OUTPUT_MAX_CHARS);
    expect(out.startsWith("Knowledge Triage: rules.")).toBe(true);
    expect(out.endsWith(working)).toBe(true);
  });

  it("the built hook prints it at SessionStart(compact), with the bundle path in the dig line", () => {
    const { root, project: proj } = tempProject();
    const t = atCompaction(root);
    const r = runHook("session-start", JSON.stringify({ session_id: "s", transcript_path: t, cwd: proj, hook_event_name: "SessionStart", source: "compact" }));
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Todo list (latest TodoWrite):\n- [completed] Add divide (throws on zero) to src/calc.js");
    expect(r.stdout).toMatch(/`node ".*triage\.mjs" dig "<words>"`/);
  });
});

describe("SessionStart(compact) with many Chinese or Japanese rules (found by a fresh-user pass)", () => {
  it("lists rules up to the character cap with a note of the rest, not none", async () => {
    const { mkdtempSync, mkdirSync, writeFileSync } = await import("node:fs");
    const { tmpdir } = await import("node:os");
    const { join } = await import("node:path");
    const { pinnedText, SESSIONSTART_HEAD } = await import("../../scripts/hooks/hook-output.js");
    const rd = join(mkdtempSync(join(tmpdir(), "kt-cjk-")), "rules");
    mkdirSync(rd, { recursive: true });
    const rules = Array.from({ length: 300 }, (_, i) => `- 絶対に本番サーバー${i}番に直接デプロイしないでください。`);
    writeFileSync(join(rd, "constraints.md"), `# Rules\n\n${rules.join("\n")}\n`);
    const out = pinnedText(rd, SESSIONSTART_HEAD);
    expect(out.length).toBeLessThanOrEqual(HOOK_OUTPUT_MAX_CHARS);
    const listed = out.split("\n").filter((l) => l.startsWith("- 絶対に")).length;
    expect(listed).toBeGreaterThan(200);
    expect(out).toMatch(new RegExp(`\\(${300 - listed} more rules`));
  });
});
