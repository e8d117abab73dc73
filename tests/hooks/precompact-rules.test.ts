/**
 * PreCompact stdout lists the pinned rules themselves (issue 13, item 5), through the built bundle: this
 * session's rules first, earlier ones after, permissions apart, withdrawn rules absent, path-scoped rules
 * marked, plain text within PRECOMPACT_MAX_CHARS cut on a rule boundary, hand edits included and redacted.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { jsonl, user } from "../fixtures/memory/jsonl.js";
import { cleanup, looksLikeJson, rulesDirOf, runHook, tempProject } from "./helpers.js";

vi.setConfig({ testTimeout: 60_000 });
afterAll(cleanup);

const payload = (session: string, transcript: string, cwd: string): string =>
  JSON.stringify({ session_id: session, transcript_path: transcript, cwd, hook_event_name: "PreCompact", trigger: "manual", custom_instructions: "" });

/** The cap of PreCompact stdout (scripts/hooks/hook-output.ts PRECOMPACT_MAX_CHARS). */
const CAP = 4000;

describe("PreCompact stdout lists the pinned rules verbatim", () => {
  it("this session's rules first (as stated), then earlier ones, then permissions; a withdrawn rule is not listed", () => {
    const { root, project } = tempProject();
    const a = join(root, "a.jsonl");
    writeFileSync(a, jsonl([user("Never push to main.", "a"), user("Always sign release tags with the team key.", "a")]));
    const first = runHook("pre-compact", payload("a", a, project));
    expect(first.stdout).toContain("Rules the user stated in this session:\n- Never push to main.\n- Always sign release tags with the team key.\n");

    const b = join(root, "b.jsonl");
    writeFileSync(b, jsonl([user("Never deploy on Fridays.", "b"), user("Run `make check` before every commit.", "b"), user("actually, you may push to main now", "b")]));
    const r = runHook("pre-compact", payload("b", b, project));
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
    expect(looksLikeJson(r.stdout)).toBe(false);
    expect(r.stdout).toMatch(/^Knowledge Triage: 3 rules are pinned for this project \(2 stated in this session\), with 1 permission/);
    expect(r.stdout).toContain("keep every rule listed below word for word");
    expect(r.stdout).toContain("leave out any rule the user withdrew");
    const body = r.stdout.slice(r.stdout.indexOf("\n\n") + 2);
    expect(body).toBe(
      "Rules the user stated in this session:\n- Never deploy on Fridays.\n- Run `make check` before every commit.\n\n" +
        "Rules pinned earlier for this project:\n- Always sign release tags with the team key.\n\n" +
        "Permissions the user granted (they relax earlier rules until their condition ends):\n- Permission: you may push to main now\n",
    );
    expect(r.stdout).not.toContain("Never push to main");
  });

  it("marks path-scoped rules with their globs, and reads hand-written rule files as they are on disk", () => {
    const { project, transcript } = tempProject();
    const dir = rulesDirOf(project);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "api.md"), '---\npaths:\n  - "packages/api/**"\n---\n- Validate every request body with zod.\n');
    writeFileSync(join(dir, "team.md"), "# Team\n\n- Write commit messages in the imperative mood.\n");
    const r = runHook("pre-compact", payload("h", transcript.replace(/session\.jsonl$/, "none.jsonl"), project));
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("A rule marked [files: ...] applies only to those files");
    expect(r.stdout).toContain("Rules pinned earlier for this project:\n- Validate every request body with zod. [files: packages/api/**]\n- Write commit messages in the imperative mood.\n");
  });

  it("stays within the cap, cut on a rule boundary, and says how many rules were left out", () => {
    const { project, transcript } = tempProject();
    const dir = rulesDirOf(project);
    mkdirSync(dir, { recursive: true });
    const rules = Array.from({ length: 300 }, (_, i) => `- Rule ${i + 1}: always keep the service ${i + 1} handler idempotent and log its request id.`);
    writeFileSync(join(dir, "many.md"), `${rules.join("\n")}\n`);
    const r = runHook("pre-compact", payload("h", transcript.replace(/session\.jsonl$/, "none.jsonl"), project));
    expect(r.stdout.length).toBeLessThanOrEqual(CAP);
    expect(r.stdout.length).toBeGreaterThan(CAP - 200);
    const listed = r.stdout.split("\n").filter((l) => l.startsWith("- "));
    expect(listed).toEqual(rules.slice(0, listed.length)); // whole rules, in file order
    expect(r.stdout.endsWith(`\n(${300 - listed.length} more rules are pinned in .claude/rules/knowledge-triage/.)\n`)).toBe(true);
  });

  it("is empty when nothing is pinned", () => {
    const { project, transcript } = tempProject();
    writeFileSync(transcript, jsonl([user("Fix the typo in the README.", "t")]));
    const r = runHook("pre-compact", payload("t", transcript, project));
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("");
  });

  it("lists the rules of a real hook transcript fixture word for word, as written in the rule files", () => {
    const { project, transcript } = tempProject();
    const r = runHook("pre-compact", payload("fixture", transcript, project));
    const files = ["constraints.md", "procedures.md"].flatMap((f) => {
      try {
        return readFileSync(join(rulesDirOf(project), f), "utf8").split("\n").filter((l) => l.startsWith("- "));
      } catch {
        return [];
      }
    });
    expect(files.length).toBeGreaterThan(1);
    for (const line of files) expect(r.stdout).toContain(`${line}\n`);
  });
});
