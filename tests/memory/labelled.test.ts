import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { regexClassifier } from "../../scripts/engine/classify.js";
import { runExtract } from "../../scripts/memory/pipeline/extract-run.js";
import { loadStore } from "../../scripts/memory/store/state.js";
import { score } from "../fixtures/memory/gold.js";
import { expandSecrets, FAKE_SECRETS } from "../fixtures/memory/secrets.js";
import { snapshot } from "./helpers.js";

const dataDir = resolve(import.meta.dirname, "..", "..", "data", "transcripts");

describe("labelled transcripts (data/transcripts): quality floors with the regex tier", { timeout: 60_000 }, () => {
  it("precision >= 0.95 and recall >= 0.90 over all transcripts, and no secret reaches the rules folder", async () => {
    let tp = 0;
    let fp = 0;
    let fn = 0;
    const names = readdirSync(dataDir).filter((f) => f.endsWith(".jsonl"));
    expect(names.length).toBeGreaterThanOrEqual(10);
    for (const f of names) {
      const work = mkdtempSync(join(tmpdir(), "kt-lab-"));
      const t = join(work, f);
      writeFileSync(t, expandSecrets(readFileSync(join(dataDir, f), "utf8")));
      const rulesDir = join(work, "rules");
      await runExtract({ transcriptPath: t, rulesDir, classifier: regexClassifier });
      const gold = (JSON.parse(readFileSync(join(dataDir, f.replace(/\.jsonl$/, ".gold.json")), "utf8")) as { rules: string[] }).rules;
      const sc = score(
        loadStore(rulesDir).rules.filter((r) => r.status === "active").map((r) => r.text),
        gold.map((g) => g.replace(/\$\{SECRET:[\w-]+\}/g, "[REDACTED]")),
      );
      tp += sc.tp;
      fp += sc.fp.length;
      fn += sc.fn.length;
      const all = JSON.stringify(snapshot(rulesDir));
      for (const s of FAKE_SECRETS) expect(all, `${f}: ${s.name}`).not.toContain(s.needle);
    }
    expect(tp / (tp + fp)).toBeGreaterThanOrEqual(0.95);
    expect(tp / (tp + fn)).toBeGreaterThanOrEqual(0.9);
  });
});
