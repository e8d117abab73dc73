import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { regexClassifier } from "../../scripts/engine/classify.js";
import { ExportConflictError } from "../../scripts/errors.js";
import { exportRules, markerSpan } from "../../scripts/memory/store/export-rules.js";
import { pinRule } from "../../scripts/memory/store/pin-rule.js";

/** A project with one pinned rule and its AGENTS.md exported once (found by the fourth fresh-user pass, issue 14). */
async function exported(): Promise<{ project: string; rulesDir: string; agents: string }> {
  const project = mkdtempSync(join(tmpdir(), "kt-markers-"));
  const rulesDir = join(project, ".claude", "rules", "knowledge-triage");
  await pinRule({ text: "Never commit generated files.", rulesDir, classifier: regexClassifier });
  exportRules(rulesDir, project, "agents");
  return { project, rulesDir, agents: join(project, "AGENTS.md") };
}

describe("export: the managed block's markers (a stray marker never costs the user's text)", () => {
  it("a begin marker whose end was deleted, then the user's notes: refused naming the file and line, nothing written", async () => {
    const { project, rulesDir, agents } = await exported();
    const text = readFileSync(agents, "utf8").replace(/<!-- knowledge-triage:end -->\n/, "") + "\n## My notes\n- My handwritten rule: never touch vendor/.\n";
    writeFileSync(agents, text);
    for (let i = 0; i < 2; i++) {
      expect(() => exportRules(rulesDir, project, "agents")).toThrow(ExportConflictError);
      expect(() => exportRules(rulesDir, project, "agents")).toThrow(/AGENTS\.md:1: .*begin marker.* no end marker/);
      expect(readFileSync(agents, "utf8")).toBe(text);
    }
  });

  it("a file with only an end marker: refused, not a second block appended on every export", async () => {
    const { project, rulesDir, agents } = await exported();
    writeFileSync(agents, "# Mine\n<!-- knowledge-triage:end -->\n");
    expect(() => exportRules(rulesDir, project, "agents")).toThrow(/AGENTS\.md:2: .*end marker.* no begin marker/);
    expect(readFileSync(agents, "utf8")).toBe("# Mine\n<!-- knowledge-triage:end -->\n");
  });

  it("two begin markers: refused", async () => {
    const { project, rulesDir, agents } = await exported();
    const text = `${readFileSync(agents, "utf8")}\n<!-- knowledge-triage:begin (copied) -->\n`;
    writeFileSync(agents, text);
    expect(() => exportRules(rulesDir, project, "agents")).toThrow(/AGENTS\.md:\d+: /);
    expect(readFileSync(agents, "utf8")).toBe(text);
  });

  it("markers inside a fenced code example are text: the real block is added after it and replaced on the next export", async () => {
    const { project, rulesDir, agents } = await exported();
    const doc = "# Docs\n\nThe block looks like this:\n\n```md\n<!-- knowledge-triage:begin -->\n- a rule\n<!-- knowledge-triage:end -->\n```\n\n~~~\n<!-- knowledge-triage:end -->\n~~~\n";
    writeFileSync(agents, doc);
    exportRules(rulesDir, project, "agents");
    const once = readFileSync(agents, "utf8");
    expect(once.startsWith(doc)).toBe(true);
    expect(once.slice(doc.length)).toContain("- Never commit generated files.");
    await pinRule({ text: "Always run the linter before pushing.", rulesDir, classifier: regexClassifier });
    exportRules(rulesDir, project, "agents");
    const twice = readFileSync(agents, "utf8");
    expect(twice.startsWith(doc)).toBe(true);
    expect(twice.match(/^<!-- knowledge-triage:begin/gm)?.length).toBe(2); // the example's and ours
    expect(twice).toContain("- Always run the linter before pushing.");
  });

  it.each([
    ["no markers", "# Mine\n", { kind: "none" }],
    ["one block", "a\n<!-- knowledge-triage:begin x -->\nb\n<!-- knowledge-triage:end -->\nc\n", { kind: "block", start: 2, end: 67 }],
    ["end before begin", "<!-- knowledge-triage:end -->\n<!-- knowledge-triage:begin x -->\n", { kind: "bad", line: 1 }],
    ["a marker inside an unclosed fence", "```\n<!-- knowledge-triage:begin x -->\n", { kind: "none" }],
  ])("markerSpan: %s", (_n, text, want) => {
    expect(markerSpan(text)).toMatchObject(want);
  });
});

describe("export: marker text that is not a marker line of its own (issue 14)", () => {
  const mine = (marker: (m: string) => string): string =>
    `# Mine\n\nText before.\n${marker("<!-- knowledge-triage:begin -->")}\nmiddle kept\n${marker("<!-- knowledge-triage:end -->")}\nText after.\n`;
  it.each([
    ["inline in a sentence", "Text <!-- knowledge-triage:begin --> inline and <!-- knowledge-triage:end --> here.\n"],
    ["in a blockquote", mine((m) => `> ${m}`)],
    ["in an indented code block", mine((m) => `    ${m}`)],
  ])("%s: copilot export refuses and keeps the user's file byte for byte", async (_where, text) => {
    const { project, rulesDir } = await exported();
    const file = join(project, ".github", "copilot-instructions.md");
    mkdirSync(join(project, ".github"), { recursive: true });
    writeFileSync(file, text);
    expect(() => exportRules(rulesDir, project, "copilot")).toThrow(/copilot-instructions\.md:\d+: knowledge-triage marker text that is not a marker line/);
    expect(readFileSync(file, "utf8")).toBe(text);
  });

  it("a marker line with up to 3 spaces of indent and trailing blanks is still our block", () => {
    const text = "# Mine\n   <!-- knowledge-triage:begin (generated) -->  \n- old\n <!-- knowledge-triage:end -->\t\nafter\n";
    const m = markerSpan(text);
    expect(m.kind).toBe("block");
    if (m.kind === "block") expect(text.slice(m.end)).toBe("\t\nafter\n");
  });

  it("a rule that names the marker keeps its text in the export, escaped so the block stays whole", async () => {
    const project = mkdtempSync(join(tmpdir(), "kt-markers-"));
    const rulesDir = join(project, ".claude", "rules", "knowledge-triage");
    await pinRule({ text: "Never write the literal <!-- knowledge-triage:end --> marker in docs.", rulesDir, classifier: regexClassifier });
    exportRules(rulesDir, project, "agents");
    const agents = readFileSync(join(project, "AGENTS.md"), "utf8");
    expect(agents).toContain("Never write the literal <\\!-- knowledge-triage:end --> marker in docs.");
    expect(markerSpan(agents).kind).toBe("block");
    // A second export finds the same block and changes nothing.
    exportRules(rulesDir, project, "agents");
    expect(readFileSync(join(project, "AGENTS.md"), "utf8")).toBe(agents);
  });
});
