/**
 * `triage doctor`'s lint of rule files against what the agents actually load (references/claude-code.md
 * §3, §6): files that cannot be read as rules (binary, broken frontmatter), several globs in one `paths:`, `paths:` in user-level rules, files over 40,000 characters, a
 * SessionStart reminder over 10,000 characters, brace globs in comma-split glob lists (Cursor `globs`,
 * Copilot `applyTo`, Windsurf `globs`), expired permissions and contradicting rule pairs. Pure: takes file
 * texts, returns problems; the caller reads the files.
 */
import { parseRuleFile, ruleFileProblem } from "./pinned-rules.js";

/** One finding: the file it is about (as given), a stable code, and a one-line message. */
export interface LintProblem {
  file: string;
  code: "unreadable-rule-file" | "several-globs" | "user-level-paths" | "file-too-long" | "session-start-too-long" | "brace-in-comma-list" | "expired" | "contradiction";
  message: string;
}

/** Claude Code warns about a rule or memory file above this many characters (references/claude-code.md §3). */
export const RULE_FILE_MAX_CHARS = 40_000;
/** Claude Code keeps this many characters of a SessionStart hook's output (references/claude-code.md §1). */
export const SESSION_START_MAX_CHARS = 10_000;

/** A brace group with a comma inside (`{ts,tsx}`): an agent that splits the list on commas breaks it apart. */
const BRACE_WITH_COMMA = /\{[^{}]*,[^{}]*\}/;

const POS = /^(?:always|must|you must|make sure to|be sure to)\s+/i;
const NEG = /^(?:never|do not|don't|dont|must not|mustn't|you must not|avoid)\s+/i;

/** The action of an "always X" / "never X" rule, normalised (lowercase, no markup or end punctuation), with its polarity; null for other rules. Pure. */
export function ruleAction(rule: string): { polarity: "always" | "never"; action: string } | null {
  const t = rule.replace(/^[-*]\s+/, "").replace(/[`*_]/g, "").trim();
  const neg = NEG.exec(t);
  const pos = neg ? null : POS.exec(t);
  const m = neg ?? pos;
  if (!m) return null;
  const action = t.slice(m[0].length).toLowerCase().replace(/[.!;:]+$/, "").replace(/\s+/g, " ").trim();
  return action ? { polarity: neg ? "never" : "always", action } : null;
}

/**
 * Lint rule files (`name` relative to the rules folder, `text` as on disk). `userLevel`: the folder is
 * `~/.claude/rules/…`, where Claude Code ignores `paths:`. `sessionStartChars`: the length of the whole
 * pinned-rules reminder, uncut. `expired`: rule texts of permissions whose date has passed.
 */
export function lintRuleFiles(
  files: Array<{ name: string; text: string }>,
  opts: { userLevel: boolean; sessionStartChars: number; expired?: Array<{ file: string; text: string }> },
): LintProblem[] {
  const out: LintProblem[] = [];
  const seen = new Map<string, { file: string; polarity: "always" | "never"; rule: string }>();
  for (const f of files) {
    const problem = ruleFileProblem(f.text);
    if (problem !== undefined) {
      out.push({ file: f.name, code: "unreadable-rule-file", message: `${problem}: export, the hooks and the MCP tools skip this file; fix or remove it` });
      continue;
    }
    const p = parseRuleFile(f.name, f.text);
    if (p.globs.length > 1)
      out.push({ file: f.name, code: "several-globs", message: `paths: has ${p.globs.length} globs; Claude Code honoured only the first on some platforms: one glob per file` });
    if (p.globs.length > 0 && opts.userLevel)
      out.push({ file: f.name, code: "user-level-paths", message: "paths: is ignored in user-level rules (~/.claude/rules): this rule loads everywhere; move it to the project's .claude/rules" });
    if (f.text.length > RULE_FILE_MAX_CHARS)
      out.push({ file: f.name, code: "file-too-long", message: `${f.text.length} characters, over Claude Code's ${RULE_FILE_MAX_CHARS}: split it` });
    for (const r of p.rules) {
      const a = ruleAction(r);
      if (!a) continue;
      const other = seen.get(a.action);
      if (other && other.polarity !== a.polarity)
        out.push({ file: f.name, code: "contradiction", message: `"${r.replace(/^[-*]\s+/, "")}" contradicts "${other.rule.replace(/^[-*]\s+/, "")}" (${other.file})` });
      else if (!other) seen.set(a.action, { file: f.name, polarity: a.polarity, rule: r });
    }
  }
  if (opts.sessionStartChars > SESSION_START_MAX_CHARS)
    out.push({ file: ".", code: "session-start-too-long", message: `the pinned rules make a ${opts.sessionStartChars}-character SessionStart reminder, over Claude Code's ${SESSION_START_MAX_CHARS}: the hook cuts it and the rest is not re-injected after compaction` });
  for (const e of opts.expired ?? []) out.push({ file: e.file, code: "expired", message: `expired: "${e.text}"; unpin it (triage unpin) or restate it` });
  return out;
}

/**
 * Lint another agent's exported file for brace globs in a comma-separated list: Cursor `.mdc` `globs:`,
 * Copilot `.instructions.md` `applyTo:`, Windsurf `globs:`. `name` is the file's path. Pure.
 */
export function lintGlobList(name: string, text: string): LintProblem[] {
  const fm = /^---\r?\n([\s\S]*?)\r?\n---/.exec(text)?.[1] ?? "";
  const out: LintProblem[] = [];
  for (const m of fm.matchAll(/^(globs|applyTo):[ \t]*(.*)$/gm))
    if (BRACE_WITH_COMMA.test(m[2] ?? ""))
      out.push({ file: name, code: "brace-in-comma-list", message: `${m[1]}: ${m[2]} has a brace glob, but the agent splits this list on commas: write each alternative as its own glob (triage export does)` });
  return out;
}
