/**
 * `triage mcp` started with the filesystem root or the home folder as its project (Claude Code run there) still
 * answers the read tools, but pin and unpin write nothing (found by the second fresh-user pass: pin wrote
 * /.claude/rules/knowledge-triage/constraints.md). The tools are called as the server calls them (scripts/mcp/tools.ts).
 */
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { regexClassifier } from "../../scripts/engine/classify.js";
import { TOOLS, type ToolContext } from "../../scripts/mcp/tools.js";

const tool = (name: string) => {
  const t = TOOLS.find((x) => x.name === name);
  if (!t) throw new Error(`no tool ${name}`);
  return t;
};

describe("MCP tools in a folder that is not a project", () => {
  it("pin and unpin refuse and write nothing; rules_list still answers", async () => {
    const project = mkdtempSync(join(tmpdir(), "kt-mcp-home-"));
    const rulesDir = join(project, ".claude", "rules", "knowledge-triage");
    const ctx: ToolContext = { projectDir: project, rulesDir, classifier: () => regexClassifier, noWrites: "the home folder" };
    await expect(tool("pin").run(ctx, { text: "Never push to main." } as never)).rejects.toThrow(/nothing written: .* is the home folder/);
    await expect(tool("unpin").run(ctx, { rule: "push" } as never)).rejects.toThrow(/nothing written/);
    expect(existsSync(join(project, ".claude"))).toBe(false);
    const list = await tool("rules_list").run(ctx, {} as never);
    expect(list.text).toMatch(/no rule is pinned/);
    // The same context without the refusal writes the rule.
    await tool("pin").run({ ...ctx, noWrites: undefined }, { text: "Never push to main." } as never);
    expect(existsSync(join(rulesDir, "constraints.md"))).toBe(true);
  });
});
