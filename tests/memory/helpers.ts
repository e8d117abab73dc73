import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { regexClassifier } from "../../scripts/engine/classify.js";
import { runExtract, type RunTuning } from "../../scripts/memory/pipeline/extract-run.js";
import type { ExtractReport } from "../../scripts/memory/pipeline/extract-api.js";
import { loadStore } from "../../scripts/memory/store/state.js";

/** A temp project with a transcript path and the default rules folder inside it. */
export function tempProject(): { dir: string; transcript: string; rulesDir: string } {
  const dir = mkdtempSync(join(tmpdir(), "kt-mem-"));
  return { dir, transcript: join(dir, "session-1.jsonl"), rulesDir: join(dir, ".claude", "rules", "knowledge-triage") };
}

/** Write the transcript and run one extraction with the regex classifier tier (deterministic, no model file). */
export async function extractText(p: { transcript: string; rulesDir: string }, body: string | Buffer | null, extra: Partial<Parameters<typeof runExtract>[0]> = {}, tuning: RunTuning = {}): Promise<ExtractReport> {
  if (body !== null) writeFileSync(p.transcript, body);
  return runExtract({ transcriptPath: p.transcript, rulesDir: p.rulesDir, classifier: regexClassifier, ...extra }, tuning);
}

/** Active rule texts of the store. */
export function activeRules(rulesDir: string): string[] {
  return loadStore(rulesDir).rules.filter((r) => r.status === "active").map((r) => r.text);
}

/** Relative paths of every file under a folder, recursively, sorted; [] when the folder is missing. */
export function filesUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    let names: string[];
    try {
      names = readdirSync(d);
    } catch {
      return;
    }
    for (const n of names.sort()) {
      const p = join(d, n);
      if (statSync(p).isDirectory()) walk(p);
      else out.push(relative(dir, p));
    }
  };
  walk(dir);
  return out;
}

/** Every file under a folder (relative path -> content), recursively. */
export function snapshot(dir: string): Record<string, string> {
  return Object.fromEntries(filesUnder(dir).map((f) => [f, readFileSync(join(dir, f), "utf8")]));
}

/** Concatenated text of all .md rule files directly in the rules folder. */
export function ruleFilesText(rulesDir: string): string {
  try {
    return readdirSync(rulesDir).filter((f) => f.endsWith(".md")).sort().map((f) => readFileSync(join(rulesDir, f), "utf8")).join("\n");
  } catch {
    return "";
  }
}
