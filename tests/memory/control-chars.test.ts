/**
 * memory/control-chars.ts: what is removed from a stated rule before it is stored, written or printed (issue 14).
 */
import { describe, expect, it } from "vitest";
import { hasControls, stripControls } from "../../scripts/memory/control-chars.js";

describe("stripControls", () => {
  it.each([
    ["a bell", "Never push to main \u0007branch.", "Never push to main branch."],
    ["ANSI colours, removed whole", "\u001b[31mAlways\u001b[0m lint first.", "Always lint first."],
    ["an 8-bit CSI", "Use \u009b1;33mpnpm\u009b0m.", "Use pnpm."],
    ["an OSC hyperlink", "See \u001b]8;;https://example.test\u0007docs\u001b]8;;\u0007 first.", "See docs first."],
    ["a bidi override and its pop", "Run \u202etxt.exe\u202c never.", "Run txt.exe never."],
    ["isolates and marks", "\u2066Use\u2069 \u200fyarn\u200e.", "Use yarn."],
    ["NUL and backspaces", "Never\u0000 delete it.\b\b\b", "Never delete it."],
    ["a tab and a line separator become spaces", "Use\tpnpm\u2028always.", "Use pnpm always."],
    ["CRLF steps stay steps", "Deploy:\r\n1. build\r\n2. ship", "Deploy:\n1. build\n2. ship"],
    ["emoji joiners and CJK stay", "👩‍💻 必ず pnpm を使う。", "👩‍💻 必ず pnpm を使う。"],
  ])("%s", (_what, input, output) => {
    expect(stripControls(input)).toBe(output);
    expect(hasControls(input)).toBe(input.replace(/\r\n?/g, "\n") !== output);
  });
});
