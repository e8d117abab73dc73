/**
 * The bundled sentence-level durability model (model/utterance.json, trained by `npm run train:utterances`),
 * parsed with its zod schema on first use. A JSON import, so the bundle carries it and no file is read at run time.
 */
import raw from "../../model/utterance.json" with { type: "json" };
import { UtteranceModelSchema, utteranceScorer, type UtteranceScorer } from "./utterance-model.js";

let cached: UtteranceScorer | undefined;

/** The bundled model's scorer (parsed once). Throws when the bundled file does not match UtteranceModelSchema. */
export function defaultUtteranceScorer(): UtteranceScorer {
  cached ??= utteranceScorer(UtteranceModelSchema.parse(raw));
  return cached;
}
