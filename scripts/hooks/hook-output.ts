/**
 * Plain-text hook output (never JSON): the PreCompact instruction for the summariser with the pinned rules
 * listed verbatim, and the pinned rules printed by SessionStart(compact), kept under Claude Code's
 * 10,000-character hook output cap (references/claude-code.md §1.3).
 */
import { stripControls } from "../memory/control-chars.js";
import { renderPinnedRules } from "../memory/pipeline/extract-api.js";
import { PERMISSIONS_PREFIX, readRuleFiles } from "../memory/store/pinned-rules.js";
import { loadStore } from "../memory/store/state.js";
import type { Rule } from "../memory/store/store-schema.js";
import { redactSync } from "../memory/redact.js";

/** Hook output strings above 10,000 chars are cut to a preview by Claude Code (references/claude-code.md §1.3); we stay below this. */
export const HOOK_OUTPUT_MAX_CHARS = 9000;

/** What is pinned: active rules (permissions apart), how many of them were stated in this session, permissions. */
export interface PinnedCounts {
  rules: number;
  thisSession: number;
  permissions: number;
}

/**
 * Count what is pinned in a rules folder: from the sidecar store (active rules; permissions counted apart;
 * `thisSession` = rules with a source in `sessionId`), or, without a store, the bullets of the rule files.
 */
export function pinnedCounts(rulesDir: string, sessionId: string | undefined): PinnedCounts {
  let store: ReturnType<typeof loadStore> | null = null;
  try {
    store = loadStore(rulesDir);
  } catch {
    store = null;
  }
  if (store && store.rules.length > 0) {
    const active = store.rules.filter((r) => r.status === "active");
    const rules = active.filter((r) => r.kind !== "permission");
    return {
      rules: rules.length,
      thisSession: sessionId ? rules.filter((r) => r.sources.some((s) => s.session === sessionId)).length : 0,
      permissions: active.length - rules.length,
    };
  }
  const files = readRuleFiles(rulesDir);
  const perm = (n: string): boolean => n.startsWith(PERMISSIONS_PREFIX);
  return {
    rules: files.filter((f) => !perm(f.name)).reduce((n, f) => n + f.rules.length, 0),
    thisSession: 0,
    permissions: files.filter((f) => perm(f.name)).reduce((n, f) => n + f.rules.length, 0),
  };
}

const plural = (n: number, one: string, many: string): string => `${n} ${n === 1 ? one : many}`;

/** PreCompact stdout cap in characters: the list goes into the summariser's prompt, so it stays short (issue 13: about 4,000). */
export const PRECOMPACT_MAX_CHARS = 4000;

/** One rule as listed in the PreCompact output, with what ranks it. */
interface Listed {
  /** The rule's lines as in its file (bullet and continuation lines), secrets redacted. */
  text: string;
  /** Globs of its file ([] = project-wide). */
  globs: string[];
  /** 0: stated in this session, 1: pinned earlier (or written by hand). */
  group: 0 | 1;
  /** Order within the group: this session's rules as stated; earlier ones most restated first, then file order. */
  order: number;
}

/** Header line of PreCompact stdout: what is pinned and what the summariser must do with the list below. */
function precompactHead(c: PinnedCounts, scoped: boolean): string {
  const what =
    c.rules > 0
      ? `${plural(c.rules, "rule is", "rules are")} pinned for this project (${c.thisSession === 0 ? "none" : c.thisSession} stated in this session)` +
        (c.permissions > 0 ? `, with ${plural(c.permissions, "permission that relaxes", "permissions that relax")} earlier rules` : "")
      : `${plural(c.permissions, "permission is", "permissions are")} pinned for this project`;
  return (
    `Knowledge Triage: ${what}; they are saved in .claude/rules/knowledge-triage/ and reloaded after compaction. ` +
    "In your summary, keep every rule listed below word for word, exactly as written (do not paraphrase, shorten or merge them), " +
    "and leave out any rule the user withdrew: withdrawn rules are not in this list, so do not restate them." +
    (scoped ? " A rule marked [files: ...] applies only to those files; the mark is not part of the rule." : "")
  );
}

/**
 * The active rules of a rules folder, most relevant first: those stated in session `sessionId` (in the order
 * stated), then the earlier ones (most restated first, then file order); permissions apart, in file order. Texts
 * come from the `.md` files as they are on disk (hand edits count; retired rules are not in them), provenance from
 * the sidecar store when there is one.
 */
function rankedRules(rulesDir: string, sessionId: string | undefined): { rules: Listed[]; permissions: string[] } {
  let store: ReturnType<typeof loadStore> | null = null;
  try {
    store = loadStore(rulesDir);
  } catch {
    store = null;
  }
  const byFirstLine = new Map<string, Rule>();
  for (const r of store?.rules ?? []) if (r.status === "active") byFirstLine.set(r.text.split("\n")[0] as string, r);
  const rules: Listed[] = [];
  const permissions: string[] = [];
  let index = 0;
  for (const f of readRuleFiles(rulesDir)) {
    for (const raw of f.rules) {
      const text = redactSync(raw);
      if (f.name.startsWith(PERMISSIONS_PREFIX)) {
        permissions.push(f.globs.length > 0 ? `${text} [files: ${f.globs.join(", ")}]` : text);
        continue;
      }
      const r = byFirstLine.get(raw.replace(/^\s*[-*+]\s+/, "").split("\n")[0] as string);
      const here = sessionId ? (r?.sources.filter((s) => s.session === sessionId) ?? []) : [];
      index++;
      rules.push(
        here.length > 0
          ? { text, globs: f.globs, group: 0, order: Math.min(...here.map((s) => s.offset)) }
          : { text, globs: f.globs, group: 1, order: -(r?.count ?? 1) * 1e6 + index },
      );
    }
  }
  rules.sort((a, b) => a.group - b.group || a.order - b.order);
  return { rules, permissions };
}

/**
 * PreCompact stdout (plain text, never JSON): Claude Code puts it into the summariser's prompt under
 * "Additional Instructions:" (research/integration.md §1.4). A header with the counts and the instruction to
 * keep the rules word for word and leave out withdrawn ones, then the pinned rules themselves, most relevant
 * first (rankedRules), path-scoped ones marked with their globs, then the permissions. At most `maxChars`
 * characters, cut on a rule boundary with a last line saying how many were
 * left out. "" when nothing is pinned. Never throws on a missing or unreadable folder.
 */
export function precompactText(rulesDir: string, sessionId: string | undefined, maxChars = PRECOMPACT_MAX_CHARS): string {
  const counts = pinnedCounts(rulesDir, sessionId);
  if (counts.rules === 0 && counts.permissions === 0) return "";
  const { rules, permissions } = rankedRules(rulesDir, sessionId);
  const lines: Array<{ head: string; text: string }> = [
    ...rules.map((r) => ({
      head: r.group === 0 ? "Rules the user stated in this session:" : "Rules pinned earlier for this project:",
      // A rule file edited by hand (or written before extraction stripped them) may hold control characters: never printed.
      text: stripControls(r.globs.length > 0 ? `${r.text} [files: ${r.globs.join(", ")}]` : r.text),
    })),
    ...permissions.map((text) => ({ head: "Permissions the user granted (they relax earlier rules until their condition ends):", text: stripControls(text) })),
  ];
  const head = `${precompactHead(counts, lines.some((l) => l.text.includes(" [files: ")))}\n`;
  const fits = (s: string): boolean => s.length <= maxChars;
  const tail = (left: number): string => `\n(${plural(left, "more rule is", "more rules are")} pinned in .claude/rules/knowledge-triage/.)\n`;
  let out = head;
  let section = "";
  let listed = 0;
  for (const l of lines) {
    const add = `${l.head !== section ? `\n${l.head}\n` : ""}${l.text}\n`;
    const left = lines.length - listed - 1;
    if (!fits(out + add + (left > 0 ? tail(left) : ""))) break;
    out += add;
    section = l.head;
    listed++;
  }
  if (listed < lines.length) out += tail(lines.length - listed);
  return out;
}

/** SessionStart(compact) header: true whether the rules were stated before this compaction or in earlier sessions. */
export const SESSIONSTART_HEAD =
  "Knowledge Triage: rules the user stated, kept word for word across compaction " +
  "(source: .claude/rules/knowledge-triage/). Follow them.";

/**
 * Header + pinned rules as plain text, at most `maxChars` (default HOOK_OUTPUT_MAX_CHARS) characters, cut on a rule
 * boundary with a note of how many were left out; "" when none. Characters, not bytes: Claude Code caps hook output
 * by characters, and a byte cap listed a third as many Chinese or Japanese rules (none at all past ~300: found by a
 * fresh-user pass).
 */
export function pinnedText(rulesDir: string, head: string, maxChars = HOOK_OUTPUT_MAX_CHARS): string {
  const r = renderPinnedRules(rulesDir, maxChars - head.length - 3);
  if (r.count === 0 || r.text.trim() === "") return "";
  return `${head}\n\n${stripControls(r.text).trim()}\n`;
}
