import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cannotBeUser, decodeLine, readLineBatches, readLines, typeTokens, userUtterance } from "../../scripts/memory/transcript.js";

async function collect(body: Buffer | string, opts: Parameters<typeof readLines>[1] = {}) {
  const p = join(mkdtempSync(join(tmpdir(), "kt-tr-")), "t.jsonl");
  writeFileSync(p, body);
  const out = [];
  for await (const l of readLines(p, opts)) out.push({ ...l, text: l.bytes?.toString("utf8") ?? null });
  return out;
}

describe("readLines", () => {
  it("splits on \\n across chunk boundaries, strips \\r, reports offsets and the torn tail", async () => {
    const lines = ["a".repeat(5000), "b", "", "c".repeat(9000)];
    const body = `${lines.join("\r\n")}\r\nTORN`;
    const got = await collect(body, { chunkSize: 4096 });
    expect(got.map((l) => l.text)).toEqual([...lines, "TORN"]);
    expect(got.map((l) => l.complete)).toEqual([true, true, true, true, false]);
    expect(got[1]?.start).toBe(5002);
    expect(got[4]?.end).toBe(Buffer.byteLength(body));
  });
  it("skips an oversized line without buffering it and goes on", async () => {
    const got = await collect(`short\n${"x".repeat(50_000)}\nafter\n`, { chunkSize: 1024, maxLineBytes: 10_000 });
    expect(got.map((l) => l.text)).toEqual(["short", null, "after"]);
  });
  it("starts at a byte offset", async () => {
    const got = await collect("one\ntwo\nthree\n", { start: 4 });
    expect(got.map((l) => [l.index, l.text])).toEqual([[1, "two"], [2, "three"]]);
  });
  it("asks `stop` before every chunk read, with where it is, and ends without yielding the line in progress", async () => {
    const seen: Array<{ lineStart: number; pos: number; oversized: boolean }> = [];
    const body = `ab\n${"x".repeat(5000)}`;
    const got = await collect(body, { chunkSize: 1024, maxLineBytes: 2000, stop: (at) => seen.push(at) === 4 });
    expect(got.map((l) => l.text)).toEqual(["ab"]);
    expect(seen).toEqual([
      { lineStart: 0, pos: 0, oversized: false },
      { lineStart: 3, pos: 1024, oversized: false },
      { lineStart: 3, pos: 2048, oversized: true },
      { lineStart: 3, pos: 3072, oversized: true },
    ]);
  });
  it("resumes inside an oversized line at scanFrom: the line is yielded as skipped, with its own start", async () => {
    const body = `ab\n${"x".repeat(5000)}\nafter\n`;
    const got = await collect(body, { start: 3, scanFrom: 3072, chunkSize: 1024, maxLineBytes: 2000 });
    expect(got.map((l) => [l.index, l.start, l.end, l.text])).toEqual([
      [1, 3, 5004, null],
      [2, 5004, 5010, "after"],
    ]);
  });
  it("readLineBatches gives the lines of each chunk read as one array, the torn tail last on its own", async () => {
    const p = join(mkdtempSync(join(tmpdir(), "kt-tr-")), "t.jsonl");
    writeFileSync(p, `aa\nbb\n${"c".repeat(20)}\ndd\ntorn`);
    const got: string[][] = [];
    // 8-byte chunks: "aa\nbb\ncc" ends two lines; the next two chunks end none; "cc\ndd\nto" ends the c's and "dd".
    for await (const batch of readLineBatches(p, { chunkSize: 8 })) got.push(batch.map((l) => `${l.index}:${l.bytes?.toString() ?? "null"}:${l.complete}`));
    expect(got).toEqual([["1:aa:true", "2:bb:true"], [`3:${"c".repeat(20)}:true`, "4:dd:true"], ["5:torn:false"]]);
    const flat: string[] = [];
    for await (const l of readLines(p, { chunkSize: 8 })) flat.push(`${l.index}:${l.bytes?.toString() ?? "null"}:${l.complete}`);
    expect(flat).toEqual(got.flat());
  });
  it("decodes invalid UTF-8 with U+FFFD", () => {
    const r = decodeLine(Buffer.from([0x61, 0x8f, 0x62]));
    expect(r).toEqual({ text: "a\uFFFDb", invalid: true });
  });
});

describe("userUtterance", () => {
  it.each([
    [{ type: "assistant", message: { role: "assistant", content: "x" } }, "not-user"],
    [{ type: "user", isMeta: true, message: { role: "user", content: "x" } }, "meta"],
    [{ type: "user", isSidechain: true, message: { role: "user", content: "x" } }, "sidechain"],
    [{ type: "user", isCompactSummary: true, message: { role: "user", content: "x" } }, "compact-summary"],
    [{ type: "user", message: { role: "user", content: "<command-name>/compact</command-name>" } }, "command-wrapper"],
    [{ type: "user", message: { role: "user", content: "<local-command-stdout>done</local-command-stdout>" } }, "command-wrapper"],
    [{ type: "user", message: { role: "user", content: [{ type: "tool_result", tool_use_id: "t", content: "never x" }] } }, "tool-result"],
    [{ type: "user", message: { role: "user", content: 42 } }, "no-text"],
    [{ type: "summary", summary: "Always do y" }, "not-user"],
    [[1, 2], "not-object"],
  ])("%j -> %s", (obj, reason) => {
    expect(userUtterance(obj)).toBe(reason);
  });
  it("a <system-reminder> block before or after the user's text is left out, and never hides it", () => {
    // Claude Code adds such blocks to a typed turn (an opened file, a selection, CLAUDE.md contents).
    const reminder = { type: "text", text: "<system-reminder>\nThe user opened the file src/x.ts in the IDE.\n</system-reminder>" };
    const claudeMd = { type: "text", text: "<system-reminder>\n# claudeMd\nNever use emojis in commit messages.\n</system-reminder>" };
    const typed = { type: "text", text: "Never touch the billing folder." };
    const turn = (content: object[]) => ({ type: "user", uuid: "u", message: { role: "user", content } });
    expect(userUtterance(turn([reminder, typed]))).toEqual({ text: "Never touch the billing folder.", uuid: "u" });
    expect(userUtterance(turn([typed, claudeMd]))).toEqual({ text: "Never touch the billing folder.", uuid: "u" });
    expect(userUtterance(turn([reminder]))).toBe("command-wrapper");
    // In string content, a reminder span is cut out and the rest is the user's.
    expect(userUtterance({ type: "user", message: { role: "user", content: "Keep answers short.\n<system-reminder>\nNever use emojis.\n</system-reminder>" } })).toEqual({ text: "Keep answers short.\n" });
    expect(userUtterance({ type: "user", message: { role: "user", content: "<system-reminder>Never use emojis.</system-reminder>" } })).toBe("command-wrapper");
  });
  it("joins text blocks and keeps uuid, timestamp and session", () => {
    expect(userUtterance({ type: "user", uuid: "u", timestamp: "t", sessionId: "s", message: { role: "user", content: [{ type: "text", text: "a" }, { type: "image" }, { type: "text", text: "b" }] } })).toEqual({ text: "a\nb", uuid: "u", timestamp: "t", sessionId: "s" });
  });
});

describe("cannotBeUser (the pre-check before JSON.parse)", () => {
  const base = { parentUuid: "p", isSidechain: false, userType: "external", cwd: "/w", sessionId: "s", version: "2.1.197", type: "user", uuid: "u", timestamp: "t" };
  const line = (o: object): Buffer => Buffer.from(JSON.stringify({ ...base, ...o }));
  it.each([
    ["a tool result (string content)", { message: { role: "user", content: [{ tool_use_id: "toolu_1", type: "tool_result", content: "x".repeat(1000) }] } }, true],
    ["a Read result with its toolUseResult", { message: { role: "user", content: [{ tool_use_id: "t", type: "tool_result", content: "1\tconst a = 1;" }] }, toolUseResult: { type: "text", file: { filePath: "/w/a.ts", content: "const a = 1;" } } }, true],
    ["a tool result (type first)", { message: { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "ok" }] } }, true],
    ["a tool result beside a text block", { message: { role: "user", content: [{ tool_use_id: "t", type: "tool_result", content: "ok" }, { type: "text", text: "Never do that again." }] } }, false],
    ["a meta line", { isMeta: true, message: { role: "user", content: "Caveat: ..." } }, true],
    ["a sidechain line", { isSidechain: true, message: { role: "user", content: "Sub-agent prompt" } }, true],
    ["a compact summary", { isCompactSummary: true, message: { role: "user", content: "This session is being continued..." } }, true],
    ["the user's text", { message: { role: "user", content: "Always run the tests." } }, false],
    ["the user's text quoting the patterns", { message: { role: "user", content: 'Skip lines with "content":[{"tool_use_id" and "isMeta":true in them.' } }, false],
    ["an assistant line", { type: "assistant", message: { role: "assistant", content: [{ type: "text", text: "Done." }] } }, true],
  ])("%s", (_name, o, want) => {
    expect(cannotBeUser(line(o))).toBe(want);
  });
  it.each([
    ["the type after the message", '{"message":{"role":"user","content":"Always run the tests."},"type":"user"}', false],
    ["the spaced spelling", '{"type": "user", "message": {"role": "user", "content": "Always run the tests."}}', false],
    ["the type at byte 1", '{"type":"user","message":{"content":"Always run the tests."}}', false],
    ['"user" only as a role and a value', '{"type":"assistant","message":{"role":"user","content":"\\"user\\""},"userType":"user"}', true],
    ['"users" as the type', '{"type":"users","message":{"content":"x"}}', true],
    ['"user" at byte 0 (no room for the key)', '"user"', true],
  ])("the type token: %s", (_name, text, want) => {
    expect(cannotBeUser(Buffer.from(text))).toBe(want);
  });
  it("typeTokens finds in one scan what a plain search for each pattern finds (seeded random lines of JSON fragments)", () => {
    const parts = ['"type":', '"type": ', '"user"', '"users"', '"assistant"', '"text","text":', '"text"', ",", "{", ' ', ":", '"', "user", '{"type":"assistant"', '"role":"user"', "x", '\\"user\\"', '"type":"type":'];
    let seed = 14;
    const rand = (n: number): number => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed % n;
    };
    for (let i = 0; i < 20000; i++) {
      const text = Array.from({ length: 1 + rand(10) }, () => parts[rand(parts.length)]).join("");
      const b = Buffer.from(text);
      const plain = b.indexOf('"type":"user"') === -1 && b.indexOf('"type": "user"') === -1;
      expect(typeTokens(b), text).toEqual({
        user: !plain,
        assistant: b.indexOf('"type":"assistant"') !== -1 || b.indexOf('"type": "assistant"') !== -1,
        textBlock: b.indexOf('{"type":"text","text":') !== -1,
      });
      // With no user type token the line cannot be a user line; with one, the other patterns decide (none here).
      expect(cannotBeUser(b), text).toBe(plain);
    }
  });
  it("never skips a line of the real-CLI sessions in data/sessions that holds a user utterance", () => {
    let skipped = 0;
    let users = 0;
    for (const d of readdirSync("data/sessions")) {
      let text: string;
      try {
        text = readFileSync(join("data/sessions", d, "transcript.jsonl"), "utf8");
      } catch {
        continue;
      }
      for (const l of text.split("\n").filter(Boolean)) {
        const isUser = typeof userUtterance(JSON.parse(l)) !== "string";
        const skip = cannotBeUser(Buffer.from(l));
        if (isUser) users++;
        if (skip) skipped++;
        expect(isUser && skip, l.slice(0, 200)).toBe(false);
      }
    }
    expect(users).toBeGreaterThan(50);
    expect(skipped).toBeGreaterThan(users);
  });
});
