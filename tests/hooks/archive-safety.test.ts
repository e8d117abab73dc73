/**
 * Crash safety and bad input in the hooks' transcript archive and stdin (issue 14), through the built bundle:
 * an archive folder that is a symbolic link out of the project is refused (nothing written or removed there, the
 * failure logged as an error that `triage status` counts); a transcript_path that is no transcript is neither
 * archived nor read; stdin is read up to its cap and for a bounded time, so an open pipe does not hold the hook.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { triage } from "../cli/helpers.js";
import { filesUnder } from "../memory/helpers.js";
import { bundle, childEnv, cleanup, rulesDirOf, runHook, tempProject } from "./helpers.js";

vi.setConfig({ testTimeout: 60_000 });
afterAll(cleanup);

const payload = (session: string, transcript: string, cwd: string): string =>
  JSON.stringify({ session_id: session, transcript_path: transcript, cwd, hook_event_name: "PreCompact", trigger: "manual" });

/** A folder outside the project holding `old-photos/a.txt`, both dated 200 days ago (older than retention's 90 days). */
function userStore(): { store: string; photo: string } {
  const store = mkdtempSync(join(tmpdir(), "kt-userstore-"));
  mkdirSync(join(store, "old-photos"));
  const photo = join(store, "old-photos", "a.txt");
  writeFileSync(photo, "precious\n");
  const old = new Date(Date.now() - 200 * 86_400_000);
  utimesSync(photo, old, old);
  utimesSync(join(store, "old-photos"), old, old);
  return { store, photo };
}

describe("an archive folder that leads out of the project", () => {
  it("is refused: the user's folders survive, no transcript is copied there, rules are still extracted, status counts the error", () => {
    const { project, transcript } = tempProject();
    mkdirSync(join(project, ".git"));
    const { store, photo } = userStore();
    mkdirSync(rulesDirOf(project), { recursive: true });
    symlinkSync(store, join(rulesDirOf(project), "archive"));
    const r = runHook("PreCompact", payload("s1", transcript, project));
    expect(r.code).toBe(0);
    expect(readFileSync(photo, "utf8")).toBe("precious\n");
    expect(filesUnder(store)).toEqual(["old-photos/a.txt"]);
    expect(readdirSync(rulesDirOf(project)).some((f) => f.endsWith(".md"))).toBe(true);
    const log = readFileSync(join(rulesDirOf(project), ".state", "hook.log"), "utf8");
    expect(log).toMatch(/ error: archive failed: refusing to write into .*archive leads to .*outside/);
    const s = triage(["status", "--json"], { cwd: project });
    expect(s.code).toBe(0);
    expect(JSON.parse(s.stdout).hookLog).toMatchObject({ entries: 1, errors: 1 });
  });

  it("a session folder that is a link out of the project gets nothing written into it", () => {
    const { project, transcript } = tempProject();
    const outside = mkdtempSync(join(tmpdir(), "kt-outside-"));
    mkdirSync(join(rulesDirOf(project), "archive"), { recursive: true });
    symlinkSync(outside, join(rulesDirOf(project), "archive", "s1"));
    expect(runHook("PreCompact", payload("s1", transcript, project)).code).toBe(0);
    expect(readdirSync(outside)).toEqual([]);
    expect(readFileSync(join(rulesDirOf(project), ".state", "hook.log"), "utf8")).toMatch(/error: archive failed: .*s1 leads to/);
  });
});

describe("a transcript_path that is not a Claude Code transcript", () => {
  const notTranscripts: Array<[string, (dir: string) => string]> = [
    ["a passwd-like text file", (dir) => {
      const p = join(dir, "passwd");
      writeFileSync(p, "root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n");
      return p;
    }],
    ["JSON lines without a type", (dir) => {
      const p = join(dir, "data.jsonl");
      writeFileSync(p, '{"id":1,"name":"a"}\n{"id":2,"name":"b"}\n');
      return p;
    }],
    ["a folder", (dir) => {
      const p = join(dir, "folder.jsonl");
      mkdirSync(p);
      writeFileSync(join(p, "x"), "x");
      return p;
    }],
  ];
  it.each(notTranscripts)("%s is neither archived nor read; one stderr line, exit 0", (_what, make) => {
    const { root, project } = tempProject();
    const r = runHook("PreCompact", payload("s9", make(root), project));
    expect(r.code).toBe(0);
    expect(r.stdout.trimStart().startsWith("{")).toBe(false);
    expect(r.stderr.trim().split("\n")).toEqual([expect.stringMatching(/^triage hook pre-compact: transcript_path .* is not a Claude Code transcript; not archived or read$/)]);
    expect(existsSync(join(rulesDirOf(project), "archive"))).toBe(false);
  });

  it("is logged as a warning when the project already has a state folder", () => {
    const { root, project, transcript } = tempProject();
    expect(runHook("PreCompact", payload("s1", transcript, project)).code).toBe(0);
    expect(existsSync(join(rulesDirOf(project), "archive", "s1", "state.json"))).toBe(true);
    const other = join(root, "notes.txt");
    writeFileSync(other, "remember the milk\n");
    expect(runHook("PreCompact", payload("s2", other, project)).code).toBe(0);
    expect(readdirSync(join(rulesDirOf(project), "archive")).filter((f) => !f.startsWith("."))).toEqual(["s1"]);
    expect(readFileSync(join(rulesDirOf(project), ".state", "hook.log"), "utf8")).toMatch(/session=s2 \d+ms warning: transcript_path .* is not a Claude Code transcript; not archived or read$/m);
  });
});

/** Spawn the hook with `feed` writing to its stdin, which is never closed; resolves with its exit code and stderr. */
function hookWithOpenStdin(feed: (stdin: NodeJS.WritableStream) => void): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bundle, "hook", "PreCompact"], { env: childEnv({}), stdio: ["pipe", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (c: Buffer) => {
      stderr += c.toString("utf8");
    });
    child.stdin.on("error", () => {}); // the hook closes its end once it stops reading
    feed(child.stdin);
    child.on("exit", (code) => {
      child.stdin.destroy();
      resolve({ code, stderr });
    });
  });
}

describe("hook stdin", () => {
  // The test never closes the hook's stdin: the hook must exit on its own (the old reader waited for end of input).
  it("a pipe that never closes: the hook gives up after its stdin deadline, one line, exit 0", async () => {
    const r = await hookWithOpenStdin(() => {});
    expect(r.code).toBe(0);
    expect(r.stderr.trim()).toBe("triage hook pre-compact: stdin not closed within 5 s and no complete payload arrived; ignored");
  });

  it("an endless payload is refused as soon as the 16 MiB cap is passed: the hook stops reading there", async () => {
    // Write 1 MiB chunks for as long as the hook drains them (like `< /dev/zero`); the old reader drained for 5 s (GBs).
    let written = 0;
    const chunk = Buffer.alloc(1024 * 1024, 0x20);
    const r = await hookWithOpenStdin((stdin) => {
      const pump = (): void => {
        while (!(stdin as NodeJS.WritableStream & { destroyed: boolean }).destroyed && written < 1024 * chunk.length) {
          written += chunk.length;
          if (!stdin.write(chunk)) return void stdin.once("drain", pump);
        }
      };
      pump();
    });
    expect(r.code).toBe(0);
    // Accepted by the pipe: the 16 MiB read plus what the pipe and the stream buffered (a few MiB), never the 1 GiB offered.
    expect(written).toBeLessThan(32 * 1024 * 1024);
    expect(r.stderr.trim()).toBe("triage hook pre-compact: payload over 16777216 bytes on stdin; stopped reading there and ignored it");
  });

  it("a complete payload whose pipe stays open is still used once the deadline passes", async () => {
    const { project, transcript } = tempProject();
    const r = await hookWithOpenStdin((stdin) => {
      stdin.write(payload("s1", transcript, project));
    });
    expect(r.code).toBe(0);
    expect(readdirSync(rulesDirOf(project)).some((f) => f.endsWith(".md"))).toBe(true);
  });
});
