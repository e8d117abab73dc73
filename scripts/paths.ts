/**
 * Where the project's files are, from this module's own location (one level above scripts/ in
 * development, above dist/ in the bundle). A leaf: only Node built-ins are imported.
 */
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The project root: the folder holding model/. */
export function projectRoot(): string {
  return resolve(dirname(fileURLToPath(import.meta.url)), "..");
}

/** Default model path: <root>/model/model.json. */
export function defaultModelPath(): string {
  return resolve(projectRoot(), "model", "model.json");
}
