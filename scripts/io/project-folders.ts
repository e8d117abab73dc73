/**
 * The folders of a project, for scoping rules by a folder named without a slash (memory/folder-scope.ts).
 * Breadth-first from the project root to FOLDER_DEPTH levels, at most FOLDER_CAP folders; hidden folders and
 * dependency / build output folders are skipped; unreadable folders are skipped silently.
 */
import { existsSync, readdirSync, realpathSync, statSync } from "node:fs";
import { UsageError } from "../errors.js";
import { fsReason } from "./read-files.js";
import { defaultRulesDir, isInsideDir } from "../paths.js";
import { homedir } from "node:os";
import { basename, dirname, isAbsolute, join, resolve } from "node:path";

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
 * Why `dir` (absolute) cannot be a project folder: "the filesystem root" or "the home folder" (`home`, default
 * os.homedir(), which follows $HOME): `.claude/rules/` there is loaded in every project (~/.claude/rules is Claude
 * Code's user level, references/claude-code.md); or "inside Claude Code's configuration folder <dir>" for
 * `<home>/.claude`, `$CLAUDE_CONFIG_DIR` (`config`) and any folder inside them (settings, plugins, transcripts: a
 * `.claude/rules/` tree made there is nobody's project). Undefined for any other folder. Symbolic links are resolved
 * first (both as given and as real paths are checked), so a link to the home folder or into ~/.claude is refused too.
 */
export function notAProjectFolder(dir: string, home: string = homedir(), config: string | undefined = process.env.CLAUDE_CONFIG_DIR): string | undefined {
  for (const d of [resolve(dir), realPath(dir)]) {
    if (dirname(d) === d) return "the filesystem root";
    if (home !== "" && (d === resolve(home) || d === realPath(home))) return "the home folder";
    for (const c of [home === "" ? "" : join(home, ".claude"), config ?? ""]) {
      if (c !== "" && isAbsolute(c) && (isInsideDir(d, c) || isInsideDir(d, realPath(c)))) return `inside Claude Code's configuration folder ${c}`;
    }
  }
  return undefined;
}

/** `p` with symbolic links resolved (absolute); `resolve(p)` when it cannot be resolved (missing, a loop, no permission). */
function realPath(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return resolve(p);
  }
}

/**
 * The project folder of a command run in `cwd` (absolute): the nearest folder, `cwd` or an ancestor up to the
 * repository root (the nearest that holds `.git`, where Claude Code is usually started and from which it loads
 * `.claude/rules/` of every ancestor, references/claude-code.md), that already holds `.claude/rules/knowledge-triage/`;
 * else that repository root; else `cwd`. The walk never reaches the home folder or the filesystem root (notAProjectFolder),
 * so a repository without a rules folder never writes into an ancestor's. So `triage pin` in a subfolder writes where
 * Claude Code loads it, not into `<subfolder>/.claude/`. Throws UsageError when `cwd` itself is the home folder or the
 * filesystem root.
 */
export function projectDirFrom(cwd: string, home: string = homedir()): string {
  const not = notAProjectFolder(cwd, home);
  if (not) throw new UsageError(`${cwd} is ${not}, not a project folder: run triage inside a project, or give --rules-dir`);
  const has = (d: string, ...parts: string[]): boolean => existsSync(join(d, ...parts));
  const chain: string[] = [];
  let gitRoot: string | undefined;
  for (let d = cwd; notAProjectFolder(d, home) === undefined; d = dirname(d)) {
    chain.push(d);
    if (has(d, ".git")) {
      gitRoot = d;
      break;
    }
  }
  return chain.find((d) => has(d, ".claude", "rules", "knowledge-triage")) ?? gitRoot ?? cwd;
}

/**
 * The rules folder a command works on: `--rules-dir` when given, else the project's default (projectDirFrom `cwd`).
 * Throws UsageError when the given path exists but is not a folder, or cannot be a folder (a file on the way, a loop of
 * symbolic links: these would otherwise surface as raw ENOTDIR / ELOOP, or be reported as an empty rules folder), for an
 * empty path, for the filesystem root or the home folder `home` (notAProjectFolder: the hooks refuse the same) and for
 * Claude Code's configuration folder itself (~/.claude, $CLAUDE_CONFIG_DIR). A missing folder is fine: the command
 * creates or reports it. Throws what projectDirFrom throws when `option` is undefined.
 */
export function rulesDirFrom(option: string | undefined, cwd: string, home: string = homedir()): string {
  if (option === undefined) return defaultRulesDir(projectDirFrom(cwd, home));
  // An empty path would resolve to the working folder: rule files and .state/ in the project root.
  if (option.trim() === "") throw new UsageError("--rules-dir is empty: give a folder (default: .claude/rules/knowledge-triage of the project)");
  // "/" or "$HOME" (also "$UNSET/"): rule files and .state/ would land in the filesystem root or the home folder.
  // Only those two: a rules folder given by hand may be user-level (`--rules-dir ~/.claude/rules` for doctor's lint).
  const not = notAProjectFolder(resolve(cwd, option), home, "");
  if (not && !not.startsWith("inside")) throw new UsageError(`--rules-dir ${option}: is ${not}; rule files and .state/ would land there (give a rules folder, e.g. .claude/rules/knowledge-triage)`);
  // Claude Code's configuration folder itself (~/.claude, $CLAUDE_CONFIG_DIR) holds settings and transcripts, not rules;
  // folders inside it (~/.claude/rules/...) stay allowed: that is the user level.
  const target = realPath(resolve(cwd, option));
  for (const c of [home === "" ? "" : join(home, ".claude"), process.env.CLAUDE_CONFIG_DIR ?? ""]) {
    if (c !== "" && isAbsolute(c) && (target === resolve(c) || target === realPath(c))) {
      throw new UsageError(`--rules-dir ${option}: is Claude Code's configuration folder ${c}, not a rules folder (user-level rules go in ${join(c, "rules", "knowledge-triage")})`);
    }
  }
  let isDir = true;
  try {
    isDir = statSync(option).isDirectory();
  } catch (e) {
    // Missing is fine; a file on the way, a link loop or no permission is said here, not later as a raw code.
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw new UsageError(`--rules-dir ${option}: ${fsReason(option, e)}`);
  }
  if (!isDir) throw new UsageError(`--rules-dir ${option}: is a file, not a folder`);
  return option;
}

/** `--project-dir` of `triage mcp`: throws UsageError unless it names an existing folder. */
export function existingFolder(option: string, flag: string): string {
  let isDir = false;
  try {
    isDir = statSync(option).isDirectory();
  } catch (e) {
    throw new UsageError(`${flag} ${option}: ${(e as NodeJS.ErrnoException).code === "ENOENT" ? "no such folder" : fsReason(option, e)}`);
  }
  if (!isDir) throw new UsageError(`${flag} ${option}: is a file, not a folder`);
  return option;
}
