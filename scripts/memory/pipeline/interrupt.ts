/**
 * SIGTERM/SIGINT handling for long extraction runs. While trapped, a signal only sets a flag (and aborts
 * an AbortSignal, so a lock wait ends at once); the run checks the flag before every chunk it reads (so
 * also inside a line with no "\n"), every CHECK_EVERY_LINES lines read and before every statement it
 * consolidates (yielding every CHECK_EVERY_STATEMENTS so the handler can run; extract-run.ts), throws
 * InterruptedError, and its `finally` releases the lock before anything half-done is written (files are
 * written only after the last statement). A deadline (deadline.ts) is checked at the same places but is
 * not an error: the run stops there and writes what it finished. The CLI
 * maps the error to exit 130 (SIGINT) or 143 (SIGTERM), the shell convention 128 + signal number.
 */
import { InterruptedError } from "../../errors.js";

/** Re-exported: the class lives with the other error classes in scripts/errors.ts. */
export { InterruptedError };

/** A trap: `check()` throws InterruptedError once a signal arrived; `dispose()` restores the previous handlers. */
export interface SignalTrap {
  signal: AbortSignal;
  check(): void;
  dispose(): void;
}

/** Trap SIGINT and SIGTERM until dispose(). Traps nest: each one sees every signal. */
export function trapSignals(): SignalTrap {
  const ac = new AbortController();
  let got: InterruptedError | undefined;
  const on = (sig: "SIGINT" | "SIGTERM") => (): void => {
    if (got) return;
    got = new InterruptedError(sig);
    ac.abort(got);
  };
  const onInt = on("SIGINT");
  const onTerm = on("SIGTERM");
  process.on("SIGINT", onInt);
  process.on("SIGTERM", onTerm);
  return {
    signal: ac.signal,
    check(): void {
      if (got) throw got;
    },
    dispose(): void {
      process.off("SIGINT", onInt);
      process.off("SIGTERM", onTerm);
    },
  };
}

/** Let pending signal handlers run (one macrotask turn), then throw if the trap caught a signal. */
export async function yieldAndCheck(trap: SignalTrap): Promise<void> {
  await new Promise<void>((res) => setImmediate(res));
  trap.check();
}
