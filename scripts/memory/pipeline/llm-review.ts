/**
 * Optional `--llm CMD` second opinion (the SafetyMargin test): for verdicts whose score is within
 * `band` of the threshold, run CMD (through the shell) with a prompt on stdin and read yes/no from its
 * stdout: "yes" keeps the sentence as a rule, "no" drops it. Only redacted text is sent. A failing or
 * silent command leaves the verdict unchanged and adds one warning. Each call times out after `timeoutMs`
 * (default LLM_TIMEOUT_MS); the command runs in its own process group, and the whole group is killed then,
 * so a `sh -c` wrapper cannot leave its children running.
 */
import { spawn } from "node:child_process";
import type { Verdict } from "../extract.js";

/** The question asked for each borderline sentence. */
export function llmPrompt(sentence: string): string {
  return [
    "A user said this to a coding agent during a session:",
    `"${sentence}"`,
    "If the agent forgot this sentence after the conversation is summarised, would a later action be wrong?",
    "Answer with one word: yes or no.",
  ].join("\n");
}

/** Default timeout of one `--llm` call (ms). */
export const LLM_TIMEOUT_MS = 10_000;

/** SIGKILL the process group led by `pid` (POSIX), or the process alone where groups do not exist. */
export function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(process.platform === "win32" ? pid : -pid, "SIGKILL");
  } catch {
    // already gone
  }
}

/** Run `cmd` through the shell in a new process group, `input` on stdin; resolves its stdout (first 4 KiB). */
export function runShell(cmd: string, input: string, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, { shell: true, stdio: ["pipe", "pipe", "ignore"], detached: process.platform !== "win32" });
    let out = "";
    const timer = setTimeout(() => {
      killGroup(child.pid);
      reject(new Error("timed out"));
    }, timeoutMs);
    child.stdout.on("data", (d: Buffer) => {
      if (out.length < 4096) out += d.toString("utf8");
    });
    child.on("error", (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      killGroup(child.pid); // a background child the command left behind goes with it
      if (code === 0) resolve(out);
      else reject(new Error(`exit ${code}`));
    });
    child.stdin.on("error", () => undefined);
    child.stdin.end(input);
  });
}

/** Ask CMD about borderline verdicts (mutates `verdicts`: keep/kind), each call bounded by `timeoutMs`. Warnings are appended to `warnings`. */
export async function askLlm(cmd: string, verdicts: Verdict[], threshold: number, band: number, warnings: string[], timeoutMs = LLM_TIMEOUT_MS): Promise<void> {
  let failures = 0;
  const why = new Set<string>();
  for (const v of verdicts) {
    if (v.kind === "retraction" || v.kind === "exception") continue;
    if (Math.abs(v.score - threshold) >= band) continue;
    try {
      const ans = (await runShell(cmd, llmPrompt(v.text), timeoutMs)).trim().toLowerCase();
      if (/^\W*yes\b/.test(ans)) {
        v.keep = true;
        v.kind = "rule";
        v.cues.push("llm:yes");
      } else if (/^\W*no\b/.test(ans)) {
        v.keep = false;
        v.kind = "drop";
        v.cues.push("llm:no");
      }
    } catch (e) {
      const msg = (e as Error).message;
      // POSIX shells exit 127 for a command not found and 126 for one that cannot run: every later call would fail too.
      if (msg === "exit 127" || msg === "exit 126") {
        const what = msg === "exit 127" ? "not found" : "not executable";
        warnings.push(`--llm command ${what}: ${cmd} (the shell exited ${msg.slice(5)}); the borderline sentences kept the default verdict`);
        return;
      }
      failures++;
      why.add(msg === "timed out" ? `timed out after ${timeoutMs} ms` : msg.startsWith("exit ") ? `exit code ${msg.slice(5)}` : msg);
    }
  }
  if (failures > 0) warnings.push(`--llm command failed (${[...why].join(", ")}) ${failures} time${failures === 1 ? "" : "s"}; those sentences kept the default verdict`);
}
