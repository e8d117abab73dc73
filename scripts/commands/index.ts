import type { Command } from "commander";
import { registerClassify } from "./classify.js";

/** Register every subcommand on the program. One line per command file. */
export function registerCommands(program: Command): void {
  registerClassify(program);
}
