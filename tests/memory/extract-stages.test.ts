/**
 * The three stages runExtract is made of (scripts/memory/pipeline/): reading (extract-read.ts: one raw line ->
 * utterance or skip reason, and the tally of skipped lines), batching (extract-batch.ts: when a batch is full or
 * a line is too far to join it) and the cursor/resume state (extract-cursor.ts: where a run starts, when the
 * reader may stop for the deadline, and the cursor it saves).
 */
import { describe, expect, it } from "vitest";
import { Batch, type Said } from "../../scripts/memory/pipeline/extract-batch.js";
import { RunProgress, type PrefixHasher } from "../../scripts/memory/pipeline/extract-cursor.js";
import { LineTally, MAX_UTTERANCE_CHARS, scanLine } from "../../scripts/memory/pipeline/extract-read.js";
import type { RawLine } from "../../scripts/memory/transcript.js";
import type { Cursor } from "../../scripts/memory/store/store-schema.js";

const userJson = (text: string, extra: Record<string, unknown> = {}): string =>
  JSON.stringify({ type: "user", message: { role: "user", content: text }, uuid: "u1", timestamp: "2026-01-01T00:00:00Z", sessionId: "s", ...extra });
const raw = (text: string | null, start = 10, complete = true): RawLine => {
  const bytes = text === null ? null : Buffer.from(text, "utf8");
  return { start, end: start + (bytes?.length ?? 5000) + 1, index: 3, bytes, complete };
};

describe("scanLine (reading)", () => {
  it.each([
    ["a user line", userJson("Always run the tests before committing."), { utterance: "Always run the tests before committing." }],
    ["an assistant line", JSON.stringify({ type: "assistant", message: { role: "assistant", content: "ok" } }), {}],
    ["a line that is not JSON at all", "garbage here", { skip: "corrupt" }],
    ["a user-looking line that does not parse", '{"type":"user","message":', { skip: "corrupt" }],
    ["a tool result", JSON.stringify({ type: "user", message: { role: "user", content: [{ type: "tool_result", content: "x" }] } }), {}],
    ["a pasted message", userJson("x".repeat(MAX_UTTERANCE_CHARS + 1)), { skip: "pasted" }],
    ["an empty line", "", {}],
  ])("%s", (_name, text, want: { utterance?: string; skip?: string }) => {
    const s = scanLine(raw(text), 7);
    expect(s.line).toBe(10);
    expect(s.utterance?.text).toBe(want.utterance);
    expect(s.skip).toBe(want.skip);
  });
  it("marks an over-cap line oversized, a torn one incomplete, and strips a byte order mark only at byte 0", () => {
    expect(scanLine(raw(null), 0)).toMatchObject({ skip: "oversized", oversized: true });
    const torn = scanLine(raw(userJson("Never push to main."), 10, false), 0);
    expect([torn.complete, torn.utterance]).toEqual([false, undefined]);
    const bom = `\uFEFF${userJson("Never push to main.")}`;
    expect(scanLine(raw(bom, 0), 0).utterance?.text).toBe("Never push to main.");
    const bomOther = `\uFEFF${JSON.stringify({ type: "assistant" })}`;
    expect(scanLine(raw(bomOther, 0), 0).skip).toBeUndefined();
    expect(scanLine(raw(bomOther, 10), 0).skip).toBe("corrupt");
  });
  it("flags invalid UTF-8 and still reads the utterance", () => {
    const b = Buffer.concat([Buffer.from('{"type":"user","message":{"role":"user","content":"Use pnpm '), Buffer.from([0xff]), Buffer.from('."}}')]);
    const s = scanLine({ start: 0, end: b.length + 1, index: 1, bytes: b, complete: true }, 0);
    expect(s.invalidUtf8).toBe(true);
    expect(s.utterance?.text).toBe("Use pnpm \uFFFD.");
  });
  it("LineTally counts what runExtract reports and words its warnings", () => {
    const t = new LineTally();
    for (const l of [raw("junk"), raw(null), raw(userJson("x".repeat(MAX_UTTERANCE_CHARS + 1))), raw("{}", 10, false), raw(userJson("ok"))]) t.add(scanLine(l, 0));
    expect([t.linesRead, t.linesSkipped]).toEqual([4, 3]);
    expect(t.warnings()).toEqual([
      "2 unparseable lines skipped (including a torn last line)",
      "1 oversized line skipped (tool output or pasted text)",
      `1 user message over ${MAX_UTTERANCE_CHARS} characters skipped (pasted text)`,
    ]);
  });
});

describe("Batch (batching)", () => {
  const said = (offset: number, text = "Use pnpm."): Said => ({ u: { text }, line: offset, offset });
  it("is full at `size` utterances or `chars` characters, and ends before a line `span` bytes after its head", () => {
    const b = new Batch({ size: 3, chars: 20, span: 100 });
    expect(b.spanEnds(1000)).toBe(false); // empty: nothing to end
    expect(b.push(said(10))).toBe(false);
    expect(b.spanEnds(109)).toBe(false);
    expect(b.spanEnds(110)).toBe(true);
    expect(b.push(said(20))).toBe(false);
    expect(b.push(said(30))).toBe(true);
    b.clear();
    expect(b.head).toBeUndefined();
    expect(b.push(said(40, "x".repeat(20)))).toBe(true);
  });
});

describe("RunProgress (cursor/resume state)", () => {
  const hashes: PrefixHasher = (offset) => ({ headHash: `h${Math.min(offset, 4)}`, tailHash: `t${offset}` });
  const saved = (extra: Partial<Cursor> = {}): Cursor => ({ format: "knowledge-triage/cursor", version: 1, sessionId: "s", transcriptPath: "/t.jsonl", offset: 500, line: 9, ...hashes(500), ...extra });

  it("resumes from a cursor that matches the file, and starts over (with a warning) when it shrank or changed", () => {
    const ok = RunProgress.fromCursor(saved({ recent: "r1", since: 2, skip: 3 }), "/t.jsonl", 800, hashes);
    expect(ok.warning).toBeUndefined();
    expect(ok.progress).toMatchObject({ start: 500, startLine: 9, endOffset: 500, endLine: 9, recent: "r1", since: 2, skipLeft: 3 });
    expect(RunProgress.fromCursor(saved(), "/t.jsonl", 499, hashes).warning).toMatch(/shrank/);
    expect(RunProgress.fromCursor(saved({ tailHash: "other" }), "/t.jsonl", 800, hashes).warning).toMatch(/changed/);
    expect(RunProgress.fromCursor(saved(), "/other.jsonl", 800, hashes)).toEqual({ progress: new RunProgress() });
    expect(RunProgress.fromCursor(null, "/t.jsonl", 800, hashes).progress.start).toBe(0);
  });

  it("lets the reader stop only where that moves the cursor forward", () => {
    const p = RunProgress.fromCursor(saved(), "/t.jsonl", 800, hashes).progress;
    const at = { lineStart: 500, pos: 500, oversized: false };
    expect(p.readerMayStop(at, undefined, 100)).toBe(false); // nothing passed yet
    p.endOffset = 600;
    expect(p.readerMayStop({ ...at, lineStart: 600 }, undefined, 100)).toBe(true);
    // A first batch still filling: no stop until no later line can join it; then it is finished at the stop.
    expect(p.readerMayStop({ ...at, lineStart: 650 }, { offset: 600, line: 10 }, 100)).toBe(false);
    expect(p.finishAtStop).toBe(false);
    expect(p.readerMayStop({ ...at, lineStart: 700 }, { offset: 600, line: 10 }, 100)).toBe(true);
    expect(p.finishAtStop).toBe(true);
    // Sentences of a resumed batch left to skip: the batch must be redone first.
    const q = RunProgress.fromCursor(saved({ skip: 2 }), "/t.jsonl", 800, hashes).progress;
    q.endOffset = 600;
    expect(q.readerMayStop({ ...at, lineStart: 600 }, undefined, 100)).toBe(false);
  });

  it("saves the end of what it finished, or the stopped batch's first line with the sentences done", () => {
    const p = new RunProgress();
    p.endOffset = 300;
    p.endLine = 6;
    p.recent = "r";
    p.since = 1;
    expect(p.cursor("s", "/t.jsonl", hashes)).toEqual({ format: "knowledge-triage/cursor", version: 1, sessionId: "s", transcriptPath: "/t.jsonl", offset: 300, line: 6, headHash: "h4", tailHash: "t300", recent: "r", since: 1 });
    expect(p.stopped).toBe(false);
    expect(p.stopAt({ offset: 120, line: 3 }, 4)).toBe(false);
    expect(p.stopped).toBe(true);
    expect(p.cursor("s", "/t.jsonl", hashes)).toMatchObject({ offset: 120, line: 2, skip: 4, tailHash: "t120" });
  });

  it("keeps scanning an oversized line from where the reader or the file stopped in it", () => {
    const p = new RunProgress();
    p.endOffset = 300;
    p.readStop = { lineStart: 300, pos: 9000, oversized: true };
    expect(p.cursor("s", "/t", hashes).scan).toBe(9000);
    const q = new RunProgress();
    q.endOffset = 300;
    q.tornOversized = { start: 300, end: 7000 };
    expect(q.cursor("s", "/t", hashes).scan).toBe(7000);
    q.tornOversized = { start: 400, end: 7000 };
    expect(q.cursor("s", "/t", hashes).scan).toBeUndefined();
  });
});
