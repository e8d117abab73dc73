import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { regexClassifier } from "../../scripts/engine/classify.js";
import { renderPinnedRules } from "../../scripts/memory/pipeline/extract-api.js";
import { exportRules, mergeBlock, planExport } from "../../scripts/memory/store/export-rules.js";
import { parseRuleFile, readRuleFiles } from "../../scripts/memory/store/pinned-rules.js";
import { pinRule } from "../../scripts/memory/store/pin-rule.js";
import { snapshot } from "./helpers.js";

const dir = () => mkdtempSync(join(tmpdir(), "kt-pin-"));

describe("pin", () => {
  it("adds a rule verbatim, idempotently", async () => {
    const d = dir();
    const rd = join(d, "rules");
    const text = "Run `./scripts/preview.sh --region eu-central-1 --no-cache` for preview deploys.";
    const a = await pinRule({ text, rulesDir: rd, classifier: regexClassifier, type: "procedural" });
    expect(a.status).toBe("added");
    const snap = snapshot(rd);
    const b = await pinRule({ text, rulesDir: rd, classifier: regexClassifier, type: "procedural" });
    expect(b.status).toBe("exists");
    expect(snapshot(rd)).toEqual(snap);
    expect(readFileSync(join(rd, "procedures.md"), "utf8")).toContain(`- ${text}\n`);
  });

  it("a pin with two globs goes to two files, each with one quoted anchored glob", async () => {
    const rd = join(dir(), "rules");
    await pinRule({ text: "Prefer named exports.", rulesDir: rd, classifier: regexClassifier, paths: ["*.ts", "./apps/web/"] });
    const files = readRuleFiles(rd);
    expect(files.map((f) => f.globs).sort()).toEqual([["**/*.ts"], ["apps/web/**"]]);
    for (const f of files) expect(f.rules).toEqual(["- Prefer named exports."]);
  });

  it("refuses a glob that holds a secret and writes nothing", async () => {
    const rd = join(dir(), "rules");
    const key = "gh" + "p_" + "abcdefghijklmnopqrstuvwxyz0123456789";
    await expect(pinRule({ text: "Never use X.", rulesDir: rd, classifier: regexClassifier, paths: [`src/${key}/**`] })).rejects.toThrow(/looks like it holds a secret/);
    expect(existsSync(rd) ? JSON.stringify(snapshot(rd)) : "").not.toContain(key);
  });

  it("says which earlier rule a pin replaced", async () => {
    const rd = join(dir(), "rules");
    await pinRule({ text: "Always run the linter before committing.", rulesDir: rd, classifier: regexClassifier });
    const b = await pinRule({ text: "Never run the linter before committing.", rulesDir: rd, classifier: regexClassifier });
    const retired = JSON.parse(readFileSync(join(rd, ".state", "rules.json"), "utf8")).rules.filter((r: { status: string }) => r.status === "retired");
    // The store decides whether the new rule replaces the old one; whatever it retires is named in the report.
    expect(b.warnings.filter((w) => w.startsWith("replaces the earlier rule")).length).toBe(retired.length);
    for (const r of retired) expect(b.warnings.join("\n")).toContain(r.text);
    expect(retired.length).toBe(1);
  });

  it("redacts a secret inside a pinned rule", async () => {
    const rd = join(dir(), "rules");
    const key = "gh" + "p_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8";
    await pinRule({ text: `Never paste ${key} anywhere.`, rulesDir: rd, classifier: regexClassifier });
    expect(JSON.stringify(snapshot(rd))).not.toContain(key);
  });

  it("rejects empty text and non-path globs", async () => {
    const rd = join(dir(), "rules");
    await expect(pinRule({ text: "  ", rulesDir: rd, classifier: regexClassifier })).rejects.toThrow(/empty/);
    await expect(pinRule({ text: "x rule", rulesDir: rd, classifier: regexClassifier, paths: ["./"] })).rejects.toThrow(/not a path/);
  });
});

describe("renderPinnedRules and parseRuleFile", () => {
  it("parses list and comma-string paths and continuation lines; strips HTML comments", () => {
    const f = parseRuleFile("x.md", '---\npaths: "src/**", lib/**\n---\n# T\n<!-- note -->\n- one\n  more\n- two\n');
    expect(f).toEqual({ name: "x.md", globs: ["src/**", "lib/**"], rules: ["- one\n  more", "- two"] });
  });
  it("renders unscoped rules first, then each glob; empty folder gives empty text", async () => {
    const d = dir();
    expect(renderPinnedRules(join(d, "missing"))).toEqual({ text: "", count: 0, truncated: false });
    const rd = join(d, "rules");
    await pinRule({ text: "Never push to main.", rulesDir: rd, classifier: regexClassifier });
    await pinRule({ text: "Validate bodies with zod.", rulesDir: rd, classifier: regexClassifier, paths: ["packages/api"] });
    const r = renderPinnedRules(rd);
    expect(r.count).toBe(2);
    expect(r.text.indexOf("Never push to main.")).toBeLessThan(r.text.indexOf("`packages/api/**`"));
    expect(r.text).not.toMatch(/^\s*\{/);
  });
});

describe("export", () => {
  const files = [parseRuleFile("constraints.md", "# R\n\n- Never push to main.\n"), parseRuleFile("paths-a.md", '---\npaths:\n  - "packages/api/**"\n---\n# R\n\n- Validate with zod.\n')];
  it("cursor: alwaysApply for unscoped, globs for scoped", () => {
    const out = planExport("cursor", files);
    expect(out[0]?.path).toBe(".cursor/rules/knowledge-triage.mdc");
    expect(out[0]?.content).toContain("alwaysApply: true");
    expect(out[1]?.content).toMatch(/globs: packages\/api\/\*\*\nalwaysApply: false/);
  });
  it("windsurf and gemini: trigger frontmatter and a GEMINI.md block", () => {
    const w = planExport("windsurf", files);
    expect(w[0]?.content).toContain("trigger: always_on");
    expect(w[1]?.content).toContain("trigger: glob\nglobs: packages/api/**");
    const g = planExport("gemini", files);
    expect(g[0]?.path).toBe("GEMINI.md");
    expect(g[0]?.content).toContain("### Files matching `packages/api/**`");
  });
  it("copilot: applyTo", () => {
    const out = planExport("copilot", files);
    expect(out.map((f) => f.path)[0]).toBe(".github/instructions/knowledge-triage.instructions.md");
    expect(out.find((f) => f.path.includes("knowledge-triage-"))?.content).toContain('applyTo: "packages/api/**"');
  });
  it("agents: a managed block merged into AGENTS.md, idempotent, keeping the user's text", () => {
    const d = dir();
    const rd = join(d, "rules");
    writeFileSync(join(d, "AGENTS.md"), "# My project\n\nOwn notes.\n");
    // write the two rule files
    mkdirSync(rd, { recursive: true });
    writeFileSync(join(rd, "constraints.md"), "# R\n\n- Never push to main.\n");
    exportRules(rd, d, "agents");
    const once = readFileSync(join(d, "AGENTS.md"), "utf8");
    expect(once.startsWith("# My project\n\nOwn notes.\n")).toBe(true);
    expect(once).toContain("- Never push to main.");
    exportRules(rd, d, "agents");
    expect(readFileSync(join(d, "AGENTS.md"), "utf8")).toBe(once);
    expect(mergeBlock(once, "<!-- knowledge-triage:begin x -->\nnew\n<!-- knowledge-triage:end -->\n")).toContain("Own notes.");
  });
  it("removes our per-glob files that no longer have rules", () => {
    const d = dir();
    const rd = join(d, "rules");
    mkdirSync(rd, { recursive: true });
    writeFileSync(join(rd, "a.md"), '---\npaths:\n  - "src/**"\n---\n- x\n');
    exportRules(rd, d, "cursor");
    expect(readdirSync(join(d, ".cursor/rules")).length).toBe(1);
    writeFileSync(join(rd, "a.md"), "- x\n");
    const r = exportRules(rd, d, "cursor");
    expect(r.removed.length).toBe(1);
    expect(existsSync(join(d, ".cursor/rules/knowledge-triage.mdc"))).toBe(true);
  });
});

describe("pin keeps the user's words (found by a fresh-user pass: 'already pinned' for a rule it never saved)", () => {
  it("a narrower or reworded rule is its own rule; only the same terms are 'already pinned'", async () => {
    const rd = join(dir(), "rules");
    const pin = (text: string) => pinRule({ text, rulesDir: rd, classifier: regexClassifier, type: "constraint" });
    expect((await pin("Never use tabs.")).status).toBe("added");
    expect((await pin("Do not use tabs in YAML.")).status).toBe("added");
    expect((await pin("Use spaces, not tabs.")).status).toBe("added");
    expect((await pin("never use tabs")).status).toBe("exists");
    const text = readFileSync(join(rd, "constraints.md"), "utf8");
    for (const rule of ["Never use tabs.", "Do not use tabs in YAML.", "Use spaces, not tabs."]) expect(text).toContain(`- ${rule}\n`);
  });
});
