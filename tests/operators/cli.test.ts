import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ManifestSchema, RetrieveJsonSchema, CompactReportSchema } from "../../scripts/cli/operator-json.js";

const ROOT = new URL("../..", import.meta.url).pathname;
const FIXTURE = join(ROOT, "tests/fixtures/operators/claude-coding.md");
const dir = mkdtempSync(join(tmpdir(), "triage-ops-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Run the CLI from source with the regex tier (deterministic, no model file needed). */
function triage(...args: string[]) {
  const r = spawnSync(process.execPath, ["--import", "tsx", join(ROOT, "scripts/cli.ts"), ...args, "--model", "/dev/null"], { encoding: "utf8", cwd: ROOT });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe("triage compact / decompose / retrieve", { timeout: 60_000 }, () => {
  it("exits 2 with COMPACTION_UNSAFE and the needed budget on stderr, and writes nothing", () => {
    const out = join(dir, "unsafe.md");
    const r = triage("compact", FIXTURE, "--ratio", "0.1", "-o", out);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/^triage: COMPACTION_UNSAFE: the pinned rules need (\d+) tokens but the budget is (\d+)/);
    expect(r.stderr).toContain("L39: pnpm build");
    expect(existsSync(out)).toBe(false);
    const needed = Number(/need (\d+) tokens/.exec(r.stderr)?.[1]);
    const ok = triage("compact", FIXTURE, "--budget", String(needed), "-o", out);
    expect(ok.code).toBe(0);
    expect(readFileSync(out, "utf8")).toContain("```bash\npnpm build\npnpm deploy --env staging\n```");
  });

  it("prints a JSON report that matches its schema", () => {
    const r = triage("compact", FIXTURE, "--ratio", "0.6", "--json");
    expect(r.code).toBe(0);
    const report = CompactReportSchema.parse(JSON.parse(r.stdout));
    expect(report.after).toBeLessThanOrEqual(report.budget);
    expect(report.units.some((u) => u.action === "dropped")).toBe(true);
  });

  it("rejects a missing or double budget with exit 1", () => {
    expect(triage("compact", FIXTURE).code).toBe(1);
    expect(triage("compact", FIXTURE, "--budget", "10", "--ratio", "0.5").code).toBe(1);
    expect(triage("compact", FIXTURE, "--ratio", "abc").stderr).toContain("--ratio must be a decimal number");
    for (const odd of ["0x10", " 12", "1,5", "e3"]) expect(triage("compact", FIXTURE, "--budget", odd).stderr).toContain("--budget must be a whole number of tokens such as 800");
    expect(triage("compact", FIXTURE, "--budget", "").stderr).toBe("triage: --budget is empty: give a value\n");
  });

  it("takes exponent notation as the same number", () => {
    const a = triage("compact", FIXTURE, "--ratio", "0.5");
    expect(a.code).toBe(0);
    expect(triage("compact", FIXTURE, "--ratio", "5e-1").stdout).toBe(a.stdout);
    expect(triage("compact", FIXTURE, "--budget", "1e3").stdout).toBe(triage("compact", FIXTURE, "--budget", "1000").stdout);
  });

  it("decompose writes one file per partition and a valid manifest", () => {
    const out = join(dir, "parts");
    const r = triage("decompose", FIXTURE, "--out", out);
    expect(r.code).toBe(0);
    const manifest = ManifestSchema.parse(JSON.parse(readFileSync(join(out, "manifest.json"), "utf8")));
    expect(manifest.violations).toBe(0);
    for (const p of manifest.partitions) expect(existsSync(join(out, p.file))).toBe(true);
    const api = manifest.partitions.find((p) => p.id === "packages-api");
    expect(api?.copied.map((c) => c.line)).toContain(10);
  });

  it("retrieve --json puts the in-scope rules first", () => {
    const r = triage("retrieve", "deploy the web app", "--base", FIXTURE, "--path", "apps/web/src/x.tsx", "-k", "3", "--json");
    expect(r.code).toBe(0);
    const json = RetrieveJsonSchema.parse(JSON.parse(r.stdout));
    expect(json.hits[0]?.line).toBe(25);
    expect(json.exceeded).toBe(true);
    expect(r.stderr).toContain("in-scope rules exceed -k 3");
  });
});

/** The built bundle run in `cwd` (pin and export take no --model). */
function triageIn(cwd: string, ...args: string[]) {
  const r = spawnSync(process.execPath, [join(ROOT, "dist", "triage.mjs"), ...args], { encoding: "utf8", cwd, env: { ...process.env, CLAUDE_PROJECT_DIR: "" } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe("compact keeps block HTML comments", () => {
  it("an exported managed block keeps both markers, so the next export replaces it instead of adding a second", () => {
    const d = mkdtempSync(join(tmpdir(), "kt-comment-"));
    writeFileSync(join(d, "AGENTS.md"), "# Mine\n\nHand-written notes about the staging cluster and its history.\n");
    expect(triageIn(d, "pin", "Never run migrations against prod.").code).toBe(0);
    expect(triageIn(d, "export", "--format", "agents").code).toBe(0);
    expect(triageIn(d, "compact", "AGENTS.md", "--ratio", "min", "-o", "AGENTS.md", "--force").code).toBe(0);
    const compacted = readFileSync(join(d, "AGENTS.md"), "utf8");
    expect(compacted).toMatch(/<!-- knowledge-triage:begin[\s\S]*Never run migrations against prod\.[\s\S]*<!-- knowledge-triage:end -->/);
    expect(triageIn(d, "export", "--format", "agents").code).toBe(0);
    expect(readFileSync(join(d, "AGENTS.md"), "utf8").match(/knowledge-triage:begin/g)).toHaveLength(1);
  });
});
