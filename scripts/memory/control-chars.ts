/**
 * Characters that must never reach a rule file or the hook's stdout: terminal control sequences, C0/C1 control
 * characters and the invisible bidirectional controls that reorder what a reader sees (U+202E shows "exe.txt" for
 * "txt.exe"). Pure.
 */

/**
 * A terminal escape sequence: CSI (ESC [ or U+009B, parameters, a final byte: colours, cursor moves), OSC (ESC ]
 * ... ended by BEL or ESC \: titles, hyperlinks) and the two-character ESC forms. Removed whole, so "\u001b[31m"
 * does not leave "[31m" behind.
 */
const ESCAPE_SEQUENCE = /(?:\u001b\[|\u009b)[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|\u001b[@-Z\\-_]?/g;
/** C0 controls but tab and line feed, DEL, C1 controls, and the bidi marks, embeddings, overrides and isolates. */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * `text` without terminal escape sequences, control characters and bidi controls; a tab, U+2028 and U+2029 become a
 * space (a line separator would split a rule's bullet line for some readers), "\r\n" and "\r" become "\n". Line feeds
 * (a procedure's steps) and every printable character, emoji joiners included, are kept. Deterministic.
 */
export function stripControls(text: string): string {
  return text
    .replace(/\r\n?/g, "\n")
    .replace(ESCAPE_SEQUENCE, "")
    .replace(/[\t\u2028\u2029]/g, " ")
    .replace(CONTROL, "");
}

/** True when `text` holds a character stripControls() would remove or change (besides "\r\n" line breaks). */
export function hasControls(text: string): boolean {
  return stripControls(text) !== text.replace(/\r\n?/g, "\n");
}
