/** Flags that cannot both apply are refused with one line instead of one being ignored silently. */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { triage } from "./helpers.js";

describe("conflicting flags", () => {
  it("export --out DIR --stdout", () => {
    const dir = mkdtempSync(join(tmpdir(), "kt-flags-"));
    expect(triage(["pin", "Never push directly to main."], { cwd: dir }).code).toBe(0);
    const r = triage(["export", "--format", "agents", "--out", join(dir, "out"), "--stdout"], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe("triage: give either --out DIR or --stdout, not both\n");
    expect(r.stdout).toBe("");
    // Each alone works.
    expect(triage(["export", "--format", "agents", "--stdout"], { cwd: dir }).stdout).toContain("Never push directly to main.");
  });
});

describe("missing arguments", () => {
  it("dig read without an id is a one-line error, not a search for the word 'read'", () => {
    const dir = mkdtempSync(join(tmpdir(), "kt-flags-"));
    const r = triage(["dig", "read"], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^triage: dig read: missing id/);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
  });
});
