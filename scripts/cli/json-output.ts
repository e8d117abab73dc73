/**
 * zod schemas for every file and payload boundary owned by the classifier: labelled data and the
 * `classify --json` output. (The model file schema lives in engine/model-format.ts.)
 */
import * as z from "zod/mini";
import { TYPES } from "../engine/types.js";

/** One line of `<name>.labels.jsonl`: the gold type of a 1-based source line of `<name>.md`. */
export const LineLabelSchema = z.object({
  line: z.int().check(z.positive()),
  type: z.enum(TYPES),
  domain: z._default(z.string(), "general"),
  lang: z._default(z.string(), "en"),
});

/** One loose labelled unit (a chat utterance or a reviewed `triage label` row): text and gold type. */
export const LooseUnitSchema = z.looseObject({
  text: z.string().check(z.minLength(1)),
  type: z.enum(TYPES),
  domain: z._default(z.string(), "general"),
  lang: z._default(z.string(), "en"),
  /** Heading path of the unit, when known (rows written by `triage label` carry it): used as context. */
  headings: z.optional(z.array(z.string())),
});

/** One row of `triage classify --json`. */
const probability = () => z.number().check(z.gte(0), z.lte(1));
export const ClassifyRowSchema = z.object({
  file: z.string(),
  line: z.int().check(z.positive()),
  endLine: z.int().check(z.positive()),
  text: z.string(),
  type: z.enum([...TYPES, "structure"]),
  confidence: probability(),
  scores: z.object({
    constraint: probability(),
    procedural: probability(),
    belief: probability(),
    preference: probability(),
    episodic: probability(),
  }),
});

export type ClassifyRowJson = z.infer<typeof ClassifyRowSchema>;
