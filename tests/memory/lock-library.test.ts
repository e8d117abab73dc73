/**
 * Why the rules folder keeps its own lock (scripts/memory/store/state.ts acquireLock) instead of the
 * maintained `proper-lockfile` (a devDependency for this comparison only): the two cases that made us
 * replace it, run against both, each with a real holder process.
 *
 * 1. Dead holder. A hook killed with SIGKILL (or by a crash) leaves its lock behind. proper-lockfile
 *    judges staleness by the lock's mtime alone, so the lock stays taken until `stale` has passed; ours
 *    also records pid and host and breaks it at once when that pid is gone on this host.
 * 2. Release after a busy section. A holder whose event loop is blocked (a long synchronous
 *    consolidation) cannot refresh its lock; once the lock looks stale another process takes it over.
 *    When the first holder then releases, proper-lockfile deletes the lock folder without checking
 *    whose it is now, so the second holder's lock vanishes and a third process could enter; ours
 *    removes the lock only while its owner token is still the releaser's.
 * A lock "looks stale" here because its mtime is set back past the stale limit while the holder is busy:
 * what the disk shows after that much time without a refresh, without waiting it out in the test.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import lockfile from "proper-lockfile";
import { describe, expect, it } from "vitest";
import { acquireLock, LOCK_STALE_HEARTBEAT_MS } from "../../scripts/memory/store/state.js";

const repo = resolve(import.meta.dirname, "..", "..");
const STATE_TS = join(repo, "scripts", "memory", "store", "state.ts");

/** A rules folder and the `.state` folder both locks live in (ours: `.state/lock`). */
function rulesFolder(): { rulesDir: string; state: string; lockDir: string } {
  const rulesDir = join(mkdtempSync(join(tmpdir(), "kt-lock-")), "rules");
  const state = join(rulesDir, ".state");
  mkdirSync(state, { recursive: true });
  return { rulesDir, state, lockDir: join(state, "lock") };
}

/** proper-lockfile options for the same lock folder as ours; its default stale limit (10 s). */
const properOpts = (state: string) => ({ lockfilePath: join(state, "lock"), realpath: false, retries: 0 });

/**
 * A holder process: takes the lock, prints "locked", then either sleeps (mode "idle", to be killed) or
 * spins synchronously until `go` exists (mode "busy": no timer of it can run), releases, prints "released".
 */
function holder(kind: "ours" | "proper", mode: "idle" | "busy", rulesDir: string, go: string): ChildProcess {
  const state = join(rulesDir, ".state");
  const take =
    kind === "ours"
      ? `const { acquireLock } = await import(${JSON.stringify(STATE_TS)}); const release = await acquireLock(${JSON.stringify(rulesDir)}, { waitMs: 0 });`
      : `const { default: lockfile } = await import("proper-lockfile"); const release = await lockfile.lock(${JSON.stringify(state)}, ${JSON.stringify(properOpts(state))});`;
  const code = `
    import { existsSync, writeSync } from "node:fs";
    ${take}
    writeSync(1, "locked\\n");
    if (${JSON.stringify(mode)} === "idle") setInterval(() => {}, 1000);
    else {
      while (!existsSync(${JSON.stringify(go)})) {}
      await release();
      writeSync(1, "released\\n");
    }`;
  const args = kind === "ours" ? ["--import", "tsx", "--input-type=module", "-e", code] : ["--input-type=module", "-e", code];
  return spawn(process.execPath, args, { cwd: repo, stdio: ["ignore", "pipe", "inherit"] });
}

function said(child: ChildProcess, word: string): Promise<void> {
  return new Promise((res, rej) => {
    let out = "";
    child.stdout?.on("data", (d: Buffer) => {
      out += d.toString();
      if (out.split("\n").includes(word)) res();
    });
    child.on("exit", (code) => rej(new Error(`holder exited (${code}) before "${word}"; said: ${out}`)));
  });
}

const exited = (child: ChildProcess): Promise<void> => new Promise((res) => (child.exitCode !== null ? res() : child.on("exit", () => res())));

/** Set a path's mtime back by `ms` (what a lock left unrefreshed for that long looks like). */
function age(path: string, ms: number): void {
  const t = new Date(Date.now() - ms);
  utimesSync(path, t, t);
}

describe("dead holder: the lock of a process killed with SIGKILL", { timeout: 60_000 }, () => {
  it("proper-lockfile: still refused right after the holder died (it only knows the mtime)", async () => {
    const f = rulesFolder();
    const h = holder("proper", "idle", f.rulesDir, "");
    await said(h, "locked");
    h.kill("SIGKILL");
    await exited(h);
    await expect(lockfile.check(f.state, properOpts(f.state))).resolves.toBe(true);
    await expect(lockfile.lock(f.state, properOpts(f.state))).rejects.toMatchObject({ code: "ELOCKED" });
  });

  it("ours: taken at once (the recorded pid is gone on this host)", async () => {
    const f = rulesFolder();
    const h = holder("ours", "idle", f.rulesDir, "");
    await said(h, "locked");
    h.kill("SIGKILL");
    await exited(h);
    expect(existsSync(f.lockDir)).toBe(true);
    const release = await acquireLock(f.rulesDir, { waitMs: 0 });
    await release();
    expect(existsSync(f.lockDir)).toBe(false);
  });
});

describe("release after a busy section: the first holder releases after its lock was taken over", { timeout: 60_000 }, () => {
  it("proper-lockfile: the release deletes the new holder's lock, so a third process gets in", async () => {
    const f = rulesFolder();
    const go = join(f.rulesDir, "..", "go");
    const a = holder("proper", "busy", f.rulesDir, go);
    await said(a, "locked");
    age(f.lockDir, 11_000); // A spins and cannot refresh: past the 10 s stale limit
    const releaseB = await lockfile.lock(f.state, properOpts(f.state)); // B takes the stale lock
    const released = said(a, "released");
    writeFileSync(go, "");
    await released;
    await exited(a);
    // B has not released, yet the lock is gone: anyone may take it now.
    expect(existsSync(f.lockDir)).toBe(false);
    await expect(lockfile.check(f.state, properOpts(f.state))).resolves.toBe(false);
    await expect(releaseB()).resolves.toBeUndefined(); // and B is never told
  });

  it("ours: the release leaves the new holder's lock in place", async () => {
    const f = rulesFolder();
    const go = join(f.rulesDir, "..", "go");
    const a = holder("ours", "busy", f.rulesDir, go);
    await said(a, "locked");
    age(join(f.lockDir, "owner.json"), LOCK_STALE_HEARTBEAT_MS + 1_000); // no heartbeat for longer than the limit
    const releaseB = await acquireLock(f.rulesDir, { waitMs: 0 }); // B breaks the stale lock
    const tokenB = JSON.parse(readFileSync(join(f.lockDir, "owner.json"), "utf8")).token;
    const released = said(a, "released");
    writeFileSync(go, "");
    await released;
    await exited(a);
    expect(JSON.parse(readFileSync(join(f.lockDir, "owner.json"), "utf8")).token).toBe(tokenB);
    await expect(acquireLock(f.rulesDir, { waitMs: 0 })).rejects.toMatchObject({ code: "LOCK_BUSY" });
    await releaseB();
    expect(existsSync(f.lockDir)).toBe(false);
  });
});
