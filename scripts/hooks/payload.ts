/**
 * The hook payload boundary: the events `triage hook` accepts, the zod schema of Claude Code's hook
 * stdin (unknown fields pass through: Claude Code adds fields between versions), and reading and
 * parsing stdin with a byte cap and a time limit.
 */
import * as z from "zod/mini";

/** Events accepted by `triage hook <event>`; `session-end-worker` is the detached child of `session-end`. */
export const HOOK_EVENTS = ["pre-compact", "session-start", "session-end", "session-end-worker"] as const;
export type HookEvent = (typeof HOOK_EVENTS)[number];

/** Claude Code's own event names (hook_event_name in the payload, references/claude-code.md §1.2) for our three events. */
const CLAUDE_EVENT_NAMES: Readonly<Record<string, HookEvent>> = { PreCompact: "pre-compact", SessionStart: "session-start", SessionEnd: "session-end" };

/**
 * The event `triage hook <event>` runs: our kebab-case name as given, or Claude Code's own spelling
 * (PreCompact, SessionStart, SessionEnd) mapped to it. Anything else is returned unchanged (and then
 * rejected by the hook as unknown).
 */
export function hookEventOf(name: string): string {
  return CLAUDE_EVENT_NAMES[name] ?? name;
}

/** Common fields of a Claude Code hook payload (2.1.197, references/claude-code.md §1.2); unknown fields pass through. */
export const HookPayloadSchema = z.looseObject({
  session_id: z.optional(z.string()),
  transcript_path: z.nullish(z.string()),
  cwd: z.optional(z.string()),
  hook_event_name: z.optional(z.string()),
  prompt_id: z.nullish(z.string()),
  trigger: z.nullish(z.string()),
  source: z.nullish(z.string()),
  reason: z.nullish(z.string()),
  custom_instructions: z.nullish(z.string()),
});
export type HookPayload = z.infer<typeof HookPayloadSchema>;

/** Largest payload read from stdin, in bytes (16 MiB): reading stops as soon as more arrives and the payload is refused. */
export const STDIN_MAX_BYTES = 16 * 1024 * 1024;
/**
 * How long a hook waits for stdin to end, in ms (5 s). Claude Code writes the payload (about 1 KB) and closes stdin
 * when it starts the hook, so this only bites when nothing closes it (`sleep 40 | triage hook PreCompact`); 5 s is
 * well under Claude Code's 30 s hook timeout (references/claude-code.md) and counts against the 20 s extraction budget
 * (extract-step.ts HOOK_EXTRACT_BUDGET_MS), which runs from process start.
 */
export const STDIN_DEADLINE_MS = 5000;
/** An expected "nothing to do" condition: one stderr line, no log, no file touched. */
export class HookSkip extends Error {}

/** What readStdin got: the bytes (at most STDIN_MAX_BYTES), whether it stopped because more arrived, and whether stdin ended. */
export interface StdinRead {
  bytes: Buffer;
  overCap: boolean;
  ended: boolean;
}

/**
 * Read stdin until it ends, more than STDIN_MAX_BYTES arrive (stop at once, `overCap`) or `deadlineMs` pass (`ended`
 * false); then stdin is destroyed, so an open pipe does not keep the process alive. A TTY counts as empty. Never rejects.
 */
export async function readStdin(deadlineMs: number = STDIN_DEADLINE_MS): Promise<StdinRead> {
  if (process.stdin.isTTY) return { bytes: Buffer.alloc(0), overCap: false, ended: true };
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const done = (overCap: boolean, ended: boolean): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      process.stdin.removeAllListeners("data");
      process.stdin.removeAllListeners("end");
      process.stdin.on("error", () => {}); // destroying a pipe may still report an error: not ours to handle
      process.stdin.destroy();
      resolve({ bytes: Buffer.concat(chunks), overCap, ended });
    };
    const timer = setTimeout(() => done(false, false), deadlineMs);
    process.stdin.on("data", (c: Buffer) => {
      if (size + c.length > STDIN_MAX_BYTES) return done(true, false);
      chunks.push(c);
      size += c.length;
    });
    process.stdin.on("end", () => done(false, true));
    process.stdin.on("error", () => done(false, true));
  });
}

/** Parse payload bytes: UTF-8 (invalid bytes -> U+FFFD, BOM stripped), JSON, then the zod schema. */
export function parsePayload(bytes: Uint8Array): HookPayload {
  const text = new TextDecoder("utf-8").decode(bytes).trim();
  if (text === "") throw new HookSkip("empty payload on stdin; nothing to do");
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Error(`payload is not JSON (${bytes.length} bytes)`);
  }
  const r = HookPayloadSchema.safeParse(json);
  if (!r.success) {
    const issue = r.error.issues[0];
    throw new Error(`payload rejected: ${issue?.path.join(".") || "(root)"}: ${issue?.message}`);
  }
  return r.data;
}
