/**
 * `npm run bench:redact`: what the redactor (scripts/memory/redact.ts) lets through and what it takes away.
 * 1. The fake-secret corpus (tests/fixtures/memory/secrets.ts): shapes missed by the full redactor and by our own
 *    patterns alone (what logs use), and non-secret sentences changed.
 * 2. The real-CLI sessions in data/sessions/ (placeholders expanded): every secret occurrence in the user's text
 *    is looked up after redaction, per split (dev / heldout), plus the words of non-secret text that redaction
 *    removed (over-redaction). `--verbose` prints each leak and each removed word.
 * 3. Speed of our own patterns (redactSync, what every utterance and log line goes through) over the sessions'
 *    user text repeated 20 times, in characters per second.
 * 4. The same sessions end to end: each is extracted (the bundled model) into a fresh rules folder, then every
 *    file there, the PreCompact and SessionStart(compact) stdout are searched for every corpus needle.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pinnedText, precompactText, SESSIONSTART_HEAD } from "../scripts/hooks/hook-output.js";
import { loadClassifier } from "../scripts/io/model-file.js";
import { extractTranscript } from "../scripts/memory/pipeline/extract-api.js";
import { redactSync, redactTexts } from "../scripts/memory/redact.js";
import { userUtterance } from "../scripts/memory/transcript.js";
import { expandSecretsJsonl, FAKE_SECRETS, holdsSecret, NOT_SECRETS } from "../tests/fixtures/memory/secrets.js";
import { filesUnder } from "../tests/memory/helpers.js";

const verbose = process.argv.includes("--verbose");
const sessionsDir = join(resolve(import.meta.dirname, ".."), "data", "sessions");

async function corpus(): Promise<void> {
  const red = (await redactTexts(FAKE_SECRETS.map((s) => s.text))).texts;
  const missed = FAKE_SECRETS.filter((s, i) => (red[i] as string).includes(s.needle));
  const missedOwn = FAKE_SECRETS.filter((s) => redactSync(s.text).includes(s.needle));
  const kept = (await redactTexts(NOT_SECRETS)).texts;
  const changed = NOT_SECRETS.filter((t, i) => kept[i] !== t || redactSync(t) !== t);
  console.log(
    `corpus: ${FAKE_SECRETS.length} secret shapes, ${missed.length} missed (${missedOwn.length} by own patterns alone); ` +
      `${NOT_SECRETS.length} sentences without a secret, ${changed.length} changed`,
  );
  if (verbose) for (const s of [...missed, ...missedOwn]) console.log(`  missed ${s.name}`);
  if (verbose) for (const t of changed) console.log(`  changed: ${t}`);
}

interface SplitCount {
  sessions: number;
  occurrences: number;
  leaked: number;
  words: number;
  wordsRemoved: number;
}

/** Whitespace-separated words of `text` that hold no needle, and whether each survives in `out`. */
function removedWords(text: string, out: string, needles: string[]): { words: number; removed: string[] } {
  const outWords = new Map<string, number>();
  for (const w of out.split(/\s+/)) outWords.set(w, (outWords.get(w) ?? 0) + 1);
  let words = 0;
  const removed: string[] = [];
  for (const w of text.split(/\s+/)) {
    if (w === "" || needles.some((n) => n.includes(w) || w.includes(n) || n.split(/\s+/).some((p) => p.length > 3 && w.includes(p)))) continue;
    words++;
    const left = outWords.get(w) ?? 0;
    if (left > 0) outWords.set(w, left - 1);
    else removed.push(w);
  }
  return { words, removed };
}

/** User texts of every session, placeholders expanded. */
function sessionTexts(): string[] {
  const out: string[] = [];
  for (const name of readdirSync(sessionsDir).filter((d) => !d.includes(".")).sort()) {
    for (const line of expandSecretsJsonl(readFileSync(join(sessionsDir, name, "transcript.jsonl"), "utf8")).split("\n")) {
      if (line.trim() === "") continue;
      const u = userUtterance(JSON.parse(line));
      if (typeof u !== "string") out.push(u.text);
    }
  }
  return out;
}

function speed(): void {
  const texts = Array.from({ length: 20 }, () => sessionTexts()).flat();
  const chars = texts.reduce((n, t) => n + t.length, 0);
  for (const t of texts.slice(0, 200)) redactSync(t); // warm-up
  const t0 = performance.now();
  for (const t of texts) redactSync(t);
  const ms = performance.now() - t0;
  console.log(`own patterns: ${(chars / 1e6).toFixed(2)} M characters of session user text in ${ms.toFixed(0)} ms (${(chars / 1e3 / ms).toFixed(2)} M characters/s)`);
}

async function sessions(): Promise<void> {
  const splits = new Map<string, SplitCount>();
  for (const name of readdirSync(sessionsDir).filter((d) => !d.includes(".")).sort()) {
    const gold = JSON.parse(readFileSync(join(sessionsDir, name, "gold.json"), "utf8")) as { split: string };
    const raw = readFileSync(join(sessionsDir, name, "transcript.jsonl"), "utf8");
    const names = [...new Set([...raw.matchAll(/\$\{SECRET:([\w-]+)\}/g)].map((m) => m[1] as string))];
    const needles = names.map((n) => FAKE_SECRETS.find((f) => f.name === n)?.needle as string);
    const texts: string[] = [];
    for (const line of expandSecretsJsonl(raw).split("\n")) {
      if (line.trim() === "") continue;
      const u = userUtterance(JSON.parse(line));
      if (typeof u !== "string") texts.push(u.text);
    }
    const red = (await redactTexts(texts)).texts;
    const c = splits.get(gold.split) ?? { sessions: 0, occurrences: 0, leaked: 0, words: 0, wordsRemoved: 0 };
    c.sessions++;
    texts.forEach((t, i) => {
      const out = red[i] as string;
      for (const n of needles) {
        if (!t.includes(n)) continue;
        c.occurrences++;
        if (out.includes(n)) {
          c.leaked++;
          if (verbose) console.log(`  leak ${name}: ${out.replace(/\s+/g, " ").slice(0, 200)}`);
        }
      }
      const r = removedWords(t, out, needles);
      c.words += r.words;
      c.wordsRemoved += r.removed.length;
      if (verbose && r.removed.length > 0) console.log(`  removed in ${name}: ${r.removed.join(" ")}`);
    });
    splits.set(gold.split, c);
  }
  for (const [split, c] of [...splits].sort()) {
    console.log(
      `data/sessions ${split}: ${c.sessions} sessions, ${c.occurrences} secret occurrences in user text, ${c.leaked} left after redaction; ` +
        `${c.wordsRemoved} of ${c.words} other words removed`,
    );
  }
}

/** Extract every session into a fresh rules folder; count needles in its files and in the hooks' stdout. */
async function endToEnd(): Promise<void> {
  const classifier = loadClassifier();
  const splits = new Map<string, { sessions: number; written: number; leaks: number }>();
  for (const name of readdirSync(sessionsDir).filter((d) => !d.includes(".")).sort()) {
    const gold = JSON.parse(readFileSync(join(sessionsDir, name, "gold.json"), "utf8")) as { split: string };
    const work = mkdtempSync(join(tmpdir(), "kt-bench-redact-"));
    try {
      const transcriptPath = join(work, `${name}.jsonl`);
      writeFileSync(transcriptPath, expandSecretsJsonl(readFileSync(join(sessionsDir, name, "transcript.jsonl"), "utf8")));
      const rulesDir = join(work, "rules");
      const report = await extractTranscript({ transcriptPath, rulesDir, sessionId: name, classifier });
      const outputs = [
        JSON.stringify(report),
        precompactText(rulesDir, name, 1e6),
        pinnedText(rulesDir, SESSIONSTART_HEAD),
        ...filesUnder(rulesDir).map((f) => `${f}\n${readFileSync(join(rulesDir, f), "utf8")}`),
      ].join("\n");
      const c = splits.get(gold.split) ?? { sessions: 0, written: 0, leaks: 0 };
      c.sessions++;
      c.written += filesUnder(rulesDir).length;
      for (const s of FAKE_SECRETS) {
        if (!holdsSecret(outputs, s)) continue;
        c.leaks++;
        if (verbose) console.log(`  leak ${name}: ${s.name}`);
      }
      splits.set(gold.split, c);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }
  for (const [split, c] of [...splits].sort()) {
    console.log(`data/sessions ${split} extracted: ${c.sessions} sessions, ${c.written} files written; corpus secrets found in files, report or hook stdout: ${c.leaks}`);
  }
}

console.log("redaction (own patterns + secretlint's recommended preset)");
await corpus();
await sessions();
speed();
await endToEnd();
