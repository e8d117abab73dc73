/**
 * File and stdin I/O at the edge: byte-safe decoding, atomic writes, model loading.
 * The engine never imports this module.
 */
import { existsSync, readFileSync, renameSync, writeFileSync, mkdirSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { UsageError } from "./errors.js";

/** Decoded text of a file or stdin plus warnings (invalid UTF-8, NUL bytes). */
export interface DecodedInput {
  name: string;
  text: string;
  warnings: string[];
}

const strict = new TextDecoder("utf-8", { fatal: true });
const lenient = new TextDecoder("utf-8", { fatal: false });

/**
 * Decode bytes as UTF-8. Invalid sequences become U+FFFD with a warning; never throws.
 * Input: raw bytes and a display name. Output: text (BOM kept; the segmenter strips it).
 */
export function decodeBytes(bytes: Uint8Array, name: string): DecodedInput {
  const warnings: string[] = [];
  let text: string;
  try {
    text = strict.decode(bytes);
  } catch {
    text = lenient.decode(bytes);
    warnings.push(`${name}: not valid UTF-8; invalid bytes replaced with U+FFFD`);
  }
  if (text.includes("\u0000")) warnings.push(`${name}: contains NUL bytes (binary file?)`);
  return { name, text, warnings };
}

/** Read a file path, or stdin for "-". Throws UsageError (one line) when the path cannot be read. */
export function readInput(path: string): DecodedInput {
  if (path === "-") return decodeBytes(readFileSync(0), "-");
  let st: ReturnType<typeof statSync>;
  try {
    st = statSync(path);
  } catch {
    throw new UsageError(`cannot read ${path}: no such file`);
  }
  if (st.isDirectory()) throw new UsageError(`cannot read ${path}: is a directory`);
  try {
    return decodeBytes(readFileSync(path), path);
  } catch (e) {
    throw new UsageError(`cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}

/** Write a file atomically: write a temp file beside it, then rename over the target. */
export function writeFileAtomic(path: string, data: string): void {
  mkdirSync(dirname(resolve(path)), { recursive: true });
  const tmp = `${path}.${process.pid}.${Date.now()}.tmp`;
  writeFileSync(tmp, data);
  renameSync(tmp, path);
}

/**
 * The project root: the folder holding model/ (one level above scripts/ in development,
 * above dist/ in the bundle).
 */
export function projectRoot(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  return resolve(here, "..");
}

/** Default model path: <root>/model/model.json. */
export function defaultModelPath(): string {
  return resolve(projectRoot(), "model", "model.json");
}

export { existsSync };

import type { Classifier } from "./engine/classify.js";
import { regexClassifier } from "./engine/classify.js";
import { loadModelClassifier } from "./model-file.js";

/**
 * Load the classifier for `--model PATH`: "/dev/null" (or an empty file) selects the regex tier;
 * no path selects the bundled model/model.json. Throws ModelError for a missing, corrupt or
 * mismatched model file.
 */
export function loadClassifier(modelPath?: string): Classifier {
  if (modelPath === "/dev/null" || modelPath === "NUL") return regexClassifier;
  return loadModelClassifier(modelPath ?? defaultModelPath());
}
