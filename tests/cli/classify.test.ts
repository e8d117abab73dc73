import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ClassifyRowSchema } from "../../scripts/cli/json-output.js";
import { TYPES } from "../../scripts/engine/types.js";
import { segment } from "../../scripts/engine/units.js";
import { bundle, bundledModel, ensureBundle, mapWeights, expectOneLineError, fixtures, repo, tempDir, triage, removeTempDirs } from "./helpers.js";
import { renderTable } from "../../scripts/cli/commands/classify-command.js";

const small = join(fixtures, "docs", "small.md");
const mixed = join(fixtures, "docs", "mixed.md");

const parseRows = (stdout: string) => {
  const raw = JSON.parse(stdout) as unknown[];
  expect(Array.isArray(raw)).toBe(true);
  return raw.map((r) => ClassifyRowSchema.parse(r));
};

vi.setConfig({ testTimeout: 60_000 });
beforeAll(() => ensureBundle(), 180_000);
afterAll(() => removeTempDirs());

describe("triage classify --json", () => {
  it("every row matches ClassifyRowSchema; lines are 1-based; scores sum to 1; structure omitted", () => {
    const r = triage(["classify", mixed, "--json"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe("");
    const rows = parseRows(r.stdout);
    const src = readFileSync(mixed, "utf8");
    const lines = src.split("\n");
    const content = segment(src).filter((u) => !["blank", "fence", "rule", "table-separator"].includes(u.kind));
    expect(rows.map((x) => [x.line, x.endLine])).toEqual(content.map((u) => [u.line, u.endLine]));
    for (const row of rows) {
      expect(row.file).toBe(mixed);
      expect(row.type).not.toBe("structure");
      expect(row.line).toBeGreaterThanOrEqual(1);
      expect(row.endLine).toBeLessThanOrEqual(lines.length);
      // Text is the source lines, verbatim.
      expect(row.text).toBe(lines.slice(row.line - 1, row.endLine).join("\n"));
      const sum = TYPES.reduce((a, t) => a + row.scores[t], 0);
      expect(Math.abs(sum - 1)).toBeLessThan(1e-3);
      expect(row.confidence).toBe(row.scores[row.type as (typeof TYPES)[number]]);
    }
    // Spot checks on the real-shaped file: frontmatter is one row; the code block is one row; the table row is a row.
    expect(rows[0]).toMatchObject({ line: 1, endLine: 3 });
    expect(rows.find((x) => x.text === "make test")).toBeDefined();
    expect(rows.find((x) => x.text.startsWith("| staging"))).toBeDefined();
    expect(rows.find((x) => x.text.startsWith("- Refunds above 500 EUR"))?.type).toBe("constraint");
    expect(rows.find((x) => x.text === "make test")?.type).toBe("procedural");
  });

  it("several files and stdin (-): rows grouped by file in argument order", () => {
    const stdin = "## Rules\n- Never skip code review.\n";
    const r = triage(["classify", "--json", small, "-", mixed], { input: stdin });
    expect(r.code, r.stderr).toBe(0);
    const rows = parseRows(r.stdout);
    const files = [...new Set(rows.map((x) => x.file))];
    expect(files).toEqual([small, "-", mixed]);
    const fromStdin = rows.filter((x) => x.file === "-");
    expect(fromStdin.map((x) => [x.line, x.text])).toEqual([
      [1, "## Rules"],
      [2, "- Never skip code review."],
    ]);
    expect(fromStdin[1]?.type).toBe("constraint");
  });

  it("an empty file gives [] and exit 0; CRLF input gives the same rows as LF", () => {
    const dir = tempDir();
    writeFileSync(join(dir, "empty.md"), "");
    const e = triage(["classify", "--json", join(dir, "empty.md")]);
    expect(e.code).toBe(0);
    expect(JSON.parse(e.stdout)).toEqual([]);
    const lf = readFileSync(small, "utf8");
    writeFileSync(join(dir, "crlf.md"), `\uFEFF${lf.replace(/\n/g, "\r\n")}`);
    const a = parseRows(triage(["classify", "--json", small]).stdout);
    const b = parseRows(triage(["classify", "--json", join(dir, "crlf.md")]).stdout);
    expect(b.map(({ file: _f, ...rest }) => rest)).toEqual(a.map(({ file: _f, ...rest }) => rest));
  });
});

describe("triage classify: readable table", () => {
  it("prints a header per file, one row per unit with range, type, confidence and text, then counts", () => {
    const r = triage(["classify", small, mixed]);
    expect(r.code, r.stderr).toBe(0);
    const out = r.stdout.split("\n");
    expect(out[0]).toBe(`== ${small}`);
    expect(out).toContain(`== ${mixed}`);
    const rule = out.find((l) => l.includes("Never force-push"));
    expect(rule).toMatch(/^\s+4\s+CONSTRAINT\s+\d\.\d\d\s+- Never force-push to `main`\.$/);
    // A multi-line unit shows its line range and how many lines were folded.
    expect(out.find((l) => l.includes("Start the stack:"))).toMatch(/^\s+11-12\s+\S+\s+\d\.\d\d\s+1\. Start the stack: \(\+1 lines\)$/);
    const json = parseRows(triage(["classify", "--json", small, mixed]).stdout);
    const summary = out.find((l) => /^\d+ units: /.test(l));
    expect(summary).toBe(`${json.length} units: ${TYPES.map((t) => `${json.filter((x) => x.type === t).length} ${t}`).join(", ")}`);
  });

  it("truncates long lines with an ellipsis so rows stay on one line", () => {
    const dir = tempDir();
    writeFileSync(join(dir, "long.md"), `- ${"Never drop the audit table. ".repeat(40)}\n`);
    const r = triage(["classify", join(dir, "long.md")]);
    const row = r.stdout.split("\n")[1] as string;
    expect(row.endsWith("…")).toBe(true);
    expect(row.length).toBeLessThan(140);
  });
});

describe("triage classify: odd input", () => {
  it("invalid UTF-8 exits 0, warns on stderr, and still classifies the file", () => {
    const dir = tempDir();
    const f = join(dir, "latin1.md");
    writeFileSync(f, Buffer.concat([Buffer.from("# Caf"), Buffer.from([0xe9]), Buffer.from("\n- Never serve cold coffee.\n")]));
    const r = triage(["classify", "--json", f]);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^triage: warning: .*latin1\.md: not valid UTF-8/m);
    const rows = parseRows(r.stdout);
    expect(rows[0]?.text).toBe("# Caf\uFFFD");
    expect(rows).toHaveLength(2);
  });

  it("a binary file with NUL bytes exits 0 with a warning", () => {
    const dir = tempDir();
    const f = join(dir, "blob.md");
    writeFileSync(f, Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 0, 0, 0xff, 0xfe, 10, 0, 1, 2, 3]));
    const r = triage(["classify", f]);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/NUL bytes/);
  });

  it("a 1 MB line is classified without trouble", () => {
    const dir = tempDir();
    const f = join(dir, "big.md");
    writeFileSync(f, `# Big\n- ${"always rotate the keys ".repeat(48_000)}\n- Run \`make\`.\n`);
    const r = triage(["classify", "--json", f]);
    expect(r.code, r.stderr).toBe(0);
    const rows = parseRows(r.stdout);
    expect(rows.map((x) => x.line)).toEqual([1, 2, 3]);
    expect(rows[1]?.text.length).toBeGreaterThan(1_000_000);
  });
});

describe("triage classify --model", () => {
  it("/dev/null selects the regex tier (fixed 0.7 confidence)", () => {
    const r = triage(["classify", "--json", "--model", "/dev/null", small]);
    expect(r.code, r.stderr).toBe(0);
    const rows = parseRows(r.stdout);
    expect(rows.length).toBeGreaterThan(0);
    // Headings are restricted to belief/constraint/episodic (classify.ts headingTypes), so their
    // renormalised confidence differs; every other unit carries the regex tier's fixed 0.7.
    for (const row of rows) if (!row.text.startsWith("#")) expect(row.confidence).toBe(0.7);
  });

  it("/dev/null works with zero files: a bundle copied without model/ still runs", () => {
    const dir = tempDir();
    mkdirSync(join(dir, "dist"));
    const bin = join(dir, "dist", "triage.mjs");
    copyFileSync(bundle, bin);
    const ok = triage(["classify", "--json", small, "--model", "/dev/null"], { bin, cwd: dir });
    expect(ok.code, ok.stderr).toBe(0);
    expect(parseRows(ok.stdout).find((x) => x.text.includes("Never force-push"))?.type).toBe("constraint");
    // Without --model the missing default model is a one-line error.
    const missing = triage(["classify", small], { bin, cwd: dir });
    expect(expectOneLineError(missing)).toMatch(/model.*: no such file$/);
  });

  describe("a bad model file is a one-line error, exit 1, no stack trace", () => {
    const dir = tempDir();
    const model = JSON.parse(readFileSync(bundledModel, "utf8")) as Record<string, unknown>;
    const write = (name: string, value: unknown): string => {
      const p = join(dir, name);
      writeFileSync(p, typeof value === "string" ? value : JSON.stringify(value));
      return p;
    };
    const cases: [string, string, RegExp][] = [
      ["not JSON", write("notjson.json", "{\"format\": "), /not JSON/],
      ["wrong format", write("format.json", { ...model, format: "other/model" }), /not a Knowledge Triage model/],
      ["wrong version", write("version.json", { ...model, version: 99 }), /version 99 is not supported/],
      ["four classes", write("classes.json", { ...model, classes: TYPES.slice(0, 4) }), /invalid model: classes/],
      ["idf mismatch", write("idf.json", { ...model, idf: "AAAAAA==" }), /idf: has 1 entries/],
      ["bad base64", write("b64.json", { ...model, weights: mapWeights(model, () => "***") }), /must be base64/],
      [
        "corrupt base64 of the right length",
        write("b64len.json", { ...model, idf: `%%%%%%%%%%%%%%%%${(model.idf as string).slice(16)}` }),
        /invalid model: idf/,
      ],
      ["empty file", write("empty.json", ""), /empty model file/],
      ["directory", dir, /is a directory/],
      ["missing file", join(dir, "absent.json"), /cannot read model .*: no such file$/],
    ];
    for (const [name, path, re] of cases) {
      it(name, () => {
        const r = triage(["classify", small, "--model", path]);
        expect(expectOneLineError(r)).toMatch(re);
        expect(r.stdout).toBe("");
      });
    }
  });
});

describe("triage classify: wrong arguments are one-line errors with exit 1", () => {
  const cases: [string, string[], RegExp][] = [
    ["unknown option", ["classify", "--bogus", small], /unknown option '--bogus'/],
    ["no files", ["classify"], /missing required argument/],
    ["missing file", ["classify", "no-such-file.md"], /cannot read no-such-file\.md: no such file/],
    ["directory", ["classify", fixtures], /is a directory/],
    ["stdin twice", ["classify", "-", "-"], /stdin/],
  ];
  for (const [name, args, re] of cases) {
    it(name, () => {
      const r = triage(args);
      expect(expectOneLineError(r)).toMatch(re);
    });
  }

  it("--help exits 0 and documents --json and --model", () => {
    const r = triage(["classify", "--help"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("--json");
    expect(r.stdout).toContain("--model");
  });
});

describe("classify table output is safe for a terminal", () => {
  const row = (text: string) => ({ file: "f.md", line: 1, endLine: 1, text, type: "belief" as const, confidence: 0.5, scores: { constraint: 0, procedural: 0, belief: 0.5, preference: 0.25, episodic: 0.25 } });

  it("escape sequences, NUL, C1 and bidi overrides are shown as \\u escapes; --json keeps the exact text", () => {
    const out = renderTable([row("- a \u001b[2J b \u001b]0;title\u0007 c\u0000d \u009b e \u202eevil")]);
    expect(out).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202e]/);
    expect(out).toContain("\\u001b[2J");
    expect(out).toContain("\\u202eevil");
    const dir = tempDir("kt-classify-esc-");
    const file = join(dir, "esc.md");
    writeFileSync(file, "- never push \u001b[2J to main\n");
    const r = triage(["classify", file, "--json"]);
    expect(JSON.parse(r.stdout)[0].text).toBe("- never push \u001b[2J to main");
  });

  it("truncation never splits an emoji (surrogate pair)", () => {
    const text = `${"a".repeat(98)}\u{1F600} tail`;
    const line = renderTable([row(text)]).split("\n")[1] as string;
    expect(line).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/);
    expect(line.endsWith("…")).toBe(true);
  });
});

describe("classify a very large file", () => {
  it("200,000 units: every one in the table and in --json (rows were once spread as call arguments and overflowed the stack)", () => {
    const dir = tempDir("kt-classify-big-");
    const file = join(dir, "big.md");
    writeFileSync(file, Array.from({ length: 200_000 }, (_, i) => `- never push to main ${i}`).join("\n"));
    const table = triage(["classify", file]);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout.trimEnd().split("\n").at(-1)).toMatch(/^200000 units: /);
    const json = triage(["classify", file, "--json"]);
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toHaveLength(200_000);
  }, 120_000);

  it("input too large for this Node's heap gets one line and exit 1, not an out-of-memory abort; what streams within it is classified", () => {
    // Found by a fresh-user pass: 240 MiB (under the 256 MiB input cap) crashed with "JavaScript heap out of memory".
    const dir = tempDir("kt-heap-");
    const example = readFileSync(join(repo, "examples", "CLAUDE.md"), "utf8");
    const big = join(dir, "big.md");
    writeFileSync(big, example.repeat(Math.ceil((20 * 1024 * 1024) / example.length)));
    // --max-old-space-size=16 gives a 64 MiB heap limit; 20 MiB needs 80 at HEAP_BYTES_PER_CHAR.
    const tiny = { env: { NODE_OPTIONS: "--max-old-space-size=16" } };
    for (const argv of [["classify", big], ["--debug", "classify", big, "--json"]]) {
      const r = triage(argv, tiny);
      if (argv[0] === "--debug") {
        expect(r.code).toBe(1);
        expect(r.stderr).toMatch(/^triage: cannot classify .*big\.md: 2[01] MiB of input needs about \d+ MiB of memory, more than this Node's heap limit of \d+ MiB/);
      } else expect(expectOneLineError(r)).toMatch(/cannot classify .*big\.md: .*NODE_OPTIONS=--max-old-space-size=\d+\)$/);
      expect(r.stdout).toBe("");
    }
    // 11 MiB under a 304 MiB heap limit: refused before classify streamed (32 bytes per character); classified now.
    const mid = join(dir, "mid.md");
    writeFileSync(mid, example.repeat(Math.ceil((11 * 1024 * 1024) / example.length)));
    const ok = triage(["classify", mid, "--json"], { env: { NODE_OPTIONS: "--max-old-space-size=256" } });
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout.startsWith("[")).toBe(true);
  }, 120_000);
});

describe("compact, decompose and retrieve on input too large for the heap", () => {
  it("refuse with one line and exit 1, not V8's out-of-memory abort (exit 134 and a stack trace)", () => {
    // Found by a fresh-user pass: 17.6 MB of one-line rules under --max-old-space-size=128 aborted compact and retrieve.
    const dir = tempDir("kt-heap-ops-");
    const big = join(dir, "big.md");
    writeFileSync(big, "- Never push to main on Fridays after five.\n".repeat(100_000)); // 4.4 MB
    const tiny = { env: { NODE_OPTIONS: "--max-old-space-size=40" } };
    for (const argv of [["compact", big, "--ratio", "0.5"], ["retrieve", "friday", "--base", big], ["decompose", big, "--out", join(dir, "parts")]]) {
      const r = triage(argv, tiny);
      expect(expectOneLineError(r)).toMatch(/^triage: cannot (?:compact|read|decompose) .*big\.md: 5 MiB of input needs about \d+ MiB of memory, more than this Node's heap limit of \d+ MiB/);
      expect(r.stdout).toBe("");
    }
    expect(existsSync(join(dir, "parts"))).toBe(false);
    // 1.7 MB of short rules under many headings (second fresh-user pass): the program and model need their share too.
    const sectioned = join(dir, "sectioned.md");
    const lines = Array.from({ length: 25_000 }, (_, i) => (i % 50 === 0 ? `## Section ${i + 1}` : `- Never deploy service ${i + 1} on Fridays without approval from team ${(i + 1) % 7}.`));
    writeFileSync(sectioned, `${lines.join("\n")}\n`);
    for (const argv of [["retrieve", "deploy", "--base", sectioned], ["decompose", sectioned, "--out", join(dir, "parts2")]]) {
      const r = triage(argv, tiny);
      expect(expectOneLineError(r)).toMatch(/^triage: cannot (?:read|decompose) .*sectioned\.md: 2 MiB of input needs about \d+ MiB of memory/);
    }
  }, 120_000);
});

describe("classify streams its output", () => {
  // The reference is the whole output built at once, as classify did before it streamed: every row rendered by
  // renderTable, or JSON.stringify of the array of all rows, computed in this process with the same model.
  it("table and --json are byte-identical to the output built whole (examples, the test split, and 25,000+ rows across pieces)", async () => {
    const { decideUnits } = await import("../../scripts/operators/policy.js");
    const { loadClassifier } = await import("../../scripts/io/model-file.js");
    const { toRows } = await import("../../scripts/cli/commands/classify-command.js");
    const { readdirSync } = await import("node:fs");
    const clf = loadClassifier(bundledModel);
    const d = tempDir("kt-stream-");
    const example = readFileSync(join(repo, "examples", "CLAUDE.md"), "utf8");
    const many = join(d, "many.md");
    writeFileSync(many, example.repeat(260)); // over 25,000 rows: more than two pieces of 10,000
    const testSplit = readdirSync(join(repo, "data", "test")).filter((f) => f.endsWith(".md")).map((f) => join(repo, "data", "test", f));
    const files = [join(repo, "examples", "CLAUDE.md"), join(repo, "examples", "AGENTS.md"), ...testSplit, many];
    const rowsOf = (f: string) => toRows(f, decideUnits(segment(readFileSync(f, "utf8")), clf));
    const perFile = files.map((f) => ({ f, rows: rowsOf(f) }));
    const all = perFile.flatMap((p) => p.rows);
    expect(all.length).toBeGreaterThan(25_000);
    const table = perFile.map((p) => (p.rows.length ? renderTable(p.rows) : `== ${p.f}\n`)).join("");
    const counts = TYPES.map((t) => `${all.filter((r) => r.type === t).length} ${t}`).join(", ");
    const t = triage(["classify", ...files]);
    expect(t.code, t.stderr).toBe(0);
    expect(t.stdout).toBe(`${table}${all.length} units: ${counts}\n`);
    const j = triage(["classify", ...files, "--json"]);
    expect(j.code, j.stderr).toBe(0);
    expect(j.stdout).toBe(`${JSON.stringify(all)}\n`);
  }, 180_000);

  it("a later file that cannot be read fails before anything is written", () => {
    const r = triage(["classify", join(repo, "examples", "CLAUDE.md"), join(repo, "examples", "missing.md")]);
    expect(expectOneLineError(r)).toMatch(/^triage: cannot read .*missing\.md: no such file$/);
    expect(r.stdout).toBe("");
  });
});

describe("summary counts (found by a fresh-user pass: '1 units')", () => {
  it("one unit is '1 unit'", () => {
    const file = join(tempDir("kt-one-"), "one.md");
    writeFileSync(file, "Never push to main.\n");
    const r = triage(["classify", file, "--model", "/dev/null"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trimEnd().split("\n").at(-1)).toMatch(/^1 unit: /);
  });
});
