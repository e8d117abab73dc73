import type { Command } from "commander";
import { resolve } from "node:path";
import { loadClassifier } from "../../io/model-file.js";
import { defaultRulesDir } from "../../paths.js";
import { existingFolder, notAProjectFolder, rulesDirFrom } from "../../io/project-folders.js";

/**
 * `triage mcp [--project-dir DIR] [--rules-dir DIR] [--model PATH]`: the MCP server on stdio (scripts/mcp/). The
 * project folder defaults to $CLAUDE_PROJECT_DIR, else the working folder (Claude Code starts a plugin's server there).
 */
export function registerMcp(program: Command): void {
  program
    .command("mcp")
    .description("MCP server on stdio: rules_list, retrieve, pin, unpin, dig, dig_read")
    .option("--project-dir <dir>", "project folder (default: $CLAUDE_PROJECT_DIR, else the working folder)")
    .option("--rules-dir <dir>", "rules folder (default: <project>/.claude/rules/knowledge-triage)")
    .option("--model <path>", "classifier model (default: bundled model/model.json; /dev/null = regex tier)")
    .action(async (_o: unknown, cmd: Command) => {
      // optsWithGlobals: a program-level --model (cli.ts) would otherwise swallow ours.
      const opts = cmd.optsWithGlobals<{ projectDir?: string; rulesDir?: string; model?: string }>();
      // Refused at start like --project-dir: a missing $CLAUDE_PROJECT_DIR must not get a .claude/ tree on the first pin.
      const env = process.env.CLAUDE_PROJECT_DIR;
      const projectDir = resolve(opts.projectDir !== undefined ? existingFolder(opts.projectDir, "--project-dir") : env ? existingFolder(env, "CLAUDE_PROJECT_DIR") : process.cwd());
      const rulesDir = resolve(opts.rulesDir === undefined ? defaultRulesDir(projectDir) : rulesDirFrom(opts.rulesDir, projectDir));
      let classifier: ReturnType<typeof loadClassifier> | undefined;
      // The server is dist/mcp.mjs beside the bundle (scripts/build/build.mjs: kept out of dist/triage.mjs so its
      // MCP SDK costs the other commands no parse time); under tsx, the TypeScript source. Not a literal: esbuild
      // must not bundle it.
      const entry = import.meta.url.endsWith(".ts") ? "../../mcp/server.js" : "./mcp.mjs";
      const { serveStdio } = (await import(entry)) as typeof import("../../mcp/server.js");
      // The server still starts in / or the home folder (its read tools work), but pin and unpin refuse: as the hooks and
      // the CLI, it never writes a rules folder there unless --rules-dir names one.
      const noWrites = opts.rulesDir === undefined ? notAProjectFolder(projectDir) : undefined;
      await serveStdio({ projectDir, rulesDir, classifier: () => (classifier ??= loadClassifier(opts.model)), noWrites });
    });
}
