/**
 * Byte-identity check of `triage classify` between the built bundle and another build (a speed change must not
 * change one output byte): runs both on every examples/*.md and data/test/*.md file, one file at a time and all
 * together, in `--json` and table form, and on the whole set repeated to `--mb` MB (default 2) in one file, then
 * compares the sha256 of stdout and the exit codes. Exits 1 when any output differs.
 * Usage: `mkdir -p /tmp/kt-before && git archive main dist model | tar -x -C /tmp/kt-before`, then
 * `npx tsx bench/classify-same.ts --before /tmp/kt-before/dist/triage.mjs [--mb 2]`.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const repo = resolve(import.meta.dirname, "..");
const after = join(repo, "dist", "triage.mjs");
const argValue = (name: string): string | undefined => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const before = argValue("--before");
if (!before) {
  console.error("usage: npx tsx bench/classify-same.ts --before <bundle> [--mb 2]");
  process.exit(2);
}
const mb = Number(argValue("--mb") ?? 2);

const files = [
  ...readdirSync(join(repo, "examples")).filter((f) => f.endsWith(".md")).map((f) => join("examples", f)),
  ...readdirSync(join(repo, "data", "test")).filter((f) => f.endsWith(".md")).map((f) => join("data", "test", f)),
].sort();
const dir = mkdtempSync(join(tmpdir(), "kt-classify-same-"));
const one = files.map((f) => readFileSync(join(repo, f), "utf8")).join("\n");
const big = join(dir, "repeated.md");
writeFileSync(big, one.repeat(Math.max(1, Math.round((mb * 1024 * 1024) / Buffer.byteLength(one)))));

/** sha256 and exit code of `node <bundle> classify ...args` run in the repo (relative file names in the output). */
function digest(bundle: string, args: string[]): string {
  const r = spawnSync(process.execPath, [bundle, "classify", ...args], { cwd: repo, maxBuffer: 1 << 30 });
  return `${r.status} ${createHash("sha256").update(r.stdout).digest("hex")} ${createHash("sha256").update(r.stderr).digest("hex")}`;
}

// The whole set in other encodings and line endings: CRLF with a UTF-8 byte order mark, CR, UTF-16LE, and
// UTF-8 cut inside a multi-byte character with a stray invalid byte and a NUL (both decoders' replacement paths).
const variants: Array<[string, Buffer]> = [
  ["crlf-bom.md", Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(one.replaceAll("\n", "\r\n"))])],
  ["cr.md", Buffer.from(one.replaceAll("\n", "\r"))],
  ["utf16le.md", Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(one, "utf16le")])],
  ["invalid.md", (() => {
    const b = Buffer.from(one);
    const cut = b.indexOf(Buffer.from("订")) + 1;
    return Buffer.concat([b.subarray(0, cut), Buffer.from("\n- x "), Buffer.from([0xff]), Buffer.from(" y\0\n"), b.subarray(cut), Buffer.from([0xe8, 0xae])]);
  })()],
];
for (const [name, bytes] of variants) writeFileSync(join(dir, name), bytes);
const cases: string[][] = [];
for (const f of files) cases.push([f, "--json"], [f]);
for (const [name] of variants) cases.push([join(dir, name), "--json"], [join(dir, name)]);
cases.push([...files, "--json"], [...files], [big, "--json"], [big]);
let differ = 0;
try {
  for (const c of cases) {
    const a = digest(before, c);
    const b = digest(after, c);
    if (a !== b) {
      differ++;
      console.log(`DIFFERS: classify ${c.map((x) => (x === big ? `<${mb} MB repeated>` : x)).join(" ").slice(0, 120)}`);
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
console.log(`${cases.length - differ} of ${cases.length} classify runs give the same stdout, stderr and exit code (${files.length} files, --json and table, each alone, all together, ${mb} MB repeated)`);
process.exit(differ ? 1 : 0);
