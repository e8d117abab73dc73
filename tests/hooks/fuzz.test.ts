/**
 * Fuzz (issue 14): hostile hook payloads and transcripts (tests/fixtures/memory/fuzz-inputs.ts), seeded. The
 * hooks, run as Claude Code runs them (the built bundle), must always exit 0, never print JSON and never write
 * outside the project's rules folder; the extractor, in process, must never throw on transcript content and
 * write only inside its rules folder, the same bytes when run again. CI runs a small budget with a fixed seed;
 * `npm run bench:fuzz` a longer one (KNOWLEDGE_TRIAGE_FUZZ_RUNS, KNOWLEDGE_TRIAGE_FUZZ_SEED).
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, lstatSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { regexClassifier } from "../../scripts/engine/classify.js";
import { runExtract } from "../../scripts/memory/pipeline/extract-run.js";
import { eventArb, payloadArb, transcriptArb } from "../fixtures/memory/fuzz-inputs.js";
import { snapshot } from "../memory/helpers.js";
import { runHook } from "./helpers.js";

const RUNS = Number(process.env.KNOWLEDGE_TRIAGE_FUZZ_RUNS ?? 0) || 0;
const SEED = Number(process.env.KNOWLEDGE_TRIAGE_FUZZ_SEED ?? 14);
const roots: string[] = [];
afterAll(() => {
  for (const r of roots) rmSync(r, { recursive: true, force: true });
});

/** Every path under `dir` (folders too) with its size, except those under `keep` (relative prefixes). */
function tree(dir: string, keep: string[]): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const n of readdirSync(d)) {
      const p = join(d, n);
      const rel = relative(dir, p);
      if (keep.some((k) => rel === k || rel.startsWith(`${k}/`))) continue;
      const st = lstatSync(p);
      out.push(`${rel} ${st.isDirectory() ? "dir" : st.size}`);
      if (st.isDirectory()) walk(p);
    }
  };
  walk(dir);
  return out.sort();
}

/** C0 controls but line feed, DEL, C1 controls and bidi controls: never in a rule file or the hook's stdout. */
const CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/;

/** The `.md` rule files under `dir` (not .state), by name, as text; {} when there is no folder. */
function ruleFiles(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  let names: string[] = [];
  try {
    names = readdirSync(dir, { recursive: true }) as string[];
  } catch {
    return out;
  }
  for (const n of names) if (n.endsWith(".md") && !n.startsWith(".state")) out[n] = readFileSync(join(dir, n), "utf8");
  return out;
}

describe("fuzz", { timeout: 600_000 }, () => {
  it("hooks: exit 0, no JSON on stdout, no write outside the rules folder", () => {
    const root = mkdtempSync(join(tmpdir(), "kt-fuzz-hook-"));
    roots.push(root);
    const project = join(root, "proj");
    mkdirSync(project);
    const transcript = join(root, "t.jsonl");
    // The odd cwds of payloadArb: a loop of links and a home folder with a .claude folder (and a git repository inside).
    symlinkSync("loop2", join(root, "loop"));
    symlinkSync("loop", join(root, "loop2"));
    mkdirSync(join(root, "home", ".claude", "projects", "x", ".git"), { recursive: true });
    const keep = ["proj/.claude/rules/knowledge-triage", "t.jsonl"];
    let n = 0;
    let reached = 0;
    fc.assert(
      fc.property(transcriptArb, eventArb, payloadArb(transcript, project), (body, event, stdin) => {
        n++;
        writeFileSync(transcript, body);
        const before = tree(root, keep);
        const r = runHook(event, stdin, { KNOWLEDGE_TRIAGE_HOOK_LOCK_WAIT_MS: "2000", HOME: join(root, "home") });
        expect(r.code, r.stderr).toBe(0);
        expect(r.stdout.trimStart().startsWith("{")).toBe(false);
        // No control character, terminal escape or bidi control on stdout or in a rule file (line feeds excepted).
        const bad = CONTROL.exec(r.stdout);
        expect(bad && JSON.stringify(r.stdout.slice(Math.max(0, bad.index - 60), bad.index + 20))).toBeNull();
        for (const [f, text] of Object.entries(ruleFiles(join(project, ".claude", "rules", "knowledge-triage")))) expect(text, f).not.toMatch(CONTROL);
        expect(r.stderr.split("\n").filter(Boolean).length).toBeLessThanOrEqual(1);
        // .claude and .claude/rules may be created on the way to the rules folder; nothing else.
        const after = tree(root, keep).filter((l) => !/^proj\/\.claude(\/rules)? dir$/.test(l));
        expect(after).toEqual(before.filter((l) => !/^proj\/\.claude(\/rules)? dir$/.test(l)));
        // A PreCompact or SessionStart run that said nothing read the transcript through.
        if (r.stderr === "" && (event === "pre-compact" || event === "session-start")) reached++;
      }),
      { seed: SEED, numRuns: RUNS || 10, endOnFailure: true },
    );
    expect(n).toBeGreaterThanOrEqual(RUNS || 10);
    // The inputs must reach the extractor, not only the payload checks.
    expect(reached).toBeGreaterThan(0);
  });

  it("extractor: never throws on transcript content, writes only its rules folder, and again the same bytes", async () => {
    const root = mkdtempSync(join(tmpdir(), "kt-fuzz-extract-"));
    roots.push(root);
    let k = 0;
    await fc.assert(
      fc.asyncProperty(transcriptArb, async (body) => {
        const dir = join(root, String(k++));
        mkdirSync(dir);
        const t = join(dir, "s.jsonl");
        writeFileSync(t, body);
        const rulesDir = join(dir, "rules");
        const opts = { transcriptPath: t, rulesDir, classifier: regexClassifier, now: () => new Date(0) };
        const r = await runExtract(opts);
        expect(r.warnings.every((w) => !w.includes("\n"))).toBe(true);
        expect(readdirSync(dir).filter((f) => f !== "s.jsonl" && f !== "rules")).toEqual([]);
        const once = snapshot(rulesDir);
        for (const [f, text] of Object.entries(ruleFiles(rulesDir))) expect(text, f).not.toMatch(CONTROL);
        await runExtract(opts);
        expect(snapshot(rulesDir)).toEqual(once);
      }),
      { seed: SEED, numRuns: (RUNS || 10) * 6, endOnFailure: true },
    );
  });
});
