/**
 * Typed errors. Each carries a stable `code` and the process exit code the CLI uses for it
 * (table in README.md: 0 ok, 1 usage/input/internal, 2 COMPACTION_UNSAFE).
 */
export class TriageError extends Error {
  constructor(
    message: string,
    readonly code: string,
    readonly exitCode: number = 1,
  ) {
    super(message);
    this.name = "TriageError";
  }
}

/** Bad command-line arguments or unreadable input (exit 1). */
export class UsageError extends TriageError {
  constructor(message: string) {
    super(message, "USAGE", 1);
  }
}

/** A model file that is missing, corrupt, or of another format version (exit 1). */
export class ModelError extends TriageError {
  constructor(message: string) {
    super(message, "MODEL_INVALID", 1);
  }
}

/** Labelled data that does not parse or does not match its document (exit 1). */
export class DataError extends TriageError {
  constructor(message: string) {
    super(message, "DATA_INVALID", 1);
  }
}

/** Pinned units alone exceed the budget (exit 2). `needed` is the smallest safe budget in tokens. */
export class CompactionUnsafeError extends TriageError {
  constructor(
    message: string,
    readonly needed: number,
    readonly unfit: string[],
  ) {
    super(message, "COMPACTION_UNSAFE", 2);
  }
}
