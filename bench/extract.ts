/**
 * `npm run bench:extract`: quality and speed of transcript extraction.
 * 1. Real-CLI sessions (data/sessions, dev and heldout splits apart, dev also by recording round s1/s2, s3, s4 and s5, then all): precision, recall per language,
 *    withdrawn/superseded rules written, non-rules written, scope right on scoped rules, secrets leaked into the
 *    rules folder; then precision / recall on the old authored transcripts in data/transcripts/ (gold:
 *    <name>.gold.json). Matching as in tests/fixtures/memory/gold.ts.
 * 2. Latency and peak RSS on a generated 50 MB transcript: first run and an incremental run after a small
 *    append, each in a fresh `node dist/triage.mjs extract` process (what a hook pays) and in process.
 * 3. Scale: N = 2,000 / 5,000 / 10,000 distinct rule sentences, in process (consolidation must stay near-linear).
 * 4. Numbered near-identical rules: 27,233 turns "never push to main number N" (about 20 MB), in process.
 * Flags: --quality (only 1), --speed (only 2, 3 and 4), --mb N (size of the generated transcript, default 50),
 * --numbered N[,N...] (only 4, with these turn counts), --regex (regex classifier tier instead of the bundled
 * model), --verbose (list misses and false positives).
 */
import { execFileSync, spawnSync } from "node:child_process";
import { appendFileSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync, createWriteStream } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { regexClassifier, type Classifier } from "../scripts/engine/classify.js";
import { loadClassifier } from "../scripts/io/model-file.js";
import { runExtract } from "../scripts/memory/pipeline/extract-run.js";
import { loadStore } from "../scripts/memory/store/state.js";
import { parseGold, score, scoreSession, type Gold } from "../tests/fixtures/memory/gold.js";
import { distinctRules, numberedRules, ruleTurns } from "../tests/fixtures/memory/many-rules.js";
import { expandSecrets, FAKE_SECRETS, holdsSecret } from "../tests/fixtures/memory/secrets.js";

const args = new Set(process.argv.slice(2));
const mbArg = process.argv.indexOf("--mb");
const MB = mbArg > 0 ? Number(process.argv[mbArg + 1]) : 50;
const numberedArg = process.argv.indexOf("--numbered");
const NUMBERED = numberedArg > 0 ? String(process.argv[numberedArg + 1]).split(",").map(Number) : [27_233];
const root = resolve(import.meta.dirname, "..");
const dataDir = join(root, "data", "transcripts");
const sessionsDir = join(root, "data", "sessions");

function classifier(): Classifier {
  if (args.has("--regex")) return regexClassifier;
  try {
    return loadClassifier();
  } catch (e) {
    console.log(`(model not loadable: ${(e as Error).message.split("\n")[0]}; using the regex tier)`);
    return regexClassifier;
  }
}

async function quality(label: string, filter: (name: string) => boolean): Promise<{ precision: number; recall: number }> {
  const c = classifier();
  let tp = 0;
  let fp = 0;
  let fn = 0;
  let turns = 0;
  let leaks = 0;
  const names = readdirSync(dataDir).filter((f) => f.endsWith(".jsonl") && filter(f)).sort();
  for (const f of names) {
    const work = mkdtempSync(join(tmpdir(), "kt-bench-"));
    const tpath = join(work, f);
    const raw = readFileSync(join(dataDir, f), "utf8");
    writeFileSync(tpath, expandSecrets(raw));
    turns += raw.split("\n").filter((l) => l.includes('"type":"user"') && l.includes('"content":"') && !l.includes("isMeta") && !l.includes("isSidechain\":true") && !l.includes("<command") && !l.includes("<local-command") && !l.includes("isCompactSummary")).length;
    const gold = (JSON.parse(readFileSync(join(dataDir, f.replace(/\.jsonl$/, ".gold.json")), "utf8")) as { rules: string[] }).rules.map((g) =>
      g.replace(/\$\{SECRET:[\w-]+\}/g, "[REDACTED]"),
    );
    const rulesDir = join(work, "rules");
    await runExtract({ transcriptPath: tpath, rulesDir, classifier: c });
    const active = loadStore(rulesDir).rules.filter((r) => r.status === "active").map((r) => r.text);
    const sc = score(active, gold);
    tp += sc.tp;
    fp += sc.fp.length;
    fn += sc.fn.length;
    if (args.has("--verbose")) {
      for (const p of sc.fp) console.log(`  FP ${f}: ${p}`);
      for (const g of sc.fn) console.log(`  FN ${f}: ${g}`);
    }
    // No secret may reach any file of the rules folder (rules, sidecar, cursors).
    const all = execFileSync("sh", ["-c", `cat $(find "${rulesDir}" -type f)`]).toString();
    for (const s of FAKE_SECRETS) if (holdsSecret(all, s)) leaks++;
    rmSync(work, { recursive: true, force: true });
  }
  const precision = tp / Math.max(1, tp + fp);
  const recall = tp / Math.max(1, tp + fn);
  console.log(`quality, ${label} (${c.name} classifier): ${names.length} transcripts, ${turns} typed user turns, gold rules ${tp + fn}`);
  console.log(`  precision ${precision.toFixed(3)}  recall ${recall.toFixed(3)}  (tp ${tp}, fp ${fp}, fn ${fn}); secrets leaked into rules folder: ${leaks}`);
  return { precision, recall };
}


/**
 * The folders of a session's project (relative to its cwd): every folder made by `mkdir -p` or holding a file
 * written by `> path` in script.json `setup`, with their parents, plus the folders named in the gold scopes
 * (sessions without a setup). This is the injectable list of existing folders the extractor gets in a bench run.
 */
export function sessionFolders(setup: string | undefined, gold: Gold): string[] {
  const out = new Set<string>();
  const add = (p: string): void => {
    const parts = p.replace(/^\.\//, "").split("/").filter((x) => x !== "" && !x.includes("*"));
    for (let i = 1; i <= parts.length; i++) out.add(parts.slice(0, i).join("/"));
  };
  for (const cmd of (setup ?? "").split(/&&|;/)) {
    const m = /^\s*mkdir\s+-p\s+(.+)$/.exec(cmd);
    if (m) for (const d of (m[1] as string).trim().split(/\s+/)) add(d);
    const w = />\s*([\w./-]+)\s*$/.exec(cmd);
    if (w) add((w[1] as string).split("/").slice(0, -1).join("/"));
  }
  for (const r of gold.rules) for (const g of r.scope ?? []) add(g.replace(/\/\*\*.*$|\/\*[^/]*$/, "").replace(/\/[^/]*\.[^/]*$/, ""));
  return [...out].sort();
}

/** Language of a gold rule: the session's, or by script for a mixed session ("en+zh"). */
function ruleLang(sessionLang: string, text: string): string {
  if (!sessionLang.includes("+")) return sessionLang;
  const [a, b] = sessionLang.split("+") as [string, string];
  return /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u.test(text) ? b : a;
}

interface Tally {
  tp: number;
  fp: number;
  fn: number;
  inactive: number;
  nonRules: number;
  scoped: number;
  scopeRight: number;
  expiring: number;
  expiryStored: number;
  leaks: number;
  secrets: number;
  byLang: Map<string, { hit: number; all: number }>;
}

/**
 * Real-CLI sessions (data/sessions, gold.json as in data/sessions/README.md) of one split: precision, recall per
 * language, withdrawn/superseded rules written, non-rules written, scope agreement, expiries stored, secrets leaked.
 */
async function sessionQuality(split: string, only: (name: string) => boolean = () => true, label = `${split} split`): Promise<Tally> {
  const c = classifier();
  const t: Tally = { tp: 0, fp: 0, fn: 0, inactive: 0, nonRules: 0, scoped: 0, scopeRight: 0, expiring: 0, expiryStored: 0, leaks: 0, secrets: 0, byLang: new Map() };
  const names = readdirSync(sessionsDir).filter((d) => existsSync(join(sessionsDir, d, "gold.json"))).sort();
  let n = 0;
  for (const name of names) {
    const gold = parseGold(JSON.parse(readFileSync(join(sessionsDir, name, "gold.json"), "utf8")));
    if ((split !== "all" && gold.split !== split) || !only(name)) continue;
    n++;
    const script = JSON.parse(readFileSync(join(sessionsDir, name, "script.json"), "utf8")) as { setup?: string };
    const work = mkdtempSync(join(tmpdir(), "kt-bench-s-"));
    const tpath = join(work, `${name}.jsonl`);
    writeFileSync(tpath, expandSecrets(readFileSync(join(sessionsDir, name, "transcript.jsonl"), "utf8")));
    const rulesDir = join(work, "rules");
    await runExtract({ transcriptPath: tpath, rulesDir, classifier: c, folders: sessionFolders(script.setup, gold) });
    const active = loadStore(rulesDir).rules.filter((r) => r.status === "active");
    const sc = scoreSession(active, gold);
    t.tp += sc.tp;
    t.fp += sc.fp.length;
    t.fn += sc.fn.length;
    t.inactive += sc.inactiveWritten.length;
    t.nonRules += sc.nonRulesWritten.length;
    t.scoped += sc.scoped;
    t.scopeRight += sc.scopeRight;
    t.expiring += sc.expiring;
    t.expiryStored += sc.expiryStored;
    gold.rules.forEach((g, i) => {
      const l = ruleLang(gold.lang, g.text);
      const e = t.byLang.get(l) ?? { hit: 0, all: 0 };
      e.all++;
      if (sc.matched[i]) e.hit++;
      t.byLang.set(l, e);
    });
    // Held-out sessions are never listed (only counted), so nobody tunes on them by accident.
    if (args.has("--verbose") && gold.split !== "heldout") {
      for (const p of sc.fp) console.log(`  FP ${name}: ${p.replace(/\n/g, " / ")}${sc.inactiveWritten.includes(p) ? "  [WITHDRAWN]" : sc.nonRulesWritten.includes(p) ? "  [NON-RULE]" : ""}`);
      for (const g of sc.fn) console.log(`  FN ${name} (${g.class ?? "?"}): ${g.text.replace(/\n/g, " / ")}`);
      for (const w of sc.scopeWrong) console.log(`  SCOPE ${name}: ${w.text.slice(0, 70)} -> [${w.predicted.join(", ")}] gold [${(w.gold ?? []).join(", ")}]`);
    }
    const all = execFileSync("sh", ["-c", `find "${rulesDir}" -type f -exec cat {} + 2>/dev/null || true`]).toString();
    t.secrets += gold.secrets.length;
    for (const s of FAKE_SECRETS) if (holdsSecret(all, s)) t.leaks++;
    rmSync(work, { recursive: true, force: true });
  }
  const f = (x: number, y: number): string => (y === 0 ? "n/a" : (x / y).toFixed(3));
  console.log(`quality, real-CLI sessions, ${label} (${c.name} classifier): ${n} sessions, gold rules ${t.tp + t.fn}`);
  console.log(`  precision ${f(t.tp, t.tp + t.fp)}  recall ${f(t.tp, t.tp + t.fn)}  (tp ${t.tp}, fp ${t.fp}, fn ${t.fn})`);
  const langs = [...t.byLang.entries()].sort((a, b) => a[0].localeCompare(b[0]));
  console.log(`  recall by language: ${langs.map(([l, e]) => `${l} ${e.hit}/${e.all} (${f(e.hit, e.all)})`).join(", ")}`);
  console.log(`  withdrawn/superseded rules written: ${t.inactive}; non-rules written: ${t.nonRules}; scope right on ${t.scopeRight}/${t.scoped} scoped rules (${f(t.scopeRight, t.scoped)}); expiry stored on ${t.expiryStored}/${t.expiring} expiring rules; secrets leaked into the rules folder: ${t.leaks} (of ${t.secrets} pasted)`);
  return t;
}

/** Write a transcript of about `mb` MB: filler turns with tool results (some 2 MB lines), rules near start and end. */
async function generate(path: string, mb: number): Promise<void> {
  const out = createWriteStream(path);
  const write = (s: string): Promise<void> => new Promise((res) => (out.write(s) ? res() : out.once("drain", () => res())));
  const base = { isSidechain: false, userType: "external", cwd: "/home/dev/big", sessionId: "big", version: "2.1.197" };
  let bytes = 0;
  let i = 0;
  const line = async (o: unknown): Promise<void> => {
    const s = `${JSON.stringify(o)}\n`;
    bytes += s.length;
    await write(s);
  };
  await line({ ...base, type: "user", uuid: "u0", message: { role: "user", content: "From now on, never force-push to shared branches." } });
  const blob = "x".repeat(4000);
  while (bytes < mb * 1e6) {
    i++;
    await line({ ...base, type: "user", uuid: `u${i}`, message: { role: "user", content: `please look at module ${i} and tell me what it does` } });
    await line({ ...base, type: "assistant", uuid: `a${i}`, message: { role: "assistant", content: [{ type: "tool_use", id: `t${i}`, name: "Read", input: { file_path: `/src/m${i}.ts` } }] } });
    const body = i % 500 === 0 ? "y".repeat(2_000_000) : blob;
    await line({ ...base, type: "user", uuid: `r${i}`, message: { role: "user", content: [{ type: "tool_result", tool_use_id: `t${i}`, content: body }] } });
    await line({ ...base, type: "assistant", uuid: `b${i}`, message: { role: "assistant", content: [{ type: "text", text: `Module ${i} parses the config.` }] } });
  }
  await line({ ...base, type: "user", uuid: "ulast", message: { role: "user", content: "Always run `make check` before pushing." } });
  await new Promise<void>((res) => out.end(() => res()));
}

function timeCli(transcript: string, rulesDir: string): { ms: number; rssMb: number; out: string } {
  const t0 = performance.now();
  const r = spawnSync("/usr/bin/time", ["-f", "%M", process.execPath, join(root, "dist", "triage.mjs"), "extract", transcript, "--rules-dir", rulesDir, "--json", ...(args.has("--regex") ? ["--model", "/dev/null"] : [])], {
    encoding: "utf8",
  });
  const ms = performance.now() - t0;
  const errLines = r.stderr.trim().split("\n");
  const rssKb = Number((errLines.pop() ?? "0").trim());
  const out = r.status === 0 ? r.stdout.trim() : `FAILED (exit ${r.status}): ${errLines.join(" | ").slice(0, 200)}`;
  return { ms, rssMb: rssKb / 1024, out };
}

async function speed(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), "kt-bench-big-"));
  const t = join(work, "big.jsonl");
  await generate(t, MB);
  const size = readFileSync(t).length === 0 ? 0 : (await import("node:fs")).statSync(t).size;
  console.log(`speed: generated transcript ${(size / 1e6).toFixed(1)} MB`);
  if (!existsSync(join(root, "dist", "triage.mjs"))) execFileSync(process.execPath, [join(root, "scripts", "build", "build.mjs")], { cwd: root });
  const hasTime = existsSync("/usr/bin/time");
  const rulesDir = join(work, "rules");
  if (hasTime) {
    const first = timeCli(t, rulesDir);
    console.log(`  CLI first run:        ${first.ms.toFixed(0)} ms wall, peak RSS ${first.rssMb.toFixed(0)} MB  ${first.out.slice(0, 120)}`);
    const again = timeCli(t, rulesDir);
    console.log(`  CLI no-change rerun:  ${again.ms.toFixed(0)} ms wall, peak RSS ${again.rssMb.toFixed(0)} MB`);
    appendFileSync(t, `${JSON.stringify({ type: "user", uuid: "uappend", sessionId: "big", message: { role: "user", content: "Never commit secrets to the repo." } })}\n`);
    const inc = timeCli(t, rulesDir);
    console.log(`  CLI incremental (small append): ${inc.ms.toFixed(0)} ms wall, peak RSS ${inc.rssMb.toFixed(0)} MB  ${inc.out.slice(0, 120)}`);
  }
  // In process (no node start-up): what a long-lived caller pays.
  const rd2 = join(work, "rules2");
  const c = classifier();
  const m0 = process.memoryUsage().rss;
  let t0 = performance.now();
  const r1 = await runExtract({ transcriptPath: t, rulesDir: rd2, classifier: c });
  const first = performance.now() - t0;
  appendFileSync(t, `${JSON.stringify({ type: "user", uuid: "uappend2", sessionId: "big", message: { role: "user", content: "Always sign release tags." } })}\n`);
  t0 = performance.now();
  const r2 = await runExtract({ transcriptPath: t, rulesDir: rd2, classifier: c });
  const inc = performance.now() - t0;
  console.log(`  in-process first run: ${first.toFixed(0)} ms (${r1.linesRead} lines, ${r1.added} rules), incremental: ${inc.toFixed(1)} ms (${r2.linesRead} new lines, ${r2.added} added); RSS growth ${((process.memoryUsage().rss - m0) / 1e6).toFixed(0)} MB`);
  rmSync(work, { recursive: true, force: true });
}

/**
 * Consolidation scale: in-process extraction of N distinct rule sentences (tests/fixtures/memory/many-rules.ts),
 * one user turn each, regex tier (the classifier is not what is measured). Near-linear since candidates come
 * from an inverted index (was 2.8 s / 35 s / 148 s for 2,000 / 5,000 / 10,000 before).
 */
async function scale(): Promise<void> {
  for (const n of [2000, 5000, 10_000]) {
    const work = mkdtempSync(join(tmpdir(), "kt-bench-scale-"));
    const t = join(work, "rules.jsonl");
    const base = { isSidechain: false, userType: "external", cwd: "/home/dev/scale", sessionId: "scale", version: "2.1.197" };
    writeFileSync(t, `${distinctRules(n).map((r, i) => JSON.stringify({ ...base, type: "user", uuid: `s${i}`, message: { role: "user", content: r } })).join("\n")}\n`);
    const t0 = performance.now();
    const r = await runExtract({ transcriptPath: t, rulesDir: join(work, "rules"), classifier: regexClassifier });
    const ms = performance.now() - t0;
    console.log(`  scale: ${String(n).padStart(6)} distinct rule sentences -> ${r.added} rules in ${ms.toFixed(0)} ms (${(ms / n).toFixed(2)} ms/sentence)`);
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * Consolidation on N user turns "never push to main number 1" ... "number N", each acknowledged by the
 * assistant (tests/fixtures/memory/many-rules.ts: 27,233 turns are about 20 MB), in process, regex tier.
 * Every two rules share 3 of their 4 content terms, yet they are N distinct rules (their numbers differ).
 * Was quadratic (every earlier rule a candidate): 3,000 / 6,000 / 12,000 turns took 18.5 s / 101 s / 264 s on
 * a shared 2-core machine, and 27,233 turns ran for over 12 minutes; now 1.0 s / 1.1 s / 1.1 s and 3.8 s.
 */
async function numbered(sizes: readonly number[]): Promise<void> {
  for (const n of sizes) {
    const work = mkdtempSync(join(tmpdir(), "kt-bench-numbered-"));
    const t = join(work, "numbered.jsonl");
    writeFileSync(t, `${ruleTurns(numberedRules(n), "numbered").join("\n")}\n`);
    const mb = (await import("node:fs")).statSync(t).size / 1e6;
    const rulesDir = join(work, "rules");
    const t0 = performance.now();
    const r = await runExtract({ transcriptPath: t, rulesDir, classifier: regexClassifier });
    const ms = performance.now() - t0;
    const active = loadStore(rulesDir).rules.filter((x) => x.status === "active").length;
    console.log(`  numbered: ${String(n).padStart(6)} turns (${mb.toFixed(1)} MB) -> ${active} rules (${r.added} added) in ${ms.toFixed(0)} ms (${(ms / n).toFixed(3)} ms/turn)`);
    rmSync(work, { recursive: true, force: true });
  }
}

if (numberedArg > 0) {
  await numbered(NUMBERED);
} else {
  if (!args.has("--speed")) {
    await sessionQuality("dev");
    // The dev split by recording round: s1/s2 (tuned on since issue 13), then each later round (s3, s4, ...: added
    // later, first measured unseen) on its own.
    await sessionQuality("dev", (n) => /^s[12]-/.test(n), "dev split, s1/s2 sessions");
    const rounds = [...new Set(readdirSync(sessionsDir).map((d) => /^(s\d+)-/.exec(d)?.[1]).filter((r): r is string => r !== undefined && !/^s[12]$/.test(r)))].sort();
    for (const r of rounds) await sessionQuality("dev", (n) => n.startsWith(`${r}-`), `dev split, ${r} sessions`);
    await sessionQuality("heldout");
    await sessionQuality("all");
    await quality("old authored transcripts, tuning set", (f) => !f.startsWith("h"));
    await quality("old authored transcripts, held-out set (h-*, written after tuning)", (f) => f.startsWith("h"));
    await quality("old authored transcripts, all", () => true);
  }
  if (!args.has("--quality")) {
    await speed();
    await scale();
    await numbered(NUMBERED);
  }
}
