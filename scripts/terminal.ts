/**
 * Text for a terminal. Every human-readable line the CLI prints that echoes user text (memory file
 * contents, rule text, file names, arguments) goes through `visible` first, so a file cannot clear,
 * retitle or recolour the user's terminal, or reorder what it shows. Machine output (--json, the
 * compacted markdown, rule files) is never passed through it: those bytes stay exact. Pure: no I/O.
 */

/**
 * C0 controls except TAB and LF, DEL and the C1 controls (U+0080-U+009F, which some terminals read
 * as escape introducers), and the Unicode bidirectional controls: ALM U+061C, LRM/RLM U+200E-U+200F,
 * embeddings and overrides U+202A-U+202E, isolates U+2066-U+2069 (the "Trojan Source" set, CVE-2021-42574);
 * and the invisible characters that only hide text: ZERO WIDTH SPACE U+200B, WORD JOINER U+2060 and
 * U+FEFF ("Nev\u200ber" must not look like "Never"). ZWNJ/ZWJ U+200C-U+200D stay: Persian and Indic
 * scripts and emoji sequences need them.
 */
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200b\u200e\u200f\u202a-\u202e\u2028\u2029\u2060\u2066-\u2069\ufeff]/g;

/** A UTF-16 unit as the six characters `\\uXXXX`. */
const escapeUnit = (c: string): string => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`;

/**
 * `text` with every terminal-unsafe character (see UNSAFE) written as a `\uXXXX` escape, e.g. ESC
 * becomes the six characters `\u001b`. TAB and LF are kept, so multi-line messages keep their lines.
 * Deterministic; never throws. The identity on text without such characters.
 */
export function visible(text: string): string {
  return text.replace(UNSAFE, escapeUnit);
}

/** visible() for a one-line field such as a file name: LF is escaped too (`\u000a`), so the field stays on its line. */
export function visibleName(text: string): string {
  return visible(text).replace(/\n/g, escapeUnit);
}

/**
 * visible(text) cut to at most `width` UTF-16 units, ending in "…" when cut. The cut never falls inside
 * an escape (`\u001b` stays whole or goes) nor between the halves of a surrogate pair (an emoji).
 */
export function visibleTruncated(text: string, width: number): string {
  const shown = visible(text);
  if (shown.length <= width) return shown;
  if (shown.length === text.length) {
    // Nothing was escaped (an escape only lengthens): cut between code points, not per character
    // through visible() (one regex replace per character, thousands per table).
    let end = Math.max(0, width - 1);
    const hi = text.charCodeAt(end - 1);
    const lo = text.charCodeAt(end);
    if (hi >= 0xd800 && hi <= 0xdbff && lo >= 0xdc00 && lo <= 0xdfff) end--;
    return `${text.slice(0, end)}…`;
  }
  let out = "";
  for (const ch of text) {
    const piece = visible(ch);
    if (out.length + piece.length > width - 1) break;
    out += piece;
  }
  return `${out}…`;
}
