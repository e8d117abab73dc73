import { existsSync } from "node:fs";
import type { Command } from "commander";
import { TriageError } from "../../errors.js";
import { writeStdout } from "../../io/text-io.js";
import { visible } from "../../terminal.js";
import { notAProjectFolder, projectDirFrom, rulesDirFrom } from "../../io/project-folders.js";

/** `triage doctor [--rules-dir DIR] [--json]`: wiring and lint (scripts/cli/doctor.ts); exit 3 when it finds a problem. */
export function registerDoctor(program: Command): void {
  program
    .command("doctor")
    .description("check the hooks, the bundle and Node, and lint the rule files against what Claude Code and the other agents load; exit 3 on a problem")
    .option("--rules-dir <dir>", "rules folder (default: .claude/rules/knowledge-triage of the project: the nearest folder up to the git root that has one, else the git root, else here; never $HOME or /)")
    .option("--json", "print the findings as JSON")
    .action(async (opts: { rulesDir?: string; json?: boolean }) => {
      const { checkWiring, lintProject } = await import("../doctor.js");
      const rulesDir = rulesDirFrom(opts.rulesDir, process.cwd());
      // With --rules-dir, doctor also runs from the home folder (user-level rules); the wiring is then read there.
      const project = opts.rulesDir === undefined || notAProjectFolder(process.cwd()) === undefined ? projectDirFrom(process.cwd()) : process.cwd();
      // A rules folder named on the command line that is not there is a finding (a mistyped path lints as empty otherwise).
      const missing = opts.rulesDir !== undefined && !existsSync(rulesDir) ? [{ ok: false, file: rulesDir, message: "no such folder (--rules-dir)" }] : [];
      const findings = [...checkWiring(project), ...missing, ...lintProject(rulesDir, project).map((p) => ({ ok: false, file: p.file, message: `${p.code}: ${p.message}` }))];
      const problems = findings.filter((f) => !f.ok);
      if (opts.json) writeStdout(`${JSON.stringify({ problems: problems.length, findings })}\n`);
      else {
        for (const f of findings) writeStdout(visible(`${f.ok ? "ok" : "problem"}: ${f.ok ? "" : `${f.file}: `}${f.message}\n`));
        if (problems.length === 0) writeStdout("no problems found\n");
      }
      if (problems.length) throw new TriageError(`doctor found ${problems.length} problem${problems.length === 1 ? "" : "s"}${opts.json ? "" : " (listed above)"}`, "DOCTOR_PROBLEMS", 3);
    });
}
