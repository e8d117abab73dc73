/**
 * Pure: what the archive search (dig) indexes of one parsed transcript line: the user's own text, or an assistant
 * message's text and tool calls (name and input). Tool results, meta, sidechain and compact-summary lines are left
 * out: they are the bulk of a transcript's bytes and mostly file contents the agent can read again
 * (references/claude-code.md §2 for the line shapes).
 */
import { userUtterance } from "../transcript.js";

/** One searchable message of a transcript line. */
export interface ArchivedMessage {
  role: "user" | "assistant";
  /** Text blocks, then one `[tool Name] {input JSON}` line per tool call; not redacted (the caller redacts). */
  text: string;
  /** Claude Code's `message.id` for assistant lines (one message is split over several lines, one per block). */
  messageId?: string;
  timestamp?: string;
}

/** Characters of one tool call's input JSON kept in the message text (a Write of a whole file is cut here). */
export const TOOL_INPUT_MAX_CHARS = 2000;

/**
 * The searchable message of one parsed transcript line, or null when the line has none (tool results, system
 * lines, meta/sidechain/summary lines, empty text). `maxToolChars` caps each tool call's input JSON (chars).
 */
export function archivedMessage(obj: unknown, maxToolChars = TOOL_INPUT_MAX_CHARS): ArchivedMessage | null {
  if (obj === null || typeof obj !== "object" || Array.isArray(obj)) return null;
  const o = obj as Record<string, unknown>;
  const timestamp = typeof o.timestamp === "string" ? o.timestamp : undefined;
  if (o.type === "user") {
    const u = userUtterance(obj);
    return typeof u === "string" ? null : { role: "user", text: u.text, timestamp };
  }
  if (o.type !== "assistant" || o.isSidechain === true) return null;
  const msg = o.message as Record<string, unknown> | undefined;
  if (!msg || typeof msg !== "object" || !Array.isArray(msg.content)) return null;
  const parts: string[] = [];
  for (const b of msg.content) {
    if (!b || typeof b !== "object") continue;
    const blk = b as Record<string, unknown>;
    if (blk.type === "text" && typeof blk.text === "string" && blk.text.trim() !== "") parts.push(blk.text);
    else if (blk.type === "tool_use" && typeof blk.name === "string") {
      let input = "";
      try {
        input = JSON.stringify(blk.input ?? {});
      } catch {
        input = "";
      }
      parts.push(`[tool ${blk.name}] ${input.length > maxToolChars ? `${input.slice(0, maxToolChars)}…` : input}`);
    }
  }
  if (parts.length === 0) return null;
  return { role: "assistant", text: parts.join("\n"), messageId: typeof msg.id === "string" ? msg.id : undefined, timestamp };
}
