/**
 * End to end, with the REAL Claude Code CLI (node_modules/.bin/claude) offline: HOME in a temp folder, the
 * plugin installed from this repository as a local marketplace, a mock Messages API on 127.0.0.1. The user
 * states rules (one carrying an API key, one later withdrawn), runs /compact, asks again. The request log
 * must show the rules verbatim in the compaction request's Additional Instructions (PreCompact stdout) and in the
 * first request after compaction, the secret nowhere after it, the withdrawn rule gone. After the compaction the
 * model (the mock) calls the plugin's MCP tools `dig` then `dig_read`: the request's tool list carries the six MCP
 * tools, and dig_read returns the pre-compaction message it asked for, redacted.
 * Skips (with a message) only when the claude binary is missing. Artifacts: $KNOWLEDGE_TRIAGE_E2E_OUT or a temp folder.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, statSync, writeFileSync } from "node:fs";
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

// Built by concatenation so secret scanners do not flag the repository.
const SECRET = "sk-ant-" + "api03-" + "Qm7vT2xLp9" + "Wc4RzK8sYh3N" + "bG6dJ1fUa5" + "eX0iO-_qVnM" + "rS2tB7wZk4" + "yC9gH3jP8lD" + "6uF1oE5aI0" + "xNvQmRtWz2A" + "sKc7bYh4Lp" + "-AA";
const RULE_TEST = "Always run `npm test` before you commit.";
const RULE_COAUTHOR = "Do not add a co-author line to commit messages.";
const RULE_MAIN = "Never push directly to main.";
// The withdrawal is kept as a permission (BL-10), apart from the rules and without its "Actually," filler.
const PERMISSION_LINE = "Permission: you may push to main now.";
const PROMPTS = [
  `Some ground rules for this repo. ${RULE_MAIN} ${RULE_TEST}`,
  `${RULE_COAUTHOR} For the staging deploy, always export ANTHROPIC_API_KEY=${SECRET} before running \`./deploy.sh\`.`,
  "Fix the typo in the README.",
  "Actually, you may push to main now.",
  "/compact",
  "What should I keep in mind from now on?",
  "What exactly did I say about the staging deploy before the compaction?",
];
const TURNS = ["Noted.", "Understood.", "Done: fixed the typo.", "OK, pushing to main is allowed now.", "I will follow the project rules."];
/** Claude Code names a plugin's MCP tools `mcp__plugin_<plugin>_<server>__<tool>`; --allowedTools takes the prefix. */
const MCP = "mcp__plugin_knowledge-triage_knowledge-triage";
const MCP_TOOLS = ["rules_list", "retrieve", "pin", "unpin", "dig", "dig_read"];
const STAGING = "For the staging deploy, always export ANTHROPIC_API_KEY=[REDACTED] before running `./deploy.sh`.";
/** The text of the tool_result in a request's last message (what the CLI sent back for the mock's tool call). */
const lastToolResult = (body: { messages?: Array<{ role: string; content: unknown }> }): string => {
  const last = body.messages?.at(-1);
  const blocks = Array.isArray(last?.content) ? (last.content as Array<{ type?: string }>) : [];
  return blocks.filter((b) => b.type === "tool_result").map((b) => contentText([b]) as string).join("\n");
};
/** The last prompt's turns: rules_list, dig for the staging deploy, dig_read the first hit's id (from dig's result), then answer. */
const DIG_TURNS = [
  { toolUse: { name: `${MCP}__rules_list`, input: {} } },
  { toolUse: { name: `${MCP}__dig`, input: { query: "staging deploy", k: 3 } } },
  {
    toolUse: {
      name: `${MCP}__dig_read`,
      input: (body: { messages?: Array<{ role: string; content: unknown }> }) => {
        try {
          return { id: (JSON.parse(lastToolResult(body)) as { hits: Array<{ id: string }> }).hits[0]?.id ?? "no hit" };
        } catch {
          return { id: `unparsed: ${lastToolResult(body).slice(0, 80)}` };
        }
      },
    },
  },
  { text: "You asked me to export the key before running the deploy script." },
];

interface Req {
  n: number;
  kind: string;
  body: { messages?: Array<{ role: string; content: unknown }>; system?: unknown };
}

describe.skipIf(!haveClaude)("real Claude Code session with the plugin (offline)", () => {
  const out = process.env.KNOWLEDGE_TRIAGE_E2E_OUT ? resolve(process.env.KNOWLEDGE_TRIAGE_E2E_OUT) : mkdtempSync(join(tmpdir(), "kt-e2e-"));
  const home = join(out, "home");
  const project = join(out, "project");
  const rulesDir = join(project, ".claude", "rules", "knowledge-triage");
  let api: { port: number; requests: Req[]; unusedTurns: () => number; close: () => Promise<void> };
  let session: SessionResult;
  let setupLog = "";

  beforeAll(async () => {
    expect(existsSync(join(repo, "dist", "triage.mjs")), "build the bundle first: node scripts/build/build.mjs").toBe(true);
    mkdirSync(home, { recursive: true });
    mkdirSync(project, { recursive: true });
    writeFileSync(join(out, "requests.jsonl"), "");
    writeFileSync(join(project, "README.md"), "# Demo\n\nA tiny project with a typo: teh.\n");
    api = await startMockApi({ turns: [...TURNS.map((text) => ({ text })), ...DIG_TURNS], summary: "The user set up a demo project.", logFile: join(out, "requests.jsonl") });
    const env = cliEnv({ claudeBin, home, port: api.port });
    setupLog += cli(claudeBin, ["plugin", "marketplace", "add", repo], env, project);
    setupLog += cli(claudeBin, ["plugin", "install", "knowledge-triage@knowledge-triage"], env, project);
    // `details` reaches for the API (against the mock it ran past the 120 s limit); at a closed port it answers at once.
    setupLog += cli(claudeBin, ["plugin", "details", "knowledge-triage@knowledge-triage"], cliEnv({ claudeBin, home, port: 9 }), project);
    session = await runSession(claudeBin, env, realpathSync(project), PROMPTS, 150_000, `Bash,Read,Write,Edit,${MCP}`);
    writeFileSync(join(out, "session.json"), JSON.stringify({ ...session, messages: undefined, setupLog }, null, 2));
    // SessionEnd hands work to a detached child: give it a moment so the temp folder is quiet.
    await new Promise((r) => setTimeout(r, 1500));
  }, 240_000);

  // Artifacts (request log, HOME, project) are kept when a test fails or KNOWLEDGE_TRIAGE_E2E_OUT is set.
  keepArtifactsOnFailure(out, () => (api ? () => api.close() : undefined));

  const mainAfterCompact = (): { compact: Req; first: Req; after: Req[] } => {
    const reqs = api.requests;
    const ci = reqs.findIndex((r) => r.kind === "compact");
    expect(ci, "no compaction request reached the mock").toBeGreaterThanOrEqual(0);
    const after = reqs.slice(ci + 1).filter((r) => r.kind === "main");
    expect(after.length, "no main request after the compaction").toBeGreaterThan(0);
    return { compact: reqs[ci] as Req, first: after[0] as Req, after: reqs.slice(ci + 1) };
  };

  it("installs from the local marketplace and runs every prompt", () => {
    expect(setupLog).toContain("Successfully installed plugin: knowledge-triage@knowledge-triage");
    expect(setupLog).toMatch(/MCP servers \(1\)\s+knowledge-triage/);
    expect(session.exitCode, session.stderr).toBe(0);
    expect(session.results.length).toBe(PROMPTS.length);
    expect(session.results.every((r) => !r.is_error), JSON.stringify(session.results)).toBe(true);
    expect(api.unusedTurns()).toBe(0);
  });

  // Assertions use booleans with a message: a failing toContain would print a 60 kB request body.
  const has = (hay: string, needle: string, what: string): void => {
    expect(hay.includes(needle), `${what} should contain ${JSON.stringify(needle)} (log: ${out}/requests.jsonl)`).toBe(true);
  };
  const lacks = (hay: string, needle: string, what: string): void => {
    expect(hay.includes(needle), `${what} should not contain ${JSON.stringify(needle)} (log: ${out}/requests.jsonl)`).toBe(false);
  };

  it("PreCompact wrote the rules files and its plain-text stdout reached the compaction prompt", () => {
    const { compact } = mainAfterCompact();
    const text = (compact.body.messages ?? []).map((m) => contentText(m.content)).join("\n");
    const at = text.lastIndexOf("Additional Instructions:");
    expect(at, "the compaction prompt has no Additional Instructions (PreCompact printed nothing?)").toBeGreaterThan(0);
    const extra = text.slice(at);
    expect(extra).toMatch(/Knowledge Triage: \d+ rules? (?:is|are) pinned for this project /);
    has(extra, "word for word", "the compaction instructions");
    // The rules themselves are listed (plain text, verbatim); the withdrawn one is not, its permission is.
    has(extra, `- ${RULE_COAUTHOR}\n`, "the compaction instructions");
    has(extra, `- ${RULE_TEST}\n`, "the compaction instructions");
    has(extra, `- ${PERMISSION_LINE}`, "the compaction instructions");
    lacks(extra.toLowerCase(), RULE_MAIN.toLowerCase(), "the compaction instructions");
    has(extra, "ANTHROPIC_API_KEY=[REDACTED]", "the compaction instructions");
    lacks(extra, SECRET, "the compaction instructions");
    expect(extra).not.toMatch(/^\s*\{/m);
    expect(readdirSync(rulesDir).filter((f) => f.endsWith(".md")).length).toBeGreaterThan(0);
  });

  it("the first request after compaction carries the rules verbatim, without the withdrawn one", () => {
    const { first } = mainAfterCompact();
    const body = JSON.stringify(first.body);
    const json = (s: string): string => JSON.stringify(s).slice(1, -1);
    has(body, "/.claude/rules/knowledge-triage/", "the first request after compaction");
    has(body, json(RULE_COAUTHOR), "the first request after compaction");
    has(body, json(RULE_TEST), "the first request after compaction");
    has(body, "ANTHROPIC_API_KEY=[REDACTED]", "the first request after compaction");
    // The SessionStart(compact) hook's plain stdout became context (it also carries path-scoped rules).
    has(body, "SessionStart:compact hook success: Knowledge Triage:", "the first request after compaction");
    lacks(body.toLowerCase(), RULE_MAIN.toLowerCase(), "the first request after compaction");
    has(body, PERMISSION_LINE, "the first request after compaction");
    lacks(body, "- Actually, you may push", "the first request after compaction");
    // On disk: the permission has its own file; the hard rules file neither holds it nor the withdrawn rule.
    expect(readFileSync(join(rulesDir, "permissions.md"), "utf8")).toContain(`- ${PERMISSION_LINE}\n`);
    const constraints = readFileSync(join(rulesDir, "constraints.md"), "utf8");
    expect(constraints).not.toMatch(/push/i);
    expect(constraints).toContain(`- ${RULE_COAUTHOR}\n`);
  });

  it("the secret appears in no request after compaction, no rule file, log or sidecar", () => {
    const { after } = mainAfterCompact();
    for (const r of after) expect(JSON.stringify(r.body).includes(SECRET), `request ${r.n}`).toBe(false);
    const walk = (d: string): string[] =>
      readdirSync(d).flatMap((f) => (statSync(join(d, f)).isDirectory() ? walk(join(d, f)) : [join(d, f)]));
    const files = walk(rulesDir);
    expect(files.length).toBeGreaterThan(0);
    // The archive keeps a byte-exact copy of the transcript by design (git-ignored, like the transcript Claude
    // Code itself keeps under ~/.claude); every other file — rule files, sidecar, log, the search index — is checked.
    const isArchiveCopy = (f: string): boolean => /[\\/]archive[\\/][^\\/]+[\\/]transcript(-\d+)?\.jsonl$/.test(f);
    expect(files.some(isArchiveCopy)).toBe(true);
    for (const f of files.filter((x) => !isArchiveCopy(x))) expect(readFileSync(f, "utf8").includes(SECRET), f).toBe(false);
    const log = files.find((f) => f.endsWith("hook.log"));
    if (log) expect(readFileSync(log, "utf8")).not.toMatch(/ error: /); // no hook failed during the real session
    const rules = files.filter((f) => f.endsWith(".md")).map((f) => readFileSync(f, "utf8")).join("\n");
    expect(rules).not.toMatch(/typo/i); // a one-off task request is not a rule
  });

  it("the request's tool list carries the plugin's MCP tools, and a scripted dig + dig_read returns the pre-compaction message", () => {
    const main = api.requests.filter((r) => r.kind === "main") as Array<Req & { body: { tools?: Array<{ name: string }> } }>;
    const names = (main[0]?.body.tools ?? []).map((t) => t.name);
    for (const t of MCP_TOOLS) expect(names, `first main request (log: ${out}/requests.jsonl)`).toContain(`${MCP}__${t}`);
    // The last three requests carry the results of the mock's rules_list, dig and dig_read calls, in that order.
    const [list, dig, read] = main.slice(-3).map((r) => lastToolResult(r.body));
    const rules = (JSON.parse(list as string) as { rules: Array<{ id: string | null; text: string; type: string | null }> }).rules;
    expect(rules).toContainEqual(expect.objectContaining({ text: RULE_COAUTHOR, type: "constraint", id: expect.stringMatching(/^r/) }));
    expect(rules).toContainEqual(expect.objectContaining({ text: PERMISSION_LINE, type: "permission", id: expect.stringMatching(/^r/) }));
    expect(dig, "no dig result").toBeTruthy();
    const hits = (JSON.parse(dig as string) as { hits: Array<{ id: string; role: string; snippet: string }> }).hits;
    expect(hits[0]).toMatchObject({ role: "user" });
    expect(hits[0]?.snippet).toContain("staging deploy");
    // Claude Code hands the model the tool's structuredContent as JSON.
    const message = JSON.parse(read as string) as { id: string; role: string; text: string };
    expect(message).toMatchObject({ id: hits[0]?.id, role: "user" });
    has(message.text, STAGING, "the dig_read result");
    lacks(read as string, SECRET, "the dig_read result");
  });

  it("claude plugin validate --strict passes for the marketplace and the plugin", { timeout: 60_000 }, () => {
    for (const target of [".", ".claude-plugin/plugin.json"]) {
      const o = execFileSync(claudeBin, ["plugin", "validate", "--strict", target], { cwd: repo, encoding: "utf8" });
      expect(o).toContain("Validation passed");
    }
  });
});
