/** io.makeDirs: `mkdir -p` that fails fast where Node 20's recursive mkdirSync loops forever. */
import { mkdtempSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { makeDirs } from "../../scripts/io/write-files.js";

describe("makeDirs", () => {
  it("creates every missing level with the mode, and accepts an existing folder", () => {
    const root = mkdtempSync(join(tmpdir(), "kt-mkdirs-"));
    const deep = join(root, "a", "b", "c");
    makeDirs(deep, 0o700);
    for (const d of [join(root, "a"), join(root, "a", "b"), deep]) expect(statSync(d).mode & 0o777).toBe(0o700);
    expect(() => makeDirs(deep)).not.toThrow();
    expect(() => makeDirs(root)).not.toThrow();
  });

  it("throws ENOTDIR when a level is a file, and fails fast (no loop) under /proc", () => {
    const root = mkdtempSync(join(tmpdir(), "kt-mkdirs-"));
    writeFileSync(join(root, "file"), "");
    expect(() => makeDirs(join(root, "file", "x"))).toThrow(expect.objectContaining({ code: "ENOTDIR" }));
    // mkdirSync(..., { recursive: true }) never returns here (the test would time out).
    expect(() => makeDirs("/proc/.cache/knowledge-triage")).toThrow(expect.objectContaining({ code: "ENOENT" }));
  });
});
