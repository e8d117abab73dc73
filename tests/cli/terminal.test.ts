import { describe, expect, it } from "vitest";
import fc from "fast-check";
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
    // Found by a fresh-user pass: a zero-width space made "Nev\u200ber" print as "Never".
    ["zero-width space, word joiner, U+FEFF", "Nev\u200ber pu\u2060sh\ufeff", "Nev\\u200ber pu\\u2060sh\\ufeff"],
    ["ZWNJ and ZWJ kept (Persian, emoji sequences)", "می\u200cخواهم 👩\u200d💻", "می\u200cخواهم 👩\u200d💻"],
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

describe("visibleTruncated's plain-text shortcut", () => {
  // The definition: whole code points of visible(text) while they fit in width - 1, then "…"
  // (the per-character loop the shortcut replaces for text with nothing to escape).
  function byCodePoint(text: string, width: number): string {
    const shown = visible(text);
    if (shown.length <= width) return shown;
    let out = "";
    for (const ch of text) {
      const piece = visible(ch);
      if (out.length + piece.length > width - 1) break;
      out += piece;
    }
    return `${out}…`;
  }

  it("cuts exactly where the per-code-point definition does (emoji, lone surrogates, escapes)", () => {
    const units = ["a", "é", "部", "\u{1F680}", "\ud800", "\udc00", "\u001b", "\u202e", " "];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...units), { maxLength: 40 }), fc.integer({ min: 1, max: 30 }), (parts, width) => {
        const text = parts.join("");
        expect(visibleTruncated(text, width)).toBe(byCodePoint(text, width));
      }),
      { numRuns: 5000 },
    );
  });
});
