/**
 * Rule files made by hand, as export and doctor read them (found by the fourth fresh-user pass, issue 14): a
 * byte-order mark at the start of a file, a binary `.md`, and broken frontmatter (`globs: [unclosed`). A file that
 * cannot be read as rules is skipped with a warning naming it, never exported as is, and `triage doctor` flags it.
 */
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { lintProject } from "../../scripts/cli/doctor.js";
import { exportRules } from "../../scripts/memory/store/export-rules.js";
import { parseRuleFile, ruleFileProblem } from "../../scripts/memory/store/pinned-rules.js";

function project(files: Record<string, string | Buffer>): { d: string; rd: string } {
  const d = mkdtempSync(join(tmpdir(), "kt-export-sources-"));
  const rd = join(d, ".claude", "rules", "knowledge-triage");
  mkdirSync(rd, { recursive: true });
  writeFileSync(join(rd, "constraints.md"), "# Constraints\n\n- Never push to main.\n");
  for (const [name, body] of Object.entries(files)) writeFileSync(join(rd, name), body);
  return { d, rd };
}
const BOM = "\uFEFF";
/** A PNG's first bytes, saved under a .md name: NUL bytes and invalid UTF-8. */
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52, 0xff, 0xd8]);

describe("export reads hand-made rule files", () => {
  it("a leading byte-order mark is not exported: its heading stays a heading and its frontmatter counts", () => {
    const { d, rd } = project({
      "mine.md": `${BOM}# Mine\n\n- Keep PRs under 400 lines.\n`,
      "api.md": `${BOM}---\npaths:\n  - "packages/api/**"\n---\n\n- Validate request bodies with zod.\n`,
    });
    exportRules(rd, d, "cursor");
    const dir = join(d, ".cursor", "rules");
    const all = readdirSync(dir).map((n) => readFileSync(join(dir, n), "utf8"));
    expect(all.join("")).not.toContain(BOM);
    expect(all.join("")).not.toContain("# Mine");
    const scoped = all.find((t) => t.includes("globs:")) ?? "";
    expect(scoped).toContain("globs: packages/api/**");
    expect(scoped).toContain("- Validate request bodies with zod.");
  });

  it("a binary .md and broken frontmatter are skipped with a warning naming each; the other rules are exported", () => {
    const { d, rd } = project({ "logo.md": PNG, "web.md": "---\nglobs: [unclosed\n---\n\n- Use the design tokens.\n" });
    const r = exportRules(rd, d, "agents");
    expect(r.warnings).toEqual([
      "export: skipped logo.md: not text (binary, or not UTF-8)",
      "export: skipped web.md: broken frontmatter (globs: [unclosed: a list opened with [ is not closed)",
    ]);
    const agents = readFileSync(join(d, "AGENTS.md"), "utf8");
    expect(agents).toContain("- Never push to main.");
    expect(agents).not.toContain("design tokens");
    expect(agents).not.toContain("PNG");
  });

  it("doctor flags both files", () => {
    const { d, rd } = project({ "logo.md": PNG, "web.md": "---\npaths: [unclosed\n---\n\n- Use the design tokens.\n" });
    const found = lintProject(rd, d).filter((p) => p.code === "unreadable-rule-file");
    expect(found.map((p) => p.file)).toEqual([join(rd, "logo.md"), join(rd, "web.md")]);
  });

  it.each([
    ["plain rules", "- Never push to main.\n", undefined],
    ["a closed flow list", "---\npaths: [\"src/**\", \"lib/**\"]\n---\n- x\n", undefined],
    ["frontmatter never closed", "---\npaths: src/**\n- x\n", "broken frontmatter (no closing --- line)"],
    ["an unbalanced quote", "---\npaths: \"src/**\n---\n- x\n", "broken frontmatter (paths: \"src/**: a quote is not closed)"],
    ["a NUL byte", "- a\u0000b\n", "not text (binary, or not UTF-8)"],
  ])("ruleFileProblem: %s", (_n, text, want) => {
    expect(ruleFileProblem(text)).toBe(want);
  });

  it("a flow list in paths: gives its globs, not '[src/**'", () => {
    expect(parseRuleFile("a.md", '---\npaths: ["src/**", lib/**]\n---\n- x\n').globs).toEqual(["src/**", "lib/**"]);
  });
});
