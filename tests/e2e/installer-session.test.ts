/**
 * End to end through install.sh instead of the plugin: `install.sh --scope project` writes the hooks into
 * <project>/.claude/settings.json with absolute paths, then a real Claude Code session (offline, temp HOME,
 * mock API) states a rule with a secret and is AUTO-compacted (a faked 90k-token context with
 * CLAUDE_CODE_AUTO_COMPACT_WINDOW=100000; the plugin test covers manual /compact). The settings-file hooks must fire and the rule must be
 * in the first request after compaction, redacted. Skips only when the claude binary is missing.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { keepArtifactsOnFailure } from "./artifacts.js";
import { cliEnv, runSession, type SessionResult } from "./drive.js";
// @ts-expect-error plain ESM helper without type declarations
import { startMockApi } from "./mock-api.mjs";

const repo = resolve(import.meta.dirname, "..", "..");
const claudeBin = join(repo, "node_modules", ".bin", "claude");
const haveClaude = existsSync(claudeBin);
if (!haveClaude) console.warn(`SKIP e2e: ${claudeBin} not found (npm ci installs @anthropic-ai/claude-code)`);

// Built by concatenation so secret scanners do not flag the repository.
const TOKEN = "ghp_" + "R8kd2LmQ7x" + "Vt4Wn9Pz3B" + "cY6hJ1sF5g" + "Ae0u";
const RULE = "Never run database migrations on a Friday.";

describe.skipIf(!haveClaude)("real Claude Code session with hooks from install.sh --scope project", () => {
  const out = mkdtempSync(join(tmpdir(), "kt-e2e-install-"));
  const home = join(out, "home");
  const project = join(out, "project");
  let api: { requests: Array<{ kind: string; body: unknown }>; close: () => Promise<void>; port: number };
  let session: SessionResult;
  let installOut = "";

  beforeAll(async () => {
    mkdirSync(home, { recursive: true });
    mkdirSync(project, { recursive: true });
    writeFileSync(join(project, "README.md"), "# Demo\n");
    const inst = spawnSync("bash", [join(repo, "install.sh"), "--scope", "project"], { cwd: project, env: { PATH: process.env.PATH, HOME: home }, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
    installOut = inst.stdout + inst.stderr;
    expect(inst.status, installOut).toBe(0);
    const turns = [{ text: "Noted." }, { text: "Sure.", usage: { input_tokens: 90_000 } }, { text: "Following the project rules." }];
    api = await startMockApi({ turns, summary: "A demo project was set up." });
    const env = cliEnv({ claudeBin, home, port: api.port, extra: { CLAUDE_CODE_AUTO_COMPACT_WINDOW: "100000" } });
    session = await runSession(claudeBin, env, realpathSync(project), [
      `${RULE} To publish, use the token ${TOKEN} from the vault.`,
      "Thanks, that is all for now.",
      "What are the rules?",
    ]);
    await new Promise((r) => setTimeout(r, 1500)); // let the detached SessionEnd worker finish
  }, 240_000);

  // Artifacts (request log, HOME, project) are kept when a test fails or KNOWLEDGE_TRIAGE_E2E_OUT is set.
  keepArtifactsOnFailure(out, () => (api ? () => api.close() : undefined));

  it("the settings-file hooks fired and the rule came back after compaction, redacted", () => {
    expect(installOut).toContain(`+ PreCompact (manual|auto): node ${repo}/dist/triage.mjs hook pre-compact`);
    expect(session.exitCode, session.stderr).toBe(0);
    const ci = api.requests.findIndex((r) => r.kind === "compact");
    expect(ci).toBeGreaterThan(0);
    const after = api.requests.slice(ci + 1);
    const first = JSON.stringify(after.find((r) => r.kind === "main")?.body ?? {});
    const compact = JSON.stringify(api.requests[ci]?.body ?? {});
    expect(/Knowledge Triage: \d+ rules? (?:is|are) pinned for this project /.test(compact), "PreCompact(auto) stdout in the compaction prompt").toBe(true);
    expect(first.includes("SessionStart:compact hook success: Knowledge Triage:"), "SessionStart(compact) printed the rules").toBe(true);
    expect(first.includes(RULE), "the rule is in the first request after compaction").toBe(true);
    for (const r of after) expect(JSON.stringify(r.body).includes(TOKEN), "the token after compaction").toBe(false);
  });
});
