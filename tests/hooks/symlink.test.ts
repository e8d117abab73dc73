/**
 * A symbolic link on the rules path must not let the hook or the CLI write outside the project (issue 14,
 * item 2): the hook writes nothing anywhere, says so in one stderr line and exits 0; the CLI prints one
 * `triage: ...` line and exits 1. Links that stay inside the project keep working. Runs the built bundle.
 */
import { mkdirSync, mkdtempSync, readdirSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { expectOneLineError, triage } from "../cli/helpers.js";
import { filesUnder } from "../memory/helpers.js";
import { cleanup, P, payload, runHook, tempProject } from "./helpers.js";

afterAll(cleanup);

/** Projects where one folder of `.claude/rules/knowledge-triage/.state/...` is a link to `outside`. */
const cases: Array<[string, (project: string, outside: string) => void]> = [
  [".claude", (pr, out) => symlinkSync(out, join(pr, ".claude"))],
  [".claude/rules", (pr, out) => {
    mkdirSync(join(pr, ".claude"));
    symlinkSync(out, join(pr, ".claude", "rules"));
  }],
  ["knowledge-triage", (pr, out) => {
    mkdirSync(join(pr, ".claude", "rules"), { recursive: true });
    symlinkSync(out, join(pr, ".claude", "rules", "knowledge-triage"));
  }],
  [".state", (pr, out) => {
    mkdirSync(join(pr, ".claude", "rules", "knowledge-triage"), { recursive: true });
    symlinkSync(out, join(pr, ".claude", "rules", "knowledge-triage", ".state"));
  }],
  [".state/sessions", (pr, out) => {
    mkdirSync(join(pr, ".claude", "rules", "knowledge-triage", ".state"), { recursive: true });
    symlinkSync(out, join(pr, ".claude", "rules", "knowledge-triage", ".state", "sessions"));
  }],
];

describe("a symbolic link out of the project on the rules path", { timeout: 60_000 }, () => {
  it.each(cases)("at %s: the PreCompact hook writes nothing outside, says so once, exits 0", (_at, plant) => {
    const t = tempProject();
    const outside = mkdtempSync(join(tmpdir(), "kt-outside-"));
    plant(t.project, outside);
    const r = runHook("pre-compact", payload(P.preManual, t.transcript, t.project), { CLAUDE_PROJECT_DIR: t.project });
    expect(r.code).toBe(0);
    expect(filesUnder(outside)).toEqual([]);
    const lines = r.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^triage hook pre-compact: refusing to write into .* \(a symbolic link\)$/);
  });

  it.each(cases)("at %s: `triage extract` prints one error line and exits 1", (_at, plant) => {
    const t = tempProject();
    const outside = mkdtempSync(join(tmpdir(), "kt-outside-"));
    plant(t.project, outside);
    const line = expectOneLineError(triage(["extract", t.transcript, "--model", "/dev/null"], { cwd: t.project }));
    expect(line).toMatch(/refusing to write into .* outside /);
    expect(filesUnder(outside)).toEqual([]);
  });

  it("a link that stays inside the project still works", () => {
    const t = tempProject();
    mkdirSync(join(t.project, "shared-rules"));
    mkdirSync(join(t.project, ".claude", "rules"), { recursive: true });
    symlinkSync(join(t.project, "shared-rules"), join(t.project, ".claude", "rules", "knowledge-triage"));
    const r = runHook("pre-compact", payload(P.preManual, t.transcript, t.project), { CLAUDE_PROJECT_DIR: t.project });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
    expect(readdirSync(join(t.project, "shared-rules")).some((f) => f.endsWith(".md"))).toBe(true);
  });
});
