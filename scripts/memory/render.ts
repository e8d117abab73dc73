/**
 * Pure rendering of the rule store into Claude Code rule files (research/integration.md §4):
 * unscoped `constraints.md` / `procedures.md` (re-read after every compaction), and one file per glob
 * with `paths:` frontmatter (one quoted, anchored glob per file, because only the first of several
 * patterns is honoured on some platforms, BL-13). Files are split at MAX_FILE_CHARS. No timestamps:
 * the same store gives byte-identical files.
 */
import { createHash } from "node:crypto";
import type { Rule, Store } from "./schema.js";

/** Split a rule file when its body would pass this many characters (Claude Code warns at 40,000; we stay far below 10,000). */
export const MAX_FILE_CHARS = 6000;

/** The HTML comment every file we write carries (Claude Code strips HTML comments from rules). */
export const NOTICE =
  "<!-- Written by knowledge-triage from rules you stated in Claude Code sessions (provenance: .state/rules.json). " +
  "If you edit this file it is never rewritten; new rules then go to another file. -->";

/** One rule as a markdown bullet: continuation lines indented by two spaces; `indent` for a refinement. */
export function bullet(text: string, indent = ""): string {
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  return lines.map((l, i) => (i === 0 ? `${indent}- ${l}` : `${indent}  ${l}`)).join("\n");
}

/** File-name slug of a glob: lowercase alphanumerics and dashes (max 40) plus 6 hex of sha256 for uniqueness. */
export function globSlug(glob: string): string {
  const base = glob
    .toLowerCase()
    .replace(/\*\*/g, "all")
    .replace(/\*/g, "any")
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 40);
  return `${base || "glob"}-${createHash("sha256").update(glob).digest("hex").slice(0, 6)}`;
}

/** YAML frontmatter with one double-quoted glob (quotes and backslashes escaped). */
export function pathsFrontmatter(glob: string): string {
  return `---\npaths:\n  - "${glob.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"\n---\n`;
}

/** A planned file: relative name, its full content, the rule ids it holds. */
export interface PlannedFile {
  name: string;
  content: string;
  ruleIds: string[];
}

interface Group {
  base: string;
  title: string;
  glob: string | null;
  rules: Rule[];
}

/**
 * Plan the rule files for the active rules of a store. `taken` names (hand-edited or user files) are
 * skipped when numbering parts; rules in `hosted` (kept in a hand-edited file) are not written again.
 * Output is sorted by name; deterministic.
 */
export function planFiles(store: Store, taken: ReadonlySet<string> = new Set(), hosted: ReadonlySet<string> = new Set()): PlannedFile[] {
  const active = store.rules.filter((r) => r.status === "active" && !hosted.has(r.id));
  const activeIds = new Set(active.map((r) => r.id));
  const groups = new Map<string, Group>();
  const add = (key: string, g: Omit<Group, "rules">, r: Rule): void => {
    let grp = groups.get(key);
    if (!grp) {
      grp = { ...g, rules: [] };
      groups.set(key, grp);
    }
    grp.rules.push(r);
  };
  for (const r of active) {
    if (r.globs.length === 0) {
      if (r.type === "constraint") add("c", { base: "constraints", title: "Rules to follow", glob: null }, r);
      else add("p", { base: "procedures", title: "Procedures and exact commands", glob: null }, r);
    } else {
      for (const g of r.globs) add(`g:${g}`, { base: `paths-${globSlug(g)}`, title: `Rules for \`${g}\``, glob: g }, r);
    }
  }
  const out: PlannedFile[] = [];
  for (const grp of groups.values()) {
    // Order: constraints before procedures inside a scoped file; refinements right after their parent.
    const ordered = [...grp.rules].sort((a, b) => (a.type === b.type ? 0 : a.type === "constraint" ? -1 : 1));
    const top = ordered.filter((r) => !(r.refines && activeIds.has(r.refines) && ordered.some((p) => p.id === r.refines)));
    const blocks: Array<{ text: string; ids: string[] }> = [];
    for (const r of top) {
      const lines = [bullet(r.text)];
      const ids = [r.id];
      for (const child of ordered) {
        if (child.refines === r.id && child !== r) {
          lines.push(bullet(child.text, "  "));
          ids.push(child.id);
        }
      }
      blocks.push({ text: lines.join("\n"), ids });
    }
    let part = 1;
    let cur: typeof blocks = [];
    let size = 0;
    const flush = (): void => {
      if (cur.length === 0) return;
      let name = "";
      do {
        name = part === 1 ? `${grp.base}.md` : `${grp.base}-${part}.md`;
        part++;
      } while (taken.has(name));
      const head = grp.glob ? pathsFrontmatter(grp.glob) : "";
      const body = cur.map((b) => b.text).join("\n");
      out.push({ name, content: `${head}# ${grp.title}\n\n${NOTICE}\n\n${body}\n`, ruleIds: cur.flatMap((b) => b.ids) });
      cur = [];
      size = 0;
    };
    for (const b of blocks) {
      if (size + b.text.length + 1 > MAX_FILE_CHARS && cur.length > 0) flush();
      cur.push(b);
      size += b.text.length + 1;
    }
    flush();
  }
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** sha256 hex of a string (UTF-8). */
export function sha256(s: string): string {
  return createHash("sha256").update(s).digest("hex");
}
