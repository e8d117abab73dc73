/**
 * `triage mcp` as Claude Code runs it: the BUILT bundle spawned over stdio and driven by the official SDK's Client.
 * A temp project holds a CLAUDE.md, a path-scoped rule file, and an archive of a real-CLI session
 * (data/sessions/s1-en-payments). Every tool is called; bad input comes back as a tool error and the server lives on.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { archiveTranscript } from "../../scripts/memory/archive/archive.js";
import { childEnv } from "../cli/helpers.js";

const repo = resolve(import.meta.dirname, "..", "..");
const bundle = process.env.KNOWLEDGE_TRIAGE_BUNDLE ?? join(repo, "dist", "triage.mjs");
const session = join(repo, "data", "sessions", "s1-en-payments", "transcript.jsonl");

const CLAUDE_MD = `# Payments service

## Testing
- Always run \`npm test\` before you commit.
- The suite uses vitest with a fake clock.

## Billing
- Never retry a failed charge automatically.
- Refunds are processed by the refund worker every hour.
`;
const WEB_RULE = "Use the design-system Button, never a raw <button>.";

interface Result {
  content: Array<{ type: string; text?: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

describe("triage mcp (bundled server over stdio)", () => {
  const root = mkdtempSync(join(tmpdir(), "kt-mcp-"));
  const project = join(root, "payments");
  const rulesDir = join(project, ".claude", "rules", "knowledge-triage");
  let client: Client;
  let stderr = "";

  const call = async (name: string, args: Record<string, unknown> = {}): Promise<Result> => (await client.callTool({ name, arguments: args })) as Result;
  const text = (r: Result): string => r.content.map((c) => c.text ?? "").join("\n");

  beforeAll(async () => {
    mkdirSync(join(project, ".claude", "rules"), { recursive: true });
    writeFileSync(join(project, "CLAUDE.md"), CLAUDE_MD);
    writeFileSync(join(project, ".claude", "rules", "web.md"), `---\npaths:\n  - "src/web/**/*.tsx"\n---\n\n- ${WEB_RULE}\n`);
    await archiveTranscript({ transcriptPath: session, rulesDir, sessionId: "5a1e-payments" });
    // The server is started in the project folder with no CLAUDE_PROJECT_DIR, as a plugin server is.
    const transport = new StdioClientTransport({ command: process.execPath, args: [bundle, "mcp"], cwd: project, env: childEnv(), stderr: "pipe" });
    transport.stderr?.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    client = new Client({ name: "kt-test", version: "0.0.0" });
    await client.connect(transport);
  }, 60_000);

  afterAll(async () => {
    await client?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it("lists the six tools, each with an input and an output schema", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(["rules_list", "retrieve", "pin", "unpin", "dig", "dig_read"]);
    for (const t of tools) {
      expect(t.description?.length, t.name).toBeGreaterThan(40);
      expect(t.inputSchema.type).toBe("object");
      expect(t.outputSchema?.type, t.name).toBe("object");
    }
    expect(tools.find((t) => t.name === "dig")?.inputSchema.required).toEqual(["query"]);
  });

  it("rules_list says so when nothing is pinned; pin adds a rule verbatim (once) and rules_list shows it with its id", async () => {
    const empty = await call("rules_list");
    expect(empty.isError).toBeFalsy();
    expect(empty.structuredContent).toEqual({ rulesDir, rules: [] });
    expect(text(empty)).toBe(`no rule is pinned in ${rulesDir}`);

    const p = await call("pin", { text: "Never push directly to main." });
    expect(p.isError, text(p)).toBeFalsy();
    const id = p.structuredContent?.id as string;
    expect(p.structuredContent).toMatchObject({ status: "added", text: "Never push directly to main.", globs: [] });
    expect(text(p)).toBe(`pinned [id ${id}]: Never push directly to main.`);
    expect(readFileSync(join(rulesDir, "constraints.md"), "utf8")).toContain("- Never push directly to main.\n");
    expect((await call("pin", { text: "never push directly to main." })).structuredContent).toMatchObject({ status: "exists", id });

    const scoped = await call("pin", { text: "Validate every request body with zod.", paths: ["src/api/**/*.ts"], type: "procedural" });
    expect(scoped.structuredContent).toMatchObject({ status: "added", globs: ["src/api/**/*.ts"] });

    const list = await call("rules_list");
    const rules = list.structuredContent?.rules as Array<{ id: string | null; text: string; globs: string[] }>;
    expect(rules).toContainEqual(expect.objectContaining({ id, text: "Never push directly to main.", globs: [] }));
    expect(rules).toContainEqual(expect.objectContaining({ id: scoped.structuredContent?.id, text: "Validate every request body with zod.", globs: ["src/api/**/*.ts"] }));
    expect(text(list)).toContain(`- Validate every request body with zod. (paths: src/api/**/*.ts) [id ${scoped.structuredContent?.id}]`);
  });

  it("retrieve reads CLAUDE.md and .claude/rules: the rules in scope for the path and the topic first", async () => {
    const r = await call("retrieve", { query: "retry the failed charge in billing", path: "src/web/Checkout.tsx", k: 5 });
    expect(r.isError, text(r)).toBeFalsy();
    const s = r.structuredContent as { files: number; inScope: number; hits: Array<{ file: string; text: string; inScope: boolean; why: string | null }> };
    // CLAUDE.md, .claude/rules/web.md and the two rule files pin wrote.
    expect(s.files).toBe(4);
    const web = s.hits.find((h) => h.text.includes(WEB_RULE));
    expect(web).toMatchObject({ file: join(".claude", "rules", "web.md"), inScope: true });
    expect(web?.why).toMatch(/path/);
    const billing = s.hits.find((h) => h.text.includes("Never retry a failed charge automatically."));
    expect(billing).toMatchObject({ file: "CLAUDE.md", inScope: true });
    // The pinned unscoped rule is global; the api-scoped one is not in scope for a web file.
    expect(s.hits.some((h) => h.text.includes("Never push directly to main.") && h.inScope)).toBe(true);
    expect(s.hits.some((h) => h.text.includes("Validate every request body") && h.inScope)).toBe(false);
    expect(text(r)).toContain("CLAUDE.md:");

    // An absolute path (as Claude Code's Read and Edit give) selects the same path-scoped rule.
    const abs = await call("retrieve", { query: "checkout page", path: join(project, "src", "web", "Checkout.tsx") });
    expect(((abs.structuredContent ?? {}).hits as Array<{ text: string; why: string | null }>).find((h) => h.text.includes(WEB_RULE))?.why).toMatch(/path/);

    const none = await call("retrieve", { query: "kubernetes helm chart" });
    expect(none.isError).toBeFalsy();
    // Nothing matches: only the global rule is returned; the HTML comment heading our rule files (which Claude Code
    // strips) is not a rule, and the CLAUDE.md rules live under topics the query does not touch.
    expect(none.structuredContent).toMatchObject({ inScope: 1, hits: [{ file: join(".claude", "rules", "knowledge-triage", "constraints.md"), inScope: true, why: "global rule", text: "- Never push directly to main." }] });
  });

  it("unpin retires a rule by id; the file drops it; a second unpin is a tool error naming the rule", async () => {
    const list = (await call("rules_list")).structuredContent?.rules as Array<{ id: string; text: string }>;
    const id = list.find((r) => r.text === "Never push directly to main.")?.id as string;
    const u = await call("unpin", { rule: id });
    expect(u.isError, text(u)).toBeFalsy();
    expect(u.structuredContent?.retired).toEqual([{ id, text: "Never push directly to main." }]);
    // Its file held only this rule: it is removed, so Claude Code loads the rule no more.
    expect(existsSync(join(rulesDir, "constraints.md"))).toBe(false);
    const again = await call("unpin", { rule: id });
    expect(again.isError).toBe(true);
    expect(text(again)).toMatch(new RegExp(`^triage: unpin: no pinned rule matches "${id}"(; pinned: .*)?$`));
    const sidecar = JSON.parse(readFileSync(join(rulesDir, ".state", "rules.json"), "utf8")) as { rules: Array<{ id: string; status: string; retiredReason?: string }> };
    expect(sidecar.rules.find((r) => r.id === id)).toMatchObject({ status: "retired", retiredReason: "unpinned" });
  });

  it("dig finds an earlier user message in the archive and dig_read returns it whole", async () => {
    const d = await call("dig", { query: "release train ad-hoc pushes", k: 3 });
    expect(d.isError, text(d)).toBeFalsy();
    const s = d.structuredContent as { messages: number; hits: Array<{ id: string; role: string; snippet: string }> };
    expect(s.messages).toBeGreaterThan(20);
    expect(s.hits.length).toBeGreaterThan(0);
    expect(s.hits.length).toBeLessThanOrEqual(3);
    const top = s.hits[0] as { id: string; role: string; snippet: string };
    expect(top.role).toBe("user");
    expect(top.snippet).toContain("release train");
    expect(text(d)).toContain(top.id);

    const r = await call("dig_read", { id: top.id });
    expect(r.isError, text(r)).toBeFalsy();
    expect(r.structuredContent).toMatchObject({ id: top.id, session: "5a1e-payments", role: "user" });
    expect(r.structuredContent?.text).toContain("Prod deploys go through the release train, not ad-hoc pushes. Every schema change goes through a migration file in migrations/.");
  });

  it("a dig after a hook archived another session finds it without restarting the server", async () => {
    expect((((await call("dig", { query: "回填" })).structuredContent ?? {}).hits as unknown[]).length).toBe(0);
    await archiveTranscript({ transcriptPath: join(repo, "data", "sessions", "s2-zh-etl", "transcript.jsonl"), rulesDir, sessionId: "7c2d-etl" });
    const d = await call("dig", { query: "回填", k: 2 });
    const hits = d.structuredContent?.hits as Array<{ session: string }>;
    expect(hits.length).toBeGreaterThan(0);
    expect(hits.every((h) => h.session === "7c2d-etl")).toBe(true);
  });

  it.each([
    ["dig", {}, /Input validation error: .*query/],
    ["dig", { query: "x", k: 0 }, /Input validation error: .*k/],
    ["dig_read", { id: "5a1e-pay:999999999" }, /^triage: no archived message with id "5a1e-pay:999999999"/],
    ["retrieve", { query: "   " }, /Input validation error: .*query/],
    ["pin", { text: "Use tabs.", type: "belief" }, /Input validation error: .*type/],
    ["pin", { text: "Use tabs.", paths: ["/"] }, /^triage: pin: "\/" is an absolute path; paths are relative to the project root/],
    ["unpin", { rule: "no such rule anywhere" }, /^triage: unpin: no pinned rule matches/],
    ["no_such_tool", {}, /Tool no_such_tool not found/],
  ])("%s %j is a tool error, and the server keeps serving", async (name, args, message) => {
    const r = await call(name, args);
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(message);
    expect((await client.listTools()).tools.length).toBe(6);
  });

  it("printed nothing but JSON-RPC on stdout and no error on stderr", () => {
    // A stray stdout line would have failed the client's parse; stderr stays quiet for a healthy session.
    expect(stderr).toBe("");
  });
});
