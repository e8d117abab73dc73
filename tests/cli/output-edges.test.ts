/**
 * The CLI's edges against hostile input: terminal escapes and bidi overrides in memory text, file
 * names and arguments are printed escaped (files and --json keep the exact bytes; a rule to pin or a stated rule
 * never holds them); endless devices
 * and FIFOs are refused instead of read forever; folder walks survive symbolic-link loops.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { jsonl, user } from "../fixtures/memory/jsonl.js";
import { bundle, childEnv, ensureBundle, expectOneLineError, fixtures, removeTempDirs, tempDir, triage, type Run } from "./helpers.js";

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

const mkfifo = (path: string): void => {
  execFileSync("mkfifo", [path]);
};

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

  it("pin: a control character in the rule or a glob is refused, shown escaped; nothing written (issue 14)", () => {
    const rules = join(dir, "rules");
    // In the text it would be written into the rule file and printed by the hooks; in a glob it would reach the frontmatter.
    const text = triage(["pin", `Never deploy on Fridays ${EVIL}.`, "--rules-dir", rules, "--type", "constraint", "--model", "/dev/null"]);
    expect(expectOneLineError(text)).toBe("triage: pin: the rule holds a control character (U+001B: a terminal escape, bidi control or line separator); pin it as plain text");
    const bad = triage(["pin", "Never deploy on Fridays.", "--rules-dir", rules, "--type", "constraint", "--paths", `src/${ESC}[1m**`, "--model", "/dev/null"]);
    expect(bad.code).toBe(1);
    expectNoRawControls(bad);
    expect(bad.stderr).toContain("src/\\u001b[1m**");
    expect(existsSync(rules)).toBe(false);
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
    // The sentence is judged as a reader saw it: escapes and the bidi override are stripped before judging (issue 14).
    expect(r.stdout).toMatch(/never force-push tags +in this repo/);
    expect(r.stdout).not.toContain("\\u001b");
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

describe("endless devices and FIFOs are refused, not read forever", () => {
  const dir = tempDir("kt-devices-");
  const memory = join(dir, "CLAUDE.md");
  writeFileSync(memory, "- Never push to main.\n");

  it.each([
    ["--model /dev/zero", ["classify", memory, "--model", "/dev/zero"], /cannot read model \/dev\/zero: not a regular file \(character device\)/],
    ["--model /dev/urandom (retrieve)", ["retrieve", "push", "--base", memory, "--model", "/dev/urandom"], /cannot read model \/dev\/urandom: not a regular file/],
    ["classify /dev/zero", ["classify", "/dev/zero", "--model", "/dev/null"], /cannot read \/dev\/zero: not a regular file \(character device\)/],
    ["compact /dev/zero", ["compact", "/dev/zero", "--ratio", "0.5", "--model", "/dev/null"], /cannot read \/dev\/zero: not a regular file/],
    ["train -o /dev/zero", ["train", join(fixtures, "train"), "-o", "/dev/zero", "--folds", "0", "--epochs", "1"], /refusing to overwrite existing file \/dev\/zero/],
  ])("%s: one-line error, exit 1", (_name, args, re) => {
    expect(expectOneLineError(triage(args))).toMatch(re);
  });

  it("a model file over the 64 MiB cap is refused before it is read", () => {
    const big = join(dir, "big.json");
    writeFileSync(big, "");
    truncateSync(big, 64 * 1024 * 1024 + 1); // sparse: no disk used
    expect(expectOneLineError(triage(["classify", memory, "--model", big]))).toMatch(/cannot read model .*big\.json: larger than 64 MiB/);
  });

  it("--model /dev/null still selects the regex tier; stdin and a pipe named as a file (<(cmd)) still work", () => {
    const a = triage(["classify", memory, "--model", "/dev/null", "--json"]);
    expect(a.code, a.stderr).toBe(0);
    const texts = (out: string): string[] => (JSON.parse(out) as { text: string }[]).map((r) => r.text);
    const b = triage(["classify", "-", "--model", "/dev/null", "--json"], { input: "- Never push to main.\n" });
    expect(b.code, b.stderr).toBe(0);
    expect(texts(b.stdout)).toEqual(texts(a.stdout));
    // bash process substitution: the path is /dev/fd/N, a pipe.
    const c = spawnSync("bash", ["-c", `"$0" "$1" classify <(printf -- '- Never push to main.\\n') --model /dev/null --json`, process.execPath, bundle], {
      encoding: "utf8",
      env: childEnv(),
      timeout: 60_000,
    });
    expect(c.status, c.stderr).toBe(0);
    expect(texts(c.stdout)).toEqual(texts(a.stdout));
  });

  it("eval skips a FIFO in a data folder with a warning, and refuses one named directly", () => {
    const data = join(dir, "data");
    mkdirSync(data);
    writeFileSync(join(data, "units.jsonl"), `${JSON.stringify({ text: "Never push to main.", type: "constraint", domain: "coding", lang: "en" })}\n`);
    mkfifo(join(data, "zz.jsonl"));
    const r = triage(["eval", data, "--model", "/dev/null"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^triage: warning: skipped .*zz\.jsonl: not a regular file \(FIFO\)$/m);
    expect(expectOneLineError(triage(["eval", join(data, "zz.jsonl"), "--model", "/dev/null"]))).toMatch(/zz\.jsonl: not a regular file \(FIFO\)/);
  });
});

describe("triage label walks folders safely", () => {
  it("a symbolic-link loop adds nothing; FIFOs are skipped with a warning; a linked folder is labelled once", () => {
    const dir = tempDir("kt-walk-");
    writeFileSync(join(dir, "CLAUDE.md"), "- Never push to main.\n");
    mkdirSync(join(dir, "docs"));
    writeFileSync(join(dir, "docs", "notes.md"), "The queue is Redis-backed.\n");
    symlinkSync(".", join(dir, "loop")); // dir/loop/loop/... would reach ELOOP after 40 levels
    symlinkSync("..", join(dir, "docs", "up"));
    symlinkSync("docs", join(dir, "docs-link"));
    mkfifo(join(dir, "pipe.md"));
    mkfifo(join(dir, "docs", "later.txt"));
    const out = join(tempDir("kt-walk-out-"), "labelled.jsonl");
    const r = triage(["label", dir, "-o", out, "--model", "/dev/null"]);
    expect(r.code, r.stderr).toBe(0);
    const rows = readFileSync(out, "utf8")
      .trim()
      .split("\n")
      .map((l) => (JSON.parse(l) as { file: string }).file.slice(dir.length + 1));
    expect(rows).toEqual(["CLAUDE.md", "docs/notes.md"]);
    const warnings = r.stderr.split("\n").filter((l) => l.startsWith("triage: warning:"));
    expect(warnings).toEqual([
      `triage: warning: skipped ${join(dir, "docs", "later.txt")}: not a regular file (FIFO)`,
      `triage: warning: skipped ${join(dir, "pipe.md")}: not a regular file (FIFO)`,
    ]);
  });
});

describe("one-line fields", () => {
  it("classify's '== file' header escapes a newline in the file name; a cut row never ends inside an escape", () => {
    const d = tempDir("kt-edges-nl-");
    const name = "nl\nname.md";
    writeFileSync(join(d, name), `- Never push to main ${"a".repeat(60)}${"\u0001".repeat(10)} and more words after it.\n`);
    const r = triage(["classify", name, "--model", "/dev/null"], { cwd: d });
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.split("\n");
    expect(lines[0]).toBe("== nl\\u000aname.md");
    const row = lines[1] as string;
    expect(row.endsWith("…")).toBe(true);
    expect(row.slice(0, -1)).not.toMatch(/\\(u[0-9a-f]{0,3})?$/);
  });
});
