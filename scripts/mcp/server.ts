/**
 * `triage mcp`: a Model Context Protocol server on stdio (the official TypeScript SDK, bundled) with the tools of
 * tools.ts. Built as its own file, dist/mcp.mjs, which only that command loads (cli/commands/mcp-command.ts), so the
 * SDK costs the other commands nothing. Stdout carries JSON-RPC only; nothing else here writes to it.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { Readable, Writable } from "node:stream";
import { TriageError } from "../errors.js";
import { TOOLS, type ToolContext } from "./tools.js";

/** Server name and version announced at initialisation (the version of cli.ts). */
export const SERVER_INFO = { name: "knowledge-triage", version: "0.1.0" } as const;

/**
 * An MCP server with every tool registered. A tool's answer is one text block (short, for the model) plus the same
 * answer as structuredContent, checked against the tool's output schema. A TriageError (bad input the engine found,
 * such as an unknown id) becomes a tool error `triage: <message>`; input the zod schema rejects is a tool error from
 * the SDK; neither stops the server.
 */
export function createMcpServer(ctx: ToolContext): McpServer {
  const server = new McpServer(SERVER_INFO, { capabilities: { tools: {} } });
  for (const t of TOOLS) {
    server.registerTool(t.name, { description: t.description, inputSchema: t.input, outputSchema: t.output }, async (args: Record<string, unknown>) => {
      try {
        const a = await t.run(ctx, args as never);
        return { content: [{ type: "text" as const, text: a.text }], structuredContent: a.data };
      } catch (e) {
        if (!(e instanceof TriageError)) throw e;
        return { content: [{ type: "text" as const, text: `triage: ${e.message}` }], isError: true };
      }
    });
  }
  return server;
}

/** Serve `ctx` on stdin/stdout (or the given streams) until the input closes. */
export async function serveStdio(ctx: ToolContext, io: { stdin?: Readable; stdout?: Writable } = {}): Promise<void> {
  const server = createMcpServer(ctx);
  const transport = new StdioServerTransport(io.stdin, io.stdout);
  await server.connect(transport);
}
