/**
 * Plain-text hook output (never JSON): the PreCompact instruction for the summariser and the pinned rules
 * printed by SessionStart(compact), kept under Claude Code's 10,000-character hook output cap (BL-21).
 */
import { renderPinnedRules } from "./memory/api.js";

/** Hook output strings above 10,000 chars are cut to a preview by Claude Code (BL-21); we stay below this. */
export const HOOK_OUTPUT_MAX_CHARS = 9000;

/**
 * PreCompact stdout: a short instruction, not the rule list. Claude Code appends it to the compaction
 * prompt AND echoes it into the post-compaction context ("PreCompact [...] completed successfully: ..."),
 * where the rule files and the SessionStart output already carry the rules (measured in tests/e2e).
 */
export function precompactText(count: number): string {
  if (count === 0) return "";
  const rules = count === 1 ? "1 rule" : `${count} rules`;
  return (
    `Knowledge Triage: the user stated ${rules} that must hold for the rest of the session; they are saved in ` +
    ".claude/rules/knowledge-triage/ and reloaded after compaction. In your summary, quote every rule the user " +
    "stated word for word, and leave out any rule the user later withdrew.\n"
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
