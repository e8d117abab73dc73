/**
 * Pure rendering of the rule store into Claude Code rule files (references/claude-code.md §3):
 * unscoped `constraints.md` / `procedures.md` (re-read after every compaction), and one file per glob
 * with `paths:` frontmatter (one quoted, anchored glob per file, because only the first of several
 * patterns is honoured on some platforms, references/claude-code.md §3). Files are split at MAX_FILE_CHARS. No timestamps:
 * the same store gives byte-identical files.
 */
import { createHash } from "node:crypto";
import type { Rule, Store } from "./store/store-schema.js";

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

/** Deepest nesting rendered as indentation; deeper refinements are written at this depth (still written). */
export const MAX_NEST = 3;

/** The line a permission is rendered as: "Permission (until launch): <text>" (no condition: "Permission: <text>"). */
export function permissionLine(r: Pick<Rule, "text" | "until">): string {
  return `Permission${r.until ? ` (until ${r.until})` : ""}: ${r.text}`;
}

/** Inverse of permissionLine: the permission's text and condition, or null when `line` is not one. */
export function parsePermissionLine(line: string): { text: string; until?: string } | null {
  const m = /^Permission(?: \(until ([^)]*)\))?: ([\s\S]+)$/.exec(line);
  if (!m) return null;
  return m[1] ? { text: m[2] as string, until: m[1] } : { text: m[2] as string };
}

/**
 * The bullets of one group as blocks (a top-level rule followed by every refinement under it, at any
 * depth, indented two spaces per level up to MAX_NEST). Every rule of the group appears exactly once:
 * refinements whose parent is not in the group, and any rule caught in a `refines` cycle, are top-level.
 */
export function groupBlocks(rules: readonly Rule[]): Array<{ lines: Array<{ text: string; id: string }> }> {
  const inGroup = new Map(rules.map((r) => [r.id, r]));
  const children = new Map<string, Rule[]>();
  for (const r of rules) {
    if (r.refines && r.refines !== r.id && inGroup.has(r.refines)) {
      const list = children.get(r.refines) ?? [];
      list.push(r);
      children.set(r.refines, list);
    }
  }
  const done = new Set<string>();
  const blocks: Array<{ lines: Array<{ text: string; id: string }> }> = [];
  const walk = (r: Rule, depth: number, out: Array<{ text: string; id: string }>): void => {
    if (done.has(r.id)) return;
    done.add(r.id);
    const text = r.kind === "permission" ? permissionLine(r) : r.text;
    out.push({ text: bullet(text, "  ".repeat(Math.min(depth, MAX_NEST))), id: r.id });
    for (const c of children.get(r.id) ?? []) walk(c, depth + 1, out);
  };
  const isTop = (r: Rule): boolean => !(r.refines && r.refines !== r.id && inGroup.has(r.refines));
  for (const r of rules) {
    if (!isTop(r)) continue;
    const lines: Array<{ text: string; id: string }> = [];
    walk(r, 0, lines);
    blocks.push({ lines });
  }
  // Rules left over sit in a refines cycle: write each (with what hangs under it) as top-level.
  for (const r of rules) {
    if (done.has(r.id)) continue;
    const lines: Array<{ text: string; id: string }> = [];
    walk(r, 0, lines);
    blocks.push({ lines });
  }
  return blocks;
}

/**
 * Plan the rule files for the active rules of a store. `taken` names (hand-edited or user files) are
 * skipped when numbering parts; rules in `hosted` (kept in a hand-edited file) are not written again.
 * Permissions (kind "permission") go to their own files, apart from the rules they relax. Every active
 * rule not hosted elsewhere is written exactly once, whatever its nesting; a file body is split at
 * MAX_FILE_CHARS (a block larger than that is split between its lines). Sorted by name; deterministic.
 */
export function planFiles(store: Store, taken: ReadonlySet<string> = new Set(), hosted: ReadonlySet<string> = new Set()): PlannedFile[] {
  const active = store.rules.filter((r) => r.status === "active" && !hosted.has(r.id));
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
    // A permission never lands in a rules file, also when only its text says so (a pinned "Permission: ..." line).
    const perm = r.kind === "permission" || parsePermissionLine(r.text) !== null;
    if (r.globs.length === 0) {
      if (perm) add("perm", { base: "permissions", title: "Permissions the user granted (they relax earlier rules until their condition ends)", glob: null }, r);
      else if (r.type === "constraint") add("c", { base: "constraints", title: "Rules to follow", glob: null }, r);
      else add("p", { base: "procedures", title: "Procedures and exact commands", glob: null }, r);
    } else {
      for (const g of r.globs) {
        if (perm) add(`gp:${g}`, { base: `permissions-paths-${globSlug(g)}`, title: `Permissions for \`${g}\``, glob: g }, r);
        else add(`g:${g}`, { base: `paths-${globSlug(g)}`, title: `Rules for \`${g}\``, glob: g }, r);
      }
    }
  }
  const out: PlannedFile[] = [];
  for (const grp of groups.values()) {
    // Order: constraints before procedures inside a scoped file (stable); refinements right under their parent.
    const ordered = [...grp.rules].sort((a, b) => (a.type === b.type ? 0 : a.type === "constraint" ? -1 : 1));
    const lines = groupBlocks(ordered).flatMap((b, i) => b.lines.map((l, j) => ({ ...l, start: j === 0, block: i })));
    let part = 1;
    let cur: typeof lines = [];
    let size = 0;
    const flush = (): void => {
      if (cur.length === 0) return;
      let name = "";
      do {
        name = part === 1 ? `${grp.base}.md` : `${grp.base}-${part}.md`;
        part++;
      } while (taken.has(name));
      const head = grp.glob ? pathsFrontmatter(grp.glob) : "";
      const body = cur.map((l) => l.text).join("\n");
      out.push({ name, content: `${head}# ${grp.title}\n\n${NOTICE}\n\n${body}\n`, ruleIds: cur.map((l) => l.id) });
      cur = [];
      size = 0;
    };
    // Keep a block (a rule and its refinements) in one file when it fits; split it between lines otherwise.
    for (let i = 0; i < lines.length; i++) {
      const l = lines[i] as (typeof lines)[number];
      if (l.start && cur.length > 0) {
        let blockSize = 0;
        for (let j = i; j < lines.length && (j === i || !(lines[j] as (typeof lines)[number]).start); j++) blockSize += (lines[j] as (typeof lines)[number]).text.length + 1;
        if (size + blockSize > MAX_FILE_CHARS && blockSize <= MAX_FILE_CHARS) flush();
      }
      if (size + l.text.length + 1 > MAX_FILE_CHARS && cur.length > 0) flush();
      cur.push(l);
      size += l.text.length + 1;
    }
    flush();
  }
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** sha256 hex of a string (UTF-8). */
export function sha256(s: string): string {
  return createHash("sha256").update(s).digest("hex");
}
