// Rebuilds the real-file measurement set from public repository snapshots.
//
// Reads every bench/real/keys/*.jsonl (one labelled file per line), finds the
// fetched snapshot of each repository, extracts the file at the recorded commit,
// verifies the file sha256 and every labelled line hash, and writes
//   .cache/real/<id>.md            exact file text
//   .cache/real/<id>.labels.jsonl  {"line","type","domain","lang"} per labelled line
//   .cache/real/index.json         [{id, repo, path, kind, lang, domain}]
// Third-party text is only ever written under .cache/real/.
//
// Usage (from any directory):
//   tsx bench/real/rebuild.ts [--mirror DIR]
// Mirror root: --mirror DIR, else $KNOWLEDGE_TRIAGE_MIRROR, else /work/.mirror.
// A snapshot of owner/name lives at <mirror>/<owner>+<name>/repo (a bare git dir).
// Exit code: 0 unless some file mismatched (or a key file is malformed).

import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";

type LabelType = "constraint" | "procedural" | "belief" | "preference" | "episodic";
const TYPES = new Set<string>(["constraint", "procedural", "belief", "preference", "episodic"]);

interface KeyEntry {
  id: string;
  repo: string;
  path: string;
  commit: string;
  kind: string;
  lang: string;
  domain: string;
  sha256: string;
  labels: [number, LabelType, string][];
}

const root = resolve(import.meta.dirname, "..", "..");
const keysDir = join(root, "bench", "real", "keys");
const outDir = join(root, ".cache", "real");

function mirrorRoot(): string {
  const i = process.argv.indexOf("--mirror");
  if (i >= 0) {
    const v = process.argv[i + 1];
    if (!v) {
      console.error("--mirror needs a directory");
      process.exit(2);
    }
    return resolve(v);
  }
  const m = process.argv.find((a) => a.startsWith("--mirror="));
  if (m) return resolve(m.slice("--mirror=".length));
  if (process.env.KNOWLEDGE_TRIAGE_MIRROR) return resolve(process.env.KNOWLEDGE_TRIAGE_MIRROR);
  return "/work/.mirror";
}

function sha256(data: Buffer | string): string {
  return createHash("sha256").update(data).digest("hex");
}

/** Candidate git dirs for a repo snapshot (fetch stores owner/name at owner+name/repo). */
function gitDirFor(mirror: string, repo: string): string | null {
  const [owner, name] = repo.split("/");
  const bases = [`${owner}+${name}`, `${owner}+${name}`.toLowerCase()];
  for (const b of bases) {
    for (const sub of ["repo", ""]) {
      const d = sub ? join(mirror, b, sub) : join(mirror, b);
      if (existsSync(join(d, "HEAD")) || existsSync(join(d, ".git", "HEAD"))) return d;
    }
  }
  // case-insensitive fallback
  if (existsSync(mirror)) {
    const want = `${owner}+${name}`.toLowerCase();
    for (const e of readdirSync(mirror)) {
      if (e.toLowerCase() === want) {
        const d = join(mirror, e, "repo");
        if (existsSync(join(d, "HEAD"))) return d;
      }
    }
  }
  return null;
}

/** Physical lines as the labels count them: split on \n, drop a trailing \r, no final empty line. */
function physicalLines(text: string): string[] {
  const lines = text.split("\n");
  if (text.endsWith("\n")) lines.pop();
  return lines.map((l) => (l.endsWith("\r") ? l.slice(0, -1) : l));
}

function readKeys(): { entries: KeyEntry[]; bad: number } {
  let bad = 0;
  const entries: KeyEntry[] = [];
  if (!existsSync(keysDir)) return { entries, bad };
  for (const f of readdirSync(keysDir).filter((n) => n.endsWith(".jsonl")).sort()) {
    const lines = readFileSync(join(keysDir, f), "utf8").split("\n");
    lines.forEach((l, i) => {
      if (!l.trim()) return;
      try {
        const e = JSON.parse(l) as KeyEntry;
        if (!e.id || !e.repo || !e.path || !/^[0-9a-f]{40}$/.test(e.commit) || !Array.isArray(e.labels)) {
          throw new Error("missing id/repo/path/commit/labels");
        }
        entries.push(e);
      } catch (err) {
        console.error(`ERROR ${f}:${i + 1}: malformed key line (${(err as Error).message})`);
        bad++;
      }
    });
  }
  return { entries, bad };
}

function main(): void {
  const mirror = mirrorRoot();
  const { entries, bad } = readKeys();
  mkdirSync(outDir, { recursive: true });

  let rebuilt = 0;
  let lineCount = 0;
  let missing = 0;
  let mismatched = bad;
  const index: { id: string; repo: string; path: string; kind: string; lang: string; domain: string }[] = [];
  const seenIds = new Set<string>();

  for (const e of entries) {
    if (seenIds.has(e.id)) {
      console.error(`ERROR ${e.id}: duplicate id`);
      mismatched++;
      continue;
    }
    seenIds.add(e.id);

    const gitDir = gitDirFor(mirror, e.repo);
    if (!gitDir) {
      console.log(`MISSING ${e.id}: no snapshot of ${e.repo} under ${mirror} — fetch github:${e.repo} first`);
      missing++;
      continue;
    }

    let raw: Buffer;
    try {
      raw = execFileSync("git", ["--git-dir", gitDir, "show", `${e.commit}:${e.path}`], {
        maxBuffer: 64 * 1024 * 1024,
        stdio: ["ignore", "pipe", "pipe"],
      });
    } catch {
      // The snapshot exists but lacks this commit (e.g. a newer snapshot was fetched).
      console.log(`MISSING ${e.id}: ${e.repo} snapshot lacks ${e.commit.slice(0, 12)}:${e.path} — fetch github:${e.repo} first`);
      missing++;
      continue;
    }

    if (sha256(raw) !== e.sha256) {
      console.error(`ERROR ${e.id}: file sha256 mismatch for ${e.repo}:${e.path}@${e.commit.slice(0, 12)}`);
      mismatched++;
      continue;
    }

    const text = raw.toString("utf8");
    const lines = physicalLines(text);
    const problems: string[] = [];
    const seenLines = new Set<number>();
    for (const [n, type, h] of e.labels) {
      if (!TYPES.has(type)) problems.push(`line ${n}: unknown type ${type}`);
      if (seenLines.has(n)) problems.push(`line ${n}: labelled twice`);
      seenLines.add(n);
      if (n < 1 || n > lines.length) {
        problems.push(`line ${n}: out of range (file has ${lines.length})`);
        continue;
      }
      if (sha256(lines[n - 1] ?? "").slice(0, 12) !== h) problems.push(`line ${n}: hash mismatch`);
    }
    if (problems.length) {
      console.error(`ERROR ${e.id}: ${e.repo}:${e.path}: ${problems.slice(0, 5).join("; ")}${problems.length > 5 ? ` (+${problems.length - 5} more)` : ""}`);
      mismatched++;
      continue;
    }

    writeFileSync(join(outDir, `${e.id}.md`), raw);
    const out = [...e.labels]
      .sort((a, b) => a[0] - b[0])
      .map(([n, type]) => JSON.stringify({ line: n, type, domain: e.domain, lang: e.lang }))
      .join("\n");
    writeFileSync(join(outDir, `${e.id}.labels.jsonl`), out + (out ? "\n" : ""));
    index.push({ id: e.id, repo: e.repo, path: e.path, kind: e.kind, lang: e.lang, domain: e.domain });
    rebuilt++;
    lineCount += e.labels.length;
  }

  index.sort((a, b) => a.id.localeCompare(b.id));
  writeFileSync(join(outDir, "index.json"), JSON.stringify(index, null, 2) + "\n");
  console.log(
    `rebuilt ${rebuilt} files, ${lineCount} labelled lines; missing ${missing}; mismatched ${mismatched} (keys: ${keysDir}, mirror: ${mirror}, out: ${outDir})`,
  );
  process.exit(mismatched > 0 ? 1 : 0);
}

main();
