/**
 * The extraction reader (pipeline/extract-read.ts scanTranscript over transcript.ts readLines) skips lines before
 * decoding and parsing them (cannotBeUser, typeTokens) and passes lines on as views of its read buffer. Whatever
 * the chunk size, it must find exactly the utterances a naive reader finds (read the whole file, split on "\n",
 * JSON.parse every line, userUtterance), at the same byte offsets and line numbers: on the real-CLI transcripts of
 * data/sessions, on ../shared/samples when that folder is there, and on edge cases built here (a multi-byte
 * character cut by a chunk boundary, CRLF, a huge line, a torn last line, tool results).
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { scanTranscript } from "../../scripts/memory/pipeline/extract-read.js";
import { trapSignals } from "../../scripts/memory/pipeline/interrupt.js";
import { archivedMessage } from "../../scripts/memory/archive/messages.js";
import { updateIndex } from "../../scripts/memory/archive/dig-index.js";
import { userUtterance } from "../../scripts/memory/transcript.js";

const repo = resolve(import.meta.dirname, "..", "..");

/** Transcripts of data/sessions and, when present, every .jsonl under ../shared/samples. */
function realTranscripts(): string[] {
  const out: string[] = [];
  const sessions = join(repo, "data", "sessions");
  for (const d of readdirSync(sessions)) if (existsSync(join(sessions, d, "transcript.jsonl"))) out.push(join(sessions, d, "transcript.jsonl"));
  const walk = (dir: string): void => {
    for (const n of readdirSync(dir)) {
      const p = join(dir, n);
      if (statSync(p).isDirectory()) walk(p);
      else if (n.endsWith(".jsonl") && !n.startsWith("hook-stdin")) out.push(p);
    }
  };
  const shared = join(repo, "..", "shared", "samples");
  if (existsSync(shared)) walk(shared);
  return out;
}

interface Found {
  offset: number;
  line: number;
  text: string;
  uuid?: string;
}

/** The naive reader: every complete line decoded and parsed (a torn last line, with no "\n", is not read). */
function naive(path: string): Found[] {
  const buf = readFileSync(path);
  const out: Found[] = [];
  let start = 0;
  let line = 0;
  for (let nl = buf.indexOf(10); nl !== -1; start = nl + 1, nl = buf.indexOf(10, start)) {
    line++;
    let text = buf.subarray(start, nl).toString("utf8");
    if (text.endsWith("\r")) text = text.slice(0, -1);
    let obj: unknown;
    try {
      obj = JSON.parse(start === 0 ? text.replace(/^\uFEFF/, "") : text);
    } catch {
      continue;
    }
    const u = userUtterance(obj);
    if (typeof u !== "string") out.push({ offset: start, line, text: u.text, uuid: u.uuid });
  }
  return out;
}

async function scanned(path: string, chunkSize: number, maxLineBytes = 1 << 20): Promise<Found[]> {
  const trap = trapSignals();
  const out: Found[] = [];
  try {
    for await (const lines of scanTranscript(path, { chunkSize, maxLineBytes }, 0, trap)) {
      for (const l of lines) if (l.utterance) out.push({ offset: l.start, line: l.line, text: l.utterance.text, uuid: l.utterance.uuid });
    }
  } finally {
    trap.dispose();
  }
  return out;
}

describe("scanTranscript finds what a naive reader finds", { timeout: 120_000 }, () => {
  const files = realTranscripts();
  it("has real transcripts to compare on", () => {
    expect(files.length).toBeGreaterThanOrEqual(26);
  });
  it.each([61, 4096, 1 << 20])("chunk size %i bytes, every real transcript", async (chunk) => {
    let utterances = 0;
    for (const f of files) {
      const want = naive(f);
      utterances += want.length;
      expect(await scanned(f, chunk), f).toEqual(want);
    }
    expect(utterances).toBeGreaterThan(300);
  });

  it("on edge cases: a multi-byte character cut by a chunk boundary, CRLF, a huge line, tool results, a torn tail", async () => {
    const row = (o: object): string => JSON.stringify({ type: "user", uuid: `u${Math.random()}`, ...o });
    const lines = [
      // "Ü" (2 bytes), "日本" (3 bytes each) and an emoji (4 bytes) land on every offset mod 7 over these lines.
      ...["", "a", "ab", "abc", "abcd", "abcde", "abcdef"].map((pad) => row({ message: { role: "user", content: `${pad}Überall gilt: 日本語のテスト 🚫 never push to main.` } })),
      `${row({ message: { role: "user", content: "Always run the linter (CRLF line)." } })}\r`,
      row({ message: { role: "user", content: [{ tool_use_id: "t1", type: "tool_result", content: "x".repeat(30_000) }] } }),
      row({ message: { role: "user", content: [{ tool_use_id: "t2", type: "tool_result", content: "ok" }, { type: "text", text: "And never force-push." }] } }),
      row({ message: { role: "user", content: "y".repeat(70_000) } }),
      JSON.stringify({ type: "assistant", message: { role: "assistant", content: [{ type: "text", text: 'He said "type":"user" here.' }] } }),
      row({ message: { role: "user", content: "Use pnpm, not npm." } }),
    ];
    const p = join(mkdtempSync(join(tmpdir(), "kt-reader-same-")), "t.jsonl");
    writeFileSync(p, `${lines.join("\n")}\n${row({ message: { role: "user", content: "torn, not read yet" } })}`);
    const want = naive(p);
    // The huge line is over the line cap (64 KiB here): the naive reader reads it, the real one skips it unread.
    expect(want.map((w) => w.text.length > 65_536)).toContain(true);
    const noHuge = want.filter((w) => w.text.length < 65_536);
    expect(noHuge.map((w) => w.text)).toContain("And never force-push.");
    expect(noHuge.map((w) => w.text)).toContain("Always run the linter (CRLF line).");
    expect(noHuge).toHaveLength(10);
    for (const chunk of [7, 64, 4096, 1 << 20]) expect(await scanned(p, chunk, 65_536), `chunk ${chunk}`).toEqual(noHuge);
  });
});

describe("the archive index keeps every message a naive reader finds", { timeout: 120_000 }, () => {
  it("on every real transcript", async () => {
    const dir = mkdtempSync(join(tmpdir(), "kt-index-same-"));
    let messages = 0;
    for (const [i, f] of realTranscripts().entries()) {
      const index = join(dir, `${i}.jsonl`);
      const r = await updateIndex(f, index, 0, "transcript.jsonl");
      const buf = readFileSync(f);
      let start = 0;
      const want: number[] = [];
      for (let nl = buf.indexOf(10); nl !== -1; start = nl + 1, nl = buf.indexOf(10, start)) {
        try {
          if (archivedMessage(JSON.parse(buf.subarray(start, nl).toString("utf8"))) !== null) want.push(start);
        } catch {
          // not JSON: no message
        }
      }
      const got = r.messages === 0 ? [] : readFileSync(index, "utf8").trim().split("\n").map((l) => (JSON.parse(l) as { o: number; e: number }));
      // A record spans the consecutive lines of one assistant message: every message line starts inside one record.
      for (const o of want) expect(got.some((g) => g.o <= o && o < g.e), `${f} offset ${o}`).toBe(true);
      expect(got.every((g) => want.includes(g.o)), f).toBe(true);
      messages += want.length;
    }
    expect(messages).toBeGreaterThan(500);
  });
});
