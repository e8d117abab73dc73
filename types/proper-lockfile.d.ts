// Minimal types for proper-lockfile 4.x (the package ships none). Only what scripts/memory/lock.ts uses.
declare module "proper-lockfile" {
  export interface RetryOptions {
    retries?: number;
    factor?: number;
    minTimeout?: number;
    maxTimeout?: number;
    randomize?: boolean;
  }
  export interface LockOptions {
    stale?: number;
    update?: number;
    retries?: number | RetryOptions;
    realpath?: boolean;
    lockfilePath?: string;
    onCompromised?: (err: Error) => void;
  }
  export function lock(file: string, options?: LockOptions): Promise<() => Promise<void>>;
  const lockfile: { lock: typeof lock };
  export default lockfile;
}
