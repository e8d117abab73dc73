import { existsSync, statSync } from "node:fs";
import type { Command } from "commander";
import { UsageError } from "../../errors.js";
import { EXPORT_FORMATS, exportRules, planExportChecked, skippedWarnings, type ExportFormat } from "../../memory/store/export-rules.js";
import { readRuleFiles } from "../../memory/store/pinned-rules.js";
import { stderrLine, writeStdout } from "../../io/text-io.js";
import { visible, visibleName } from "../../terminal.js";
import { rulesDirFrom } from "../../io/project-folders.js";

/** `triage export --format cursor|copilot|windsurf|agents|gemini [--rules-dir DIR] [--out DIR] [--stdout]`. */
export function registerExport(program: Command): void {
  program
    .command("export")
    .description("write the pinned rules in another agent's native file (Cursor .mdc, Copilot instructions, Windsurf rules, AGENTS.md, GEMINI.md)")
    .requiredOption("--format <format>", EXPORT_FORMATS.join("|"))
    .option("--rules-dir <dir>", "rules folder (default: .claude/rules/knowledge-triage of the project: the nearest folder up to the git root that has one, else the git root, else here; never $HOME or /)")
    .option("--out <dir>", "project root to write into (default: current directory)")
    .option("--stdout", "print the files instead of writing them")
    .option("--force", "replace or remove exported files even when they were edited since the last export")
    .action((opts: { format: string; rulesDir?: string; out?: string; stdout?: boolean; force?: boolean }) => {
      if (opts.stdout && opts.out !== undefined) throw new UsageError("give either --out DIR or --stdout, not both");
      if (!(EXPORT_FORMATS as readonly string[]).includes(opts.format)) throw new UsageError(`--format must be one of ${EXPORT_FORMATS.join(", ")}`);
      const format = opts.format as ExportFormat;
      const rulesDir = rulesDirFrom(opts.rulesDir, process.cwd());
      // A missing rules folder is a mistake (a typo), not "no rules": exporting from it would remove
      // the previously exported files.
      if (!existsSync(rulesDir) || !statSync(rulesDir).isDirectory()) throw new UsageError(`no rules folder at ${rulesDir}`);
      if (opts.stdout) {
        const skipped: Array<{ name: string; why: string }> = [];
        const plan = planExportChecked(format, readRuleFiles(rulesDir, skipped));
        for (const w of [...skippedWarnings(skipped), ...plan.warnings]) stderrLine(w);
        for (const f of plan.files) writeStdout(`==> ${f.path}${f.block ? " (managed block)" : ""}\n${f.content}\n`);
        return;
      }
      const r = exportRules(rulesDir, opts.out ?? process.cwd(), format, { force: opts.force });
      if (r.rules === 0) stderrLine(`no rules in ${rulesDir}`);
      for (const w of r.warnings) stderrLine(w);
      for (const f of r.files) {
        const real = r.links[f];
        writeStdout(real === undefined ? `wrote ${visibleName(f)}\n` : `wrote ${visibleName(real)} (through the link ${visibleName(f)})\n`);
      }
      for (const f of r.removed) writeStdout(`removed ${visible(f)}\n`);
    });
}
