/**
 * dist/triage.mjs is a loader plus the program carried in line comments, compiled through node:vm
 * with V8 code-cache data from an earlier run of the same command (scripts/build.mjs, withLoader).
 * The cache must only ever change speed: same output with and without it, with a corrupt cache file,
 * and nothing written on failure or when it is turned off.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, chownSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { checksum64 } from "../../scripts/checksum.js";
import { bundle, bundledModel, childEnv, ensureBundle, removeTempDirs, repo, tempDir, triage } from "./helpers.js";

vi.setConfig({ testTimeout: 60_000 });
beforeAll(() => ensureBundle(), 180_000);
afterAll(() => removeTempDirs());

const args = ["classify", "examples/CLAUDE.md", "--json"];
const run = (env: Record<string, string>) => triage(args, { env: { TRIAGE_CODE_CACHE_DEBUG: "1", ...env } });
const status = (stderr: string): string => /^code cache: (\w+)/m.exec(stderr)?.[1] ?? "none";
/** Where a copy of the bundle can go: dist/triage.mjs of a fresh folder whose model/ is the repo's. */
function bundleCopyPath(): string {
  const root = tempDir("kt-cc-copy-");
  mkdirSync(join(root, "dist"));
  symlinkSync(join(bundledModel, ".."), join(root, "model"));
  return join(root, "dist", "triage.mjs");
}
/** The V8 code-cache files of a cache folder (the model cache, model-cache.test.ts, shares it). */
const codeCaches = (dir: string): string[] => readdirSync(dir).filter((n) => n.endsWith(".v8cache"));

describe("code cache of the bundle", () => {
  it("the bundle is a small ESM loader followed by the programs as // lines, at the byte ranges it records", () => {
    const bytes = readFileSync(bundle);
    const text = bytes.toString("latin1");
    const marks = [...text.matchAll(/\n\/\/@kt-program ([0-9a-f]{16}) (\w+)\n/g)];
    expect(marks.map((m) => m[2])).toEqual(["classify", "main"]);
    expect(new Set(marks.map((m) => m[1])).size).toBe(1);
    expect(marks[0]?.index).toBeLessThan(20_000); // ~16 KB: the loader and what it carries from scripts/loader-parts.ts
    // Each block ends with its end line, right before the next block (or the end of the file).
    for (const [i, m] of marks.entries()) {
      const endLine = `//@kt-end ${m[1]} ${m[2]}\n`;
      const blockEnd = i + 1 < marks.length ? (marks[i + 1]?.index as number) + 1 : text.length;
      expect(text.slice(blockEnd - endLine.length, blockEnd)).toBe(endLine);
    }
    const table = JSON.parse(/^const BLOCKS = (\{.*\});$/m.exec(text)?.[1] ?? "null") as Record<string, [number, number]>;
    expect(Object.keys(table)).toEqual(["classify", "main"]);
    expect(table.classify?.[0]).toBe((marks[0]?.index as number) + 1);
    expect(table.main?.[0]).toBe((marks[1]?.index as number) + 1);
    expect(table.classify?.[1]).toBe(table.main?.[0]);
    expect(table.main?.[1]).toBe(bytes.length);
    const body = text.slice((marks[0]?.index as number) + 1);
    for (const line of body.split("\n").filter(Boolean)) expect(line.startsWith("//")).toBe(true);
    expect(/[^\x00-\x7f]/.test(text)).toBe(false);
    // The fast path is the small one.
    expect((table.classify?.[1] as number) - (table.classify?.[0] as number)).toBeLessThan(((table.main?.[1] as number) - (table.main?.[0] as number)) / 3);
  });

  it("first run writes one cache file (0600 in a 0700 folder); later runs hit it with identical output", () => {
    const dir = join(tempDir("kt-cc-"), "cache");
    const off = triage(args, { env: { TRIAGE_CODE_CACHE: "0", TRIAGE_CODE_CACHE_DEBUG: "1" } });
    expect(off.code, off.stderr).toBe(0);
    expect(status(off.stderr)).toBe("off");
    const first = run({ TRIAGE_CACHE_DIR: dir });
    expect(first.code, first.stderr).toBe(0);
    expect(status(first.stderr)).toBe("miss");
    const files = codeCaches(dir);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(new RegExp(`^[0-9a-f]{16}-\\d+-\\d+-\\d+-${process.version}-${process.arch}-classify-classify\\.v8cache$`));
    expect(statSync(join(dir, files[0] as string)).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    const second = run({ TRIAGE_CACHE_DIR: dir });
    expect(status(second.stderr)).toBe("hit");
    expect(second.stdout).toBe(first.stdout);
    expect(first.stdout).toBe(off.stdout);
    expect(JSON.parse(first.stdout).length).toBeGreaterThan(100);
  });

  it("a corrupt cache file is rejected (by its checksum, or by V8), the output is unchanged and the file is rewritten", () => {
    const dir = join(tempDir("kt-cc-"), "cache");
    const ref = run({ TRIAGE_CACHE_DIR: dir });
    const file = join(dir, codeCaches(dir)[0] as string);
    const good = readFileSync(file);
    // Layout: "KTCC", layout 1, MurmurHash64A of the V8 data that follows these 16 bytes.
    expect(good.readUInt32LE(0)).toBe(0x4343544b);
    expect(good.readBigUInt64LE(8)).toBe(checksum64(good.subarray(16)));
    const oneBit = Buffer.from(good);
    const at = Math.floor(good.length * 0.7);
    oneBit[at] = (oneBit[at] as number) ^ 0x10; // inside bytecode: V8's own checks (lengths, source hash) would pass it
    const badSum = Buffer.from(good);
    badSum[9] = (badSum[9] as number) ^ 0x01;
    // V8 data that is garbage but carries a correct checksum of ours: V8's sanity check refuses it.
    const garbage = Buffer.from(good);
    for (let i = 16; i < garbage.length; i += 97) garbage[i] = (garbage[i] as number) ^ 0xff;
    garbage.writeBigUInt64LE(checksum64(garbage.subarray(16)) as bigint, 8);
    for (const bad of [oneBit, badSum, garbage]) {
      writeFileSync(file, bad);
      const r = run({ TRIAGE_CACHE_DIR: dir });
      expect(r.code, r.stderr).toBe(0);
      expect(status(r.stderr)).toBe("rejected");
      expect(r.stdout).toBe(ref.stdout);
      expect(status(run({ TRIAGE_CACHE_DIR: dir }).stderr)).toBe("hit");
    }
    writeFileSync(file, "not a cache");
    const junk = run({ TRIAGE_CACHE_DIR: dir });
    expect(junk.code).toBe(0);
    expect(junk.stdout).toBe(ref.stdout);
  });

  it("a bundle edited by hand after the build (same length) never runs the cache of the original", () => {
    const dir = join(tempDir("kt-cc-"), "cache");
    const copy = bundleCopyPath();
    const text = readFileSync(bundle, "latin1");
    const edited = text.replace(/push\(`== (\$\{[^`]+\})`\)/, "push(`## $1`)"); // the classify table header
    expect(edited).not.toBe(text);
    expect(edited.length).toBe(text.length);
    writeFileSync(copy, edited, "latin1");
    const original = triage(["classify", "examples/CLAUDE.md"], { env: { TRIAGE_CACHE_DIR: dir } });
    expect(original.stdout.startsWith("== examples/CLAUDE.md\n")).toBe(true);
    const fromCopy = triage(["classify", "examples/CLAUDE.md"], { env: { TRIAGE_CACHE_DIR: dir }, bin: copy });
    expect(fromCopy.code, fromCopy.stderr).toBe(0);
    expect(fromCopy.stdout.startsWith("## examples/CLAUDE.md\n")).toBe(true);
    expect(triage(["classify", "examples/CLAUDE.md"], { env: { TRIAGE_CACHE_DIR: dir } }).stdout).toBe(original.stdout);
  });

  it("an edit that keeps the length and the modification time never runs the old cache (the change time is in the key)", () => {
    const dir = join(tempDir("kt-cc-"), "cache");
    const copy = bundleCopyPath();
    const text = readFileSync(bundle, "latin1");
    writeFileSync(copy, text, "latin1");
    const times = `${copy}.times`;
    writeFileSync(times, "");
    execFileSync("touch", ["-r", copy, times]); // the copy's times to the nanosecond, as `touch -r` restores them
    expect(triage(["classify", "examples/CLAUDE.md"], { env: { TRIAGE_CACHE_DIR: dir }, bin: copy }).stdout).toMatch(/\n105 units: /);
    writeFileSync(copy, text.replace("units: ${", "UNITS: ${"), "latin1");
    execFileSync("touch", ["-r", times, copy]);
    expect(statSync(copy, { bigint: true }).mtimeNs).toBe(statSync(times, { bigint: true }).mtimeNs);
    const r = triage(["classify", "examples/CLAUDE.md"], { env: { TRIAGE_CACHE_DIR: dir }, bin: copy });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/\n105 UNITS: /);
  });

  it("two copies of the bundle sharing a cache folder keep each other's caches; names of an older scheme are removed", () => {
    const dir = join(tempDir("kt-cc-"), "cache");
    mkdirSync(dir, { mode: 0o700 });
    writeFileSync(join(dir, "0123456789abcdef-1-2-v20.0.0-x64-classify.v8cache"), "old scheme");
    const copy = bundleCopyPath();
    writeFileSync(copy, readFileSync(bundle));
    const env = { TRIAGE_CACHE_DIR: dir, TRIAGE_CACHE_DEBUG: "1" };
    for (const bin of [bundle, copy]) triage(args, { env, bin });
    for (const bin of [bundle, copy, bundle, copy]) expect(status(triage(args, { env, bin }).stderr), bin).toBe("hit");
    expect(readdirSync(dir)).not.toContain("0123456789abcdef-1-2-v20.0.0-x64-classify.v8cache");
  });

  it("a bundle edited to other block lengths is searched, not read at the recorded places: same output as the CLI", () => {
    const copy = bundleCopyPath();
    const text = readFileSync(bundle, "latin1");
    const at = text.indexOf(" units: ${");
    expect(at).toBeGreaterThan(text.indexOf("//@kt-program"));
    writeFileSync(copy, `${text.slice(0, at)} unit: ${text.slice(at + " units: ".length)}`, "latin1");
    const fast = triage(["classify", "examples/CLAUDE.md"], { bin: copy });
    expect(fast.code, fast.stderr).toBe(0);
    expect(fast.stdout).toMatch(/\n105 unit: /);
    const full = triage(["--debug", "classify", "examples/CLAUDE.md"], { bin: copy });
    expect(full.code, full.stderr).toBe(0);
  });

  it("a cache path that is a device, FIFO or directory is not read; TRIAGE_CODE_CACHE=false/off also turn it off", () => {
    const dir = join(tempDir("kt-cc-"), "cache");
    const first = run({ TRIAGE_CACHE_DIR: dir });
    const name = codeCaches(dir)[0] as string;
    unlinkSync(join(dir, name));
    symlinkSync("/dev/zero", join(dir, name));
    const r = run({ TRIAGE_CACHE_DIR: dir });
    expect(r.code, r.stderr).toBe(0);
    expect(status(r.stderr)).toBe("miss");
    expect(r.stdout).toBe(first.stdout);
    for (const v of ["false", "off", "no"]) expect(status(run({ TRIAGE_CACHE_DIR: dir, TRIAGE_CODE_CACHE: v }).stderr)).toBe("off");
    // A relative TRIAGE_CACHE_DIR or XDG_CACHE_HOME is ignored (XDG rule), never created under the cwd.
    const home = tempDir("kt-cc-home-");
    const rel = run({ TRIAGE_CACHE_DIR: "relative/cache", XDG_CACHE_HOME: "relative/xdg", HOME: home });
    expect(rel.stderr).toContain(`code cache: miss ${join(home, ".cache", "knowledge-triage")}`);
    expect(() => statSync(join(repo, "relative"))).toThrow();
  });

  it("a damaged bundle (program block gone, or cut short) gives one line and exit 1", () => {
    const copyRoot = tempDir("kt-cc-copy-");
    const copy = join(copyRoot, "triage.mjs");
    writeFileSync(copy, readFileSync(bundle, "latin1").replace(/\/\/@kt-program [0-9a-f]+/g, "//@kt-program gone"), "latin1");
    for (const argv of [["--version"], ["classify", "examples/CLAUDE.md"]]) {
      const r = triage(argv, { bin: copy });
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/^triage: .* is damaged: its (main|classify) program block is missing/);
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
    }
    // Cut inside a block (the rest of a program would run as a fragment), or in the loader right after
    // its size check (a cut that leaves whole statements would otherwise run part of the loader).
    const loaderText = readFileSync(bundle, "latin1");
    const afterCheck = loaderText.indexOf("}\n", loaderText.indexOf("it is cut short")) + 2;
    for (const [at, argv, message] of [
      [50_000, ["classify", "examples/CLAUDE.md"], /^triage: .* is damaged: its classify program block is cut short/],
      // Cut in the CLI's block: the classify fast path does not run a bundle the CLI would refuse.
      [300_000, ["classify", "examples/CLAUDE.md"], /^triage: .* is damaged: its main program block is cut short/],
      [readFileSync(bundle).length - 100, ["--version"], /^triage: .* is damaged: its main program block is cut short/],
      // Only the last line feed gone: the fast path refuses it like the CLI, and names the same block.
      [readFileSync(bundle).length - 1, ["classify", "examples/CLAUDE.md"], /^triage: .* is damaged: its main program block is cut short/],
      [readFileSync(bundle).length - 1, ["classify", "--model=/dev/null", "examples/CLAUDE.md"], /^triage: .* is damaged: its main program block is cut short/],
      [afterCheck, ["--version"], /^triage: .* is damaged: it is cut short/],
    ] as const) {
      writeFileSync(copy, readFileSync(bundle).subarray(0, at));
      const r = triage([...argv], { bin: copy });
      expect(r.code, `cut at ${at}`).toBe(1);
      expect(r.stderr).toMatch(message);
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
    }
  });

  it("a bundle not as built still hands arguments the fast path does not take to the CLI (blocks are searched once, before either is put together)", () => {
    const copy = bundleCopyPath();
    writeFileSync(copy, readFileSync(bundle, "latin1").replace(/\n/g, "\r\n"), "latin1"); // a CRLF copy: other block offsets
    const argv = ["classify", "--model=/dev/null", "examples/CLAUDE.md"];
    const r = triage(argv, { bin: copy, env: { TRIAGE_CACHE: "0" } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(triage(argv, { env: { TRIAGE_CACHE: "0" } }).stdout);
  });

  it("without WebAssembly for the checksum (node --jitless, or an address-space limit) no cache is read or written, and the output is the same", () => {
    const dir = join(tempDir("kt-cc-"), "cache");
    const ref = run({ TRIAGE_CACHE_DIR: dir }); // a first run writes both caches
    const before = readdirSync(dir).map((n) => [n, readFileSync(join(dir, n))] as const);
    const env = childEnv({ TRIAGE_CACHE_DIR: dir, TRIAGE_CACHE_DEBUG: "1" });
    const runs = [
      spawnSync(process.execPath, ["--jitless", bundle, ...args], { cwd: repo, env, encoding: "utf8" }),
      // 3 GB of address space: enough for Node, not for the ~10 GiB V8 reserves per WebAssembly memory.
      spawnSync("bash", ["-c", 'ulimit -v 3000000 && exec "$0" "$@"', process.execPath, bundle, ...args], { cwd: repo, env, encoding: "utf8" }),
    ];
    for (const r of runs) {
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout).toBe(ref.stdout);
      expect(r.stderr).toMatch(/^code cache: off$/m);
      expect(r.stderr).toMatch(/^model cache: off \(no WebAssembly for its checksum\)$/m);
    }
    for (const [n, bytes] of before) expect(readFileSync(join(dir, n)).equals(bytes), n).toBe(true);
    expect(readdirSync(dir).sort()).toEqual(before.map(([n]) => n).sort());
  });

  it("each set of Node flags keeps its own cache (here NODE_OPTIONS), so callers with different flags both hit", () => {
    const dir = join(tempDir("kt-cc-"), "cache");
    const plain = { TRIAGE_CACHE_DIR: dir };
    const flagged = { TRIAGE_CACHE_DIR: dir, NODE_OPTIONS: "--expose-gc" };
    expect(status(run(plain).stderr)).toBe("miss");
    expect(status(run(flagged).stderr)).toBe("miss");
    for (let i = 0; i < 2; i++) {
      expect(status(run(plain).stderr)).toBe("hit");
      expect(status(run(flagged).stderr)).toBe("hit");
    }
    expect(codeCaches(dir)).toHaveLength(2);
  });

  it("nothing is written for a failing command, with TRIAGE_CACHE=0, or when the folder cannot be made", () => {
    const root = tempDir("kt-cc-");
    const dir = join(root, "cache");
    const bad = triage(["classify", "no/such/file.md"], { env: { TRIAGE_CACHE_DIR: dir } });
    expect(bad.code).toBe(1);
    expect(() => readdirSync(dir)).toThrow();
    triage(args, { env: { TRIAGE_CACHE_DIR: dir, TRIAGE_CACHE: "0" } });
    expect(() => readdirSync(dir)).toThrow();
    // TRIAGE_CODE_CACHE=0 turns off this cache only (the model cache may still write its file).
    triage(args, { env: { TRIAGE_CACHE_DIR: dir, TRIAGE_CODE_CACHE: "0" } });
    expect(codeCaches(dir)).toEqual([]);
    // Node's recursive mkdir loops forever under /proc; the loader must not.
    const proc = triage(args, { env: { HOME: "/proc", TRIAGE_CACHE_DIR: "", XDG_CACHE_HOME: "", TRIAGE_CODE_CACHE_DEBUG: "1" } });
    expect(proc.code, proc.stderr).toBe(0);
    expect(status(proc.stderr)).toBe("miss");
    writeFileSync(join(root, "file"), "");
    const blocked = triage(args, { env: { TRIAGE_CACHE_DIR: join(root, "file", "cache") } });
    expect(blocked.code, blocked.stderr).toBe(0);
    expect(blocked.stderr).toBe("");
  });
});

describe("a cache folder others can write to", () => {
  it("is not used at all (another user's bytecode or tables would run here): world-writable, or owned by someone else", () => {
    const shared = tempDir("kt-cc-shared-");
    chmodSync(shared, 0o777);
    const r = triage(args, { env: { TRIAGE_CACHE_DIR: shared, TRIAGE_CACHE_DEBUG: "1" } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^start-up caches: off \(.* is not a private folder of this user\)$/m);
    expect(status(r.stderr)).toBe("off");
    expect(r.stderr).toMatch(/^model cache: off$/m);
    expect(readdirSync(shared)).toEqual([]);
    expect(r.stdout).toBe(triage(args, { env: { TRIAGE_CACHE: "0" } }).stdout);
    if (process.getuid?.() === 0) {
      const foreign = tempDir("kt-cc-foreign-");
      chownSync(foreign, 65534, 65534);
      const f = triage(args, { env: { TRIAGE_CACHE_DIR: foreign, TRIAGE_CACHE_DEBUG: "1" } });
      expect(f.stderr).toMatch(/^start-up caches: off/m);
      expect(readdirSync(foreign)).toEqual([]);
    }
  });
});
