/**
 * zod schemas of the operators' CLI outputs: `compact --json`, decompose `manifest.json`,
 * `retrieve --json`. Commands build the object, parse it with these, then write it.
 */
import { z } from "zod";
import { TYPES } from "../engine/types.js";

const TypeSchema = z.enum([...TYPES, "structure"]);
const ScopeSchema = z.object({
  kind: z.enum(["global", "path", "topic"]),
  globs: z.array(z.string()),
  topics: z.array(z.string()),
  reason: z.string(),
});

/** `triage compact --json`: budget and sizes in tokens (estimateTokens), and what happened to each unit. */
export const CompactReportSchema = z.object({
  file: z.string(),
  budget: z.number().int().positive(),
  before: z.number().int().nonnegative(),
  after: z.number().int().nonnegative(),
  needed: z.number().int().nonnegative(),
  output: z.string().nullable(),
  text: z.string(),
  units: z.array(
    z.object({
      line: z.number().int().positive(),
      endLine: z.number().int().positive(),
      type: TypeSchema,
      pinned: z.boolean(),
      action: z.enum(["kept", "compressed", "merged", "dropped"]),
      into: z.number().int().positive().optional(),
    }),
  ),
});
export type CompactReportJson = z.infer<typeof CompactReportSchema>;

/** `manifest.json` written by `triage decompose`: partition -> native units and the rules copied in, with why. */
export const ManifestSchema = z.object({
  format: z.literal("knowledge-triage/decompose"),
  version: z.literal(1),
  by: z.enum(["section", "size"]),
  maxTokens: z.number().int().positive().nullable(),
  sources: z.array(z.string()),
  rules: z.number().int().nonnegative(),
  violations: z.number().int().nonnegative(),
  partitions: z.array(
    z.object({
      id: z.string().min(1),
      file: z.string().min(1),
      title: z.string(),
      source: z.string(),
      tokens: z.number().int().nonnegative(),
      paths: z.array(z.string()),
      topics: z.array(z.string()),
      units: z.array(z.object({ line: z.number().int().positive(), endLine: z.number().int().positive(), type: TypeSchema })),
      copied: z.array(
        z.object({
          source: z.string(),
          line: z.number().int().positive(),
          type: TypeSchema,
          text: z.string(),
          scope: ScopeSchema,
          why: z.string(),
        }),
      ),
    }),
  ),
});
export type Manifest = z.infer<typeof ManifestSchema>;

/** `triage retrieve --json`. */
export const RetrieveJsonSchema = z.object({
  query: z.string(),
  path: z.string().nullable(),
  k: z.number().int().positive(),
  inScope: z.number().int().nonnegative(),
  exceeded: z.boolean(),
  hits: z.array(
    z.object({
      file: z.string(),
      line: z.number().int().positive(),
      endLine: z.number().int().positive(),
      type: TypeSchema,
      rule: z.boolean(),
      inScope: z.boolean(),
      why: z.string().nullable(),
      score: z.number().nonnegative(),
      scope: ScopeSchema.nullable(),
      text: z.string(),
    }),
  ),
});
export type RetrieveJson = z.infer<typeof RetrieveJsonSchema>;
