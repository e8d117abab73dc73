/**
 * Pure sentence splitter for chat utterances. Fenced code blocks and quoted lines ("> …") are not
 * candidates; list markers are removed; inline code spans, URLs and common abbreviations never end a
 * sentence; CJK full stops (。！？) always do. CRLF is normalised to LF first. A procedure is one candidate,
 * kept whole: a header ending in ":" followed by numbered or bulleted lines (joined with "\n", markers kept),
 * or a header and its numbered steps on one line ("the order is: 1. … 2. …", as tui prompts arrive).
 */

/** Longest sentence considered a candidate rule, in characters (longer ones are pasted text, not rules). */
export const MAX_SENTENCE_CHARS = 600;

// Word starts by Unicode letters: with "\b", "migración." read as the one-letter abbreviation "n." (ó is not \w).
const ABBREV = /(?:(?<![\p{L}\p{N}_])(?:e\.g|i\.e|etc|vs|cf|approx|incl|e\.t\.c|mr|mrs|dr|no|fig|z\.b|d\.h|bzw|usw)\.|(?<![\p{L}\p{N}_])[A-Za-z]\.)$/iu;
const LIST_MARKER = /^\s*(?:[-*+•・‣]|\d{1,3}[.)])\s*(?<=[・‣]\s*|\s)(?=\S)/;
/** A header that introduces steps: ends with a colon (ASCII or full-width). */
const STEP_HEADER = /[:：]\s*$/;
/** Numbered steps inline after a header: "…: 1. x 2. y", "…：1) x 2) y", "手順 1. x 2. y". */
const INLINE_STEPS = /(?:[:：]|\s)\s*(?:1[.)]|①)\s*[^\s\d][\s\S]*?\s2[.)]\s*\S/;

/**
 * Split an utterance into candidate sentences (trimmed, list markers stripped, in order).
 * Sentences longer than MAX_SENTENCE_CHARS and lines inside code fences or block quotes are dropped.
 */
export function splitSentences(text: string): string[] {
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  const out: string[] = [];
  let fence: string | null = null;
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i] as string;
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
    const parts = splitLine(line);
    // A header line ending in ":" with list lines after it: the header's last sentence and the steps are one candidate.
    if (STEP_HEADER.test(line) && !LIST_MARKER.test(raw) && fence === null) {
      const steps = stepsAfter(lines, i + 1);
      if (steps.length >= 2) {
        for (const s of parts.slice(0, -1)) push(out, s);
        push(out, [(parts[parts.length - 1] ?? "").trim(), ...steps].join("\n"));
        i += steps.length;
        continue;
      }
    }
    for (const s of parts) push(out, s);
  }
  return out;
}

function push(out: string[], s: string): void {
  const t = s.trim();
  if (t !== "" && t.length <= MAX_SENTENCE_CHARS && /[\p{L}]/u.test(t)) out.push(t);
}

/** The list lines (trimmed, markers kept) right after a header; blank lines between items are skipped. */
function stepsAfter(lines: readonly string[], from: number): string[] {
  const steps: string[] = [];
  for (let j = from; j < lines.length; j++) {
    const l = lines[j] as string;
    if (l.trim() === "" && steps.length === 0) break;
    if (!LIST_MARKER.test(l)) break;
    steps.push(l.trim());
  }
  return steps;
}

/** Split one line at sentence ends, protecting `code`, URLs and abbreviations; inline numbered steps stay with their header. */
function splitLine(line: string): string[] {
  const parts = splitPlain(line);
  if (!INLINE_STEPS.test(line)) return parts;
  // A split right after a step number ("…: 1." | "bump the build 2." | …) is undone: header and steps are one part.
  const out: string[] = [];
  for (const p of parts) {
    const prev = out[out.length - 1];
    if (prev !== undefined && /(?:^|[\s:：])\d{1,2}[.)]\s*$/.test(prev)) out[out.length - 1] = prev + p;
    else out.push(p);
  }
  return out;
}

function splitPlain(line: string): string[] {
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
    if (c === "]" && line.slice(i - 9, i + 1) === "[REDACTED]" && /^\s+[\p{Lu}]/u.test(line.slice(i + 1))) {
      // A secret ends a sentence without its full stop: "… the key is [REDACTED] Keys like these live …".
      parts.push(line.slice(start, i + 1));
      start = i + 1;
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
