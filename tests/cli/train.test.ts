import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ModelFileSchema } from "../../scripts/engine/model-format.js";
import { ensureBundle, expectOneLineError, fixtures, tempDir, triage, removeTempDirs } from "./helpers.js";

const trainDir = join(fixtures, "train");
const env = { SOURCE_DATE_EPOCH: "1735689600" }; // 2025-01-01T00:00:00Z
const fast = ["--folds", "2", "--epochs", "20"];

/** CV macro-F1 lines ("macro-F1 0.563") in train's report, in order. */
const macroLines = (stdout: string): string[] => stdout.split("\n").filter((l) => l.includes("macro-F1"));

vi.setConfig({ testTimeout: 60_000 });
beforeAll(() => ensureBundle(), 180_000);
afterAll(() => removeTempDirs());

describe("triage train: determinism", () => {
  const dir = tempDir("kt-train-");
  const a = join(dir, "a.json");
  const b = join(dir, "b.json");
  const c = join(dir, "c.json");
  let ra: ReturnType<typeof triage>;
  let rc: ReturnType<typeof triage>;

  beforeAll(() => {
    ra = triage(["train", trainDir, "-o", a, ...fast], { env });
    triage(["train", trainDir, "-o", b, ...fast], { env });
    rc = triage(["train", trainDir, "-o", c, ...fast, "--seed", "7"], { env });
  }, 120_000);

  it("same data and seed give byte-identical model files", () => {
    expect(ra.code, ra.stderr).toBe(0);
    const bytesA = readFileSync(a);
    expect(bytesA.length).toBeGreaterThan(1000);
    expect(readFileSync(b).equals(bytesA)).toBe(true);
  });

  it("the model validates and records seed, date, data hash and CV metrics", () => {
    const m = ModelFileSchema().parse(JSON.parse(readFileSync(a, "utf8")));
    expect(m.metadata.seed).toBe(42);
    expect(m.metadata.createdAt).toBe("2025-01-01");
    expect(m.metadata.trainingUnits).toBe(56);
    expect(m.metadata.epochs).toBe(20);
    expect(m.metadata.cv?.folds).toBe(2);
    expect(m.metadata.cv?.units).toBe(56);
    expect(m.metadata.test).toBeNull();
    // The report prints per-class metrics, macro-F1 and the confusion matrix.
    expect(ra.stdout).toContain("2-fold grouped cross-validation");
    expect(ra.stdout).toMatch(/confusion matrix/);
    expect(ra.stdout).toMatch(/^wrote .*a\.json: \d+ terms/m);
  });

  it("a different seed keeps the data hash and vocabulary but records its seed; fold metrics may change", () => {
    expect(rc.code, rc.stderr).toBe(0);
    const ma = ModelFileSchema().parse(JSON.parse(readFileSync(a, "utf8")));
    const mc = ModelFileSchema().parse(JSON.parse(readFileSync(c, "utf8")));
    expect(mc.metadata.seed).toBe(7);
    expect(mc.metadata.dataSha256).toBe(ma.metadata.dataSha256);
    expect(mc.terms).toEqual(ma.terms);
    expect(mc.weights).toEqual(ma.weights); // the final fit uses all data: the seed only moves the CV folds
    expect(macroLines(rc.stdout)).toHaveLength(2);
  });

  it("the trained model classifies and evaluates through the CLI", () => {
    const r = triage(["eval", trainDir, "--model", a, "--json"]);
    expect(r.code, r.stderr).toBe(0);
    const metrics = JSON.parse(r.stdout) as { units: number; macroF1: number; confusion: number[][] };
    expect(metrics.units).toBe(56);
    expect(metrics.confusion.flat().reduce((x, y) => x + y, 0)).toBe(56);
    // Training data is mostly memorised even after 20 epochs.
    expect(metrics.macroF1).toBeGreaterThan(0.5);
  });

  it("--test evaluates on held-out data and stores the test metrics", () => {
    const out = join(dir, "t.json");
    const r = triage(["train", trainDir, "-o", out, "--folds", "0", "--epochs", "10", "--test", join(trainDir, "chat.jsonl")], { env });
    expect(r.code, r.stderr).toBe(0);
    const m = ModelFileSchema().parse(JSON.parse(readFileSync(out, "utf8")));
    expect(m.metadata.cv).toBeNull();
    expect(m.metadata.test?.units).toBe(15);
    expect(r.stdout).toMatch(/^test \(.*chat\.jsonl\) \(15 units\)/m);
  });
});

describe("triage train / eval: data errors are one-line errors, exit 1", () => {
  /** A copy of the fixture folder with `edit` applied. */
  const variant = (edit: (dir: string) => void): string => {
    const dir = tempDir("kt-data-");
    cpSync(trainDir, dir, { recursive: true });
    edit(dir);
    return dir;
  };

  it("a labels line far past the end of its document", () => {
    const dir = variant((d) => writeFileSync(join(d, "infra.labels.jsonl"), '{"line":400,"type":"belief"}\n', { flag: "a" }));
    const msg = expectOneLineError(triage(["train", dir, "-o", join(dir, "m.json"), ...fast]));
    expect(msg).toMatch(/infra\.labels\.jsonl: line 400 is past the end of .*infra\.md \(\d+ lines\)/);
  });

  it("a labels line one past the last line (file ends with a newline) is also past the end", () => {
    // infra.md has 17 lines and ends with "\n"; line 18 does not exist.
    const dir = variant((d) => writeFileSync(join(d, "infra.labels.jsonl"), '{"line":18,"type":"belief"}\n', { flag: "a" }));
    const msg = expectOneLineError(triage(["eval", dir, "--model", "/dev/null"]));
    expect(msg).toMatch(/line 18 is past the end of .*infra\.md \(17 lines\)/);
  });

  it("a .md without its .labels.jsonl", () => {
    const dir = variant((d) => writeFileSync(join(d, "orphan.md"), "# Orphan\n- Never do this.\n"));
    const msg = expectOneLineError(triage(["train", dir, "-o", join(dir, "m.json"), ...fast]));
    expect(msg).toMatch(/orphan\.md: no labels file orphan\.labels\.jsonl/);
  });

  it("bad JSON in a labels file names file and line", () => {
    const dir = variant((d) => writeFileSync(join(d, "clinic.labels.jsonl"), '{"line": 3, "type": \n', { flag: "a" }));
    const msg = expectOneLineError(triage(["train", dir, "-o", join(dir, "m.json"), ...fast]));
    expect(msg).toMatch(/clinic\.labels\.jsonl:15: not valid JSON/);
  });

  it("a label with an unknown type in a loose .jsonl names the field", () => {
    const dir = variant((d) => writeFileSync(join(d, "chat.jsonl"), '{"text":"hello","type":"opinion"}\n', { flag: "a" }));
    const msg = expectOneLineError(triage(["eval", dir, "--model", "/dev/null"]));
    expect(msg).toMatch(/chat\.jsonl:16: type: /);
    // The valid types are listed, not zod's "Invalid input" (found by the fourth fresh-user pass).
    expect(msg).toMatch(/type: "opinion" is not a type; use one of constraint, procedural, belief, preference, episodic/);
    const labels = variant((d) => writeFileSync(join(d, "infra.labels.jsonl"), '{"line":2,"type":"bogus"}\n', { flag: "a" }));
    expect(expectOneLineError(triage(["train", labels, "-o", join(labels, "m.json"), ...fast]))).toMatch(/infra\.labels\.jsonl:\d+: type: "bogus" is not a type; use one of constraint, procedural, belief, preference, episodic/);
  });

  it("a missing data folder, too little data, and bad numeric options", () => {
    expect(expectOneLineError(triage(["train", "no-such-dir", "-o", "/tmp/x.json"]))).toMatch(/no such file or folder: no-such-dir/);
    const tiny = tempDir("kt-data-");
    writeFileSync(join(tiny, "few.jsonl"), '{"text":"never push","type":"constraint"}\n');
    expect(expectOneLineError(triage(["train", tiny, "-o", join(tiny, "m.json")]))).toMatch(/only 1 labelled units/);
    expect(expectOneLineError(triage(["train", trainDir, "-o", join(tiny, "m.json"), "--folds", "1"]))).toMatch(/--folds/);
    expect(expectOneLineError(triage(["train", trainDir, "-o", join(tiny, "m.json"), "--seed", "-3"]))).toMatch(/--seed must be an integer/);
    expect(expectOneLineError(triage(["train", trainDir]))).toMatch(/--output/);
  });
});
