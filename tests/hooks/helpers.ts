/** Helpers for hook tests: run the BUILT bundle (dist/triage.mjs) as Claude Code would, with fixtures. */
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { childEnv } from "../cli/helpers.js";
import { filesUnder } from "../memory/helpers.js";

export { childEnv };

export const repo = resolve(import.meta.dirname, "..", "..");
export const bundle = process.env.KNOWLEDGE_TRIAGE_BUNDLE ?? join(repo, "dist", "triage.mjs");
export const fixtures = join(repo, "tests", "fixtures", "hooks");

export interface HookRun {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** Spawn `node dist/triage.mjs hook <event> [...extra]` with `stdin` bytes; env is minimal plus `env`. */
export function runHook(event: string, stdin: string | Buffer, env: Record<string, string> = {}, extra: string[] = []): HookRun {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [bundle, "hook", event, ...extra], {
    input: stdin,
    env: childEnv(env),
    encoding: "utf8",
    timeout: 60_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  return { code: r.status, stdout: r.stdout ?? "", stderr: r.stderr ?? "", ms: performance.now() - t0 };
}

const made: string[] = [];
/** Delete every temp folder made by tempProject in this test file (call from afterAll). */
export function cleanup(): void {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
}

/** A fresh project folder (optionally with `name` as its last segment) and a copy of the fixture transcript. */
export function tempProject(name = "proj"): { root: string; project: string; transcript: string } {
  const root = mkdtempSync(join(tmpdir(), "kt-hook-"));
  made.push(root);
  const project = join(root, name);
  mkdirSync(project, { recursive: true });
  const transcript = join(root, "session.jsonl");
  cpSync(join(fixtures, "transcript.jsonl"), transcript);
  return { root, project, transcript };
}

/** Payload line `i` of fixtures/hooks/payloads.jsonl with {{TRANSCRIPT}} and {{CWD}} filled in (JSON-escaped). */
export function payload(i: number, transcript: string, cwd: string): string {
  const line = readFileSync(join(fixtures, "payloads.jsonl"), "utf8").split("\n")[i] ?? "";
  const esc = (s: string): string => JSON.stringify(s).slice(1, -1);
  return line.replaceAll("{{TRANSCRIPT}}", esc(transcript)).replaceAll("{{CWD}}", esc(cwd));
}

export const P = { preManual: 0, preAuto: 1, startCompact: 2, startStartup: 3, end: 4 } as const;

/** Every file under `dir` as {relative path: bytes (base64), mtimeMs}; {} when dir is missing. */
export function snapshot(dir: string): Record<string, { bytes: string; mtimeMs: number }> {
  return Object.fromEntries(filesUnder(dir).map((f) => [f, { bytes: readFileSync(join(dir, f)).toString("base64"), mtimeMs: statSync(join(dir, f)).mtimeMs }]));
}

/** Only the bytes of a snapshot (for byte-identity checks that ignore mtimes). */
export const bytesOf = (s: ReturnType<typeof snapshot>): Record<string, string> =>
  Object.fromEntries(Object.entries(s).map(([k, v]) => [k, v.bytes]));

/** True when `s` (trimmed) parses as JSON of any kind: hook stdout must never be JSON on PreCompact. */
export function looksLikeJson(s: string): boolean {
  const t = s.trim();
  if (t === "") return false;
  try {
    JSON.parse(t);
    return true;
  } catch {
    return t.startsWith("{") || t.startsWith("[");
  }
}

export const rulesDirOf = (project: string): string => join(project, ".claude", "rules", "knowledge-triage");
