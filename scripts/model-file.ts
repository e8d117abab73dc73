import type { Classifier } from "./engine/classify.js";
import { regexClassifier } from "./engine/classify.js";

/** TEMPORARY until the trained model lands: returns the regex tier. */
export function loadModelClassifier(_path: string): Classifier {
  return regexClassifier;
}
