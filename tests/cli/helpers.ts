/**
 * Helpers for CLI tests: build the bundle once (dist/triage.mjs, what users run) and spawn it.
 * Test files run in parallel workers, so the build is guarded by a lock folder and skipped when the
 * bundle is newer than every file under scripts/.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { expect } from "vitest";

export const repo = resolve(import.meta.dirname, "..", "..");
export const bundle = process.env.KNOWLEDGE_TRIAGE_BUNDLE ?? join(repo, "dist", "triage.mjs");
export const fixtures = join(repo, "tests", "fixtures", "engine");
/** The model the bundle loads by default (<bundle>/../../model/model.json). */
export const bundledModel = resolve(dirname(bundle), "..", "model", "model.json");

function newestMtime(dir: string): number {
  let newest = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) newest = Math.max(newest, newestMtime(p));
    else if (/\.(ts|mjs|js)$/.test(e.name)) newest = Math.max(newest, statSync(p).mtimeMs);
  }
  return newest;
}

function sleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Rebuild dist/triage.mjs with `node scripts/build/build.mjs` when any script is newer (one builder at a time). */
export function ensureBundle(): void {
  if (process.env.KNOWLEDGE_TRIAGE_BUNDLE) return;
  const lock = join(tmpdir(), "kt-engine-tests-build.lock");
  const t0 = Date.now();
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      // A lock older than 2 minutes belongs to a crashed run.
      try {
        if (Date.now() - statSync(lock).mtimeMs > 120_000) rmSync(lock, { recursive: true, force: true });
      } catch {}
      if (Date.now() - t0 > 120_000) throw new Error("timed out waiting for the bundle build lock");
      sleep(100);
    }
  }
  try {
    let built = 0;
    try {
      built = statSync(bundle).mtimeMs;
    } catch {}
    if (built < newestMtime(join(repo, "scripts"))) {
      const r = spawnSync(process.execPath, ["scripts/build/build.mjs"], { cwd: repo, encoding: "utf8", timeout: 120_000 });
      if (r.status !== 0) throw new Error(`node scripts/build/build.mjs failed:\n${r.stderr}`);
    }
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/** The environment of a spawned bundle: PATH and HOME, plus `extra`. */
export function childEnv(extra: Record<string, string> = {}): Record<string, string> {
  return { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/tmp", ...extra };
}

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Run `node dist/triage.mjs ...args` in `cwd` (default: the repo) with optional stdin and extra env. */
export function triage(args: string[], opts: { cwd?: string; input?: string | Buffer; env?: Record<string, string>; bin?: string } = {}): Run {
  const r = spawnSync(process.execPath, [opts.bin ?? bundle, ...args], {
    cwd: opts.cwd ?? repo,
    input: opts.input ?? "",
    env: childEnv(opts.env),
    encoding: "utf8",
    timeout: 60_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  return { code: r.status, stdout: r.stdout ?? "", stderr: r.stderr ?? "" };
}

const made: string[] = [];
/** A fresh temporary folder, removed by `removeTempDirs` (call it in afterAll). */
export function tempDir(prefix = "kt-engine-"): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  made.push(d);
  return d;
}

/** Remove the folders made by `tempDir` in this test file. */
export function removeTempDirs(): void {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
}

/**
 * The CLI error contract: exit 1, exactly one stderr line starting "triage: ", no stack-trace frame.
 * Returns that line for further assertions.
 */
export function expectOneLineError(r: Run): string {
  const lines = r.stderr.split("\n").filter((l) => l.trim() !== "");
  expect(r.code, r.stderr).toBe(1);
  expect(lines, r.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^triage: \S/);
  expect(r.stderr).not.toMatch(/^\s+at /m);
  return lines[0] as string;
}

/**
 * Replace the base64 weight block of a parsed model with `fill(n)`, n = the number of weights
 * (one byte each: the weights are stored as Int8). Keeps CLI tests independent of the encoding.
 */
export function mapWeights(model: Record<string, unknown>, fill: (n: number) => string): unknown {
  return fill(Buffer.from(model.weights as string, "base64").byteLength);
}
