import type { Command } from "commander";
import { writeStdout } from "../../io/text-io.js";
import { visible } from "../../terminal.js";
import { rulesDirFrom } from "../../io/project-folders.js";

/** `triage status [--rules-dir DIR] [--json]`: see scripts/memory/store/status-report.ts. */
export function registerStatus(program: Command): void {
  program
    .command("status")
    .description("rules by file, type and scope; retired, expired and pending counts; the last hook-log entries (null/never when never measured)")
    .option("--rules-dir <dir>", "rules folder (default: .claude/rules/knowledge-triage of the project: the nearest folder up to the git root that has one, else the git root, else here; never $HOME or /)")
    .option("--json", "print the status as JSON (null where never measured)")
    .action(async (opts: { rulesDir?: string; json?: boolean }) => {
      const { collectStatus, renderStatus } = await import("../../memory/store/status-report.js");
      const s = collectStatus(rulesDirFrom(opts.rulesDir, process.cwd()));
      writeStdout(opts.json ? `${JSON.stringify(s)}\n` : visible(renderStatus(s)));
    });
}
