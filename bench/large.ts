/**
 * Large inputs through the built bundle (issue 14, item 7): `classify` (table to a file), `compact --ratio 0.8`
 * and `retrieve` on a generated memory file of `--mb` MB (default 50) and on a quarter of it, and `decompose` on
 * a smaller one (`--decompose-mb`, default 1). The file is examples/CLAUDE.md and the data/test split repeated.
 * Prints wall time, peak RSS (from /usr/bin/time when present), classify's units/s end to end, and the floors:
 * classify at most 300 MB peak and at least 100,000 units/s end to end in one process; compact and retrieve linear
 * (the full size at most 5 x the quarter's time, 4 x the input); decompose at most 16 x its input + 1 MB written.
 * Usage: npm run bench:large [-- --mb 50 --decompose-mb 1] (`--classify-only`: the classify rows alone)
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";

const repo = resolve(import.meta.dirname, "..");
const bundle = join(repo, "dist", "triage.mjs");
const argValue = (name: string): string | undefined => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const targetMb = Number(argValue("--mb") ?? 50);
const decomposeMb = Number(argValue("--decompose-mb") ?? 1);
const haveTime = existsSync("/usr/bin/time");

interface Run {
  ms: number;
  rssMb: number | null;
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Run `node dist/triage.mjs ...args`, stdout to `outFile` when given; wall ms and peak RSS (MB). */
function run(args: string[], outFile?: string): Run {
  const cmd = haveTime ? "/usr/bin/time" : process.execPath;
  const node = outFile ? ["sh", "-c", `exec "$0" "$@" > "${outFile}"`, process.execPath] : [process.execPath];
  const argv = haveTime ? ["-f", "KNOWLEDGE_TRIAGE_MAXRSS_KB=%M", ...node, bundle, ...args] : [...node.slice(1), bundle, ...args];
  const t0 = performance.now();
  const r = spawnSync(haveTime ? cmd : node[0] as string, argv, { encoding: "utf8", maxBuffer: 1024 * 1024 * 1024 });
  const ms = performance.now() - t0;
  const m = /KNOWLEDGE_TRIAGE_MAXRSS_KB=(\d+)/.exec(r.stderr ?? "");
  return { ms, rssMb: m ? Number(m[1]) / 1024 : null, code: r.status, stdout: r.stdout ?? "", stderr: (r.stderr ?? "").replace(/^KNOWLEDGE_TRIAGE_MAXRSS_KB=\d+\n?/m, "") };
}

/** A memory file of about `mb` MB: the example and the test split's documents, repeated. */
function makeBase(dir: string, name: string, mb: number): string {
  const sources = [join(repo, "examples", "CLAUDE.md"), ...readdirSync(join(repo, "data", "test")).filter((f) => f.endsWith(".md")).map((f) => join(repo, "data", "test", f))];
  const one = sources.map((f) => readFileSync(f, "utf8")).join("\n");
  const file = join(dir, name);
  writeFileSync(file, one.repeat(Math.max(1, Math.round((mb * 1024 * 1024) / Buffer.byteLength(one)))));
  return file;
}

/** Thrown after the classify rows with `--classify-only`: skips compact, retrieve and decompose. */
class ClassifyOnly extends Error {}

const rows: [string, string, string, boolean][] = [];
function check(name: string, value: string, floor: string, ok: boolean): void {
  rows.push([name, value, floor, ok]);
}
const fmtRun = (r: Run): string => `${(r.ms / 1000).toFixed(1)} s, ${r.rssMb === null ? "? MB" : `${Math.round(r.rssMb)} MB`} peak`;

const dir = mkdtempSync(join(tmpdir(), "kt-bench-large-"));
try {
  const full = makeBase(dir, "full.md", targetMb);
  const quarter = makeBase(dir, "quarter.md", targetMb / 4);
  const fullMb = statSync(full).size / (1024 * 1024);
  console.log(`input: ${fullMb.toFixed(1)} MB and ${(statSync(quarter).size / (1024 * 1024)).toFixed(1)} MB (examples/CLAUDE.md + data/test/*.md repeated); /usr/bin/time: ${haveTime ? "yes" : "no (no RSS)"}`);

  const c = run(["classify", full], join(dir, "classify.txt"));
  const units = Number(/^(\d+) units:/m.exec(readFileSync(join(dir, "classify.txt"), "utf8").split("\n").at(-2) ?? "")?.[1] ?? 0);
  check(`classify ${fullMb.toFixed(0)} MB: peak RSS`, fmtRun(c), "<= 300 MB", c.code === 0 && c.rssMb !== null && c.rssMb <= 300);
  const ups = units / (c.ms / 1000);
  check(`classify ${fullMb.toFixed(0)} MB: end to end`, `${Math.round(ups).toLocaleString("en")} units/s (${units.toLocaleString("en")} units)`, ">= 100,000 units/s", ups >= 100_000);

  if (process.argv.includes("--classify-only")) throw new ClassifyOnly();
  for (const [name, args] of [
    ["compact --ratio 0.8", (f: string) => ["compact", f, "--ratio", "0.8", "-o", join(dir, "compact.md"), "--force"]],
    ["retrieve", (f: string) => ["retrieve", "how do we run the database migrations", "--base", f, "-k", "10"]],
  ] as const) {
    const q = run(args(quarter));
    const f = run(args(full));
    const ratio = f.ms / q.ms;
    check(`${name}: quarter / full`, `${fmtRun(q)} / ${fmtRun(f)}${q.code || f.code ? ` (exit ${q.code}/${f.code})` : ""}`, "(info)", true);
    check(`${name}: full / quarter time`, `${ratio.toFixed(1)} x for 4 x the input`, "<= 5 x (linear)", q.code === 0 && f.code === 0 && ratio <= 5);
  }

  const small = makeBase(dir, "decompose.md", decomposeMb);
  const d = run(["decompose", small, "--out", join(dir, "decomposed")]);
  const written = existsSync(join(dir, "decomposed")) ? readdirSync(join(dir, "decomposed")).reduce((n, f) => n + statSync(join(dir, "decomposed", f)).size, 0) : 0;
  const inBytes = statSync(small).size;
  check(`decompose ${(inBytes / (1024 * 1024)).toFixed(1)} MB`, `${fmtRun(d)}, wrote ${(written / (1024 * 1024)).toFixed(1)} MB (${(written / inBytes).toFixed(1)} x)`, "<= 16 x + 1 MB", d.code === 0 && written <= 16 * inBytes + 1024 * 1024);
} catch (e) {
  if (!(e instanceof ClassifyOnly)) throw e;
} finally {
  rmSync(dir, { recursive: true, force: true });
}

const w = [0, 1, 2].map((k) => Math.max(...rows.map((r) => String(r[k]).length)));
console.log(`load average ${loadavg().map((x) => x.toFixed(2)).join(" ")} (${cpus().length} CPUs)`);
for (const [name, value, floor, ok] of rows) console.log(`${name.padEnd(w[0] as number)}  ${value.padEnd(w[1] as number)}  ${floor.padEnd(w[2] as number)}  ${floor === "(info)" ? "" : ok ? "ok" : "BELOW FLOOR"}`);
