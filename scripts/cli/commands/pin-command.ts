import type { Command } from "commander";
import { UsageError } from "../../errors.js";
import { loadClassifier } from "../../io/model-file.js";
import { stderrLine, writeStdout } from "../../io/text-io.js";
import { visible } from "../../terminal.js";
import { lazyClassifier } from "../../memory/pipeline/extract-api.js";
import { rulesDirFrom } from "../../io/project-folders.js";

/** `triage pin "<text>" [--type constraint|procedural] [--paths GLOB...] --rules-dir DIR [--json]`. */
export function registerPin(program: Command): void {
  program
    .command("pin")
    .description("add a rule verbatim to the rules folder (path-scoped with --paths); idempotent")
    .argument("<text>", "the rule, word for word")
    .option("--type <type>", "constraint or procedural (default: classifier decides)")
    .option("--paths <globs...>", "path globs the rule applies to (one rule file per glob)")
    .option("--rules-dir <dir>", "rules folder (default: .claude/rules/knowledge-triage of the project: the nearest folder up to the git root that has one, else the git root, else here; never $HOME or /)")
    .option("--model <path>", "classifier model (default: bundled; /dev/null = regex tier)")
    .option("--json", "print the result as JSON")
    .action(async (text: string, _o: unknown, cmd: Command) => {
      // optsWithGlobals: a program-level --model (cli.ts) would otherwise swallow ours.
      const opts = cmd.optsWithGlobals<{ type?: string; paths?: string[]; rulesDir?: string; model?: string; json?: boolean }>();
      if (opts.type && opts.type !== "constraint" && opts.type !== "procedural") throw new UsageError(`--type must be constraint or procedural, not "${opts.type}"`);
      const { pinRule } = await import("../../memory/store/pin-rule.js");
      const r = await pinRule({
        text,
        rulesDir: rulesDirFrom(opts.rulesDir, process.cwd()),
        type: opts.type as "constraint" | "procedural" | undefined,
        paths: opts.paths,
        classifier: lazyClassifier(() => loadClassifier(opts.model)),
      });
      for (const w of r.warnings) stderrLine(w);
      if (opts.json) {
        writeStdout(`${JSON.stringify(r)}\n`);
        return;
      }
      const scope = r.globs.length ? ` (paths: ${r.globs.join(", ")})` : "";
      // visible(): the echo shows the rule; the rule file keeps its exact bytes.
      writeStdout(`${r.status === "added" ? "pinned" : r.status === "reactivated" ? "pinned again (was retired)" : "already pinned"}: ${visible(r.text + scope)}\n`);
    });
}
