/**
 * Standard streams at the edges: every command writes stdout synchronously (io.writeStdout), so a
 * full disk is one `triage:` line and exit 1, a closed pipe ends the output quietly, and stdin may be
 * non-blocking or a folder.
 */
import { spawn, spawnSync } from "node:child_process";
import { closeSync, openSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { bundle, childEnv, ensureBundle, removeTempDirs, repo } from "./helpers.js";

vi.setConfig({ testTimeout: 60_000 });
beforeAll(() => ensureBundle(), 180_000);
afterAll(() => removeTempDirs());

const env = childEnv();

describe("stdout and stdin", () => {
  it("stdout on a full device: one line saying the device is full, exit 1, for commands and for --help/--version", () => {
    const full = openSync("/dev/full", "w");
    try {
      for (const args of [["--version"], ["--help"], ["classify", "--help"], ["classify", "examples/CLAUDE.md"], ["compact", "examples/CLAUDE.md", "--ratio", "0.8"], ["retrieve", "deploy", "--base", "examples/CLAUDE.md"]]) {
        const r = spawnSync(process.execPath, [bundle, ...args], { cwd: repo, env, stdio: ["ignore", full, "pipe"], encoding: "utf8" });
        expect(r.status, args.join(" ")).toBe(1);
        expect(r.stderr.trim().split("\n").at(-1)).toBe("triage: cannot write standard output: no space left on the device");
        expect(r.stderr).not.toMatch(/^\s+at /m);
      }
    } finally {
      closeSync(full);
    }
  });

  it("a reader that goes away (EPIPE) ends the output quietly with exit 0", async () => {
    for (const args of [["compact", "examples/CLAUDE.md", "--ratio", "0.9"], ["classify", "examples/CLAUDE.md", "--json"]]) {
      const child = spawn(process.execPath, [bundle, ...args], { cwd: repo, env, stdio: ["ignore", "pipe", "pipe"] });
      let stderr = "";
      child.stderr.on("data", (d) => {
        stderr += d;
      });
      child.stdout.once("data", () => child.stdout.destroy());
      const code = await new Promise((resolve) => child.on("close", resolve));
      expect(code, args.join(" ")).toBe(0);
      expect(stderr).toBe("");
    }
  });

  it("a folder on stdin is a one-line error; an empty stdin is an empty file", () => {
    const dir = openSync(repo, "r");
    try {
      const r = spawnSync(process.execPath, [bundle, "classify", "-"], { cwd: repo, env, stdio: [dir, "pipe", "pipe"], encoding: "utf8" });
      expect(r.status).toBe(1);
      expect(r.stderr).toBe("triage: cannot read -: is a directory\n");
    } finally {
      closeSync(dir);
    }
    const empty = spawnSync(process.execPath, [bundle, "classify", "-"], { cwd: repo, env, input: "", encoding: "utf8" });
    expect(empty.status).toBe(0);
    expect(empty.stdout).toBe("== -\n0 units: 0 constraint, 0 procedural, 0 belief, 0 preference, 0 episodic\n");
  });
});
