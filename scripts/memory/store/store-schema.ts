/**
 * zod schemas of the extraction state (sidecar JSON in `<rulesDir>/.state/`): the rule store with
 * provenance, and the per-session incremental cursor. Parsed on read, built-then-parsed before write.
 */
import * as z from "zod/mini";

/** Where a rule was stated: session, 1-based transcript line, byte offset, and the line's own timestamp. */
export const RuleSourceSchema = z.object({
  session: z.string(),
  line: z.int().check(z.nonnegative()),
  offset: z.int().check(z.nonnegative()),
  /** 0-based sentence index within the line (omitted for the first sentence). */
  n: z.optional(z.int().check(z.positive())),
  at: z.optional(z.string()),
  /** A digest of the transcript line's `uuid` (extract-batch.ts uuidDigest): a line replayed later with the same uuid (stream transcripts around a compaction) is the same statement. */
  uuid: z.optional(z.string()),
});
export type RuleSource = z.infer<typeof RuleSourceSchema>;

/** One rule in the store. `text` is redacted and verbatim; `globs` empty = unscoped. */
export const RuleSchema = z.object({
  id: z.string(),
  text: z.string(),
  type: z.enum(["constraint", "procedural"]),
  globs: z.array(z.string()),
  polarity: z.enum(["pos", "neg"]),
  count: z.int().check(z.positive()),
  sources: z.array(RuleSourceSchema),
  status: z.enum(["active", "retired"]),
  origin: z.enum(["transcript", "pin"]),
  score: z.optional(z.number()),
  /** "permission": the user relaxed an earlier rule (a retraction kept with its condition); rendered apart from the rules. */
  kind: z.optional(z.literal("permission")),
  /** Expiry condition of a permission ("launch" in "until launch"). */
  until: z.optional(z.string()),
  /** When a rule with an expiry that is a day stops applying (ISO; memory/expiry.ts): retired as "expired" once a later transcript line is past it. */
  expires: z.optional(z.string()),
  /** Id of the rule this one refines (a scoped exception). */
  refines: z.optional(z.string()),
  /** Ids of rules this statement retired (a retraction or a replacement). */
  retires: z.optional(z.array(z.string())),
  /** Redacted text of the statement that retired this rule, and where it was said. */
  retiredBy: z.optional(z.string()),
  retiredById: z.optional(z.string()),
  retiredAt: z.optional(RuleSourceSchema),
  /** Why it was retired: "retraction" | "replaced" | "removed-by-hand" | "unpinned" (triage unpin). */
  retiredReason: z.optional(z.string()),
});
export type Rule = z.infer<typeof RuleSchema>;

/**
 * A rule file we wrote: its sha256 at write time, and whether the user has since edited it. `prev` is set only
 * while a write is in flight (rule-files.ts syncRuleFiles saves the store with it before touching any file): the
 * sha256 of the bytes the file held before, or null when it did not exist (or is being removed). After a crash
 * the file may hold either version; both are ours, so neither counts as a hand edit.
 */
export const FileRecordSchema = z.object({
  sha256: z.string(),
  ruleIds: z.array(z.string()),
  handEdited: z.optional(z.boolean()),
  prev: z.optional(z.nullable(z.string())),
});
export type FileRecord = z.infer<typeof FileRecordSchema>;

/**
 * `<rulesDir>/.state/sessions/<session>.json`: how far a transcript was read. `offset` is the byte after the
 * last complete line processed (after a run stopped at its deadline: the start of the first line not fully processed); `headHash`/`tailHash` are sha256 of the first and of the last (up to) 4 KiB
 * before `offset`, used to detect a rewritten or different file.
 */
export const CursorSchema = z.object({
  format: z.literal("knowledge-triage/cursor"),
  version: z.literal(1),
  sessionId: z.string(),
  transcriptPath: z.string(),
  offset: z.int().check(z.nonnegative()),
  line: z.int().check(z.nonnegative()),
  headHash: z.string(),
  tailHash: z.string(),
  /** The rule added last in this session and how many user utterances came after it (for "scratch that"). */
  recent: z.optional(z.string()),
  since: z.optional(z.int().check(z.nonnegative())),
  /**
   * Only after a run stopped at its deadline inside a batch: the first `skip` candidate sentences of the user
   * lines from `offset` on are consolidated; the next run starts at `offset` (the batch's first user line) and
   * skips them.
   */
  skip: z.optional(z.int().check(z.positive())),
  /**
   * Only when the line at `offset` is longer than the reader's line cap (so it is skipped whatever follows) and
   * has no "\n" before this byte offset: the next run resumes the search for its end here (a run stopped at its
   * deadline inside it, or the file ended inside it).
   */
  scan: z.optional(z.int().check(z.nonnegative())),
});
export type Cursor = z.infer<typeof CursorSchema>;

/** `<rulesDir>/.state/rules.json`. */
export const StoreSchema = z.object({
  format: z.literal("knowledge-triage/rules"),
  version: z.literal(1),
  rules: z.array(RuleSchema),
  files: z.record(z.string(), FileRecordSchema),
  /**
   * Only between a run's first and last write of this file: the cursor that run is about to save. Saved with the
   * rules it consolidated, so a run killed before its cursor is written does not consolidate those lines again;
   * the next run saves it as the session's cursor first (extract-run.ts).
   */
  pending: z.optional(CursorSchema),
});
export type Store = z.infer<typeof StoreSchema>;

/** An empty store. */
export function emptyStore(): Store {
  return { format: "knowledge-triage/rules", version: 1, rules: [], files: {} };
}
