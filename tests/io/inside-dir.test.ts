/** isInsideDir (scripts/paths.ts): the one "is this path inside that folder" test of the write-boundary checks. */
import { describe, expect, it } from "vitest";
import { isInsideDir } from "../../scripts/paths.js";

describe("isInsideDir", () => {
  it.each([
    ["/work/p/.claude/rules", "/work/p", true],
    ["/work/p", "/work/p", true],
    ["/work/p/..notes/x.md", "/work/p", true],
    ["/work/pq/x.md", "/work/p", false],
    ["/work/x.md", "/work/p", false],
    ["/work/p/../q", "/work/p", false],
    // The filesystem root as the project (a hook run with no project folder found): "/" + "/" is not a prefix of anything.
    ["/.claude/rules/knowledge-triage", "/", true],
    ["/", "/", true],
  ])("%s inside %s: %s", (path, dir, inside) => {
    expect(isInsideDir(path, dir)).toBe(inside);
  });
});
