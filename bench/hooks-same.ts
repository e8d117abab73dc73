/**
 * Byte-identity check of the PreCompact hook between the built bundle and another build (a speed change must not
 * change what the hook writes): runs both on every real session of data/sessions/ and on any transcripts named
 * with `--transcript` (e.g. the 50 MB one bench/hooks.ts generates), each on a fresh project, and compares stdout,
 * the exit code and every file the hook wrote under `.claude/rules/knowledge-triage/` (rules, sidecar, cursor,
 * archive copy and search index; the hook log is left out: it carries times). Exits 1 when any differs.
 * Usage: `mkdir -p /tmp/kt-before && git archive main dist model | tar -x -C /tmp/kt-before`, then
 * `npx tsx bench/hooks-same.ts --before /tmp/kt-before/dist/triage.mjs [--transcript big.jsonl ...]`.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const repo = resolve(import.meta.dirname, "..");
const after = join(repo, "dist", "triage.mjs");
const bi = process.argv.indexOf("--before");
const before = bi > 0 ? process.argv[bi + 1] : undefined;
if (!before) {
  console.error("usage: npx tsx bench/hooks-same.ts --before <bundle> [--transcript file.jsonl ...]");
  process.exit(2);
}
const extra = process.argv.flatMap((a, i) => (a === "--transcript" ? [process.argv[i + 1] as string] : []));
const sessions = join(repo, "data", "sessions");
const transcripts = [
  ...readdirSync(sessions).filter((d) => existsSync(join(sessions, d, "transcript.jsonl"))).map((d) => join(sessions, d, "transcript.jsonl")),
  ...extra.map((t) => resolve(t)),
];

/** sha256 of every file under `dir` but the hook log, by relative path (the archive state names no absolute path). */
function tree(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string, rel: string): void => {
    if (!existsSync(d)) return;
    for (const n of readdirSync(d).sort()) {
      const p = join(d, n);
      const r = rel ? `${rel}/${n}` : n;
      if (statSync(p).isDirectory()) walk(p, r);
      else if (!r.startsWith(".state/hook.log")) out.set(r, createHash("sha256").update(readFileSync(p)).digest("hex"));
    }
  };
  walk(dir, "");
  return out;
}

const root = mkdtempSync(join(tmpdir(), "kt-hooks-same-"));
let differ = 0;
try {
  transcripts.forEach((t, i) => {
    const got: string[] = [];
    for (const [label, bundle] of [["before", before], ["after", after]] as const) {
      // The same project path for both builds: the cursor records the transcript path, the sidecar the rules.
      const project = join(root, `p${i}`);
      rmSync(project, { recursive: true, force: true });
      mkdirSync(project);
      const payload = JSON.stringify({ session_id: `same-${i}`, transcript_path: t, cwd: project, hook_event_name: "PreCompact", trigger: "auto" });
      const r = spawnSync(process.execPath, [bundle, "hook", "pre-compact"], { input: payload, encoding: "utf8", env: { PATH: process.env.PATH ?? "", HOME: root } });
      const files = tree(join(project, ".claude", "rules", "knowledge-triage"));
      got.push(JSON.stringify({ code: r.status, stdout: r.stdout.replaceAll(project, "<project>"), files: [...files] }));
      if (label === "after" && got[0] !== got[1]) {
        differ++;
        console.log(`DIFFERS: ${t}`);
      }
    }
  });
} finally {
  rmSync(root, { recursive: true, force: true });
}
console.log(`${transcripts.length - differ} of ${transcripts.length} PreCompact runs write the same files and print the same text (${transcripts.length - extra.length} real sessions of data/sessions, ${extra.length} more)`);
process.exit(differ ? 1 : 0);
