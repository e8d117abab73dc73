import type { Command } from "commander";
import { registerClassify } from "./classify.js";
import { registerExtract } from "./extract.js";
import { registerExport } from "./export.js";
import { registerPin } from "./pin.js";
import { registerHook } from "./hook.js";
import { registerEval } from "./eval.js";
import { registerLabel } from "./label.js";
import { registerTrain } from "./train.js";
import { registerCompact } from "./compact.js";
import { registerDecompose } from "./decompose.js";
import { registerRetrieve } from "./retrieve.js";

/** Register every subcommand on the program. One line per command file. */
export function registerCommands(program: Command): void {
  registerClassify(program);
  registerExtract(program);
  registerExport(program);
  registerPin(program);
  registerHook(program);
  registerTrain(program);
  registerEval(program);
  registerLabel(program);
  registerCompact(program);
  registerDecompose(program);
  registerRetrieve(program);
}
