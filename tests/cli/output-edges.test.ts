/**
 * The CLI's edges against hostile input: terminal escapes and bidi overrides in memory text, file
 * names and arguments are printed escaped (files and --json keep the exact bytes).
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { jsonl, user } from "../fixtures/memory/jsonl.js";
import { ensureBundle, expectOneLineError, removeTempDirs, tempDir, triage, type Run } from "./helpers.js";

vi.setConfig({ testTimeout: 60_000 });
beforeAll(() => ensureBundle(), 180_000);
afterAll(() => removeTempDirs());

const ESC = "\u001b";
/** An OSC title change, a screen clear and a right-to-left override: what a hostile file would carry. */
const EVIL = `${ESC}]0;pwned\u0007 ${ESC}[2J \u202e`;
const EVIL_SHOWN = "\\u001b]0;pwned\\u0007 \\u001b[2J \\u202e";

/** No raw escape, bell, C1 control or bidi override anywhere in what the command printed. */
function expectNoRawControls(r: Run): void {
  for (const [name, out] of [
    ["stdout", r.stdout],
    ["stderr", r.stderr],
  ] as const) {
    expect(out, `${name}: ${JSON.stringify(out)}`).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/);
  }
}

describe("terminal escapes in user text are printed escaped, written files keep them", () => {
  const dir = tempDir("kt-edges-");
  const memory = join(dir, "CLAUDE.md");
  writeFileSync(memory, `# Rules\n- Never push to main ${EVIL} evil.\n- The queue is Redis-backed.\n`);

  it("retrieve", () => {
    const r = triage(["retrieve", "push to main", "--base", memory, "--model", "/dev/null"]);
    expect(r.code, r.stderr).toBe(0);
    expectNoRawControls(r);
    expect(r.stdout).toContain(`Never push to main ${EVIL_SHOWN} evil.`);
    // --json keeps the exact text.
    const j = triage(["retrieve", "push to main", "--base", memory, "--model", "/dev/null", "--json"]);
    expect(j.stdout).toContain(JSON.stringify(EVIL).slice(1, -1));
  });

  it("compact: the COMPACTION_UNSAFE rule list (exit 2), while the compacted markdown stays exact", () => {
    const r = triage(["compact", memory, "--budget", "1", "--model", "/dev/null"]);
    expect(r.code, r.stderr).toBe(2);
    expectNoRawControls(r);
    expect(r.stderr).toContain(`Never push to main ${EVIL_SHOWN} evil.`);
    const out = join(dir, "compact.md");
    const ok = triage(["compact", memory, "--ratio", "1", "--model", "/dev/null", "-o", out]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(readFileSync(out, "utf8")).toContain(`Never push to main ${EVIL} evil.`);
  });

  it("pin: the echo, while the rule file keeps the rule byte for byte", () => {
    const rules = join(dir, "rules");
    const text = `Never deploy on Fridays ${EVIL}.`;
    const r = triage(["pin", text, "--rules-dir", rules, "--type", "constraint", "--paths", `src/${ESC}[1m**`, "--model", "/dev/null"]);
    expect(r.code, r.stderr).toBe(0);
    expectNoRawControls(r);
    expect(r.stdout).toContain(`Never deploy on Fridays ${EVIL_SHOWN}.`);
    const written = readdirSync(rules)
      .filter((f) => f.endsWith(".md"))
      .map((f) => readFileSync(join(rules, f), "utf8"))
      .join("");
    expect(written).toContain(text);
  });

  it("export: the paths written", () => {
    const rules = join(dir, "rules-export");
    expect(triage(["pin", "Never commit secrets.", "--rules-dir", rules, "--type", "constraint", "--model", "/dev/null"]).code).toBe(0);
    const out = join(dir, `proj${ESC}[31m`);
    mkdirSync(out);
    const r = triage(["export", "--format", "agents", "--rules-dir", rules, "--out", out]);
    expect(r.code, r.stderr).toBe(0);
    expectNoRawControls(r);
    expect(r.stdout).toContain("proj\\u001b[31m");
  });

  it("decompose: the summary line", () => {
    const out = join(dir, `parts${ESC}[31m`);
    const r = triage(["decompose", memory, "--out", out, "--model", "/dev/null"]);
    expect(r.code, r.stderr).toBe(0);
    expectNoRawControls(r);
    expect(readdirSync(out).filter((f) => f.endsWith(".md")).map((f) => readFileSync(join(out, f), "utf8")).join("")).toContain(EVIL);
  });

  it("extract --explain: the candidate sentences", () => {
    const transcript = join(dir, "session.jsonl");
    writeFileSync(transcript, jsonl([user(`never force-push tags ${EVIL} in this repo`)]));
    const r = triage(["extract", transcript, "--rules-dir", join(dir, "rules-extract"), "--explain", "--dry-run", "--model", "/dev/null"]);
    expect(r.code, r.stderr).toBe(0);
    expectNoRawControls(r);
    expect(r.stdout).toContain("\\u001b");
  });

  it("classify: the file name in the table header", () => {
    const named = join(dir, `notes${ESC}[2J.md`);
    writeFileSync(named, "- Never push to main.\n");
    const r = triage(["classify", named, "--model", "/dev/null"]);
    expect(r.code, r.stderr).toBe(0);
    expectNoRawControls(r);
  });

  it("error messages that quote an argument", () => {
    const r = triage(["classify", `missing${ESC}]0;x\u0007.md`, "--model", "/dev/null"]);
    expect(expectOneLineError(r)).toContain("missing\\u001b]0;x\\u0007.md");
    expectNoRawControls(r);
    const unknown = triage([`cl${ESC}[2Jassify`]);
    expect(expectOneLineError(unknown)).toContain("\\u001b[2J");
  });
});
