/**
 * Hook latency through the built bundle, as Claude Code runs it (`node dist/triage.mjs hook <event>`, payload
 * on stdin), on a generated ~50 MB transcript in Claude Code's JSONL shape. Prints wall time (ms) and peak
 * RSS (MB, from /usr/bin/time when present) for: bare node start, PreCompact first run, PreCompact again
 * (incremental, nothing new), PreCompact after a small append, SessionStart(compact), SessionEnd's fast
 * step and its detached worker. Usage: npm run bench:hooks [-- --mb 50]
 */
import { spawnSync } from "node:child_process";
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const repo = resolve(import.meta.dirname, "..");
const bundle = join(repo, "dist", "triage.mjs");
const mbArg = process.argv.indexOf("--mb");
const targetMb = mbArg > 0 ? Number(process.argv[mbArg + 1]) : 50;
const haveTime = existsSync("/usr/bin/time");

function line(type: "user" | "assistant", content: unknown, i: number, extra: object = {}): string {
  return `${JSON.stringify({
    parentUuid: i > 0 ? `u-${i - 1}` : null, isSidechain: false, userType: "external", cwd: "/home/dev/shop",
    sessionId: "bench-session", version: "2.1.197", gitBranch: "main", type,
    message: type === "user" ? { role: "user", content } : { model: "claude-opus-4-8", id: `msg_${i}`, type: "message", role: "assistant", content, stop_reason: "end_turn" },
    uuid: `u-${i}`, timestamp: "2026-11-21T10:00:00.000Z", ...extra,
  })}\n`;
}

/** ~targetMb of transcript: per round a user prompt (every 10th states a rule), a tool call, a ~20 kB tool result, a reply. */
function makeTranscript(path: string): number {
  const filler = "const value = compute(input); // unchanged line of a source file read by the Read tool\n".repeat(230);
  let i = 0;
  let chunk = "";
  writeFileSync(path, "");
  while (statSync(path).size < targetMb * 1024 * 1024) {
    for (let k = 0; k < 50; k++, i += 4) {
      const ask = i % 40 === 0 ? `Never change the public API of module ${i} without a deprecation note.` : `Please look at file ${i} and tell me what it does.`;
      chunk += line("user", ask, i);
      chunk += line("assistant", [{ type: "tool_use", id: `toolu_${i}`, name: "Read", input: { file_path: `/home/dev/shop/src/f${i}.ts` } }], i + 1);
      chunk += line("user", [{ tool_use_id: `toolu_${i}`, type: "tool_result", content: filler, is_error: false }], i + 2, { toolUseResult: { type: "text" } });
      chunk += line("assistant", [{ type: "text", text: `File ${i} computes a value.` }], i + 3);
    }
    appendFileSync(path, chunk);
    chunk = "";
  }
  return statSync(path).size;
}

interface Run {
  ms: number;
  rssMb: number | null;
  code: number | null;
  stdoutChars: number;
}

function run(args: string[], stdin: string, env: Record<string, string> = {}): Run {
  const cmd = haveTime ? "/usr/bin/time" : process.execPath;
  const argv = haveTime ? ["-f", "KT_MAXRSS_KB=%M", process.execPath, ...args] : args;
  const t0 = performance.now();
  const r = spawnSync(cmd, argv, { input: stdin, encoding: "utf8", env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", ...env } });
  const ms = performance.now() - t0;
  const m = /KT_MAXRSS_KB=(\d+)/.exec(r.stderr ?? "");
  return { ms, rssMb: m ? Number(m[1]) / 1024 : null, code: r.status, stdoutChars: (r.stdout ?? "").length };
}

const root = mkdtempSync(join(tmpdir(), "kt-bench-hooks-"));
const project = join(root, "project");
mkdirSync(project);
const transcript = join(root, "bench-session.jsonl");
const bytes = makeTranscript(transcript);
const payload = (event: string, extra: object): string =>
  JSON.stringify({ session_id: "bench-session", transcript_path: transcript, cwd: project, hook_event_name: event, ...extra });
const pre = (prompt: string): string => payload("PreCompact", { trigger: "auto", prompt_id: prompt, custom_instructions: null });

const rows: Array<[string, Run]> = [];
rows.push(["bare `node -e 0` (reference)", run(["-e", "0"], "")]);
rows.push(["PreCompact, first run (full read)", run([bundle, "hook", "pre-compact"], pre("p1"))]);
rows.push(["PreCompact again, nothing new", run([bundle, "hook", "pre-compact"], pre("p1"))]);
appendFileSync(transcript, line("user", "Do not add a co-author line to commit messages.", 9_999_999));
rows.push(["PreCompact after a 1-line append", run([bundle, "hook", "pre-compact"], pre("p2"))]);
rows.push(["SessionStart(compact) after PreCompact", run([bundle, "hook", "session-start"], payload("SessionStart", { source: "compact", prompt_id: "p2" }))]);

// SessionEnd on a fresh project (the worker then does a full first read): time to return, then to finish.
const project2 = join(root, "project2");
mkdirSync(project2);
const se = JSON.stringify({ session_id: "bench-session", transcript_path: transcript, cwd: project2, hook_event_name: "SessionEnd", reason: "other" });
const seRun = run([bundle, "hook", "session-end"], se);
rows.push(["SessionEnd fast step (returns)", seRun]);
const t0 = performance.now();
const cursor = join(project2, ".claude", "rules", "knowledge-triage", ".state", "sessions", "bench-session.json");
while (!existsSync(cursor) && performance.now() - t0 < 120_000) spawnSync("sleep", ["0.05"]);
const workerMs = seRun.ms + (performance.now() - t0);

console.log(`Hook latency, ${(bytes / 1024 / 1024).toFixed(1)} MB transcript, bundle ${bundle}`);
console.log(`${"case".padEnd(42)} ${"ms".padStart(8)} ${"peak RSS MB".padStart(12)}  exit  stdout chars`);
for (const [name, r] of rows)
  console.log(`${name.padEnd(42)} ${r.ms.toFixed(0).padStart(8)} ${(r.rssMb?.toFixed(0) ?? "n/a").padStart(12)}  ${String(r.code).padStart(4)}  ${r.stdoutChars}`);
console.log(`${"SessionEnd worker done (after hook start)".padEnd(42)} ${workerMs.toFixed(0).padStart(8)}`);
console.log(`rules written: ${existsSync(join(project, ".claude", "rules", "knowledge-triage", "constraints.md")) ? readFileSync(join(project, ".claude", "rules", "knowledge-triage", "constraints.md"), "utf8").split("\n").filter((l) => l.startsWith("- ")).length : 0} (temp folder ${root})`);
