/**
 * Scope from a folder named without a slash ("In billing, never …", "Im Checkout …", "в billing …", "payments 里的…",
 * "kb の記事は…"): a word that is the name of a folder existing in the project counts as the rule's scope when it is
 * where the rule applies: after a locative preposition of one of the seven languages (in/inside/under, im/in,
 * en/dentro de, в/во, 在, X 里/中/下/目录, X の中/では/の, X 에서/안에서) or as the sentence's first word (its subject).
 * A folder after "to/into/from/nach/a/из/从/到/放在" or before "に置く/へ" is where something goes or comes from (what
 * the rule mentions), not where it applies; a procedure's steps are not scanned (its header is); only the first
 * clause that names a folder counts (a contrast after it says where the rule does not apply). Pure: the folder
 * list is injected.
 */

const LATIN_BEFORE = /(?:^|[\s,(])(?:in|inside|within|under|across|throughout|im|in der|in den|innerhalb|unter|en|dentro de|в|во|внутри)\s+(?:the\s+|der\s+|den\s+|el\s+|la\s+|los\s+|las\s+)?$/iu;
const CJK_BEFORE = /(?:在|于)\s*$/u;
const AFTER = /^\s*(?:里|裡|中|下面?|目录|目錄|内|的|の中|では|で(?!き)|の|配下|以下|에서|안에서|안|쪽)/u;
const NOT_SCOPE_BEFORE = /(?:\b(?:to|into|from|nach|hacia|desde|из|от|file|files|datei|fichero|archivo)\s+(?:the\s+)?|从|到|往|[建放写存挪移搬装](?:在|到))\s*$/iu;
/** A destination after the folder: "X 以下に置いて", "X に保存", "X へ" (where something goes, not where the rule applies). */
const NOT_SCOPE_AFTER = /^\s*(?:の\s*\S{0,12}?\s*)?(?:以下|の下|配下)?\s*(?:に(?:置|入れ|保存|書|移)|へ)/u;
/** Steps told as a sequence after a header's colon: "first …, then …", "сначала …, потом …", "先…然后…", "まず…次に…". */
export const SEQUENCE_RE =
  /^[:：]\s*(?:first|zuerst|erst|primero|сначала|先|首先|まず|먼저)(?![\p{L}])[\s\S]*(?:then|next|after that|dann|danach|después|luego|потом|затем|然后|再|次に|その後|그다음|다음에)/iu;

/** Where a procedure's header ends: its steps name places they act on, not where the procedure applies. */
const STEPS_START = /[:：]|\s1[.)]\s/u;

/** Word forms of a folder name that count as naming it: the name, and a plural or inflection up to two letters longer (dashboards, Exporte). */
function namesFolder(word: string, base: string): boolean {
  const w = word.toLowerCase();
  const b = base.toLowerCase();
  if (w === b) return true;
  if (b.length < 4) return false;
  if (w.startsWith(b) && w.length - b.length <= 2) return true;
  return b.startsWith(w) && b.length - w.length <= 1 && w.length >= 4;
}

/**
 * Globs ("services/billing/**") of the existing folders a rule applies to, found from folder names without a
 * slash; [] when none. `folders` are project-relative paths ("services/billing"). When several folders share
 * the name, the shallowest ones are taken. Sentences with numbered or bulleted steps (a procedure) give [].
 */
export function folderScope(text: string, folders: readonly string[]): string[] {
  if (folders.length === 0) return [];
  // A procedure: only its header names where it applies ("发布 payments 的流程：1. …").
  const steps = STEPS_START.exec(text);
  if (steps && (/\s2[.)]\s|\n/.test(text.slice(steps.index)) || SEQUENCE_RE.test(text.slice(steps.index)))) text = text.slice(0, steps.index);
  if (text.includes("\n")) return [];
  const byName = new Map<string, string[]>();
  for (const f of folders) {
    const base = f.split("/").pop() ?? "";
    if (base.length < 2 || base.startsWith(".")) continue;
    const k = base.toLowerCase();
    byName.set(k, [...(byName.get(k) ?? []), f]);
  }
  const found = new Set<string>();
  // Only the first clause that names a folder counts: a contrast after it ("…, sql 目录下的照旧不行") names where the rule does not apply.
  let clauseOfFirst = -1;
  const sentenceStart = text.replace(/^[\s"'«„(]+/, "");
  for (const m of text.matchAll(/[\p{L}\p{N}][\p{L}\p{N}_-]*/gu)) {
    const word = m[0];
    if (!/^[\p{Script=Latin}\p{N}_-]+$/u.test(word) && !/^[\p{Script=Cyrillic}]+$/u.test(word)) continue;
    const at = m.index ?? 0;
    const before = text.slice(Math.max(0, at - 24), at);
    const after = text.slice(at + word.length, at + word.length + 4);
    // A folder inside a longer path or an identifier ("app/screens", "config.yaml") is inferScope's business.
    if (/[/.]$/.test(before) || /^[/.][\p{L}]/u.test(after)) continue;
    const initial = at === text.length - sentenceStart.length;
    const placed = LATIN_BEFORE.test(before) || CJK_BEFORE.test(before) || AFTER.test(after) || initial;
    if (!placed || NOT_SCOPE_BEFORE.test(before) || NOT_SCOPE_AFTER.test(text.slice(at + word.length, at + word.length + 24))) continue;
    const clause = (text.slice(0, at).match(/[,，;；、]/gu) ?? []).length;
    for (const [name, paths] of byName) {
      if (!namesFolder(word, name)) continue;
      if (clauseOfFirst >= 0 && clause !== clauseOfFirst) continue;
      clauseOfFirst = clause;
      const depth = Math.min(...paths.map((p) => p.split("/").length));
      for (const p of paths) if (p.split("/").length === depth) found.add(`${p}/**`);
    }
  }
  return [...found].sort();
}
