import { describe, expect, it } from "vitest";
import { visible } from "../../scripts/terminal.js";

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
