/**
 * Bad paths and bad values on the command line (issue 14, fresh-user leftovers): every command given a folder as a
 * file, a file as a folder, a path through a file, a loop of symbolic links or an unreadable file says so in one line
 * `triage: <what> <path>: <why>` in words, never a raw EISDIR / ENOTDIR / ELOOP / EACCES code and never an internal
 * error; compact of broken UTF-16 names UTF-16; `compact -o` through a symbolic link follows export's rule (inside the
 * project only, a dangling link is not replaced by a file); an empty option value is refused; decompose keeps the
 * input's CRLF line breaks, byte-order mark and UTF-16. The built bundle, run in a temp project.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundle, childEnv, ensureBundle, expectOneLineError, removeTempDirs, type Run, tempDir, triage } from "./helpers.js";

beforeAll(ensureBundle);
afterAll(removeTempDirs);

const regex = ["--model", "/dev/null"];
const MEMORY = "# Notes\n\nAlways run the tests before you commit.\n\nYesterday we fixed the login bug in the parser after a long session.\n\nI think the cache is probably stale most of the time.\n";
const TRANSCRIPT = `${JSON.stringify({ type: "user", sessionId: "s1", cwd: "/p", message: { role: "user", content: "Never push directly to main." }, uuid: "u1", timestamp: "2026-11-20T09:01:00.000Z" })}\n`;

/** A git project with a memory file, a transcript, a folder, and a loop of two symbolic links (loopA -> loopB -> loopA). */
function project(): string {
  const p = tempDir("kt-badpaths-");
  mkdirSync(join(p, ".git"));
  mkdirSync(join(p, "adir"));
  writeFileSync(join(p, "mem.md"), MEMORY);
  writeFileSync(join(p, "t.jsonl"), TRANSCRIPT);
  symlinkSync("loopB", join(p, "loopA"));
  symlinkSync("loopA", join(p, "loopB"));
  return p;
}

const RAW_CODE = /\bE[A-Z]{2,}\b|internal error/;

describe("a path that cannot be used, in every command: one line in words", { timeout: 120_000 }, () => {
  const p = project();
  it.each([
    // [what, args, the line expected]
    ["classify: link loop", ["classify", "loopA", ...regex], "triage: cannot read loopA: a loop of symbolic links"],
    ["classify: path through a file", ["classify", "mem.md/x", ...regex], "triage: cannot read mem.md/x: mem.md is a file, not a folder"],
    ["compact: link loop", ["compact", "loopA", "--ratio", "0.5", ...regex], "triage: cannot read loopA: a loop of symbolic links"],
    ["compact -o a folder", ["compact", "mem.md", "--ratio", "0.9", "-o", "adir", ...regex], "triage: cannot write adir: is a directory"],
    ["compact -o file/x", ["compact", "mem.md", "--ratio", "0.9", "-o", "mem.md/x", ...regex], "triage: cannot write mem.md/x: mem.md is a file, not a folder"],
    ["decompose --out file/x", ["decompose", "mem.md", "--out", "mem.md/x", ...regex], "triage: cannot write mem.md/x: mem.md is a file, not a folder"],
    ["decompose --out a link loop", ["decompose", "mem.md", "--out", "loopA", ...regex], "triage: cannot write loopA: a loop of symbolic links"],
    ["retrieve --base a link loop", ["retrieve", "tests", "--base", "loopA", ...regex], "triage: cannot read loopA: a loop of symbolic links"],
    ["retrieve --base a folder", ["retrieve", "tests", "--base", "adir", ...regex], "triage: cannot read adir: is a directory"],
    ["pin --rules-dir a link loop", ["pin", "Always use pnpm.", "--rules-dir", "loopA"], "triage: --rules-dir loopA: a loop of symbolic links"],
    ["pin --rules-dir file/x", ["pin", "Always use pnpm.", "--rules-dir", "mem.md/x"], "triage: --rules-dir mem.md/x: mem.md is a file, not a folder"],
    ["unpin --rules-dir a link loop", ["unpin", "pnpm", "--rules-dir", "loopA/x"], "triage: --rules-dir loopA/x: a loop of symbolic links"],
    ["status --rules-dir file/x", ["status", "--rules-dir", "mem.md/x"], "triage: --rules-dir mem.md/x: mem.md is a file, not a folder"],
    ["doctor --rules-dir a link loop", ["doctor", "--rules-dir", "loopA"], "triage: --rules-dir loopA: a loop of symbolic links"],
    ["extract: a folder", ["extract", "adir", ...regex], "triage: cannot read adir: is a directory"],
    ["extract: link loop", ["extract", "loopA", ...regex], "triage: cannot read loopA: a loop of symbolic links"],
    ["extract: path through a file", ["extract", "t.jsonl/x", ...regex], "triage: cannot read t.jsonl/x: t.jsonl is a file, not a folder"],
    ["redact: link loop", ["redact", "loopA"], "triage: cannot read loopA: a loop of symbolic links"],
    ["dig --rules-dir a link loop", ["dig", "push", "--rules-dir", "loopA"], "triage: --rules-dir loopA: a loop of symbolic links"],
    ["mcp --project-dir a link loop", ["mcp", "--project-dir", "loopA"], "triage: --project-dir loopA: a loop of symbolic links"],
    ["mcp --project-dir file/x", ["mcp", "--project-dir", "mem.md/x"], "triage: --project-dir mem.md/x: mem.md is a file, not a folder"],
  ])("%s", (_what, args, line) => {
    const r = triage(args, { cwd: p });
    expect(expectOneLineError(r)).toBe(line);
    expect(r.stderr).not.toMatch(RAW_CODE);
  });

  it("export into a file or a link loop names the part in the way", () => {
    expect(triage(["pin", "Never push directly to main."], { cwd: p }).code).toBe(0);
    expect(expectOneLineError(triage(["export", "--format", "agents", "--out", "mem.md"], { cwd: p }))).toBe(`triage: cannot write ${join("mem.md", "AGENTS.md")}: mem.md is a file, not a folder`);
    expect(expectOneLineError(triage(["export", "--format", "cursor", "--out", "loopA"], { cwd: p }))).toBe(`triage: cannot write ${join("loopA", ".cursor", "rules", "knowledge-triage.mdc")}: a loop of symbolic links`);
  });

  it("compact -o a link loop is refused in words, and both links stay links (issue 14)", () => {
    const r = triage(["compact", "mem.md", "--ratio", "0.5", "-o", "loopB", ...regex], { cwd: p });
    expect(expectOneLineError(r)).toBe("triage: cannot write loopB: a loop of symbolic links");
    expect(r.code).toBe(1);
    expect(readlinkSync(join(p, "loopA"))).toBe("loopB");
    expect(readlinkSync(join(p, "loopB"))).toBe("loopA");
  });

  it("a failed decompose into a link loop leaves the user's links as they were", () => {
    expect(triage(["decompose", "mem.md", "--out", "loopA", ...regex], { cwd: p }).code).toBe(1);
    expect(lstatSync(join(p, "loopA")).isSymbolicLink()).toBe(true);
    expect(readlinkSync(join(p, "loopA"))).toBe("loopB");
  });
});

/**
 * Run the bundle as another user when the tests run as root (root reads any file): uid/gid 65534 ("nobody").
 * The temp project is made world-readable for that; the unreadable file stays 0600 and root's.
 */
function asUnprivileged(args: string[], cwd: string): Run {
  const root = process.getuid?.() === 0;
  const r = spawnSync(process.execPath, [bundle, ...args], { cwd, env: childEnv(), encoding: "utf8", timeout: 60_000, ...(root ? { uid: 65534, gid: 65534 } : {}) });
  return { code: r.status, stdout: r.stdout ?? "", stderr: r.stderr ?? "" };
}

describe("an unreadable file: 'permission denied', not EACCES", { timeout: 120_000 }, () => {
  const p = project();
  chmodSync(p, 0o755);
  chmodSync(join(p, ".."), 0o755);
  writeFileSync(join(p, "secret.md"), MEMORY);
  chmodSync(join(p, "secret.md"), process.getuid?.() === 0 ? 0o600 : 0o000);
  it.each([
    ["classify", ["classify", "secret.md", ...regex]],
    ["compact", ["compact", "secret.md", "--ratio", "0.5", ...regex]],
    ["decompose", ["decompose", "secret.md", "--out", "/nonexistent-kt/out", ...regex]],
    ["retrieve", ["retrieve", "tests", "--base", "secret.md", ...regex]],
    ["redact", ["redact", "secret.md"]],
    ["label", ["label", "secret.md", "-o", "/nonexistent-kt/l.jsonl", ...regex]],
    ["--model", ["classify", "mem.md", "--model", "secret.md"]],
  ])("%s", (_what, args) => {
    const line = expectOneLineError(asUnprivileged(args, p));
    expect(line).toMatch(/^triage: cannot read (model )?secret\.md: permission denied$/);
  });
});

describe("compact of a file that claims UTF-16 but is not", () => {
  it("names UTF-16LE (and UTF-16BE), not UTF-8", () => {
    const p = project();
    // FF FE, then "Al" in UTF-16LE, then a lone high surrogate (D800) and an odd trailing byte.
    writeFileSync(join(p, "le.md"), Buffer.from([0xff, 0xfe, 0x41, 0x00, 0x6c, 0x00, 0x00, 0xd8, 0x41]));
    writeFileSync(join(p, "be.md"), Buffer.from([0xfe, 0xff, 0x00, 0x41, 0xd8, 0x00, 0x00]));
    const le = expectOneLineError(triage(["compact", "le.md", "--ratio", "1", ...regex], { cwd: p }));
    expect(le).toMatch(/^triage: le\.md: not valid UTF-16LE \(the file starts with its byte-order mark\); compact keeps rules byte for byte/);
    const be = expectOneLineError(triage(["decompose", "be.md", "--out", "o", ...regex], { cwd: p }));
    expect(be).toMatch(/^triage: be\.md: not valid UTF-16BE /);
    expect(existsSync(join(p, "o"))).toBe(false);
  });
});

describe("compact -o a symbolic link: written through only inside the project, as export does", () => {
  it("a dangling link to a file outside the project is refused and stays a link", () => {
    const p = project();
    const outside = join(tempDir("kt-outside-"), "never.md");
    symlinkSync(outside, join(p, "out.md"));
    const line = expectOneLineError(triage(["compact", "mem.md", "--ratio", "0.9", "-o", "out.md", ...regex], { cwd: p }));
    expect(line).toMatch(/^triage: cannot write out\.md: it is a symbolic link to .*never\.md, outside the project \(compact -o writes only inside /);
    expect(lstatSync(join(p, "out.md")).isSymbolicLink()).toBe(true);
    expect(existsSync(outside)).toBe(false);
  });

  it("a dangling link inside the project: its target is written and the link stays a link", () => {
    const p = project();
    mkdirSync(join(p, "docs"));
    symlinkSync(join("docs", "short.md"), join(p, "out.md"));
    const r = triage(["compact", "mem.md", "--ratio", "0.9", "-o", "out.md", ...regex], { cwd: p });
    expect(r.code, r.stderr).toBe(0);
    expect(lstatSync(join(p, "out.md")).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(p, "docs", "short.md"), "utf8")).toContain("Always run the tests before you commit.");
  });
});

describe("an empty option value or path argument is refused in one line", () => {
  const p = project();
  it.each([
    [["extract", "t.jsonl", "--llm", ""], "triage: --llm is empty: give a value"],
    [["extract", "t.jsonl", "--session", " "], "triage: --session is empty: give a value"],
    [["compact", "mem.md", "--ratio", "0.5", "-o", ""], "triage: --output is empty: give a value"],
    [["compact", "mem.md", "--ratio", ""], "triage: --ratio is empty: give a value"],
    [["classify", "mem.md", "--model", ""], "triage: --model is empty: give a value"],
    [["--model", "", "classify", "mem.md"], "triage: --model is empty: give a value"],
    [["pin", "Always use pnpm.", "--paths", "src/**", ""], "triage: --paths is empty: give a value"],
    [["decompose", "mem.md", "--out", ""], "triage: --out is empty: give a value"],
    [["mcp", "--project-dir", ""], "triage: --project-dir is empty: give a value"],
    [["export", "--format", "agents", "--out", ""], "triage: --out is empty: give a value"],
    [["classify", "mem.md", "", ...regex], "triage: empty file name: give a path (or - for standard input)"],
    [["compact", "", "--ratio", "0.5", ...regex], "triage: empty file name: give a path (or - for standard input)"],
    [["extract", " ", ...regex], "triage: empty transcript path: give a path (or - for standard input)"],
    [["redact", ""], "triage: empty file name: give a path"],
    [["decompose", "", "--out", "o", ...regex], "triage: empty file name: give a path"],
    [["label", "", "-o", "l.jsonl", ...regex], "triage: empty path: give a path"],
  ])("%j", (args, line) => {
    expect(expectOneLineError(triage(args, { cwd: p }))).toBe(line);
    expect(readdirSync(p).sort()).toEqual([".git", "adir", "loopA", "loopB", "mem.md", "t.jsonl"]);
  });

  it("a program option before the command still runs the command", () => {
    const r = triage(["--model", "/dev/null", "classify", "mem.md"], { cwd: p });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^== mem\.md$/m);
  });
});

describe("decompose keeps the input's form", () => {
  const doc = "# Guide\n\n## Build\n\nAlways run `make` before you push.\n\n## Deploy\n\nNever deploy on Fridays.\nWe moved the servers last week.\n";
  it.each([
    ["CRLF", Buffer.from(doc.replace(/\n/g, "\r\n"), "utf8"), (b: Buffer) => b.toString("utf8").split("\n").length - 1 === b.toString("utf8").split("\r\n").length - 1],
    ["UTF-8 BOM", Buffer.from(`\uFEFF${doc}`, "utf8"), (b: Buffer) => b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf && !b.toString("utf8").includes("\r")],
    ["UTF-16LE", Buffer.from(`\uFEFF${doc}`, "utf16le"), (b: Buffer) => b[0] === 0xff && b[1] === 0xfe && /^## (Build|Deploy)$/m.test(b.subarray(2).toString("utf16le"))],
  ])("%s input: every partition in that form, and a rerun replaces them (the manifest hashes the bytes written)", (_what, bytes, isSameForm) => {
    const p = project();
    writeFileSync(join(p, "guide.md"), bytes);
    const r = triage(["decompose", "guide.md", "--out", "parts", ...regex], { cwd: p });
    expect(r.code, r.stderr).toBe(0);
    const parts = readdirSync(join(p, "parts")).filter((f) => f.endsWith(".md"));
    expect(parts.length).toBeGreaterThan(1);
    for (const f of parts) {
      const out = readFileSync(join(p, "parts", f));
      expect(isSameForm(out), `${f}: ${JSON.stringify(out.subarray(0, 8))}`).toBe(true);
    }
    const again = triage(["decompose", "guide.md", "--out", "parts", ...regex], { cwd: p });
    expect(again.code, again.stderr).toBe(0);
  });
});

describe("pin of a rule holding a control character", () => {
  it.each([
    ["an ANSI colour", "Always use \u001b[31mpnpm\u001b[0m.", "U+001B"],
    ["a bidi override", "Always use \u202epnpm.", "U+202E"],
    ["a bell", "Never push\u0007 to main.", "U+0007"],
  ])("%s is refused in one line, nothing written", (_what, text, cp) => {
    const p = project();
    const line = expectOneLineError(triage(["pin", text], { cwd: p }));
    expect(line).toBe(`triage: pin: the rule holds a control character (${cp}: a terminal escape, bidi control or line separator); pin it as plain text`);
    expect(existsSync(join(p, ".claude"))).toBe(false);
  });
});
