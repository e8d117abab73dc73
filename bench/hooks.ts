/**
 * Hook latency through the built bundle, as Claude Code runs it (`node dist/triage.mjs hook <event>`, payload
 * on stdin), on a generated ~50 MB transcript in Claude Code's JSONL shape. Prints wall time (ms) and peak
 * RSS (MB, from /usr/bin/time when present) for: bare node start, PreCompact first run, PreCompact again
 * (incremental, nothing new), PreCompact after a small append, SessionStart(compact), SessionEnd's fast
 * step and its detached worker. Then the floors of issue 14, each measured side by side with `node -e 0` (runs
 * interleaved, medians of `--n`, default 5): PreCompact's first run at most 5x and at most 64 MiB peak RSS (also on
 * the transcript repeated to ~200 MB; `--no-200` skips that), an incremental run after one appended line at most
 * 2.5x, SessionEnd's fast step at most 2x; each printed with PASS or FAIL. Usage: npm run bench:hooks [-- --mb 50]
 * `--before <bundle>` runs another build (unpacked beside its model, as below) in the same interleaved rounds of
 * the floor cases and prints its floors too, each with its median CPU time (user+sys) and node's.
 *
 * With `--adversarial`, instead: the two transcripts that ran past the 30 s hook timeout before the extraction
 * deadline (HOOK_EXTRACT_BUDGET_MS in scripts/hooks/dispatch.ts): a sparse file with no newline (`--sparse-gb`, default
 * 100) and N near-duplicate rule turns from a small vocabulary (`--turns`, default 40,000, about 31 MB;
 * templateRules in tests/fixtures/memory/many-rules.ts). PreCompact runs on a fresh project until a run ends
 * without stopping at the deadline (at most `--runs`, default 8), printing each run's wall time, exit code,
 * its stderr line and the rules written so far. `--before <bundle>` also runs another build once per input,
 * e.g. the parent commit's, unpacked beside its model with
 * `mkdir /tmp/kt-before && git archive HEAD~1 dist model | tar -x -C /tmp/kt-before`:
 * `--before /tmp/kt-before/dist/triage.mjs`. `--compare` also runs `triage extract` once on the turns
 * transcript and says whether the runs that stopped at the deadline wrote the same rules folder bytes.
 */
import { spawnSync } from "node:child_process";
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { jsonl } from "../tests/fixtures/memory/jsonl.js";
import { ruleTurns, templateRules } from "../tests/fixtures/memory/many-rules.js";

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
  /** User + system CPU time in ms (from /usr/bin/time; null without it): less sensitive than wall time to other load. */
  cpuMs: number | null;
  code: number | null;
  stdoutChars: number;
  /** stderr without /usr/bin/time's line. */
  stderr: string;
}

function run(args: string[], stdin: string, env: Record<string, string> = {}): Run {
  const cmd = haveTime ? "/usr/bin/time" : process.execPath;
  const argv = haveTime ? ["-f", "KNOWLEDGE_TRIAGE_MAXRSS_KB=%M %U %S", process.execPath, ...args] : args;
  const t0 = performance.now();
  const r = spawnSync(cmd, argv, { input: stdin, encoding: "utf8", env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", ...env } });
  const ms = performance.now() - t0;
  const m = /KNOWLEDGE_TRIAGE_MAXRSS_KB=(\d+) ([\d.]+) ([\d.]+)/.exec(r.stderr ?? "");
  const stderr = (r.stderr ?? "").replace(/^KNOWLEDGE_TRIAGE_MAXRSS_KB=.*\n?/m, "");
  return { ms, rssMb: m ? Number(m[1]) / 1024 : null, cpuMs: m ? (Number(m[2]) + Number(m[3])) * 1000 : null, code: r.status, stdoutChars: (r.stdout ?? "").length, stderr };
}

/** The value after `name` on the command line, or undefined. */
function argValue(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
}

/** Rule bullets in the .md files of a rules folder (0 when it does not exist). */
function ruleCount(rulesDir: string): number {
  if (!existsSync(rulesDir)) return 0;
  return readdirSync(rulesDir)
    .filter((f) => f.endsWith(".md"))
    .reduce((n, f) => n + readFileSync(join(rulesDir, f), "utf8").split("\n").filter((l) => l.startsWith("- ")).length, 0);
}

/** Every file of a rules folder except the hook's own (log, markers) and the cursors (they name the transcript path). */
function rulesBytes(rulesDir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string, rel: string): void => {
    for (const n of readdirSync(d).sort()) {
      const p = join(d, n);
      const r = rel ? `${rel}/${n}` : n;
      if (statSync(p).isDirectory()) {
        if (r !== ".state/hooks" && r !== ".state/sessions") walk(p, r);
      } else if (!r.startsWith(".state/hook.log")) out.set(r, readFileSync(p, "latin1"));
    }
  };
  walk(rulesDir, "");
  return out;
}

/** `--adversarial`: PreCompact on the two inputs that used to outrun the hook timeout, before and after the deadline. */
function adversarial(): void {
  const gb = Number(argValue("--sparse-gb") ?? 100);
  const turns = Number(argValue("--turns") ?? 40_000);
  const maxRuns = Number(argValue("--runs") ?? 8);
  const before = argValue("--before");
  const root = mkdtempSync(join(tmpdir(), "kt-bench-adversarial-"));
  const sparse = join(root, "sparse.jsonl");
  writeFileSync(sparse, "");
  truncateSync(sparse, gb * 2 ** 30);
  if (statSync(sparse).blocks * 512 > 2 ** 20) {
    rmSync(root, { recursive: true, force: true });
    throw new Error(`${tmpdir()} does not keep sparse files sparse; not writing ${gb} GiB (use --sparse-gb with a small value)`);
  }
  const dup = join(root, "turns.jsonl");
  writeFileSync(dup, jsonl(ruleTurns(templateRules(turns))));
  const inputs: Array<[string, string]> = [
    [`sparse file, ${gb} GiB, no newline`, sparse],
    [`${turns.toLocaleString("en")} near-duplicate rule turns, ${(statSync(dup).size / 2 ** 20).toFixed(1)} MiB`, dup],
  ];
  const builds: Array<[string, string, number]> = [...(before ? [["before", resolve(before), 1] as [string, string, number]] : []), ["after", bundle, maxRuns]];
  console.log(`PreCompact on adversarial transcripts (Claude Code cancels the hook after its 30 s timeout); temp folder ${root}`);
  console.log(`${"input".padEnd(44)} ${"build".padEnd(7)} run ${"ms".padStart(7)}  exit  rules  stderr`);
  const folders = new Map<string, string>();
  for (const [name, transcript] of inputs) {
    for (const [label, b, runs] of builds) {
      const project = mkdtempSync(join(root, `${label}-`));
      const pay = JSON.stringify({ session_id: "adv", transcript_path: transcript, cwd: project, hook_event_name: "PreCompact", trigger: "auto" });
      let total = 0;
      for (let i = 1; i <= runs; i++) {
        const r = run([b, "hook", "pre-compact"], pay);
        total += r.ms;
        const rules = ruleCount(join(project, ".claude", "rules", "knowledge-triage"));
        console.log(`${name.padEnd(44)} ${label.padEnd(7)} ${String(i).padStart(3)} ${r.ms.toFixed(0).padStart(7)}  ${String(r.code).padStart(4)}  ${String(rules).padStart(5)}  ${r.stderr.trim().split("\n")[0] ?? ""}`);
        if (!/stopped at the .* deadline/.test(r.stderr)) break;
      }
      if (runs > 1) console.log(`${name.padEnd(44)} ${label.padEnd(7)} all ${total.toFixed(0).padStart(7)}`);
      if (transcript === dup && label === "after") folders.set("after", join(project, ".claude", "rules", "knowledge-triage"));
    }
  }
  if (process.argv.includes("--compare")) {
    const once = join(root, "once", "rules");
    const t0 = performance.now();
    spawnSync(process.execPath, [bundle, "extract", dup, "--rules-dir", once, "--session", "adv"], { encoding: "utf8" });
    const ms = performance.now() - t0;
    const a = rulesBytes(folders.get("after") as string);
    const o = rulesBytes(once);
    const same = a.size === o.size && [...a].every(([k, v]) => o.get(k) === v);
    console.log(`one uninterrupted \`triage extract\` on the turns: ${ms.toFixed(0)} ms; same rules folder bytes as the PreCompact runs: ${same ? "yes" : "NO"}`);
  }
}

if (process.argv.includes("--adversarial")) {
  adversarial();
  process.exit(0);
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

// Floors (issue 14): each case interleaved with a bare `node -e 0`, medians of N; fresh project for every first run.
// With `--before <bundle>` (another build beside its model, e.g. main's: see --adversarial above) each case also runs
// that build in the same rounds, on its own project, and both are printed with their CPU time (user+sys).
const N = Number(argValue("--n") ?? 5);
const beforeArg = argValue("--before");
const builds: Array<[string, string]> = [["", bundle], ...(beforeArg ? [["before: ", resolve(beforeArg)] as [string, string]] : [])];
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const floors: Array<{ name: string; ratio: number; max: number; rss?: number; cpu?: string }> = [];
function sideBySide(name: string, max: number, once: (i: number, b: string, k: number) => Run): void {
  const base: Run[] = [];
  const hook: Run[][] = builds.map(() => []);
  for (let i = 0; i < N; i++) {
    base.push(run(["-e", "0"], ""));
    builds.forEach(([, b], k) => {
      hook[k]?.push(once(i, b, k));
    });
  }
  const baseMs = median(base.map((r) => r.ms));
  const cpu = (rs: Run[]): string => (rs.every((r) => r.cpuMs !== null) ? `${median(rs.map((r) => r.cpuMs as number)).toFixed(0)} ms` : "n/a");
  builds.forEach(([label], k) => {
    const rs = hook[k] as Run[];
    const ms = median(rs.map((r) => r.ms));
    const rss = rs.flatMap((r) => (r.rssMb === null ? [] : [r.rssMb]));
    floors.push({ name: `${label}${name} (${ms.toFixed(0)} ms vs ${baseMs.toFixed(0)} ms)`, ratio: ms / baseMs, max, rss: rss.length ? Math.max(...rss) : undefined, cpu: `CPU ${cpu(rs)} vs ${cpu(base)}` });
  });
}
const fresh = (i: number, t: string): string => {
  const dir = join(root, `floor-${i}-${Math.random().toString(36).slice(2)}`);
  mkdirSync(dir);
  return JSON.stringify({ session_id: "bench-session", transcript_path: t, cwd: dir, hook_event_name: "PreCompact", trigger: "auto" });
};
// The incremental case needs a project whose cursor is at the end of the transcript for each build.
const incProjects = builds.map(([, b], k) => {
  if (k === 0) return project;
  const dir = join(root, `inc-before-${k}`);
  mkdirSync(dir);
  run([b, "hook", "pre-compact"], JSON.stringify({ session_id: "bench-session", transcript_path: transcript, cwd: dir, hook_event_name: "PreCompact", trigger: "auto" }));
  return dir;
});
sideBySide("PreCompact first run, 50 MB", 5, (i, b) => run([b, "hook", "pre-compact"], fresh(i, transcript)));
sideBySide("PreCompact after a 1-line append", 2.5, (i, b, k) => {
  if (k === 0) appendFileSync(transcript, line("user", `Never merge a pull request ${i} without a review.`, 10_000_000 + i));
  return run([b, "hook", "pre-compact"], JSON.stringify({ session_id: "bench-session", transcript_path: transcript, cwd: incProjects[k], hook_event_name: "PreCompact", trigger: "auto", prompt_id: `inc-${i}` }));
});
sideBySide("SessionEnd fast step", 2, (_i, b) => run([b, "hook", "session-end"], JSON.stringify({ session_id: "floor-end", transcript_path: transcript, cwd: project, hook_event_name: "SessionEnd", reason: "other" })));
let rss200: number | null | undefined;
if (!process.argv.includes("--no-200")) {
  const big = join(root, "big.jsonl");
  const src = readFileSync(transcript);
  writeFileSync(big, "");
  while (statSync(big).size < 200 * 2 ** 20) appendFileSync(big, src);
  rss200 = run([bundle, "hook", "pre-compact"], fresh(99, big)).rssMb;
  rmSync(big);
}
console.log(`Floors (issue 14), side by side with \`node -e 0\`, medians of ${N}; load average ${loadavg().map((x) => x.toFixed(2)).join(" ")} (${cpus().length} CPUs)`);
for (const f of floors) {
  const ok = f.ratio <= f.max;
  console.log(`${f.name.padEnd(72)} ${f.ratio.toFixed(2).padStart(6)}x (floor ${f.max}x) ${ok ? "PASS" : "FAIL"}${f.rss !== undefined ? `  peak RSS ${f.rss.toFixed(0)} MiB` : ""}${beforeArg && f.cpu ? `  ${f.cpu}` : ""}`);
}
const rss50 = floors[0]?.rss;
if (rss50 !== undefined) console.log(`${"PreCompact first run peak RSS, 50 MB".padEnd(72)} ${rss50.toFixed(0).padStart(6)} MiB (floor 64) ${rss50 <= 64 ? "PASS" : "FAIL"}`);
if (rss200 !== undefined && rss200 !== null) console.log(`${"PreCompact first run peak RSS, ~200 MB".padEnd(72)} ${rss200.toFixed(0).padStart(6)} MiB (floor 64) ${rss200 <= 64 ? "PASS" : "FAIL"}`);
