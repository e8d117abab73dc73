/**
 * Where the project's files are, from this module's own location (one level above scripts/ in
 * development, above dist/ in the bundle). A leaf: only Node built-ins are imported.
 */
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

/** The project root: the folder holding model/. */
export function projectRoot(): string {
  return resolve(dirname(fileURLToPath(import.meta.url)), "..");
}

/** Default model path: <root>/model/model.json. */
export function defaultModelPath(): string {
  return resolve(projectRoot(), "model", "model.json");
}

/** Default sentence-model path: <root>/model/utterance.json (trained by `npm run train:utterances`). */
export function defaultUtterancePath(): string {
  return resolve(projectRoot(), "model", "utterance.json");
}

/** Name of the state folder inside a rules folder: sidecar JSON, cursors, lock, hook log (never loaded by Claude Code: no `.md`). */
export const STATE_DIRNAME = ".state";

/** The state folder of a rules folder: `<rulesDir>/.state`. */
export function stateDir(rulesDir: string): string {
  return join(rulesDir, STATE_DIRNAME);
}

/** Default rules folder of a project: `<projectDir>/.claude/rules/knowledge-triage`. */
export function defaultRulesDir(projectDir: string): string {
  return join(projectDir, ".claude", "rules", "knowledge-triage");
}

/**
 * True when absolute path `path` is `dir` itself or inside it, by path alone (links are not followed). Right for the
 * filesystem root too, where a `dir + "/"` prefix test would look for "//".
 */
export function isInsideDir(path: string, dir: string): boolean {
  const rel = relative(resolve(dir), resolve(path));
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}
