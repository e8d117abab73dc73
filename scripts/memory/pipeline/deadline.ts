/**
 * Time budgets of extraction runs. A Deadline is a sticky "time is up" test on an injectable clock: the
 * extractor asks it at its safe points (before each chunk read, each batch and each statement;
 * extract-run.ts) and, once it is spent, stops at the first of them where stopping moves its cursor forward
 * (a run always finishes the first batch of user messages it starts, so every run makes progress), then
 * writes what it finished. The budget is a soft target: a run overshoots it by at most one batch. Tests pass
 * a clock that jumps past the budget after K statements or K chunks, so a stop is reproducible without waiting.
 */

/** A time budget of one run. */
export interface Deadline {
  /** The budget in ms (for messages). */
  readonly budgetMs: number;
  /** True once the budget is spent. Sticky: once true it stays true, so every check after the first stop agrees. */
  expired(): boolean;
}

/** Options of deadlineAfter. Times in ms on the same clock. */
export interface DeadlineOptions {
  /** Clock in ms. Default `performance.now()` (monotonic; its origin is the start of the process). */
  clock?: () => number;
  /** When the budget starts, on `clock`. Default: now. Pass 0 with the default clock to count from process start. */
  startMs?: number;
}

/**
 * A deadline `budgetMs` ms after `opts.startMs` on `opts.clock` (see DeadlineOptions for the defaults). The
 * clock is read once per `expired()` call until it expires, never after. Throws RangeError when `budgetMs` is
 * negative or not a finite number.
 */
export function deadlineAfter(budgetMs: number, opts: DeadlineOptions = {}): Deadline {
  if (!Number.isFinite(budgetMs) || budgetMs < 0) throw new RangeError(`deadline budget must be a finite number of ms >= 0, got ${budgetMs}`);
  const clock = opts.clock ?? (() => performance.now());
  const end = (opts.startMs ?? clock()) + budgetMs;
  let spent = false;
  return {
    budgetMs,
    expired(): boolean {
      if (!spent && clock() >= end) spent = true;
      return spent;
    },
  };
}

/** Bytes for a message: "812 bytes", "4.0 KiB", "12.3 MiB", "100.0 GiB" (binary units, one decimal). */
function bytesText(n: number): string {
  if (n < 1024) return `${n} bytes`;
  const units = ["KiB", "MiB", "GiB", "TiB"];
  let v = n / 1024;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${v.toFixed(1)} ${units[u]}`;
}

/**
 * The one line that says a run stopped at its deadline and how far it got, e.g. "stopped at the 20 s deadline:
 * 12.3 MiB of 31.1 MiB of the transcript done (39%); the next run continues at byte 12912345". `budgetMs` in
 * ms, `doneBytes` (the cursor) and `sizeBytes` (the transcript) in bytes. Pure.
 */
export function deadlineMessage(budgetMs: number, doneBytes: number, sizeBytes: number): string {
  const pct = sizeBytes > 0 ? Math.floor((100 * doneBytes) / sizeBytes) : 100;
  const budget = budgetMs % 1000 === 0 ? `${budgetMs / 1000} s` : `${budgetMs} ms`;
  return `stopped at the ${budget} deadline: ${bytesText(doneBytes)} of ${bytesText(sizeBytes)} of the transcript done (${pct}%); the next run continues at byte ${doneBytes}`;
}
