/**
 * Crash consistency of the rules store (issue 14, item 1): a run killed at any write step leaves a rules folder
 * from which the next run writes the same files as a run never interrupted; no rule is duplicated, no file is
 * taken for a hand edit, and stray temp files are cleaned up. The "kill" is injected into node:fs: from the Nth
 * write under the rules folder on, every write fails (as if the process were gone; the lock is exempt because
 * a dead holder's lock is broken at once by the next run, state.ts lockIsStale).
 */
import * as realFs from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { assistant, jsonl, user } from "../fixtures/memory/jsonl.js";
import { extractText, snapshot, tempProject } from "./helpers.js";

const kill = { root: "", at: 0, steps: 0, dead: false };

vi.mock("node:fs", async (importOriginal) => {
  const fs = await importOriginal<typeof import("node:fs")>();
  const guard =
    <F extends (...a: never[]) => unknown>(f: F): F =>
    ((...args: Parameters<F>) => {
      const p = String(args[0]);
      if (kill.root && p.startsWith(kill.root) && !p.includes("/.state/lock")) {
        if (kill.dead) throw Object.assign(new Error("killed"), { code: "EKILLED" });
        if (++kill.steps === kill.at) {
          kill.dead = true;
          throw Object.assign(new Error("killed"), { code: "EKILLED" });
        }
      }
      return f(...args);
    }) as F;
  const patched = { ...fs, writeFileSync: guard(fs.writeFileSync), renameSync: guard(fs.renameSync), unlinkSync: guard(fs.unlinkSync), mkdirSync: guard(fs.mkdirSync) };
  return { ...patched, default: patched };
});

afterEach(() => {
  Object.assign(kill, { root: "", at: 0, steps: 0, dead: false });
});

// Three transcripts in turn: rules in two files; then a rule added to each and a new scoped file; then a retraction
// that empties the scoped file of the first run (so a file is removed) and a rule that rewrites another.
const turns = [
  [user("Never push to main."), user("In packages/api, always validate input with zod."), assistant("Noted.")],
  [user("Always run the linter before committing."), user("In packages/web, never use inline styles."), assistant("OK.")],
  [user("The zod validation rule for packages/api no longer applies, drop it."), user("Never commit generated files."), assistant("Done.")],
];
const upTo = (n: number): string => jsonl(turns.slice(0, n + 1).flat());

/** Every file of the rules folder, the project folder's path in them replaced by "<dir>". */
const filesOf = (p: { dir: string; rulesDir: string }): Record<string, string> =>
  Object.fromEntries(Object.entries(snapshot(p.rulesDir)).map(([k, v]) => [k, v.split(p.dir).join("<dir>")]));

/** The rules folder after each run, uninterrupted (lock and hook log aside). */
async function control(): Promise<Array<Record<string, string>>> {
  const p = tempProject();
  const out = [];
  for (let i = 0; i < turns.length; i++) {
    await extractText(p, upTo(i), { now: () => new Date(0) });
    out.push(filesOf(p));
  }
  return out;
}

describe("a run killed at any write step", { timeout: 120_000 }, () => {
  it("leaves a folder from which the next run writes what an uninterrupted run writes", async () => {
    const want = await control();
    // The rule files must really change between runs, or the test proves nothing.
    expect(Object.keys(want[1] ?? {}).filter((f) => f.endsWith(".md")).length).toBeGreaterThan(Object.keys(want[0] ?? {}).filter((f) => f.endsWith(".md")).length);
    let cases = 0;
    for (let run = 0; run < turns.length; run++) {
      for (let at = 1; ; at++) {
        const p = tempProject();
        for (let i = 0; i < run; i++) await extractText(p, upTo(i), { now: () => new Date(0) });
        Object.assign(kill, { root: p.dir, at, steps: 0, dead: false });
        let died = false;
        try {
          await extractText(p, upTo(run), { now: () => new Date(0) });
        } catch (e) {
          // The kill may surface wrapped (e.g. as RULES_DIR_UNWRITABLE): any error after it is the kill.
          died = kill.dead;
          if (!died) throw e;
        }
        Object.assign(kill, { root: "", dead: false });
        if (!died) break; // every step of this run has been killed once
        cases++;
        const r = await extractText(p, upTo(run), { now: () => new Date(0) });
        const got = filesOf(p);
        expect({ run, at, warnings: r.warnings.filter((w) => /by hand/.test(w)) }).toEqual({ run, at, warnings: [] });
        expect({ run, at, files: got }).toEqual({ run, at, files: want[run] });
        expect(realFs.readdirSync(p.rulesDir).filter((f) => f.endsWith(".tmp"))).toEqual([]);
        expect(realFs.readdirSync(join(p.rulesDir, ".state")).filter((f) => f.endsWith(".tmp"))).toEqual([]);
      }
    }
    expect(cases).toBeGreaterThan(10);
  });
});
