/**
 * Drives the real Claude Code CLI offline: a clean environment (temp HOME, the mock API on 127.0.0.1,
 * no telemetry, no updater), plugin setup commands, then one `claude -p --input-format stream-json`
 * process fed one prompt at a time (the next prompt is sent 1 s after each `result`, as a user would).
 */
import { spawn, spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { dirname } from "node:path";
import { createInterface } from "node:readline";

export interface CliEnvOptions {
  claudeBin: string;
  home: string;
  port: number;
  extra?: Record<string, string>;
}

/** The only variables the CLI sees: nothing of the caller's Claude/Anthropic setup leaks in. */
export function cliEnv(o: CliEnvOptions): Record<string, string> {
  return {
    PATH: `${dirname(o.claudeBin)}:${dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`,
    HOME: o.home,
    TERM: "dumb",
    ANTHROPIC_BASE_URL: `http://127.0.0.1:${o.port}`,
    ANTHROPIC_API_KEY: "sk-test-dummy",
    DISABLE_TELEMETRY: "1",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    DISABLE_AUTOUPDATER: "1",
    NPM_CONFIG_UPDATE_NOTIFIER: "false",
    ...(o.extra ?? {}),
  };
}

/** Run one CLI subcommand (e.g. `plugin install`) synchronously; throws with its output when it fails. */
export function cli(bin: string, args: string[], env: Record<string, string>, cwd: string): string {
  const r = spawnSync(bin, args, { env, cwd, encoding: "utf8", timeout: 120_000, stdio: ["ignore", "pipe", "pipe"] });
  const out = `${r.stdout ?? ""}${r.stderr ?? ""}`;
  if (r.status !== 0) throw new Error(`claude ${args.join(" ")} failed (rc ${r.status}): ${out}`);
  return out;
}

export interface SessionResult {
  sessionId: string;
  exitCode: number | null;
  results: Array<{ subtype?: string; is_error?: boolean; result?: unknown }>;
  messages: unknown[];
  stderr: string;
  seconds: number;
}

/**
 * Type `prompts` into one stream-json session in `project`; resolves when the CLI exits (stdin is closed
 * after the last `result`). A prompt starting with "/" is a slash command (`/compact` works). `allowedTools` is the
 * CLI's --allowedTools (an MCP server's tools are allowed by `mcp__<server>`).
 */
export function runSession(
  bin: string,
  env: Record<string, string>,
  project: string,
  prompts: string[],
  timeoutMs = 150_000,
  allowedTools = "Bash,Read,Write,Edit",
): Promise<SessionResult> {
  const sessionId = randomUUID();
  const t0 = Date.now();
  const args = ["-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose"];
  args.push("--session-id", sessionId, "--allowedTools", allowedTools);
  const p = spawn(bin, args, { cwd: project, env, stdio: ["pipe", "pipe", "pipe"] });
  const res: SessionResult = { sessionId, exitCode: null, results: [], messages: [], stderr: "", seconds: 0 };
  let i = 0;
  const send = (): void => {
    if (i >= prompts.length) {
      p.stdin.end();
      return;
    }
    p.stdin.write(`${JSON.stringify({ type: "user", message: { role: "user", content: prompts[i++] } })}\n`);
  };
  p.stderr.on("data", (d: Buffer) => {
    res.stderr += d.toString();
  });
  createInterface({ input: p.stdout }).on("line", (line) => {
    let msg: { type?: string; subtype?: string; is_error?: boolean; result?: unknown };
    try {
      msg = JSON.parse(line);
    } catch {
      return;
    }
    res.messages.push(msg);
    if (msg.type === "result") {
      res.results.push({ subtype: msg.subtype, is_error: msg.is_error, result: msg.result });
      setTimeout(send, 1000); // a prompt sent at once races the transcript writer
    }
  });
  const timer = setTimeout(() => p.kill("SIGKILL"), timeoutMs);
  send();
  return new Promise((resolve) => {
    p.on("close", (code) => {
      clearTimeout(timer);
      res.exitCode = code;
      res.seconds = (Date.now() - t0) / 1000;
      resolve(res);
    });
  });
}
