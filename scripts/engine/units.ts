import type { Fence, Unit, UnitKind } from "./types.js";

const FENCE_RE = /^(\s*)(`{3,}|~{3,})\s*([^`]*?)\s*$/;
const HEADING_RE = /^\s{0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const HR_RE = /^\s{0,3}(?:(?:-[ \t]*){3,}|(?:\*[ \t]*){3,}|(?:_[ \t]*){3,}|(?:=[ \t]*){3,})$/;
const LIST_RE = /^(\s*)([-*+•]|\d{1,9}[.)])(?:[ \t]+|$)/;
const TABLE_SEP_RE = /^\s*\|?\s*:?-{1,}:?\s*(?:\|\s*:?-{1,}:?\s*)+\|?\s*$|^\s*\|\s*:?-{2,}:?\s*\|\s*$/;

/** Column width of leading whitespace, a tab counting as 4 columns (CommonMark tab stop). */
function indentOf(line: string): number {
  let cols = 0;
  for (let i = 0; i < line.length; i++) {
    const c = line.charCodeAt(i);
    if (c === 32) cols += 1;
    else if (c === 9) cols += 4 - (cols % 4);
    else break;
  }
  return cols;
}

function isBlank(line: string): boolean {
  return line.trim() === "";
}

function isTableRow(line: string): boolean {
  const t = line.trim();
  return t.startsWith("|") && t.length > 1;
}

/** Strip list markers, emphasis and trailing colon, for use as context text. */
function contextText(line: string): string {
  return line
    .replace(LIST_RE, "")
    .replace(/^\s*#{1,6}\s+/, "")
    .trim();
}

/** Decodes line bytes; invalid UTF-8 becomes U+FFFD as when the whole input is decoded at once (io/text-io.ts). */
const utf8 = new TextDecoder("utf-8", { fatal: false });

/**
 * The lines of a text as `text.split(/\r\n|\r|\n/)` gives them, kept as offsets (two Int32Arrays) instead of
 * one string per line: a 50 MB file has about 1.5 million lines, and an array of their strings held 50 MB more
 * than the text itself for as long as segmentation ran. A line's string is cut from the text when asked for.
 * The text may also be UTF-8 bytes (offsets are then byte offsets, and a line is decoded when asked for: "\r"
 * and "\n" never occur inside a multi-byte sequence, so each line decodes to what it is in the decoded whole).
 */
class Lines {
  readonly length: number;
  private readonly starts: Int32Array;
  private readonly ends: Int32Array;
  /** The text has no "\r": every separator is one "\n", so consecutive lines are one slice of the text. */
  private readonly lfOnly: boolean;
  constructor(private readonly text: string | Uint8Array) {
    let starts = new Int32Array(1024);
    let ends = new Int32Array(1024);
    let n = 0;
    const put = (s: number, e: number): void => {
      if (n === starts.length) {
        const s2 = new Int32Array(n * 2);
        const e2 = new Int32Array(n * 2);
        s2.set(starts);
        e2.set(ends);
        starts = s2;
        ends = e2;
      }
      starts[n] = s;
      ends[n] = e;
      n++;
    };
    const lf = typeof text === "string" ? "\n" : 10;
    const cr = typeof text === "string" ? "\r" : 13;
    this.lfOnly = !(text as { includes(c: string | number): boolean }).includes(cr);
    let from = 0;
    if (this.lfOnly) {
      const find = (text as { indexOf(c: string | number, from: number): number }).indexOf.bind(text);
      for (let nl = find(lf, 0); nl !== -1; nl = find(lf, from)) {
        put(from, nl);
        from = nl + 1;
      }
    } else if (typeof text === "string") {
      const sep = /\r\n|\r|\n/g;
      for (let m = sep.exec(text); m !== null; m = sep.exec(text)) {
        put(from, m.index);
        from = m.index + m[0].length;
      }
    } else {
      for (let i = 0; i < text.length; i++) {
        const c = text[i];
        if (c !== 10 && c !== 13) continue;
        put(from, i);
        if (c === 13 && text[i + 1] === 10) i++;
        from = i + 1;
      }
    }
    put(from, text.length);
    this.length = n;
    this.starts = starts;
    this.ends = ends;
  }

  private cut(from: number, to: number): string {
    return typeof this.text === "string" ? this.text.slice(from, to) : utf8.decode(this.text.subarray(from, to));
  }

  /** Line i (0-based), or undefined past either end. */
  at(i: number): string | undefined {
    return i >= 0 && i < this.length ? this.cut(this.starts[i] as number, this.ends[i] as number) : undefined;
  }

  /** Lines start..end (inclusive) joined by "\n". */
  join(start: number, end: number): string {
    if (start === end || this.lfOnly) return this.cut(this.starts[start] as number, this.ends[end] as number);
    const parts: string[] = [];
    for (let j = start; j <= end; j++) parts.push(this.at(j) as string);
    return parts.join("\n");
  }

  /** True when one of lines from..to (inclusive) is not blank. */
  someNonBlank(from: number, to: number): boolean {
    for (let j = from; j <= to; j++) if (!isBlank(this.at(j) as string)) return true;
    return false;
  }
}

/** `source` without a leading byte order mark and one trailing line break (string or UTF-8 bytes). */
function trimmed(source: string | Uint8Array): string | Uint8Array {
  if (typeof source === "string") {
    let text = source.charCodeAt(0) === 0xfeff ? source.slice(1) : source;
    if (text.endsWith("\r\n")) text = text.slice(0, -2);
    else if (text.endsWith("\n") || text.endsWith("\r")) text = text.slice(0, -1);
    return text;
  }
  let b = source[0] === 0xef && source[1] === 0xbb && source[2] === 0xbf ? source.subarray(3) : source;
  const n = b.length;
  if (n >= 2 && b[n - 2] === 13 && b[n - 1] === 10) b = b.subarray(0, n - 2);
  else if (n >= 1 && (b[n - 1] === 10 || b[n - 1] === 13)) b = b.subarray(0, n - 1);
  return b;
}

/**
 * Split a markdown memory file into units (see `Unit`).
 * Input: the decoded text (a leading BOM and CRLF/CR line endings are accepted and normalised).
 * Output: units in source order; every line (blank or not) belongs to exactly one unit, and
 * blank lines, fence markers, horizontal rules and table separators are structure units.
 * Headings are units of their own (kind "heading") and are classified like any line.
 * Never throws; an empty string gives [].
 */
export function segment(source: string): Unit[] {
  const units: Unit[] = [];
  for (const batch of segmentBatches(source)) for (const u of batch) units.push(u);
  return units;
}

/**
 * The units of `segment(source)`, the same ones in the same order, handed out in batches of about `size` (at
 * least 1; a batch may run a few units over) as they are found, so a caller that handles each batch and lets it go
 * never holds every unit of a large file (classify streams its output this way). `source` may also be the
 * file's UTF-8 bytes (io/text-io.ts readInputLines): the units are those of segment(the decoded text), with no
 * decoded copy of the whole file held. Never throws.
 */
export function* segmentBatches(source: string | Uint8Array, size = 4096): Generator<Unit[]> {
  if (source.length === 0 || (typeof source === "string" ? source === "\ufeff" : source.length === 3 && source[0] === 0xef && source[1] === 0xbb && source[2] === 0xbf)) return;
  const lines = new Lines(trimmed(source));
  let units: Unit[] = [];
  const headingStack: { level: number; text: string }[] = [];
  let listStack: { indent: number; text: string }[] = [];
  let paraLeadIn = "";
  let prevNonBlank = "";
  let lastListItem: Unit | null = null;
  let tableHeader = "";

  // Units of one section share one headings array (rebuilt only when the stack changes): a 50 MB file has
  // over a million units, and a copy each was a large part of classify's memory. Units never mutate it.
  let shared: string[] | null = null;
  const headings = (): string[] => {
    shared ??= headingStack.map((h) => h.text);
    return shared;
  };
  const push = (kind: UnitKind, start: number, end: number, extra: Partial<Unit> = {}): Unit => {
    const u: Unit = {
      line: start + 1,
      endLine: end + 1,
      text: lines.join(start, end),
      kind,
      headings: headings(),
      level: 0,
      depth: 0,
      leadIn: "",
      ...extra,
    };
    units.push(u);
    return u;
  };

  let i = 0;
  // YAML frontmatter: "---" on line 1 closed by "---" or "..." (Jekyll/Hugo convention).
  if (lines.at(0)?.trimEnd() === "---") {
    let end = -1;
    for (let j = 1; j < lines.length && j < 500; j++) {
      const t = lines.at(j)?.trimEnd();
      if (t === "---" || t === "...") {
        end = j;
        break;
      }
    }
    if (end > 0) {
      push("frontmatter", 0, end);
      i = end + 1;
    }
  }

  while (i < lines.length) {
    if (units.length >= size) {
      yield units;
      units = [];
    }
    const line = lines.at(i) as string;
    if (isBlank(line)) {
      push("blank", i, i);
      lastListItem = null;
      tableHeader = "";
      i++;
      continue;
    }
    const indent = indentOf(line);
    const fence = FENCE_RE.exec(line);
    if (fence) {
      const marker = fence[2] as string;
      const ch = marker[0] as string;
      let close = -1;
      for (let j = i + 1; j < lines.length; j++) {
        const t = (lines.at(j) as string).trim();
        if (t.length >= marker.length && t.startsWith(ch.repeat(marker.length)) && /^[`~]+$/.test(t) && t[0] === ch) {
          close = j;
          break;
        }
      }
      const last = close === -1 ? lines.length - 1 : close - 1;
      push("fence", i, i);
      if (last >= i + 1 && lines.someNonBlank(i + 1, last)) {
        const f: Fence = {
          open: line,
          close: close === -1 ? null : (lines.at(close) as string),
          openLine: i + 1,
          closeLine: close === -1 ? null : close + 1,
        };
        push("code", i + 1, last, {
          fence: f,
          lang: (fence[3] ?? "").split(/\s+/)[0] ?? "",
          leadIn: prevNonBlank,
          depth: listStack.length,
        });
      } else {
        for (let j = i + 1; j <= last; j++) push("blank", j, j);
      }
      if (close !== -1) push("fence", close, close);
      prevNonBlank = "";
      lastListItem = null;
      i = (close === -1 ? lines.length - 1 : close) + 1;
      continue;
    }
    // A block HTML comment (CommonMark's HTML block of type 2: a line starting with "<!--", through the line that
    // holds "-->"): invisible when rendered, and stripped by Claude Code from memory files (references/claude-code.md).
    // A structure unit: never classified, kept by compaction as written.
    if (indent < 4 && line.trimStart().startsWith("<!--")) {
      let end = i;
      const from = line.indexOf("<!--") + 4;
      while (end < lines.length - 1 && !(lines.at(end) as string).includes("-->", end === i ? from : 0)) end++;
      push("comment", i, end);
      lastListItem = null;
      i = end + 1;
      continue;
    }
    const heading = HEADING_RE.exec(line);
    if (heading && indent < 4) {
      const level = (heading[1] as string).length;
      while (headingStack.length && (headingStack[headingStack.length - 1] as { level: number }).level >= level) {
        headingStack.pop();
        shared = null;
      }
      push("heading", i, i, { level });
      headingStack.push({ level, text: (heading[2] ?? "").trim() });
      shared = null;
      listStack = [];
      paraLeadIn = "";
      tableHeader = "";
      prevNonBlank = contextText(line);
      lastListItem = null;
      i++;
      continue;
    }
    if (HR_RE.test(line)) {
      push("rule", i, i);
      lastListItem = null;
      i++;
      continue;
    }
    if (isTableRow(line) || (tableHeader !== "" && line.includes("|"))) {
      const next = lines.at(i + 1);
      if (TABLE_SEP_RE.test(line) && line.includes("-")) {
        push("table-separator", i, i);
      } else if (next !== undefined && TABLE_SEP_RE.test(next) && next.includes("-")) {
        push("table-header", i, i, { leadIn: paraLeadIn });
        tableHeader = line.trim();
      } else {
        push("table-row", i, i, { leadIn: tableHeader || paraLeadIn });
      }
      lastListItem = null;
      prevNonBlank = line.trim();
      i++;
      continue;
    }
    const list = LIST_RE.exec(line);
    if (list) {
      while (listStack.length && (listStack[listStack.length - 1] as { indent: number }).indent >= indent) {
        listStack.pop();
      }
      const parent = listStack[listStack.length - 1];
      const depth = listStack.length;
      // Continuation lines: non-blank lines that are not a new block start.
      let end = i;
      for (let j = i + 1; j < lines.length; j++) {
        const l = lines.at(j) as string;
        if (isBlank(l) || LIST_RE.test(l) || FENCE_RE.test(l) || HR_RE.test(l) || isTableRow(l)) break;
        if (HEADING_RE.test(l) && indentOf(l) < 4) break;
        if (indentOf(l) < 4 && l.trimStart().startsWith("<!--")) break; // a block HTML comment interrupts, as in CommonMark
        end = j;
      }
      const u = push("list-item", i, end, { depth, leadIn: parent ? parent.text : paraLeadIn });
      listStack.push({ indent, text: contextText(line) });
      lastListItem = u;
      prevNonBlank = contextText(line);
      i = end + 1;
      continue;
    }
    // A plain paragraph line. After a blank line, an unindented line closes any open list.
    if (indent === 0 && lastListItem === null) listStack = [];
    const lead = listStack.length ? (listStack[listStack.length - 1] as { text: string }).text : paraLeadIn;
    push("line", i, i, { depth: listStack.length, leadIn: lead });
    const ctx = contextText(line).replace(/[*_`]+/g, "").trim();
    if (ctx.endsWith(":") || ctx.endsWith("：")) paraLeadIn = ctx;
    prevNonBlank = ctx;
    i++;
  }
  if (units.length > 0) yield units;
}

/** True when the unit is structure (never classified, never scored). */
export function isStructure(u: Pick<Unit, "kind">): boolean {
  return u.kind === "blank" || u.kind === "fence" || u.kind === "rule" || u.kind === "table-separator" || u.kind === "comment";
}
