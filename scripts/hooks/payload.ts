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

/** Stdin is read up to this many bytes (the rest is drained and ignored) and for at most this long (ms). */
export const STDIN_MAX_BYTES = 16 * 1024 * 1024;
const STDIN_DEADLINE_MS = 5000;
/** An expected "nothing to do" condition: one stderr line, no log, no file touched. */
export class HookSkip extends Error {}

/** Read stdin bytes (capped at STDIN_MAX_BYTES, at most STDIN_DEADLINE_MS); a TTY counts as empty. */
export async function readStdin(): Promise<{ bytes: Buffer; size: number }> {
  if (process.stdin.isTTY) return { bytes: Buffer.alloc(0), size: 0 };
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (): void => {
      clearTimeout(timer);
      process.stdin.removeAllListeners("data");
      process.stdin.pause();
      resolve({ bytes: Buffer.concat(chunks), size });
    };
    const timer = setTimeout(done, STDIN_DEADLINE_MS);
    process.stdin.on("data", (c: Buffer) => {
      if (size < STDIN_MAX_BYTES) chunks.push(c.subarray(0, STDIN_MAX_BYTES - size));
      size += c.length;
    });
    process.stdin.on("end", done);
    process.stdin.on("error", done);
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
