/**
 * The search index of the transcript archive (`archive/<session>/index.jsonl`, one record per message: where it is
 * in the archived transcript, role, time and its redacted text) and the search over it: Okapi BM25 on the terms of
 * scripts/operators/bm25.ts (English words lightly stemmed; CJK runs as character bigrams, so Chinese, Japanese and
 * Korean need no dictionary), recency breaking ties. Two stages: search() returns short snippets with ids,
 * readMessage() the whole message with its tool calls, redacted.
 */
import { appendFileSync, closeSync, openSync, readdirSync, readSync, statSync } from "node:fs";
import { join } from "node:path";
import * as z from "zod/mini";
import { termHashes, terms } from "../../operators/bm25.js";
import { redactSync } from "../redact.js";
import { cannotBeUser, decodeLine, readLines } from "../transcript.js";
import { archivedMessage } from "./messages.js";

/** Characters of a message's redacted text kept in the index (search and snippets; `dig read` reads the archive itself). */
export const INDEX_TEXT_MAX_CHARS = 4000;

/** One index record. Offsets in bytes into the archived transcript file `f`. */
const RecordSchema = z.object({
  f: z.string(),
  o: z.int().check(z.nonnegative()),
  e: z.int().check(z.nonnegative()),
  r: z.enum(["user", "assistant"]),
  t: z.optional(z.string()),
  m: z.optional(z.string()),
  x: z.string(),
});
type IndexRecord = z.infer<typeof RecordSchema>;

/**
 * Index the complete lines of `transcriptFile` from byte `from` into `indexFile` (appended). Consecutive lines of one
 * assistant message (same `message.id`) become one record. Returns where indexing stopped (the end of the last
 * complete line) and how many records were added. Throws fs errors.
 */
export async function updateIndex(transcriptFile: string, indexFile: string, from: number, fileName: string): Promise<{ indexed: number; messages: number }> {
  let indexed = from;
  // Finished records as JSON lines (redacted and cut to INDEX_TEXT_MAX_CHARS as soon as they are complete, so
  // memory holds at most that much per message), and the record still open to the next line of its message.
  const lines: string[] = [];
  let prev: IndexRecord | undefined;
  let messages = 0;
  const finish = (r: IndexRecord | undefined): void => {
    if (!r) return;
    const x = redactSync(r.x);
    lines.push(JSON.stringify({ ...r, x: x.length > INDEX_TEXT_MAX_CHARS ? `${x.slice(0, INDEX_TEXT_MAX_CHARS)}…` : x }));
  };
  for await (const line of readLines(transcriptFile, { start: from })) {
    if (!line.complete) break;
    indexed = line.end;
    if (!line.bytes || !mayHoldMessage(line.bytes)) continue;
    let obj: unknown;
    try {
      obj = JSON.parse(decodeLine(line.bytes).text);
    } catch {
      continue;
    }
    const m = archivedMessage(obj);
    if (!m) continue;
    if (prev && m.messageId && prev.m === m.messageId && prev.e === line.start) {
      prev.e = line.end;
      prev.x = `${prev.x}\n${m.text}`;
      continue;
    }
    finish(prev);
    prev = { f: fileName, o: line.start, e: line.end, r: m.role, t: m.timestamp, m: m.messageId, x: m.text };
    messages++;
  }
  finish(prev);
  // One append at the end, as the state that records `indexed` is written after it (a run killed before has written nothing).
  if (lines.length > 0) appendFileSync(indexFile, `${lines.join("\n")}\n`);
  return { indexed, messages };
}

/**
 * Cheap pre-check on raw line bytes: false when the line cannot give a message (archivedMessage null), so it is
 * neither decoded nor parsed. Only assistant lines and user lines that may hold the user's own text can
 * (transcript.ts cannotBeUser: tool results, about half a transcript's bytes, and meta lines cannot); the two
 * spellings of the type token are the ones cannotBeUser accepts.
 */
function mayHoldMessage(bytes: Buffer): boolean {
  if (!cannotBeUser(bytes)) return true;
  // One scan of the line for both spellings (a tool result's 20 kB are read once here, not twice).
  return bytes.indexOf('"assistant"') !== -1 && (bytes.indexOf('"type":"assistant"') !== -1 || bytes.indexOf('"type": "assistant"') !== -1);
}

/** One search result: the id for `dig read`, where and when it was said, and a short redacted snippet. */
export interface DigHit {
  id: string;
  session: string;
  role: "user" | "assistant";
  timestamp: string | null;
  score: number;
  snippet: string;
}

interface Doc extends IndexRecord {
  session: string;
}

/**
 * Message id shown to the user: the session folder's short name (see shortNames), the file generation when not the
 * first, the byte offset.
 */
function idOf(d: Doc, short: ReadonlyMap<string, string>): string {
  const gen = /^transcript-(\d+)\.jsonl$/.exec(d.f)?.[1];
  return `${short.get(d.session) ?? d.session}:${gen ? `${gen}:` : ""}${d.o}`;
}

/**
 * Short name of each session folder, as git shortens hashes: its first 8 characters, or as many more as it takes to
 * tell it from every other folder that starts the same (session ids are UUIDs, so almost always 8). Input: folder
 * names; output: name -> short name.
 */
export function shortNames(sessions: readonly string[]): Map<string, string> {
  const sorted = [...new Set(sessions)].sort();
  const out = new Map<string, string>();
  const common = (a = "", b = ""): number => {
    let i = 0;
    while (i < a.length && i < b.length && a[i] === b[i]) i++;
    return i;
  };
  sorted.forEach((name, i) => {
    const need = Math.max(common(name, sorted[i - 1]), common(name, sorted[i + 1])) + 1;
    out.set(name, name.slice(0, Math.max(8, need)));
  });
  return out;
}

/** Characters of a result snippet. */
export const SNIPPET_CHARS = 200;

/** The loaded index of a whole archive: every record plus an inverted index of term hashes. */
export class DigIndex {
  readonly docs: Doc[] = [];
  private readonly postings = new Map<number, number[]>();
  private lens: number[] = [];
  private avgdl = 1;

  /** Bytes of each session's index.jsonl taken in so far: up to the end of its last complete line. */
  private readonly taken = new Map<string, number>();
  private lenSum = 0;
  private short = new Map<string, string>();

  /** Load every `archive/<session>/index.jsonl` under `archiveRoot` (missing folder: empty index). Invalid records are skipped. */
  static load(archiveRoot: string): DigIndex {
    const ix = new DigIndex();
    ix.refresh(archiveRoot);
    return ix;
  }

  /**
   * Take in what was archived since this index was loaded: the lines appended to each session's index.jsonl (a line
   * still being written waits for the next refresh) and new sessions whole, so a long-lived reader (`triage mcp`)
   * need not load a large archive again after each hook run. Returns false, taking in nothing, when a session went
   * away or its index shrank (retention, a rewrite): then load the archive again.
   */
  refresh(archiveRoot: string): boolean {
    let sessions: string[] = [];
    try {
      sessions = readdirSync(archiveRoot, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name).sort();
    } catch {
      return this.taken.size === 0;
    }
    const sizes = new Map<string, number>();
    for (const session of sessions) {
      try {
        sizes.set(session, statSync(join(archiveRoot, session, "index.jsonl")).size);
      } catch {
        // no index (yet): nothing to take in
      }
    }
    for (const [session, from] of this.taken) if ((sizes.get(session) ?? -1) < from) return false;
    for (const [session, size] of sizes) {
      const from = this.taken.get(session) ?? 0;
      if (size <= from) continue;
      const buf = Buffer.alloc(size - from);
      let fd: number;
      try {
        fd = openSync(join(archiveRoot, session, "index.jsonl"), "r");
      } catch {
        continue;
      }
      try {
        readSync(fd, buf, 0, buf.length, from);
      } finally {
        closeSync(fd);
      }
      // Up to the last line feed: a line feed byte never occurs inside a UTF-8 multi-byte character.
      const end = buf.lastIndexOf(10) + 1;
      if (end === 0) continue;
      this.taken.set(session, from + end);
      for (const line of buf.subarray(0, end).toString("utf8").split("\n")) {
        if (line === "") continue;
        let raw: unknown;
        try {
          raw = JSON.parse(line);
        } catch {
          continue;
        }
        const r = RecordSchema.safeParse(raw);
        if (r.success) this.add({ ...r.data, session });
      }
    }
    this.avgdl = this.lenSum / (this.lens.length || 1) || 1;
    this.short = shortNames([...this.taken.keys()]);
    return true;
  }

  private add(d: Doc): void {
    const n = this.docs.length;
    this.docs.push(d);
    const hs = termHashes(d.x);
    this.lens.push(hs.length);
    this.lenSum += hs.length;
    const tf = new Map<number, number>();
    for (const h of hs) tf.set(h, (tf.get(h) ?? 0) + 1);
    for (const [h, c] of tf) {
      let p = this.postings.get(h);
      if (!p) {
        p = [];
        this.postings.set(h, p);
      }
      p.push(n, c);
    }
  }

  /**
   * The `k` best messages for `query`: Okapi BM25 (k1 = 1.2, b = 0.75, Lucene idf, as bm25.ts), ties (scores equal
   * to 1e-9) broken by recency (later timestamp, then later in the file). Messages matching no query term are not
   * returned. Snippets are cut around the first query term found.
   */
  search(query: string, k = 10): DigHit[] {
    const n = this.docs.length;
    const q = [...new Set(termHashes(query))];
    if (n === 0 || q.length === 0) return [];
    const score = new Map<number, number>();
    for (const h of q) {
      const p = this.postings.get(h);
      if (!p) continue;
      const df = p.length / 2;
      const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
      for (let i = 0; i < p.length; i += 2) {
        const d = p[i] as number;
        const tf = p[i + 1] as number;
        const s = (idf * tf * 2.2) / (tf + 1.2 * (0.25 + (0.75 * (this.lens[d] as number)) / this.avgdl));
        score.set(d, (score.get(d) ?? 0) + s);
      }
    }
    const ranked = [...score.entries()].sort((a, b) => {
      if (Math.abs(b[1] - a[1]) > 1e-9) return b[1] - a[1];
      const da = this.docs[a[0]] as Doc;
      const db = this.docs[b[0]] as Doc;
      return (db.t ?? "").localeCompare(da.t ?? "") || db.o - da.o;
    });
    const words = terms(query);
    return ranked.slice(0, Math.max(0, k)).map(([i, s]) => {
      const d = this.docs[i] as Doc;
      return { id: idOf(d, this.short), session: d.session, role: d.r, timestamp: d.t ?? null, score: Math.round(s * 1000) / 1000, snippet: snippet(d.x, words) };
    });
  }

  /** The record with this id (see idOf), or null. */
  find(id: string): Doc | null {
    return this.docs.find((d) => idOf(d, this.short) === id) ?? null;
  }
}

/** A flat window of SNIPPET_CHARS around the first occurrence of any query term (its stem as a prefix), else the start. */
export function snippet(text: string, words: readonly string[]): string {
  const lower = text.toLowerCase();
  let at = -1;
  for (const w of words) {
    const i = lower.indexOf(w);
    if (i !== -1 && (at === -1 || i < at)) at = i;
  }
  const from = Math.max(0, at - SNIPPET_CHARS / 4);
  const cut = text.slice(from, from + SNIPPET_CHARS).replace(/\s+/g, " ").trim();
  return `${from > 0 ? "…" : ""}${cut}${from + SNIPPET_CHARS < text.length ? "…" : ""}`;
}

/** Characters `dig read` prints at most (a message with a Write of a large file is cut there, with a note). */
export const READ_MAX_CHARS = 20_000;

/**
 * The whole message of index record `d` (user text, or assistant text and every tool call with its full input),
 * read from the archived transcript `archiveRoot/<session>/<file>` and redacted; at most READ_MAX_CHARS chars.
 */
export async function readMessage(archiveRoot: string, d: Doc): Promise<string> {
  const parts: string[] = [];
  for await (const line of readLines(join(archiveRoot, d.session, d.f), { start: d.o, maxLineBytes: 16 << 20 })) {
    if (line.start >= d.e) break;
    if (!line.bytes) continue;
    try {
      const m = archivedMessage(JSON.parse(decodeLine(line.bytes).text), Number.POSITIVE_INFINITY);
      if (m) parts.push(m.text);
    } catch {
      // a torn line: nothing to show
    }
  }
  const text = redactSync(parts.join("\n"));
  return text.length > READ_MAX_CHARS ? `${text.slice(0, READ_MAX_CHARS)}\n… (${text.length - READ_MAX_CHARS} more characters cut)` : text;
}
