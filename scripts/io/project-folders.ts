/**
 * The folders of a project, for scoping rules by a folder named without a slash (memory/folder-scope.ts).
 * Breadth-first from the project root to FOLDER_DEPTH levels, at most FOLDER_CAP folders; hidden folders and
 * dependency / build output folders are skipped; unreadable folders are skipped silently.
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { UsageError } from "../errors.js";
import { defaultRulesDir } from "../paths.js";
import { basename, dirname, join } from "node:path";

/** Levels below the root that are listed ("services/billing/src/handlers" is 4). */
export const FOLDER_DEPTH = 4;
/** Most folders listed (a monorepo's top levels fit; a home folder does not take seconds). */
export const FOLDER_CAP = 5000;
const SKIP = new Set(["node_modules", "vendor", "dist", "build", "target", "out", "coverage", "__pycache__", "venv"]);

/** Project-relative folder paths ("services/billing") under `root`, sorted; [] when `root` cannot be read. */
export function projectFolders(root: string): string[] {
  const out: string[] = [];
  let level = [""];
  for (let d = 0; d < FOLDER_DEPTH && level.length > 0 && out.length < FOLDER_CAP; d++) {
    const next: string[] = [];
    for (const rel of level) {
      let entries: import("node:fs").Dirent[];
      try {
        entries = readdirSync(join(root, rel), { withFileTypes: true });
      } catch {
        continue;
      }
      for (const e of entries) {
        if (!e.isDirectory() || e.name.startsWith(".") || SKIP.has(e.name)) continue;
        const p = rel === "" ? e.name : `${rel}/${e.name}`;
        out.push(p);
        next.push(p);
        if (out.length >= FOLDER_CAP) break;
      }
    }
    level = next;
  }
  return out.sort();
}

/** The project root of a project-level rules folder (`<root>/.claude/rules/<name>`), or undefined for any other folder. */
export function projectRootOfRulesDir(rulesDir: string): string | undefined {
  const rules = dirname(rulesDir);
  const claude = dirname(rules);
  return basename(rules) === "rules" && basename(claude) === ".claude" ? dirname(claude) : undefined;
}

/**
 * The project folder of a command run in `cwd` (absolute): the nearest folder, `cwd` or an ancestor, that already
 * holds `.claude/rules/knowledge-triage/`; else the nearest that holds `.git` (the repository root, where Claude Code
 * is usually started and from which it loads `.claude/rules/` of every ancestor, references/claude-code.md); else
 * `cwd`. So `triage pin` in a subfolder writes where Claude Code loads it, not into `<subfolder>/.claude/`.
 */
export function projectDirFrom(cwd: string): string {
  const chain: string[] = [];
  for (let d = cwd; ; d = dirname(d)) {
    chain.push(d);
    if (dirname(d) === d) break;
  }
  const has = (d: string, ...parts: string[]): boolean => existsSync(join(d, ...parts));
  return chain.find((d) => has(d, ".claude", "rules", "knowledge-triage")) ?? chain.find((d) => has(d, ".git")) ?? cwd;
}

/**
 * The rules folder a command works on: `--rules-dir` when given, else the project's default (projectDirFrom `cwd`).
 * Throws UsageError when the given path exists but is not a folder (a file would otherwise surface as a raw
 * ENOTDIR, or be reported as an empty rules folder). A missing folder is fine: the command creates or reports it.
 */
export function rulesDirFrom(option: string | undefined, cwd: string): string {
  if (option === undefined) return defaultRulesDir(projectDirFrom(cwd));
  let isDir = true;
  try {
    isDir = statSync(option).isDirectory();
  } catch {
    // missing: fine
  }
  if (!isDir) throw new UsageError(`--rules-dir ${option}: is a file, not a folder`);
  return option;
}

/** `--project-dir` of `triage mcp`: throws UsageError unless it names an existing folder. */
export function existingFolder(option: string, flag: string): string {
  let isDir = false;
  try {
    isDir = statSync(option).isDirectory();
  } catch {
    throw new UsageError(`${flag} ${option}: no such folder`);
  }
  if (!isDir) throw new UsageError(`${flag} ${option}: is a file, not a folder`);
  return option;
}
