import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadClassifier } from "../../scripts/io/model-file.js";
import { memoryDocs, projectMemoryFiles } from "../../scripts/io/memory-files.js";

const root = mkdtempSync(join(tmpdir(), "kt-memfiles-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function put(rel: string, text: string): string {
  const p = join(root, rel);
  mkdirSync(join(p, ".."), { recursive: true });
  writeFileSync(p, text);
  return p;
}

describe("projectMemoryFiles", () => {
  it("lists the root memory files, then every .md under .claude/rules (not state or archive), then an outside rules folder", () => {
    const project = join(root, "p");
    put("p/CLAUDE.md", "# P\n");
    put("p/.claude/CLAUDE.md", "- x\n");
    put("p/.claude/rules/web/ui.md", "- y\n");
    put("p/.claude/rules/knowledge-triage/constraints.md", "- z\n");
    put("p/.claude/rules/knowledge-triage/.state/notes.md", "not memory\n");
    put("p/.claude/rules/knowledge-triage/archive/s/readme.md", "not memory\n");
    put("p/.claude/rules/notes.txt", "not markdown\n");
    put("elsewhere/rules/a.md", "- w\n");
    const inside = projectMemoryFiles(project, join(project, ".claude", "rules", "knowledge-triage"));
    expect(inside.files.map((f) => f.slice(project.length + 1))).toEqual([
      "CLAUDE.md",
      ".claude/CLAUDE.md",
      ".claude/rules/knowledge-triage/constraints.md",
      ".claude/rules/web/ui.md",
    ]);
    const outside = projectMemoryFiles(project, join(root, "elsewhere", "rules"));
    expect(outside.files.at(-1)).toBe(join(root, "elsewhere", "rules", "a.md"));
    expect(projectMemoryFiles(join(root, "missing"), join(root, "missing", "r")).files).toEqual([]);
  });
});

describe("memoryDocs", () => {
  it("drops block HTML comments (Claude Code strips them) and keeps line numbers", () => {
    const f = put("c/CLAUDE.md", "<!-- Never edit this file by hand.\n     It is generated. -->\n# Rules\n\n- Never push directly to main.\n");
    const { docs } = memoryDocs([f], loadClassifier(), { nameOf: () => "CLAUDE.md" });
    const units = docs[0]?.units ?? [];
    expect(docs[0]?.name).toBe("CLAUDE.md");
    expect(units.some((u) => u.text.includes("Never edit"))).toBe(false);
    expect(units.find((u) => u.text.includes("push"))).toMatchObject({ line: 5, type: "constraint" });
  });
});
