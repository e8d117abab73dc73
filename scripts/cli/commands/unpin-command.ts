import type { Command } from "commander";
import { stderrLine, writeStdout } from "../../io/text-io.js";
import { visible } from "../../terminal.js";
import { rulesDirFrom } from "../../io/project-folders.js";

/** `triage unpin "<text or id>" [--rules-dir DIR] [--json]`: retire one pinned rule (recorded in the sidecar store). */
export function registerUnpin(program: Command): void {
  program
    .command("unpin")
    .description("remove a pinned rule by its text or id (kept as retired in the sidecar store)")
    .argument("<rule>", "the rule's id, its text, or a part of its text that matches one rule")
    .option("--rules-dir <dir>", "rules folder (default: .claude/rules/knowledge-triage of the project: the nearest folder up to the git root that has one, else the git root, else here; never $HOME or /)")
    .option("--json", "print the result as JSON")
    .action(async (query: string, opts: { rulesDir?: string; json?: boolean }) => {
      const { unpinRule } = await import("../../memory/store/pin-rule.js");
      const r = await unpinRule({ query, rulesDir: rulesDirFrom(opts.rulesDir, process.cwd()) });
      for (const w of r.warnings) stderrLine(w);
      if (opts.json) {
        writeStdout(`${JSON.stringify(r)}\n`);
        return;
      }
      for (const x of r.retired) writeStdout(`unpinned ${x.id}: ${visible(x.text)}\n`);
    });
}
