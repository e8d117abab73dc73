/**
 * `triage classify` runs a small program of its own inside dist/triage.mjs (scripts/classify-main.ts)
 * and hands any argument list it does not take to the full CLI. Both must print the same bytes and
 * exit codes for everything. `triage --debug classify ...` always runs the full CLI (the loader picks
 * the fast path only when classify is the first argument), so it is the reference here; --debug only
 * adds stack traces after error lines.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { plainClassifyArgs } from "../../scripts/commands/classify.js";
import { ensureBundle, removeTempDirs, tempDir, triage } from "./helpers.js";

vi.setConfig({ testTimeout: 60_000 });
beforeAll(() => ensureBundle(), 180_000);
afterAll(() => removeTempDirs());

/** Which blocks ran, from TRIAGE_CACHE_DEBUG's code cache lines ("classify", "main"). */
const blocks = (stderr: string): string[] => [...stderr.matchAll(/^code cache: \w+ .*-(\w+)-classify\.v8cache$/gm)].map((m) => m[1] as string);
/** stderr without what --debug adds: everything from the first stack trace header on. */
const firstLines = (text: string): string => {
  const lines = text.split("\n");
  const stack = lines.findIndex((l) => /^\w*Error: /.test(l));
  return (stack < 0 ? lines : lines.slice(0, stack)).join("\n").trimEnd();
};

describe("plainClassifyArgs", () => {
  it.each([
    [["a.md"], { files: ["a.md"], opts: {} }],
    [["a.md", "--json", "b.md", "--summary"], { files: ["a.md", "b.md"], opts: { json: true, summary: true } }],
    [["--model", "m.json", "-"], { files: ["-"], opts: { model: "m.json" } }],
    [["--model", "-", "a.md"], { files: ["a.md"], opts: { model: "-" } }],
    [["", "--json"], { files: [""], opts: { json: true } }],
  ])("takes %j", (args, expected) => {
    expect(plainClassifyArgs(args)).toEqual(expected);
  });

  it.each([[[]], [["--json"]], [["--help"]], [["-h", "a.md"]], [["--model=m.json", "a.md"]], [["--", "a.md"]], [["--model"]], [["--model", "--json", "a.md"]], [["--model", "a", "--model", "b", "c.md"]], [["--debug", "a.md"]], [["a.md", "--bogus"]]])(
    "leaves %j to the CLI",
    (args) => {
      expect(plainClassifyArgs(args)).toBeUndefined();
    },
  );
});

describe("the classify fast path prints what the full CLI prints", () => {
  const dir = tempDir("kt-fast-");
  const cache = join(dir, "cache");
  const empty = join(dir, "empty.md");
  writeFileSync(empty, "");
  const binary = join(dir, "binary.md");
  writeFileSync(binary, Buffer.from([0x23, 0x20, 0xff, 0xfe, 0x0a, 0x2d, 0x20, 0x4e, 0x65, 0x76, 0x65, 0x72, 0x20, 0xc3, 0x0a]));
  const lineFeedName = join(dir, "bad\ntriage: all good.md");
  writeFileSync(lineFeedName, Buffer.from([0x2d, 0x20, 0x6e, 0x65, 0x76, 0x65, 0x72, 0x20, 0xff, 0x0a]));
  const env = { TRIAGE_CACHE_DIR: cache, TRIAGE_CACHE_DEBUG: "1" };
  const cases: Array<[string, string[], string?]> = [
    ["table", ["examples/CLAUDE.md"]],
    ["--json and --summary, two files", ["--json", "examples/CLAUDE.md", "--summary", "examples/CLAUDE.md"]],
    ["regex tier", ["--model", "/dev/null", "examples/CLAUDE.md"]],
    ["stdin", ["-"], "# Rules\n- never push to main\n- we tried pnpm in 2024, it failed\n"],
    ["empty file", [empty]],
    ["undecodable bytes (warnings on stderr)", [binary, "--json"]],
    ["a missing file", ["no/such/file.md"]],
    ["stdin twice", ["-", "-"]],
    ["a missing model", ["--model", join(dir, "none.json"), "examples/CLAUDE.md"]],
    ["a missing file named with a line feed", ["missing\ntriage: ok.md"]],
    ["a warning for a file named with a line feed", [lineFeedName]],
  ];

  it.each(cases)("%s: same stdout, stderr and exit code, from the fast path alone", (_name, args, input) => {
    const fast = triage(["classify", ...args], { env, input });
    const full = triage(["--debug", "classify", ...args], { env, input });
    expect(fast.code).toBe(full.code);
    expect(fast.stdout).toBe(full.stdout);
    const noCacheLines = (t: string) => t.replace(/^(code|model) cache: .*\n/gm, "");
    expect(firstLines(noCacheLines(fast.stderr))).toBe(firstLines(noCacheLines(full.stderr)));
    expect(blocks(fast.stderr)).toEqual(["classify"]);
    // Every message is one line: a line feed in a file name is escaped, not printed.
    for (const line of noCacheLines(fast.stderr).split("\n").filter(Boolean)) expect(line).toMatch(/^triage: /);
  });

  it("--json of many units is written in pieces, as the very bytes of one JSON.stringify", () => {
    const big = join(dir, "big.md");
    writeFileSync(big, Array.from({ length: 25_000 }, (_, i) => `- never deploy build ${i} on a Friday`).join("\n"));
    const r = triage(["classify", "--json", big], { env });
    expect(r.code, r.stderr).toBe(0);
    const rows = JSON.parse(r.stdout) as unknown[];
    expect(rows).toHaveLength(25_000);
    expect(r.stdout).toBe(`${JSON.stringify(rows)}\n`);
  });

  it.each([
    ["--help", ["--help"]],
    ["no file", []],
    ["--model=PATH", ["--model=/dev/null", "examples/CLAUDE.md"]],
    ["an unknown option", ["--bogus", "examples/CLAUDE.md"]],
    ["a misspelt option", ["--jso", "examples/CLAUDE.md"]],
    ["--", ["--", "examples/CLAUDE.md"]],
  ])("%s: handed to the full CLI, same output", (_name, args) => {
    const fast = triage(["classify", ...args], { env });
    const full = triage(["--debug", "classify", ...args], { env });
    expect(fast.code).toBe(full.code);
    expect(fast.stdout).toBe(full.stdout);
    expect(blocks(fast.stderr)).toEqual(["classify", "main"]);
    // Commander's errors are one line too (its "(Did you mean ...?)" joined, a line feed escaped).
    const lines = fast.stderr.split("\n").filter((l) => l && !/^(code|model) cache: /.test(l));
    if (fast.code !== 0) expect(lines).toHaveLength(1);
  });

  it("an argument with a line feed stays on one error line", () => {
    const r = triage(["classify", "--bo\ngus", "examples/CLAUDE.md"], { env });
    expect(r.code).toBe(1);
    expect(r.stderr.split("\n").filter((l) => l && !/^(code|model) cache: /.test(l))).toEqual(["triage: unknown option '--bo\\u000agus'"]);
  });
});
