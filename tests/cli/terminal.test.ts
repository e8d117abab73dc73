import { describe, expect, it } from "vitest";
import { visible, visibleName, visibleTruncated } from "../../scripts/terminal.js";

describe("visible", () => {
  it.each([
    ["plain text", "Never push to main.", "Never push to main."],
    ["TAB and LF kept", "a\tb\nc", "a\tb\nc"],
    ["ESC (CSI clear screen)", "\u001b[2J", "\\u001b[2J"],
    ["OSC title with BEL", "\u001b]0;x\u0007", "\\u001b]0;x\\u0007"],
    ["CR (overwrites the line)", "ok\rno", "ok\\u000dno"],
    ["NUL and DEL", "\u0000\u007f", "\\u0000\\u007f"],
    ["C1 CSI", "\u009b2J", "\\u009b2J"],
    ["right-to-left override", "abc\u202edef", "abc\\u202edef"],
    ["isolates and marks", "\u2066\u2069\u200e\u200f\u061c", "\\u2066\\u2069\\u200e\\u200f\\u061c"],
    ["emoji and CJK untouched", "部署 🚀", "部署 🚀"],
  ])("%s", (_name, input, shown) => {
    expect(visible(input)).toBe(shown);
  });
});

describe("visibleName and visibleTruncated", () => {
  it("a file name keeps to one line: LF is escaped too", () => {
    expect(visibleName("nl\nname.md")).toBe("nl\\u000aname.md");
    expect(visibleName("a\u001b[31mb.md")).toBe("a\\u001b[31mb.md");
  });

  it("a cut never falls inside an escape or a surrogate pair, at every width", () => {
    const text = `${"a".repeat(20)}${"\u0001".repeat(10)}🚀🚀 tail`;
    const full = visible(text);
    for (let width = 2; width <= full.length + 2; width++) {
      const shown = visibleTruncated(text, width);
      expect(shown.length).toBeLessThanOrEqual(width);
      if (full.length <= width) {
        expect(shown).toBe(full);
        continue;
      }
      const kept = shown.slice(0, -1);
      expect(shown.endsWith("…")).toBe(true);
      expect(full.startsWith(kept)).toBe(true);
      expect(kept).not.toMatch(/\\(u[0-9a-f]{0,3})?$/);
      expect(/[\ud800-\udbff]$/.test(kept)).toBe(false);
    }
  });

  it("plain text is cut as before: the first width - 1 units and an ellipsis", () => {
    expect(visibleTruncated("x".repeat(120), 100)).toBe(`${"x".repeat(99)}…`);
    expect(visibleTruncated("short", 100)).toBe("short");
  });
});
