/**
 * End to end, with the REAL Claude Code CLI offline: the plugin installed from this repository as a local
 * marketplace in a temporary HOME; the skill and the plugin's slash commands typed in a session against
 * the mock Messages API. What reaches the model must call the bundled CLI by an existing path (Claude Code
 * substitutes ${CLAUDE_PLUGIN_ROOT} and ${CLAUDE_PROJECT_DIR} in skill and command text), never keep the
 * placeholder, never say `npx triage` except to forbid it; and the command line it shows must run.
 * Skips (with a message) only when the claude binary is missing.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { keepArtifactsOnFailure } from "./artifacts.js";
import { cli, cliEnv, runSession, type SessionResult } from "./drive.js";
// @ts-expect-error plain ESM helper without type declarations
import { contentText, startMockApi } from "./mock-api.mjs";

const repo = resolve(import.meta.dirname, "..", "..");
const claudeBin = join(repo, "node_modules", ".bin", "claude");
const haveClaude = existsSync(claudeBin);
if (!haveClaude) console.warn(`SKIP e2e: ${claudeBin} not found (npm ci installs @anthropic-ai/claude-code)`);

const RULE = "Never push directly to main.";
const PROMPTS = ["/knowledge-triage:knowledge-triage classify CLAUDE.md", "/knowledge-triage:status", `/knowledge-triage:pin ${RULE}`, "/knowledge-triage:forget push directly"];

interface Req {
  kind: string;
  body: { messages?: Array<{ role: string; content: unknown }> };
}

describe.skipIf(!haveClaude)("the plugin's skill and slash commands in a real session (offline)", () => {
  const out = mkdtempSync(join(tmpdir(), "kt-e2e-cmd-"));
  const home = join(out, "home");
  const project = join(out, "project");
  let api: { port: number; requests: Req[]; close: () => Promise<void> };
  let session: SessionResult;
  let texts: string[] = [];

  beforeAll(async () => {
    mkdirSync(home, { recursive: true });
    mkdirSync(project, { recursive: true });
    writeFileSync(join(project, "CLAUDE.md"), "# Demo\n\n- Never push directly to main.\n");
    api = await startMockApi({ turns: PROMPTS.map(() => ({ text: "OK." })), logFile: join(out, "requests.jsonl") });
    const env = cliEnv({ claudeBin, home, port: api.port });
    cli(claudeBin, ["plugin", "marketplace", "add", repo], env, project);
    cli(claudeBin, ["plugin", "install", "knowledge-triage@knowledge-triage"], env, project);
    session = await runSession(claudeBin, env, realpathSync(project), PROMPTS);
    // Every user message the model saw (a prompt's expansion; later attachments come as further messages).
    texts = [...new Set(api.requests.filter((r) => r.kind === "main").flatMap((r) => (r.body.messages ?? []).filter((m) => m.role === "user").map((m) => contentText(m.content) as string)))];
  }, 240_000);

  keepArtifactsOnFailure(out, () => (api ? () => api.close() : undefined));

  const expanded = (name: string): string => {
    const t = texts.find((x) => x.includes(`<command-name>/knowledge-triage:${name}</command-name>`));
    expect(t, `no request carries /knowledge-triage:${name} (log: ${out}/requests.jsonl)`).toBeDefined();
    return t as string;
  };
  /** The `node "<path>/dist/triage.mjs" <cmd> …` lines in a text, with the path checked to exist. */
  const calls = (t: string): string[] => {
    const lines = t.split("\n").filter((l) => /node "[^"]+\/dist\/triage\.mjs" [a-z]+/.test(l));
    for (const l of lines) {
      const path = /node "([^"]+\/dist\/triage\.mjs)"/.exec(l)?.[1] as string;
      expect(existsSync(path), `${path} (from: ${l})`).toBe(true);
    }
    return lines;
  };

  it("every prompt ran", () => {
    expect(session.exitCode, session.stderr).toBe(0);
    expect(session.results.length).toBe(PROMPTS.length);
  });

  it("the skill reaches the model with the bundle's real path, its base folder, and no placeholder", () => {
    const t = expanded("knowledge-triage");
    expect(t).toMatch(/^Base directory for this skill: \S+\/skills\/knowledge-triage$/m);
    expect(calls(t).length).toBeGreaterThanOrEqual(6);
    expect(t).not.toMatch(/\$\{CLAUDE_PLUGIN_ROOT\}/);
    for (const m of t.matchAll(/.{0,12}npx triage/g)) expect(m[0]).toMatch(/Never run `npx triage/);
  });

  it("the status command's line runs as shown and reports the project's rules folder", () => {
    const t = expanded("status");
    expect(t).not.toMatch(/\$\{CLAUDE_(?:PLUGIN_ROOT|PROJECT_DIR)\}/);
    const line = calls(t).find((l) => l.includes(" status "));
    const m = /node "([^"]+)" status --rules-dir "([^"]+)"/.exec(line ?? "");
    expect(m, line).not.toBeNull();
    expect(m?.[2]).toBe(join(realpathSync(project), ".claude", "rules", "knowledge-triage"));
    const r = spawnSync(process.execPath, [m?.[1] as string, "status", "--rules-dir", m?.[2] as string, "--json"], { encoding: "utf8" });
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ rulesDir: m?.[2], active: null });
  });

  it("pin and forget carry the user's words in place of $ARGUMENTS and call pin / unpin", () => {
    const pin = expanded("pin");
    expect(pin).toContain(`\n${RULE}\n`);
    expect(pin).not.toContain("$ARGUMENTS");
    expect(calls(pin).some((l) => l.includes(" pin '<rule text>' --rules-dir "))).toBe(true);
    const forget = expanded("forget");
    expect(forget).toContain("\npush directly\n");
    expect(calls(forget).some((l) => l.includes(" unpin '<rule text or id>' --rules-dir "))).toBe(true);
  });
});
