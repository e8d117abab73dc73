/**
 * Pure sentence splitter for chat utterances. Fenced code blocks and quoted lines ("> …") are not
 * candidates; list markers are removed; inline code spans, URLs and common abbreviations never end a
 * sentence; CJK full stops (。！？) always do. CRLF is normalised to LF first.
 */

/** Longest sentence considered a candidate rule, in characters (longer ones are pasted text, not rules). */
export const MAX_SENTENCE_CHARS = 600;

const ABBREV = /(?:\b(?:e\.g|i\.e|etc|vs|cf|approx|incl|e\.t\.c|mr|mrs|dr|no|fig|z\.b|d\.h|bzw|usw)\.|\b[A-Za-z]\.)$/i;
const LIST_MARKER = /^\s*(?:[-*+•]|\d{1,3}[.)])\s+/;

/**
 * Split an utterance into candidate sentences (trimmed, list markers stripped, in order).
 * Sentences longer than MAX_SENTENCE_CHARS and lines inside code fences or block quotes are dropped.
 */
export function splitSentences(text: string): string[] {
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  const out: string[] = [];
  let fence: string | null = null;
  for (const raw of lines) {
    const fm = /^\s*(`{3,}|~{3,})/.exec(raw);
    if (fm) {
      const marker = fm[1] as string;
      if (fence === null) fence = marker[0] as string;
      else if (marker[0] === fence) fence = null;
      continue;
    }
    if (fence !== null) continue;
    if (/^\s*>/.test(raw)) continue;
    const line = raw.replace(LIST_MARKER, "").trim();
    if (line === "") continue;
    for (const s of splitLine(line)) {
      const t = s.trim();
      if (t !== "" && t.length <= MAX_SENTENCE_CHARS && /[\p{L}]/u.test(t)) out.push(t);
    }
  }
  return out;
}

/** Split one line at sentence ends, protecting `code`, URLs and abbreviations. */
function splitLine(line: string): string[] {
  const parts: string[] = [];
  let start = 0;
  let inCode = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i] as string;
    if (c === "`") {
      inCode = !inCode;
      continue;
    }
    if (inCode) continue;
    if (c === "。" || c === "！" || c === "？") {
      let j = i + 1;
      while (j < line.length && /[。！？」』）)]/.test(line[j] as string)) j++;
      parts.push(line.slice(start, j));
      start = j;
      i = j - 1;
      continue;
    }
    if (c === "." || c === "!" || c === "?") {
      let j = i + 1;
      while (j < line.length && /[.!?"')\]]/.test(line[j] as string)) j++;
      if (j < line.length && !/\s/.test(line[j] as string)) continue;
      const head = line.slice(start, i + 1);
      if (c === "." && ABBREV.test(head)) continue;
      if (c === "." && /\bhttps?:\/\/\S*$/.test(head)) continue;
      parts.push(line.slice(start, j));
      start = j;
      i = j - 1;
    }
  }
  if (start < line.length) parts.push(line.slice(start));
  return parts;
}
