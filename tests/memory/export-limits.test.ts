/**
 * `triage export` within each target's documented limits (references/claude-code.md §6): Windsurf's 12,000
 * characters per rules file, Codex's 32 KiB AGENTS.md, comma-separated glob lists in Cursor `globs` and
 * Copilot `applyTo` (brace globs expanded), Copilot's repository-wide file, and a rule pinned with two globs
 * listed once per agent. Rule folders are written by `pinRule`, as a user's would be.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { regexClassifier } from "../../scripts/engine/classify.js";
import { expandBraces } from "../../scripts/operators/globs.js";
import { CODEX_MAX_BYTES, WINDSURF_MAX_CHARS, exportRules, planExportChecked, removeBlock } from "../../scripts/memory/store/export-rules.js";
import { readRuleFiles } from "../../scripts/memory/store/pinned-rules.js";
import { pinRule } from "../../scripts/memory/store/pin-rule.js";

const project = (): { d: string; rd: string } => {
  const d = mkdtempSync(join(tmpdir(), "kt-export-"));
  return { d, rd: join(d, ".claude", "rules", "knowledge-triage") };
};
const pin = (rd: string, text: string, paths?: string[]) => pinRule({ text, rulesDir: rd, classifier: regexClassifier, type: "constraint", paths });
/** A distinct, realistic rule of about `n` characters (numbered so consolidation keeps each one). */
const longRule = (i: number, n = 300): string => `Rule ${i}: never call the billing service ${"from a request handler without the retry wrapper and the idempotency key, ".repeat(Math.ceil(n / 75)).slice(0, n)}(case ${i}).`;

describe("expandBraces", () => {
  it.each([
    ["src/**/*.{ts,tsx}", ["src/**/*.ts", "src/**/*.tsx"]],
    ["{apps,packages}/*/src/**", ["apps/*/src/**", "packages/*/src/**"]],
    ["x/{a,{b,c}}/y", ["x/a/y", "x/b/y", "x/c/y"]],
    ["docs/**", ["docs/**"]],
    ["x/{a}.ts", ["x/{a}.ts"]],
    ["x/{a,b", ["x/{a,b"]],
  ])("%s", (glob, expected) => {
    expect(expandBraces(glob)).toEqual(expected);
  });
  it("leaves a product larger than the cap unexpanded", () => {
    const g = "{a,b,c,d}/{a,b,c,d}/{a,b,c,d}/{a,b}"; // 128 globs
    expect(expandBraces(g)).toEqual([g]);
  });
});

describe("export within each agent's limits", () => {
  it("a rule pinned with two globs is listed once per agent, under both globs", async () => {
    const { rd } = project();
    await pin(rd, "Never import from another app's src folder.", ["apps/web/", "apps/admin/"]);
    await pin(rd, "Never log request bodies.");
    const files = readRuleFiles(rd);
    expect(files.filter((f) => f.globs.length > 0)).toHaveLength(2); // two rule files on disk
    for (const format of ["cursor", "copilot", "windsurf", "agents", "gemini"] as const) {
      const text = planExportChecked(format, files).files.map((f) => f.content).join("\n");
      expect(text.split("Never import from another app's src folder.").length - 1, format).toBe(1);
    }
    const cursor = planExportChecked("cursor", files).files.find((f) => f.content.includes("another app"));
    expect(cursor?.content).toContain("globs: apps/admin/**,apps/web/**\n");
    const agents = planExportChecked("agents", files).files[0]?.content ?? "";
    expect(agents).toContain("### Files matching `apps/admin/**`, `apps/web/**`");
  });

  it("Cursor globs and Copilot applyTo get brace globs expanded into a comma list", async () => {
    const { rd } = project();
    await pin(rd, "Never use default exports in components.", ["src/components/**/*.{ts,tsx}"]);
    const files = readRuleFiles(rd);
    const cursor = planExportChecked("cursor", files).files[0]?.content ?? "";
    expect(cursor).toContain("globs: src/components/**/*.ts,src/components/**/*.tsx\n");
    const copilot = planExportChecked("copilot", files).files[0]?.content ?? "";
    expect(copilot).toContain('applyTo: "src/components/**/*.ts,src/components/**/*.tsx"\n');
    // A glob list without braces inside the comma-separated value: no agent can split a brace apart.
    for (const t of [cursor, copilot]) expect(/(?:globs|applyTo): [^\n]*\{/.test(t)).toBe(false);
  });

  it("Copilot: unscoped rules also go to a managed block of .github/copilot-instructions.md, keeping the user's text", async () => {
    const { d, rd } = project();
    await pin(rd, "Never commit generated files.");
    mkdirSync(join(d, ".github"), { recursive: true });
    const own = "# Team instructions\n\nUse British spelling in docs.\n";
    writeFileSync(join(d, ".github", "copilot-instructions.md"), own);
    exportRules(rd, d, "copilot");
    const once = readFileSync(join(d, ".github", "copilot-instructions.md"), "utf8");
    expect(once.startsWith(own)).toBe(true);
    expect(once).toContain("- Never commit generated files.\n");
    exportRules(rd, d, "copilot");
    expect(readFileSync(join(d, ".github", "copilot-instructions.md"), "utf8")).toBe(once);
    // The rule made path-scoped: the block leaves the user's file, which is back to its own bytes.
    writeFileSync(join(rd, "constraints.md"), "# R\n");
    const r = exportRules(rd, d, "copilot");
    expect(readFileSync(join(d, ".github", "copilot-instructions.md"), "utf8")).toBe(own);
    expect(r.removed.some((p) => p.endsWith("copilot-instructions.md (managed block)"))).toBe(true);
  });

  it("Windsurf: no rules file over 12,000 characters; the rules are split across parts, each once", async () => {
    const { d, rd } = project();
    const rules = Array.from({ length: 60 }, (_, i) => longRule(i));
    for (const r of rules) await pin(rd, r);
    const total = readRuleFiles(rd).reduce((n, f) => n + f.rules.join("\n").length, 0);
    expect(total).toBeGreaterThan(WINDSURF_MAX_CHARS); // the case this test is about
    const r = exportRules(rd, d, "windsurf");
    expect(r.files.length).toBeGreaterThan(1);
    expect(r.warnings).toEqual([]);
    const texts = r.files.map((p) => readFileSync(p, "utf8"));
    for (const t of texts) {
      expect(t.length).toBeLessThanOrEqual(WINDSURF_MAX_CHARS);
      expect(t.startsWith("---\ntrigger: always_on\n---\n")).toBe(true);
    }
    const all = texts.join("\n");
    for (const rule of rules) expect(all.split(rule).length - 1).toBe(1);
    // Fewer rules later: the extra parts are removed.
    for (const f of readdirSync(rd).filter((n) => n.endsWith(".md"))) rmSync(join(rd, f));
    writeFileSync(join(rd, "constraints.md"), `# R\n\n- ${rules[0]}\n`);
    const again = exportRules(rd, d, "windsurf");
    expect(again.files).toHaveLength(1);
    expect(again.removed.length).toBe(r.files.length - 1);
  });

  it("Windsurf: one rule longer than the limit is written and warned about", () => {
    const huge = `- ${longRule(1, 12_500)}`;
    const plan = planExportChecked("windsurf", [{ name: "constraints.md", globs: [], rules: [huge] }]);
    expect(plan.files).toHaveLength(1);
    expect(plan.warnings).toEqual([expect.stringMatching(/^export: \.windsurf\/rules\/knowledge-triage\.md is \d+ characters, over Windsurf's 12000/)]);
  });

  it("Codex: AGENTS.md over 32 KiB moves folder-scoped rules to nested AGENTS.md and warns; the user's text stays", async () => {
    const { d, rd } = project();
    for (let i = 0; i < 40; i++) await pin(rd, longRule(i), ["packages/api/"]);
    for (let i = 40; i < 80; i++) await pin(rd, longRule(i), ["apps/web/"]);
    await pin(rd, "Never push directly to main.");
    const own = `# Project\n\n${"Notes the user wrote about the architecture and the release process. ".repeat(150)}\n`;
    writeFileSync(join(d, "AGENTS.md"), own);
    const r = exportRules(rd, d, "agents");
    const root = readFileSync(join(d, "AGENTS.md"), "utf8");
    expect(root.startsWith(own)).toBe(true);
    expect(Buffer.byteLength(root)).toBeLessThanOrEqual(CODEX_MAX_BYTES);
    expect(root).toContain("- Never push directly to main.");
    expect(root).not.toContain(longRule(0));
    const api = readFileSync(join(d, "packages", "api", "AGENTS.md"), "utf8");
    expect(api).toContain(longRule(0));
    expect(api).not.toContain(longRule(40));
    expect(readFileSync(join(d, "apps", "web", "AGENTS.md"), "utf8")).toContain(longRule(79));
    expect(r.warnings).toHaveLength(2);
    expect(r.warnings[0]).toMatch(/rules for apps\/web\/\*\* moved to apps\/web\/AGENTS\.md/);
    // The user shortens AGENTS.md: everything fits at the root again and the nested blocks go away.
    writeFileSync(join(d, "AGENTS.md"), "# Project\n");
    mkdirSync(join(d, "apps", "web"), { recursive: true });
    const again = exportRules(rd, d, "agents");
    expect(again.warnings).toEqual([]);
    expect(readFileSync(join(d, "AGENTS.md"), "utf8")).toContain(longRule(0));
    expect(existsSync(join(d, "packages", "api", "AGENTS.md"))).toBe(false);
    expect(existsSync(join(d, "apps", "web", "AGENTS.md"))).toBe(false);
  });

  it("Codex: rules that cannot move (not folder-scoped) leave AGENTS.md over the limit, with a warning", () => {
    const rules = Array.from({ length: 120 }, (_, i) => `- ${longRule(i)}`);
    const plan = planExportChecked("agents", [{ name: "paths-x.md", globs: ["**/*.sql"], rules }]);
    expect(plan.files.map((f) => f.path)).toEqual(["AGENTS.md"]);
    expect(plan.warnings).toEqual([expect.stringMatching(/^export: AGENTS\.md is \d+ bytes, over Codex's project_doc_max_bytes default of 32768/)]);
  });

  it("removeBlock keeps the user's text byte for byte and reports a file that held only the block", () => {
    const block = "<!-- knowledge-triage:begin (generated by `triage export`; edits inside this block are replaced) -->\nx\n<!-- knowledge-triage:end -->\n";
    expect(removeBlock(`# Own\n\n${block}`)).toBe("# Own\n");
    expect(removeBlock(`${block}# After\n`)).toBe("# After\n");
    expect(removeBlock(block)).toBeNull();
    expect(removeBlock("# No block\n")).toBe("# No block\n");
  });
});
