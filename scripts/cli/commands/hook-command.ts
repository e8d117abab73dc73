import type { Command } from "commander";
import { runHook } from "../../hooks/dispatch.js";

/**
 * `triage hook <event>`: the Claude Code hook entry (hooks/hooks.json and install.sh point here).
 * Events: pre-compact, session-start, session-end (Claude Code's PreCompact, SessionStart, SessionEnd too). Reads the payload from stdin; always exits 0.
 */
export function registerHook(program: Command): void {
  program
    .command("hook")
    .description("run a Claude Code hook (pre-compact | session-start | session-end, or PreCompact | SessionStart | SessionEnd); payload on stdin, always exits 0")
    .argument("[event]", "pre-compact | session-start | session-end (or Claude Code's PreCompact | SessionStart | SessionEnd)", "")
    .allowUnknownOption(true)
    .allowExcessArguments(true)
    .action(async (event: string) => {
      await runHook(event);
    });
}
