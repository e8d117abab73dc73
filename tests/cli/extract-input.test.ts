/**
 * `triage extract` on a file that is not a Claude Code transcript (a markdown file, a JSON array) stops with a
 * one-line error and exit 1 instead of reporting "0 kept"; a transcript whose first line is torn still runs.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { triage } from "./helpers.js";

const dir = mkdtempSync(join(tmpdir(), "kt-extract-input-"));
const line = JSON.stringify({ type: "user", sessionId: "s1", uuid: "u1", timestamp: "2026-11-20T09:00:00.000Z", message: { role: "user", content: "Never push directly to main." } });

describe("extract refuses what is not a transcript", () => {
  it.each([
    ["notes.md", "# Notes\n\n- Never push directly to main.\n"],
    ["array.json", `[${line}]\n`],
    ["numbers.jsonl", "1\n2\n3\n"],
  ])("%s", (name, text) => {
    const f = join(dir, name);
    writeFileSync(f, text);
    const r = triage(["extract", f, "--dry-run", "--rules-dir", join(dir, "rules")]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^triage: .* is not a Claude Code transcript/);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
  });

  it("a transcript with a torn first line still runs", () => {
    const f = join(dir, "torn.jsonl");
    writeFileSync(f, `{"type":"us\n${line}\n`);
    const r = triage(["extract", f, "--dry-run", "--rules-dir", join(dir, "rules")]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/1 kept/);
  });
});

describe("the project folder of a command run in a subfolder", () => {
  it("pin in a subfolder of a git repository writes to the repository's rules folder; status there reads it", () => {
    const repoDir = mkdtempSync(join(tmpdir(), "kt-subdir-"));
    mkdirSync(join(repoDir, ".git"));
    const deep = join(repoDir, "packages", "api");
    mkdirSync(deep, { recursive: true });
    expect(triage(["pin", "Never commit .env files."], { cwd: deep }).code).toBe(0);
    expect(existsSync(join(repoDir, ".claude", "rules", "knowledge-triage", "constraints.md"))).toBe(true);
    expect(existsSync(join(deep, ".claude"))).toBe(false);
    const st = triage(["status"], { cwd: join(repoDir, "packages") });
    expect(st.stdout).toContain(join(repoDir, ".claude", "rules", "knowledge-triage"));
    expect(st.stdout).toMatch(/active rules: 1\b/);
  });

  it("an existing rules folder nearer than the git root wins", () => {
    const repoDir = mkdtempSync(join(tmpdir(), "kt-subdir-"));
    mkdirSync(join(repoDir, ".git"));
    const pkg = join(repoDir, "packages", "web");
    mkdirSync(join(pkg, ".claude", "rules", "knowledge-triage"), { recursive: true });
    mkdirSync(join(pkg, "src"));
    expect(triage(["pin", "Use pnpm, never npm."], { cwd: join(pkg, "src") }).code).toBe(0);
    expect(readdirSync(join(pkg, ".claude", "rules", "knowledge-triage")).some((f) => f.endsWith(".md"))).toBe(true);
    expect(existsSync(join(repoDir, ".claude"))).toBe(false);
  });
});

describe("hooks without CLAUDE_PROJECT_DIR from a subfolder", () => {
  it("PreCompact with cwd in a subfolder of a git repository writes to the repository's rules folder", () => {
    const repoDir = mkdtempSync(join(tmpdir(), "kt-hook-subdir-"));
    mkdirSync(join(repoDir, ".git"));
    const sub = join(repoDir, "a", "b");
    mkdirSync(sub, { recursive: true });
    const transcript = join(repoDir, "t.jsonl");
    writeFileSync(transcript, `${line}\n`);
    const payload = JSON.stringify({ session_id: "s1", transcript_path: transcript, cwd: sub, hook_event_name: "PreCompact", trigger: "manual", custom_instructions: "" });
    const r = triage(["hook", "pre-compact"], { cwd: sub, input: payload });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Never push directly to main.");
    expect(existsSync(join(repoDir, ".claude", "rules", "knowledge-triage", "constraints.md"))).toBe(true);
    expect(existsSync(join(sub, ".claude"))).toBe(false);
  });
});
