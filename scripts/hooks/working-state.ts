/**
 * Working state after compaction (issue 15, item 3): what SessionStart(compact) prints beside the pinned rules, read
 * from the transcript: the latest TodoWrite list with its statuses, the files edited or written since the previous
 * compaction, the last three user requests verbatim (redacted, each cut to REQUEST_MAX_CHARS), and one line saying
 * that `dig` recovers anything else. Line shapes: references/claude-code.md §2 (`compact_boundary` system lines,
 * assistant `tool_use` blocks; TodoWrite input `{todos: [{content, status, activeForm}]}` as in data/sessions/).
 */
import { isAbsolute, relative } from "node:path";
import * as z from "zod/mini";
import { stripControls } from "../memory/control-chars.js";
import { redactSync } from "../memory/redact.js";
import { decodeLine, readLines, userUtterance } from "../memory/transcript.js";
import { HOOK_OUTPUT_MAX_CHARS, pinnedText } from "./hook-output.js";

/** Characters kept of each user request (a pasted log or file is cut there with "…"). */
export const REQUEST_MAX_CHARS = 600;
/** Characters kept of each todo item. */
const TODO_MAX_CHARS = 200;
/** Files listed at most (the rest counted). */
const FILES_MAX = 30;
/** Characters of the whole working-state block at most, so the pinned rules keep most of the 9,000 (HOOK_OUTPUT_MAX_CHARS). */
export const WORKING_STATE_MAX_CHARS = 3500;
/** Tools whose `file_path` (or `notebook_path`) input is a file the agent changed. */
const EDIT_TOOLS = new Set(["Edit", "Write", "MultiEdit", "NotebookEdit"]);

const TodosSchema = z.object({ todos: z.array(z.looseObject({ content: z.string(), status: z.string() })) });

/** The working state found in a transcript. */
export interface WorkingState {
  /** The latest TodoWrite list, or null when the session never wrote one. */
  todos: Array<{ content: string; status: string }> | null;
  /** Files edited or written since the previous compaction, in order of last change (absolute as in the transcript). */
  files: string[];
  /** The last three user requests, oldest first, as typed (not yet redacted or cut). */
  requests: string[];
}

/**
 * Read the working state of a transcript, streaming (lines over 1 MiB are skipped unread). "Since the previous
 * compaction": the files of the segment after the last `compact_boundary`, or, when nothing happened after it (the
 * boundary of the compaction this SessionStart follows), of the segment before it. Throws fs errors.
 */
export async function readWorkingState(transcriptPath: string): Promise<WorkingState> {
  let todos: WorkingState["todos"] = null;
  let files = new Map<string, number>();
  let before = new Map<string, number>();
  let active = false;
  const requests: string[] = [];
  let n = 0;
  for await (const line of readLines(transcriptPath)) {
    if (!line.complete || !line.bytes) continue;
    const b = line.bytes;
    const boundary = b.includes('"compact_boundary"');
    if (!boundary && !b.includes('"tool_use"') && !b.includes('"type":"user"')) continue;
    let o: Record<string, unknown>;
    try {
      o = JSON.parse(decodeLine(b).text) as Record<string, unknown>;
    } catch {
      continue;
    }
    if (o.type === "system" && o.subtype === "compact_boundary") {
      if (active) before = files;
      files = new Map();
      active = false;
      continue;
    }
    if (o.type === "user") {
      const u = userUtterance(o);
      if (typeof u !== "string") {
        requests.push(u.text);
        if (requests.length > 3) requests.shift();
        active = true;
      }
      continue;
    }
    const content = (o.message as { content?: unknown } | undefined)?.content;
    if (o.type !== "assistant" || o.isSidechain === true || !Array.isArray(content)) continue;
    for (const blk of content as Array<Record<string, unknown>>) {
      if (blk?.type !== "tool_use" || typeof blk.name !== "string") continue;
      active = true;
      const input = (blk.input ?? {}) as Record<string, unknown>;
      if (blk.name === "TodoWrite") {
        const t = TodosSchema.safeParse(input);
        if (t.success) todos = t.data.todos.map((x) => ({ content: x.content, status: x.status }));
      } else if (EDIT_TOOLS.has(blk.name)) {
        const p = typeof input.file_path === "string" ? input.file_path : typeof input.notebook_path === "string" ? input.notebook_path : null;
        if (p) {
          files.delete(p);
          files.set(p, n++);
        }
      }
    }
  }
  return { todos, files: [...(active ? files : before).keys()], requests };
}

const cut = (s: string, max: number): string => (s.length > max ? `${s.slice(0, max - 1)}…` : s);

/**
 * The working state as plain text (at most `maxChars`), or "" when there is nothing to say. Paths inside
 * `projectDir` are shown relative to it; requests and todo items are redacted; control characters, terminal escapes
 * and bidi controls are stripped from everything taken from the transcript; `digCommand` is how the model runs
 * dig (the bundle path in a plugin install, where `triage` may not be on PATH).
 */
export function renderWorkingState(ws: WorkingState, projectDir: string, digCommand: string, maxChars = WORKING_STATE_MAX_CHARS): string {
  if (!ws.todos?.length && ws.files.length === 0 && ws.requests.length === 0) return "";
  const parts: string[] = ["Knowledge Triage: working state before this compaction (from the transcript)."];
  if (ws.todos?.length) parts.push(`Todo list (latest TodoWrite):\n${ws.todos.map((t) => stripControls(`- [${t.status}] ${cut(redactSync(t.content).replace(/\s+/g, " "), TODO_MAX_CHARS)}`)).join("\n")}`);
  if (ws.files.length > 0) {
    const shown = ws.files.slice(-FILES_MAX).map((f) => {
      const r = isAbsolute(f) ? relative(projectDir, f) : f;
      return stripControls(`- ${r && !r.startsWith("..") && !isAbsolute(r) ? r : f}`);
    });
    const more = ws.files.length - shown.length;
    parts.push(`Files edited or written since the previous compaction:\n${shown.join("\n")}${more > 0 ? `\n(and ${more} more)` : ""}`);
  }
  const dig = `Anything else said or done before the compaction: \`${digCommand} "<words>"\` searches the archived transcript; \`${digCommand} read <id>\` prints one whole message.`;
  // Requests are pasted text: terminal escapes and bidi controls in them never reach stdout (memory/control-chars.ts).
  let reqs = ws.requests.map((r) => cut(stripControls(redactSync(r.trim())), REQUEST_MAX_CHARS));
  const build = (): string => {
    const req = reqs.length ? [`Last ${reqs.length === 1 ? "user request" : `${reqs.length} user requests`}, verbatim (oldest first):\n${reqs.map((r) => `> ${r.replace(/\n/g, "\n> ")}`).join("\n")}`] : [];
    return `${[...parts, ...req, dig].join("\n\n")}\n`;
  };
  let out = build();
  // Over the cap: drop the oldest requests first, then cut the text.
  while (out.length > maxChars && reqs.length > 1) {
    reqs = reqs.slice(1);
    out = build();
  }
  return out.length > maxChars ? `${out.slice(0, maxChars - 2)}…\n` : out;
}

/** SessionStart(compact) stdout: the pinned rules (head first) and the working state, together within HOOK_OUTPUT_MAX_CHARS. */
export function sessionStartText(rulesDir: string, head: string, working: string): string {
  const rules = pinnedText(rulesDir, head, HOOK_OUTPUT_MAX_CHARS - working.length - 2);
  if (!working) return rules;
  return rules ? `${rules}\n${working}` : working;
}

/** How the model runs dig from this hook: `node <bundle> dig` when run from the bundle (plugin installs), else `triage dig`. */
export function digCommandOf(entry: string | undefined): string {
  return entry && /\.m?js$/.test(entry) ? `node ${JSON.stringify(entry)} dig` : "triage dig";
}
