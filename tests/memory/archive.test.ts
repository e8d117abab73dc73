import { appendFileSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, truncateSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { applyRetention, archiveDir, archiveTranscript, listArchive, loadArchiveSettings } from "../../scripts/memory/archive/archive.js";
import { DigIndex, INDEX_TEXT_MAX_CHARS, readMessage, shortNames } from "../../scripts/memory/archive/dig-index.js";
import { archivedMessage } from "../../scripts/memory/archive/messages.js";
import { redactSync } from "../../scripts/memory/redact.js";

const repo = resolve(import.meta.dirname, "..", "..");
const zh = join(repo, "data", "sessions", "s2-zh-etl", "transcript.jsonl");
const en = join(repo, "data", "sessions", "s1-en-payments", "transcript.jsonl");
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function temp(): { rulesDir: string; transcript: string } {
  const root = mkdtempSync(join(tmpdir(), "kt-archive-"));
  dirs.push(root);
  return { rulesDir: join(root, ".claude", "rules", "knowledge-triage"), transcript: join(root, "t.jsonl") };
}

describe("archiveTranscript", () => {
  it("keeps a byte-exact copy, appends only new bytes, and git-ignores the archive", async () => {
    const { rulesDir, transcript } = temp();
    const full = readFileSync(zh);
    const cut = full.indexOf(10, Math.floor(full.length / 2)) + 1;
    writeFileSync(transcript, full.subarray(0, cut));
    const a = await archiveTranscript({ transcriptPath: transcript, rulesDir, sessionId: "s-1" });
    expect(a.copy).toBe("cloned");
    const copy = join(archiveDir(rulesDir), "s-1", "transcript.jsonl");
    expect(readFileSync(copy).equals(full.subarray(0, cut))).toBe(true);
    appendFileSync(transcript, full.subarray(cut));
    const b = await archiveTranscript({ transcriptPath: transcript, rulesDir, sessionId: "s-1" });
    expect(b).toMatchObject({ copy: "appended", bytes: full.length - cut });
    expect(readFileSync(copy).equals(full)).toBe(true);
    expect((await archiveTranscript({ transcriptPath: transcript, rulesDir, sessionId: "s-1" })).copy).toBe("unchanged");
    expect(readFileSync(join(archiveDir(rulesDir), ".gitignore"), "utf8")).toMatch(/^\*$/m);
    // Indexed once: the incremental runs add only the second half's messages.
    const ix = DigIndex.load(archiveDir(rulesDir));
    expect(ix.docs.length).toBe(a.indexedMessages + b.indexedMessages);
    expect(new Set(ix.docs.map((d) => d.o)).size).toBe(ix.docs.length);
  });

  it("a transcript rewritten in place starts a new file and keeps the old one", async () => {
    const { rulesDir, transcript } = temp();
    copyFileSync(en, transcript);
    await archiveTranscript({ transcriptPath: transcript, rulesDir, sessionId: "s" });
    writeFileSync(transcript, readFileSync(zh));
    const r = await archiveTranscript({ transcriptPath: transcript, rulesDir, sessionId: "s" });
    expect(r.copy).toBe("restarted");
    expect(readFileSync(join(archiveDir(rulesDir), "s", "transcript.jsonl")).equals(readFileSync(en))).toBe(true);
    expect(readFileSync(join(archiveDir(rulesDir), "s", "transcript-2.jsonl")).equals(readFileSync(zh))).toBe(true);
  });

  it("retention removes old sessions, then the oldest over the size cap, never the current one", async () => {
    const { rulesDir, transcript } = temp();
    copyFileSync(en, transcript);
    for (const s of ["old", "mid", "new"]) await archiveTranscript({ transcriptPath: transcript, rulesDir, sessionId: s });
    const day = 86_400_000;
    const touch = (s: string, ageDays: number): void => {
      const t = new Date(Date.now() - ageDays * day);
      for (const f of ["transcript.jsonl", "index.jsonl", "state.json"]) utimesSync(join(archiveDir(rulesDir), s, f), t, t);
    };
    touch("old", 100);
    touch("mid", 10);
    const one = listArchive(rulesDir).find((s) => s.session === "new")?.bytes ?? 0;
    writeFileSync(join(archiveDir(rulesDir), "settings.json"), JSON.stringify({ maxMegabytes: (one * 1.5) / 1024 / 1024 }));
    // Retention ran at the first archive run of the hour (nothing to remove then) and waits an hour for the next.
    expect((await archiveTranscript({ transcriptPath: transcript, rulesDir, sessionId: "new" })).removedSessions).toEqual([]);
    const r = await archiveTranscript({ transcriptPath: transcript, rulesDir, sessionId: "new", now: new Date(Date.now() + 3_600_000) });
    expect(r.removedSessions).toEqual(["old", "mid"]);
    expect(listArchive(rulesDir).map((s) => s.session)).toEqual(["new"]);
  });

  it("retention removes only the archiver's session folders, never a user's folder kept in the archive", async () => {
    const { rulesDir, transcript } = temp();
    copyFileSync(en, transcript);
    await archiveTranscript({ transcriptPath: transcript, rulesDir, sessionId: "old" });
    const mine = join(archiveDir(rulesDir), "old-photos");
    mkdirSync(mine);
    writeFileSync(join(mine, "a.txt"), "precious\n");
    const longAgo = new Date(Date.now() - 200 * 86_400_000);
    for (const f of [join(mine, "a.txt"), mine, ...["transcript.jsonl", "index.jsonl", "state.json"].map((f) => join(archiveDir(rulesDir), "old", f))]) utimesSync(f, longAgo, longAgo);
    expect(listArchive(rulesDir).map((s) => s.session)).toEqual(["old"]);
    const r = await archiveTranscript({ transcriptPath: transcript, rulesDir, sessionId: "new", now: new Date(Date.now() + 3_600_000) });
    expect(r.removedSessions).toEqual(["old"]);
    expect(readFileSync(join(mine, "a.txt"), "utf8")).toBe("precious\n");
  });

  it.each(["archive", "archive/s"])("%s as a symbolic link out of the project: refused before anything is written or removed", async (at) => {
    const { rulesDir, transcript } = temp();
    copyFileSync(en, transcript);
    const outside = mkdtempSync(join(tmpdir(), "kt-outside-"));
    dirs.push(outside);
    mkdirSync(join(outside, "old"));
    writeFileSync(join(outside, "old", "state.json"), '{"file":"transcript.jsonl","copied":0,"indexed":0}\n');
    mkdirSync(dirname(join(rulesDir, at)), { recursive: true });
    symlinkSync(outside, join(rulesDir, at));
    await expect(archiveTranscript({ transcriptPath: transcript, rulesDir, sessionId: "s" })).rejects.toThrow(/refusing to write into .* leads to .*outside .*symbolic link/);
    expect(readdirSync(outside)).toEqual(["old"]);
    expect(readdirSync(join(outside, "old"))).toEqual(["state.json"]);
    if (at === "archive") expect(() => applyRetention(rulesDir, { maxDays: 1, maxMegabytes: 1 }, "s", new Date(Date.now() + 1e12))).toThrow(/symbolic link/);
    expect(existsSync(join(outside, "old"))).toBe(true);
  });

  it("an invalid settings file is an error naming the file (the hook logs it)", async () => {
    const { rulesDir, transcript } = temp();
    copyFileSync(en, transcript);
    await archiveTranscript({ transcriptPath: transcript, rulesDir, sessionId: "s" });
    writeFileSync(join(archiveDir(rulesDir), "settings.json"), '{"maxDays": -1}');
    expect(() => loadArchiveSettings(rulesDir)).toThrow(/settings\.json: maxDays/);
  });

  it("a torn last line is copied byte-exact but indexed only once complete", async () => {
    const { rulesDir, transcript } = temp();
    const full = readFileSync(en);
    writeFileSync(transcript, full);
    truncateSync(transcript, full.length - 10);
    await archiveTranscript({ transcriptPath: transcript, rulesDir, sessionId: "s" });
    const before = DigIndex.load(archiveDir(rulesDir)).docs.length;
    writeFileSync(transcript, full);
    await archiveTranscript({ transcriptPath: transcript, rulesDir, sessionId: "s" });
    expect(readFileSync(join(archiveDir(rulesDir), "s", "transcript.jsonl")).equals(full)).toBe(true);
    const after = DigIndex.load(archiveDir(rulesDir)).docs;
    expect(after.length).toBeGreaterThanOrEqual(before);
    expect(after.at(-1)?.e).toBeLessThanOrEqual(full.length);
  });
});

describe("DigIndex.refresh", () => {
  it("takes in appended records and new sessions as a fresh load would, waits for a torn line, and refuses a shrunk index", async () => {
    const { rulesDir, transcript } = temp();
    const root = archiveDir(rulesDir);
    const full = readFileSync(en);
    const cut = full.indexOf(10, Math.floor(full.length / 2)) + 1;
    writeFileSync(transcript, full.subarray(0, cut));
    await archiveTranscript({ transcriptPath: transcript, rulesDir, sessionId: "a" });
    const ix = DigIndex.load(root);
    const first = ix.docs.length;
    expect(first).toBeGreaterThan(0);
    // The hooks run again: session "a" grows, session "b" is new.
    writeFileSync(transcript, full);
    await archiveTranscript({ transcriptPath: transcript, rulesDir, sessionId: "a" });
    copyFileSync(zh, transcript);
    await archiveTranscript({ transcriptPath: transcript, rulesDir, sessionId: "b" });
    // A record still being written is not read until its line is complete.
    const aIndex = join(root, "a", "index.jsonl");
    const lastLine = readFileSync(aIndex, "utf8").trimEnd().split("\n").at(-1) as string;
    appendFileSync(aIndex, lastLine.slice(0, 20));
    expect(ix.refresh(root)).toBe(true);
    const fresh = DigIndex.load(root);
    expect(ix.docs.length).toBe(fresh.docs.length);
    expect(ix.docs.length).toBeGreaterThan(first);
    expect(ix.search("回填", 3)).toEqual(fresh.search("回填", 3));
    expect(ix.search("payments tests", 5)).toEqual(fresh.search("payments tests", 5));
    appendFileSync(aIndex, `${lastLine.slice(20)}\n`);
    expect(ix.refresh(root)).toBe(true);
    expect(ix.docs.length).toBe(fresh.docs.length + 1);
    expect(ix.refresh(root)).toBe(true); // nothing new: nothing added
    expect(ix.docs.length).toBe(fresh.docs.length + 1);
    // Retention removed a session: the index says so, and a new load is needed.
    rmSync(join(root, "b"), { recursive: true });
    expect(ix.refresh(root)).toBe(false);
  });
});

describe("updateIndex skips lines before parsing them", () => {
  // The reference parses every line, as the index did before it skipped tool results and meta lines unparsed.
  function reference(file: string): Array<{ o: number; e: number; r: string; x: string }> {
    const out: Array<{ o: number; e: number; r: string; m?: string; x: string }> = [];
    let at = 0;
    for (const line of readFileSync(file, "utf8").split("\n")) {
      const start = at;
      at += Buffer.byteLength(line) + 1;
      if (at > statSync(file).size) break;
      let obj: unknown;
      try {
        obj = JSON.parse(line);
      } catch {
        continue;
      }
      const m = archivedMessage(obj);
      if (!m) continue;
      const prev = out.at(-1);
      if (prev && m.messageId && prev.m === m.messageId && prev.e === start) {
        prev.e = at;
        prev.x = `${prev.x}\n${m.text}`;
      } else out.push({ o: start, e: at, r: m.role, m: m.messageId, x: m.text });
    }
    return out.map((r) => ({ o: r.o, e: r.e, r: r.r, x: redactSync(r.x).slice(0, INDEX_TEXT_MAX_CHARS) }));
  }
  const sessions = join(repo, "data", "sessions");
  const real = readdirSync(sessions).filter((d) => existsSync(join(sessions, d, "transcript.jsonl")));

  it("indexes the same messages as parsing every line, on every real session and on odd line shapes", async () => {
    const { rulesDir, transcript } = temp();
    // Odd but valid shapes: a text block beside a tool result, a spaced type token, a meta line, a tool result alone.
    const odd = [
      { type: "user", message: { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "ok" }, { type: "text", text: "Never force-push to main." }] }, uuid: "o1" },
      { type: "user", message: { role: "user", content: [{ tool_use_id: "t2", type: "tool_result", content: "file text" }] }, uuid: "o2" },
      { type: "user", isMeta: true, message: { role: "user", content: "Caveat: meta" }, uuid: "o3" },
    ].map((o) => JSON.stringify(o));
    odd.push('{"type": "assistant", "message": {"id": "m9", "role": "assistant", "content": [{"type": "text", "text": "Spaced JSON."}]}}');
    const files = [...real.map((d) => join(sessions, d, "transcript.jsonl")), transcript];
    writeFileSync(transcript, `${readFileSync(en, "utf8")}${odd.join("\n")}\n`);
    expect(real.length).toBeGreaterThan(20);
    for (const [i, file] of files.entries()) {
      await archiveTranscript({ transcriptPath: file, rulesDir, sessionId: `s${i}` });
      const lines = readFileSync(join(archiveDir(rulesDir), `s${i}`, "index.jsonl"), "utf8").trimEnd().split("\n");
      const got = lines.map((l) => JSON.parse(l) as { o: number; e: number; r: string; x: string }).map((r) => ({ o: r.o, e: r.e, r: r.r, x: r.x.replace(/…$/, "") }));
      expect(got, file).toEqual(reference(file));
    }
    const last = readFileSync(join(archiveDir(rulesDir), `s${files.length - 1}`, "index.jsonl"), "utf8");
    expect(last).toContain("Never force-push to main.");
    expect(last).toContain("Spaced JSON.");
    expect(last).not.toContain("Caveat: meta");
  });
});

describe("dig", () => {
  it("finds a Chinese user request by a two-character word and reads it back whole", async () => {
    const { rulesDir, transcript } = temp();
    copyFileSync(zh, transcript);
    await archiveTranscript({ transcriptPath: transcript, rulesDir, sessionId: "zh-session" });
    const ix = DigIndex.load(archiveDir(rulesDir));
    const hits = ix.search("回填历史数据", 3);
    expect(hits[0]?.role).toBe("user");
    expect(hits[0]?.snippet).toContain("回填历史数据");
    const d = ix.find(hits[0]?.id ?? "");
    expect(d).not.toBeNull();
    const text = await readMessage(archiveDir(rulesDir), d as NonNullable<typeof d>);
    expect(text).toContain("先在 dev 库跑一天的数据");
  });

  it("finds tool calls by file name, and read returns the full tool input", async () => {
    const { rulesDir, transcript } = temp();
    copyFileSync(zh, transcript);
    await archiveTranscript({ transcriptPath: transcript, rulesDir, sessionId: "zh" });
    const ix = DigIndex.load(archiveDir(rulesDir));
    const hits = ix.search("load_orders datetime.timezone.utc", 5);
    expect(hits[0]?.role).toBe("assistant");
    const d = ix.find(hits[0]?.id ?? "");
    const text = await readMessage(archiveDir(rulesDir), d as NonNullable<typeof d>);
    expect(text).toContain('[tool Edit] {"replace_all":false,"file_path":"/home/dev/projects/s2-zh-etl/pipelines/etl/load_orders.py"');
    expect(text).toContain('"new_string":"datetime.datetime.now(datetime.timezone.utc)"');
  });

  it("ties go to the more recent message", async () => {
    const { rulesDir, transcript } = temp();
    const line = (ts: string, uuid: string): string => `${JSON.stringify({ type: "user", uuid, timestamp: ts, message: { role: "user", content: "deploy the widget service" } })}\n`;
    writeFileSync(transcript, line("2026-01-01T00:00:00Z", "a") + line("2026-03-01T00:00:00Z", "b") + line("2026-02-01T00:00:00Z", "c"));
    await archiveTranscript({ transcriptPath: transcript, rulesDir, sessionId: "t" });
    const hits = DigIndex.load(archiveDir(rulesDir)).search("widget", 3);
    expect(hits.map((h) => h.timestamp)).toEqual(["2026-03-01T00:00:00Z", "2026-02-01T00:00:00Z", "2026-01-01T00:00:00Z"]);
  });

  it("the index and read hold no secret the user pasted", async () => {
    const { rulesDir, transcript } = temp();
    const key = "sk-ant-api03-" + "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdefghij";
    writeFileSync(transcript, `${JSON.stringify({ type: "user", timestamp: "2026-01-01T00:00:00Z", message: { role: "user", content: `use the staging key ${key} for the smoke test` } })}\n`);
    await archiveTranscript({ transcriptPath: transcript, rulesDir, sessionId: "k" });
    expect(readFileSync(join(archiveDir(rulesDir), "k", "index.jsonl"), "utf8")).not.toContain(key);
    const ix = DigIndex.load(archiveDir(rulesDir));
    const d = ix.find(ix.search("staging key", 1)[0]?.id ?? "");
    expect(await readMessage(archiveDir(rulesDir), d as NonNullable<typeof d>)).not.toContain(key);
    // The archived transcript itself stays byte-exact (git-ignored).
    expect(readFileSync(join(archiveDir(rulesDir), "k", "transcript.jsonl"), "utf8")).toContain(key);
    expect(existsSync(join(archiveDir(rulesDir), ".gitignore"))).toBe(true);
  });
});

describe("dig ids", () => {
  it("two sessions whose folders share their first 8 characters get ids that tell them apart, and find() returns each", async () => {
    const { rulesDir, transcript } = temp();
    copyFileSync(en, transcript);
    const a = "5f1c9e2a-0b7d-4c11-9e55-aaaaaaaaaaaa";
    const b = "5f1c9e2a-0b7d-4c11-9e55-bbbbbbbbbbbb";
    await archiveTranscript({ transcriptPath: transcript, rulesDir, sessionId: a });
    await archiveTranscript({ transcriptPath: transcript, rulesDir, sessionId: b });
    const ix = DigIndex.load(archiveDir(rulesDir));
    const hits = ix.search("refund", 50);
    const ids = new Set(hits.map((h) => h.id));
    expect(hits.some((h) => h.session === a) && hits.some((h) => h.session === b)).toBe(true);
    expect(ids.size).toBe(hits.length);
    for (const h of hits) expect(ix.find(h.id)?.session).toBe(h.session);
    expect(hits.find((h) => h.session === a)?.id.startsWith("5f1c9e2a-0b7d-4c11-9e55-a:")).toBe(true);
  });

  it("a session alone keeps the 8-character short name", () => {
    expect(shortNames(["0123456789abcdef", "fedcba9876543210"])).toEqual(
      new Map([["0123456789abcdef", "01234567"], ["fedcba9876543210", "fedcba98"]]),
    );
    expect(shortNames(["abc", "abd"]).get("abc")).toBe("abc");
  });
});
