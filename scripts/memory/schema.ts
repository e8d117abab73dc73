/**
 * zod schemas of the extraction state (sidecar JSON in `<rulesDir>/.state/`): the rule store with
 * provenance, and the per-session incremental cursor. Parsed on read, built-then-parsed before write.
 */
import { z } from "zod";

/** Where a rule was stated: session, 1-based transcript line, byte offset, and the line's own timestamp. */
export const RuleSourceSchema = z.object({
  session: z.string(),
  line: z.number().int().nonnegative(),
  offset: z.number().int().nonnegative(),
  /** 0-based sentence index within the line (omitted for the first sentence). */
  n: z.number().int().positive().optional(),
  at: z.string().optional(),
});
export type RuleSource = z.infer<typeof RuleSourceSchema>;

/** One rule in the store. `text` is redacted and verbatim; `globs` empty = unscoped. */
export const RuleSchema = z.object({
  id: z.string(),
  text: z.string(),
  type: z.enum(["constraint", "procedural"]),
  globs: z.array(z.string()),
  polarity: z.enum(["pos", "neg"]),
  count: z.number().int().positive(),
  sources: z.array(RuleSourceSchema),
  status: z.enum(["active", "retired"]),
  origin: z.enum(["transcript", "pin"]),
  score: z.number().optional(),
  /** "permission": the user relaxed an earlier rule (a retraction kept with its condition); rendered apart from the rules. */
  kind: z.literal("permission").optional(),
  /** Expiry condition of a permission ("launch" in "until launch"). */
  until: z.string().optional(),
  /** Id of the rule this one refines (a scoped exception). */
  refines: z.string().optional(),
  /** Ids of rules this statement retired (a retraction or a replacement). */
  retires: z.array(z.string()).optional(),
  /** Redacted text of the statement that retired this rule, and where it was said. */
  retiredBy: z.string().optional(),
  retiredById: z.string().optional(),
  retiredAt: RuleSourceSchema.optional(),
  /** Why it was retired: "retraction" | "replaced" | "removed-by-hand". */
  retiredReason: z.string().optional(),
});
export type Rule = z.infer<typeof RuleSchema>;

/** A rule file we wrote: its sha256 at write time, and whether the user has since edited it. */
export const FileRecordSchema = z.object({
  sha256: z.string(),
  ruleIds: z.array(z.string()),
  handEdited: z.boolean().optional(),
});
export type FileRecord = z.infer<typeof FileRecordSchema>;

/** `<rulesDir>/.state/rules.json`. */
export const StoreSchema = z.object({
  format: z.literal("knowledge-triage/rules"),
  version: z.literal(1),
  rules: z.array(RuleSchema),
  files: z.record(z.string(), FileRecordSchema),
});
export type Store = z.infer<typeof StoreSchema>;

/**
 * `<rulesDir>/.state/sessions/<session>.json`: how far a transcript was read. `offset` is the byte after the
 * last complete line processed; `headHash`/`tailHash` are sha256 of the first and of the last (up to) 4 KiB
 * before `offset`, used to detect a rewritten or different file.
 */
export const CursorSchema = z.object({
  format: z.literal("knowledge-triage/cursor"),
  version: z.literal(1),
  sessionId: z.string(),
  transcriptPath: z.string(),
  offset: z.number().int().nonnegative(),
  line: z.number().int().nonnegative(),
  headHash: z.string(),
  tailHash: z.string(),
  /** The rule added last in this session and how many user utterances came after it (for "scratch that"). */
  recent: z.string().optional(),
  since: z.number().int().nonnegative().optional(),
});
export type Cursor = z.infer<typeof CursorSchema>;

/** An empty store. */
export function emptyStore(): Store {
  return { format: "knowledge-triage/rules", version: 1, rules: [], files: {} };
}
