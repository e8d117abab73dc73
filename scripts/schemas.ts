/**
 * zod schemas for every file and payload boundary owned by the classifier: labelled data and the
 * `classify --json` output. (The model file schema lives with the model in engine/model.ts.)
 */
import { z } from "zod";
import { TYPES } from "./engine/types.js";

/** One line of `<name>.labels.jsonl`: the gold type of a 1-based source line of `<name>.md`. */
export const LineLabelSchema = z.object({
  line: z.number().int().positive(),
  type: z.enum(TYPES),
  domain: z.string().default("general"),
  lang: z.string().default("en"),
});

/** One loose labelled unit (a chat utterance or a reviewed `triage label` row): text and gold type. */
export const LooseUnitSchema = z
  .object({
    text: z.string().min(1),
    type: z.enum(TYPES),
    domain: z.string().default("general"),
    lang: z.string().default("en"),
  })
  .loose();

/** One row of `triage classify --json`. */
export const ClassifyRowSchema = z.object({
  file: z.string(),
  line: z.number().int().positive(),
  endLine: z.number().int().positive(),
  text: z.string(),
  type: z.enum([...TYPES, "structure"]),
  confidence: z.number().min(0).max(1),
  scores: z.object(Object.fromEntries(TYPES.map((t) => [t, z.number().min(0).max(1)])) as Record<(typeof TYPES)[number], z.ZodNumber>),
});

export type ClassifyRowJson = z.infer<typeof ClassifyRowSchema>;
