/**
 * Pinned rules as plain text for hook stdout (SessionStart(compact) context, PreCompact instructions).
 * Reads the `.md` files of the rules folder as they are on disk (so hand edits count), unscoped files
 * first, then each path-scoped file under a "Files matching `glob`" line. Never JSON; capped in characters.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { redactSync } from "../redact.js";
import { INPUT_MAX_BYTES, readFileCapped } from "../../io/read-files.js";

/** Hook output cap of Claude Code is 10,000 characters (references/claude-code.md §1.3); we default below it. */
export const DEFAULT_MAX_CHARS = 9500;

/**
 * Heading of the unscoped rules in hook output. True for both callers: SessionStart(compact) after a
 * compaction of the same session, and PreCompact (rules may come from this or from earlier sessions).
 */
export const RULES_HEAD = "Rules the user stated (kept verbatim by Knowledge Triage; keep following them):";
/** Heading of the permissions section (files named permissions*.md); they relax earlier rules, they are not rules. */
export const PERMISSIONS_HEAD = "Permissions the user granted (they relax earlier rules until their condition ends):";
/** File-name prefix of the permission files written by render.ts planFiles. */
export const PERMISSIONS_PREFIX = "permissions";

/** A rules file split into its `paths:` globs (empty = unscoped) and its rule lines (bullets with continuations). */
export interface ParsedRuleFile {
  name: string;
  globs: string[];
  rules: string[];
}

/** Parse one rule file: frontmatter `paths` (list or comma string), then top-level bullets or plain lines. Pure. */
export function parseRuleFile(name: string, text: string): ParsedRuleFile {
  // A byte-order mark (editors on Windows add one) would hide the frontmatter and turn the first heading into a rule.
  let body = text.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n");
  const globs: string[] = [];
  const fm = /^---\n([\s\S]*?)\n---\n?/.exec(body);
  if (fm) {
    body = body.slice(fm[0].length);
    const y = fm[1] ?? "";
    const inline = /^paths:[ \t]*(\S.*)$/m.exec(y);
    // A YAML flow list (`paths: ["src/**", lib/**]`) is a comma list inside brackets.
    const flow = /^\[(.*)\]\s*$/.exec(inline?.[1] ?? "")?.[1];
    if (inline?.[1]) for (const g of (flow ?? inline[1]).split(",")) globs.push(unquote(g));
    else {
      const block = /^paths:\s*\n((?:\s+-\s*.*\n?)*)/m.exec(y);
      for (const l of (block?.[1] ?? "").split("\n")) {
        const m = /^\s+-\s*(.+)$/.exec(l);
        if (m?.[1]) globs.push(unquote(m[1]));
      }
    }
  }
  // Comments that open a line (the NOTICE, a note the user left) are no rules; one inside a rule's text is part of it.
  body = body.replace(/^[ \t]*<!--[\s\S]*?-->/gm, "");
  const rules: string[] = [];
  for (const line of body.split("\n")) {
    if (line.trim() === "" || /^#{1,6}\s/.test(line)) continue;
    if (/^\s+\S/.test(line) && rules.length > 0) rules[rules.length - 1] += `\n${line}`;
    else rules.push(line.replace(/\s+$/, ""));
  }
  return { name, globs: globs.filter((g) => g !== ""), rules };
}

function unquote(s: string): string {
  const t = s.trim();
  return /^(["']).*\1$/.test(t) ? t.slice(1, -1).replace(/\\(["\\])/g, "$1") : t;
}

/**
 * Why `text` (a rule file decoded as UTF-8) cannot be read as rules, or undefined when it can: not text (a NUL
 * byte, or U+FFFD from bytes that are not UTF-8: a binary file saved as .md), frontmatter opened by `---` but never
 * closed, or a frontmatter value whose `[` list, `{` map or quote is not closed (`globs: [unclosed`). Its rules would
 * be exported or injected as is, or under the wrong globs. Pure.
 */
export function ruleFileProblem(text: string): string | undefined {
  if (/[\u0000\uFFFD]/.test(text)) return "not text (binary, or not UTF-8)";
  const body = text.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n");
  if (!/^---\n/.test(body)) return undefined;
  const fm = /^---\n(?:([\s\S]*?)\n)?---(?:\n|$)/.exec(body);
  if (!fm) return "broken frontmatter (no closing --- line)";
  for (const line of (fm[1] ?? "").split("\n")) {
    const m = /^([\w-]+):[ \t]*(\S.*?)\s*$/.exec(line);
    const v = m?.[2] ?? "";
    const open = v[0];
    const why =
      open === "[" && !v.endsWith("]") ? "a list opened with [ is not closed"
      : open === "{" && !v.endsWith("}") ? "a map opened with { is not closed"
      : (open === '"' || open === "'") && (v.length < 2 || !v.endsWith(open)) ? "a quote is not closed"
      : undefined;
    if (why) return `broken frontmatter (${m?.[1]}: ${v}: ${why})`;
  }
  return undefined;
}

/**
 * Read and parse every `.md` file directly in `rulesDir` (sorted by name). Unreadable files are skipped, and so are
 * files ruleFileProblem rejects (binary, broken frontmatter): each of those is added to `skipped` when given.
 */
export function readRuleFiles(rulesDir: string, skipped?: Array<{ name: string; why: string }>): ParsedRuleFile[] {
  let names: string[];
  try {
    names = readdirSync(rulesDir).filter((f) => f.endsWith(".md")).sort();
  } catch {
    return [];
  }
  const out: ParsedRuleFile[] = [];
  for (const n of names) {
    try {
      // Capped and regular files only: a FIFO named x.md would block a hook forever.
      const text = readFileCapped(join(rulesDir, n), { maxBytes: INPUT_MAX_BYTES }).toString("utf8");
      const why = ruleFileProblem(text);
      if (why !== undefined) skipped?.push({ name: n, why });
      else out.push(parseRuleFile(n, text));
    } catch {
      // unreadable: skip
    }
  }
  return out;
}

/**
 * Pinned rules as plain markdown (never starts with "{"), at most `maxChars` UTF-16 units, cut on a rule
 * boundary with a last line saying how many rules were left out. `count` = rules included.
 * Returns empty text and count 0 when the folder is missing or empty. Never throws.
 */
export function renderPinnedRules(rulesDir: string, maxChars = DEFAULT_MAX_CHARS): { text: string; count: number; truncated: boolean } {
  const files = readRuleFiles(rulesDir);
  const isPerm = (f: ParsedRuleFile): boolean => f.name.startsWith(PERMISSIONS_PREFIX);
  const unscoped = files.filter((f) => f.globs.length === 0 && !isPerm(f));
  const scoped = files.filter((f) => f.globs.length > 0 && !isPerm(f));
  const sections: Array<{ head: string; rules: string[] }> = [];
  const ulines = unscoped.flatMap((f) => f.rules);
  if (ulines.length) sections.push({ head: RULES_HEAD, rules: ulines });
  for (const f of scoped) if (f.rules.length) sections.push({ head: `When working on files matching ${f.globs.map((g) => `\`${g}\``).join(", ")}:`, rules: f.rules });
  for (const f of files.filter(isPerm)) {
    if (!f.rules.length) continue;
    const where = f.globs.length ? ` for files matching ${f.globs.map((g) => `\`${g}\``).join(", ")}` : "";
    sections.push({ head: `${PERMISSIONS_HEAD.slice(0, -1)}${where}:`, rules: f.rules });
  }
  const total = sections.reduce((n, s) => n + s.rules.length, 0);
  if (total === 0) return { text: "", count: 0, truncated: false };
  const tailFor = (left: number): string => `\n(${left} more rule${left === 1 ? "" : "s"} in ${rulesDir})\n`;
  let text = "";
  let count = 0;
  let truncated = false;
  outer: for (const s of sections) {
    const head = `${text === "" ? "" : "\n"}${s.head}\n`;
    for (let i = 0; i < s.rules.length; i++) {
      const line = `${redactSync(s.rules[i] as string)}\n`;
      const add = (i === 0 ? head : "") + line;
      if (text.length + add.length + tailFor(total - count).length > maxChars) {
        truncated = true;
        break outer;
      }
      text += add;
      count++;
    }
  }
  if (truncated) text += tailFor(total - count);
  return { text: text.replace(/^\s*\{/, "(").trimEnd().concat("\n"), count, truncated };
}
