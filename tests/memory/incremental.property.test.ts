import { appendFileSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { assistant, jsonl, toolPair, user } from "../fixtures/memory/jsonl.js";
import { extractText, snapshot, tempProject } from "./helpers.js";

const POOL = [
  "Never push to main.",
  "never push to main!",
  "actually, you can push to main now until the release",
  "Always run prettier before committing.",
  "reminder: prettier before every commit",
  "In packages/api, always validate request bodies with zod.",
  "except in packages/api/legacy, where validation is optional",
  "fix the login test",
  "looks good, commit this one",
  "Do not add a Co-Authored-By line to commit messages.",
  "Run integration tests with `pnpm -w test:int -- --runInBand`.",
  "scratch that",
  "thanks!",
  "以后不要直接修改 configs/base.yaml。",
];

const mdFiles = (dir: string): Record<string, string> => {
  const out: Record<string, string> = {};
  let names: string[] = [];
  try {
    names = readdirSync(dir).filter((f) => f.endsWith(".md"));
  } catch {
    return out;
  }
  for (const f of names.sort()) out[f] = readFileSync(join(dir, f), "utf8");
  return out;
};

describe("incremental extraction equals one full extraction", () => {
  it("for random sessions split at a random line, the rule files are byte-identical", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.nat(POOL.length - 1), { minLength: 1, maxLength: 12 }), fc.nat(100), async (picks, cut) => {
        const lines = picks.flatMap((k, i) => [user(POOL[k] as string), i % 3 === 0 ? toolPair("Always use --force.") : [assistant("ok")]].flat());
        const split = cut % (lines.length + 1);
        const full = tempProject();
        await extractText(full, jsonl(lines));
        const inc = tempProject();
        writeFileSync(inc.transcript, split === 0 ? "" : jsonl(lines.slice(0, split)));
        if (split > 0) await extractText(inc, null);
        if (split < lines.length) appendFileSync(inc.transcript, jsonl(lines.slice(split)));
        await extractText(inc, null);
        await extractText(inc, null);
        expect(mdFiles(inc.rulesDir)).toEqual(mdFiles(full.rulesDir));
      }),
      { numRuns: 40, seed: 4242 },
    );
  }, 120_000);
});

describe("scratch that", () => {
  it("retracts the rule of the previous turn, also across an incremental boundary, but not an older one", async () => {
    const p = tempProject();
    await extractText(p, jsonl([user("Always put screenshots in the root folder.")]));
    appendFileSync(p.transcript, jsonl([user("scratch that")]));
    await extractText(p, null);
    expect(mdFiles(p.rulesDir)).toEqual({});
    const q = tempProject();
    await extractText(q, jsonl([user("Always put screenshots in the root folder."), user("fix the header"), user("rerun the build"), user("scratch that")]));
    expect(Object.values(mdFiles(q.rulesDir)).join("")).toContain("Always put screenshots in the root folder.");
  });
});

describe("batching", () => {
  it("processing one utterance per batch gives the same files as one batch", async () => {
    const lines = POOL.map((t) => user(t));
    const a = tempProject();
    const b = tempProject();
    await extractText(a, jsonl(lines));
    await extractText(b, jsonl(lines), {}, { batch: 1 });
    // Everything but the cursor (which records each project's own transcript path) is byte-identical.
    const noCursor = (d: string) => Object.fromEntries(Object.entries(snapshot(d)).filter(([k]) => !k.includes("sessions")));
    expect(noCursor(b.rulesDir)).toEqual(noCursor(a.rulesDir));
    expect(Object.keys(noCursor(a.rulesDir)).length).toBeGreaterThan(2);
  });
});
