import { visible, visibleName } from "./terminal.js";

/**
 * Typed errors. Each carries a stable `code` and the process exit code the CLI uses for it
 * (table in README.md: 0 ok, 1 usage/input/internal, 2 COMPACTION_UNSAFE).
 */
export class TriageError extends Error {
  /** True for the one error whose message is several lines by design (COMPACTION_UNSAFE's rule list). */
  readonly multiline: boolean = false;
  constructor(
    message: string,
    readonly code: string,
    readonly exitCode: number = 1,
  ) {
    super(message);
    this.name = "TriageError";
  }
}

/**
 * Plain words for a system error code, as the CLI and the hook log say them (`cannot write out.md: is a
 * directory`, not `EISDIR`). `reason` that is not a known code (already words, or a rare code) is returned as is.
 * The words follow strerror(3) of Linux and macOS, shortened.
 */
export function plainReason(reason: string): string {
  return ERRNO_WORDS[reason] ?? reason;
}

const ERRNO_WORDS: Record<string, string> = {
  ENOENT: "no such file or folder",
  ENOTDIR: "a part of the path is a file, not a folder",
  EISDIR: "is a directory",
  ELOOP: "a loop of symbolic links",
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  EROFS: "read-only file system",
  ENOSPC: "no space left on the device",
  EDQUOT: "disk quota exceeded",
  EFBIG: "file too large",
  ENAMETOOLONG: "file name too long",
  EEXIST: "already exists",
  ENOTEMPTY: "folder not empty",
  EBUSY: "in use (busy)",
  ETXTBSY: "in use (busy)",
  EMFILE: "too many open files",
  ENFILE: "too many open files",
  EIO: "input/output error",
  ENXIO: "no such device or address",
  ENODEV: "no such device",
  EXDEV: "on another file system",
  EINVAL: "invalid argument",
  EAGAIN: "temporarily unavailable",
  // Node's code for a path holding a NUL character (fs checks paths before any system call).
  ERR_INVALID_ARG_VALUE: "not a usable path (it holds a NUL character)",
};

/** Bad command-line arguments or unreadable input (exit 1). */
export class UsageError extends TriageError {
  constructor(message: string) {
    super(message, "USAGE", 1);
  }
}

/**
 * A file or folder could not be read: `cannot read <path>: <reason>` (exit 1). `reason` is the part
 * after the colon ("no such file", "not a regular file (character device)", an errno code, ...);
 * `errno` is the system error code when there was one (ENOENT, EACCES, ...).
 */
export class ReadError extends UsageError {
  constructor(
    readonly path: string,
    readonly reason: string,
    readonly errno?: string,
  ) {
    super(`cannot read ${path}: ${plainReason(reason)}`);
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

/**
 * Pinned units alone exceed the budget (exit 2). `needed` is the smallest safe budget in tokens,
 * `smallestRatio` the smallest safe ratio (two decimals), `budget` the one asked for, `unfit` the
 * rules past the budget ("L<line>: text").
 */
export class CompactionUnsafeError extends TriageError {
  override readonly multiline = true;
  readonly needed: number;
  readonly budget: number;
  readonly smallestRatio: number;
  readonly unfit: string[];
  constructor(message: string, info: { needed: number; budget: number; smallestRatio: number; unfit: string[] }) {
    super(message, "COMPACTION_UNSAFE", 2);
    this.needed = info.needed;
    this.budget = info.budget;
    this.smallestRatio = info.smallestRatio;
    this.unfit = info.unfit;
  }
}

/**
 * A file could not be written: one line `cannot write <path>: <why>`, exit 1. `reason` is words, or a system
 * error code (EACCES, EISDIR, ENOSPC, ...) said in words by plainReason().
 */
export class WriteError extends TriageError {
  constructor(path: string, reason: string) {
    super(`cannot write ${path}: ${plainReason(reason)}`, "WRITE_FAILED", 1);
  }
}

/** The run was stopped by a signal; nothing of this run was written and the lock was released. */
export class InterruptedError extends TriageError {
  constructor(readonly signal: "SIGINT" | "SIGTERM") {
    super(`interrupted by ${signal}; this run wrote nothing and released the lock`, "INTERRUPTED", signal === "SIGINT" ? 130 : 143);
  }
}

/** An exported file was edited (or not written by `triage export`) and would be replaced or removed (exit 1). */
export class ExportConflictError extends TriageError {
  constructor(message: string) {
    super(message, "EXPORT_CONFLICT", 1);
  }
}

/** The lock could not be taken in time (another session is extracting). Exit 1; hooks log it and exit 0. */
export class LockBusyError extends TriageError {
  constructor(message: string) {
    super(message, "LOCK_BUSY", 1);
  }
}

/** A write would land outside the project: a folder on the rules path is a symbolic link leading out of it. Exit 1; hooks say it in one line and exit 0. */
export class OutsideProjectError extends TriageError {
  constructor(message: string) {
    super(message, "OUTSIDE_PROJECT", 1);
  }
}

/** A state file exists but does not parse (it is left untouched and not overwritten). */
export class StateError extends TriageError {
  constructor(message: string) {
    super(message, "STATE_INVALID", 1);
  }
}

/**
 * What the CLI prints for an error a command threw, and the exit code: a TriageError as one line
 * `triage: <message>` with its own exit code, anything else as `triage: internal error: <message>`
 * with exit 1; with `debug`, the stack trace follows. Messages go through visibleName() (they quote
 * user input: paths, arguments, rules; a file name with a line feed stays on the one line), except
 * COMPACTION_UNSAFE's list of rules (visible(): one rule a line).
 */
export function errorReport(err: unknown, debug: boolean): { text: string; exitCode: number } {
  if (err instanceof TriageError) {
    const message = err.multiline ? visible(err.message) : visibleName(err.message);
    return { text: `triage: ${message}\n${debug ? `${err.stack}\n` : ""}`, exitCode: err.exitCode };
  }
  const e = err as Error | undefined;
  return { text: `triage: internal error: ${visibleName(e?.message ?? String(err))}\n${debug ? `${e?.stack}\n` : ""}`, exitCode: 1 };
}
