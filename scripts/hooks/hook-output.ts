/**
 * Plain-text hook output (never JSON): the PreCompact instruction for the summariser and the pinned rules
 * printed by SessionStart(compact), kept under Claude Code's 10,000-character hook output cap (references/claude-code.md §1.3).
 */
import { renderPinnedRules } from "../memory/pipeline/extract-api.js";
import { PERMISSIONS_PREFIX, readRuleFiles } from "../memory/store/pinned-rules.js";
import { loadStore } from "../memory/store/state.js";

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

/**
 * PreCompact stdout: a short instruction, not the rule list. Claude Code appends it to the compaction
 * prompt AND echoes it into the post-compaction context ("PreCompact [...] completed successfully: ..."),
 * where the rule files and the SessionStart output already carry the rules (measured in tests/e2e).
 * Counts are what is pinned for the whole project; the ones stated in this session are given apart. "" when nothing is pinned.
 */
export function precompactText(c: PinnedCounts): string {
  if (c.rules === 0 && c.permissions === 0) return "";
  const what =
    c.rules > 0
      ? `${plural(c.rules, "rule is", "rules are")} pinned for this project (${c.thisSession === 0 ? "none" : c.thisSession} stated in this session)` +
        (c.permissions > 0 ? `, with ${plural(c.permissions, "permission", "permissions")} that relax earlier rules` : "")
      : `${plural(c.permissions, "permission is", "permissions are")} pinned for this project`;
  return (
    `Knowledge Triage: ${what}; they are saved in .claude/rules/knowledge-triage/ and reloaded after compaction. ` +
    "In your summary, quote every rule the user stated in this session word for word, and leave out any rule " +
    "the user later withdrew.\n"
  );
}
/** SessionStart(compact) header: true whether the rules were stated before this compaction or in earlier sessions. */
export const SESSIONSTART_HEAD =
  "Knowledge Triage: rules the user stated, kept word for word across compaction " +
  "(source: .claude/rules/knowledge-triage/). Follow them.";

/** Header + pinned rules as plain text, under HOOK_OUTPUT_MAX_CHARS chars and bytes; "" when none. */
export function pinnedText(rulesDir: string, head: string): string {
  let budget = HOOK_OUTPUT_MAX_CHARS - head.length - 2;
  for (let i = 0; i < 4 && budget > 200; i++) {
    const r = renderPinnedRules(rulesDir, budget);
    if (r.count === 0 || r.text.trim() === "") return "";
    const out = `${head}\n\n${r.text.trim()}\n`;
    const bytes = Buffer.byteLength(out);
    if (bytes <= HOOK_OUTPUT_MAX_CHARS) return out;
    budget -= bytes - HOOK_OUTPUT_MAX_CHARS + 100;
  }
  return "";
}
