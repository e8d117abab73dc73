/**
 * zod schemas of the operators' CLI outputs: `compact --json`, decompose `manifest.json`,
 * `retrieve --json`. Commands build the object, parse it with these, then write it.
 */
import * as z from "zod/mini";
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
  budget: z.int().check(z.positive()),
  before: z.int().check(z.nonnegative()),
  after: z.int().check(z.nonnegative()),
  needed: z.int().check(z.nonnegative()),
  /** Smallest ratio (two decimals) whose budget holds the pinned units. */
  smallestRatio: z.number().check(z.gt(0), z.lte(1)),
  output: z.nullable(z.string()),
  text: z.string(),
  units: z.array(
    z.object({
      line: z.int().check(z.positive()),
      endLine: z.int().check(z.positive()),
      type: TypeSchema,
      pinned: z.boolean(),
      action: z.enum(["kept", "compressed", "merged", "dropped"]),
      into: z.optional(z.int().check(z.positive())),
    }),
  ),
});
export type CompactReportJson = z.infer<typeof CompactReportSchema>;

/** `triage compact --json` on exit 2 (COMPACTION_UNSAFE): what was asked, what would be safe, the rules past the budget. */
export const CompactErrorSchema = z.object({
  file: z.string(),
  error: z.object({
    code: z.literal("COMPACTION_UNSAFE"),
    message: z.string(),
    budget: z.int().check(z.positive()),
    needed: z.int().check(z.positive()),
    smallestRatio: z.number().check(z.gt(0), z.lte(1)),
    unfit: z.array(z.string()),
  }),
});
export type CompactErrorJson = z.infer<typeof CompactErrorSchema>;

/** `manifest.json` written by `triage decompose`: partition -> native units and the rules copied in, with why. */
export const ManifestSchema = z.object({
  format: z.literal("knowledge-triage/decompose"),
  version: z.literal(1),
  by: z.enum(["section", "size"]),
  maxTokens: z.nullable(z.int().check(z.positive())),
  sources: z.array(z.string()),
  rules: z.int().check(z.nonnegative()),
  violations: z.int().check(z.nonnegative()),
  partitions: z.array(
    z.object({
      id: z.string().check(z.minLength(1)),
      file: z.string().check(z.minLength(1)),
      /** sha256 (hex) of the partition file as written: a later run does not replace a file the user edited. */
      sha256: z.optional(z.string()),
      title: z.string(),
      source: z.string(),
      tokens: z.int().check(z.nonnegative()),
      paths: z.array(z.string()),
      topics: z.array(z.string()),
      units: z.array(z.object({ line: z.int().check(z.positive()), endLine: z.int().check(z.positive()), type: TypeSchema })),
      copied: z.array(
        z.object({
          source: z.string(),
          line: z.int().check(z.positive()),
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
  path: z.nullable(z.string()),
  k: z.int().check(z.positive()),
  inScope: z.int().check(z.nonnegative()),
  exceeded: z.boolean(),
  hits: z.array(
    z.object({
      file: z.string(),
      line: z.int().check(z.positive()),
      endLine: z.int().check(z.positive()),
      type: TypeSchema,
      rule: z.boolean(),
      inScope: z.boolean(),
      why: z.nullable(z.string()),
      score: z.number().check(z.nonnegative()),
      scope: z.nullable(ScopeSchema),
      text: z.string(),
    }),
  ),
});
export type RetrieveJson = z.infer<typeof RetrieveJsonSchema>;
