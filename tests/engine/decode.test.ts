import { describe, expect, it } from "vitest";
import { regexClassifier, classifyMarkdown } from "../../scripts/engine/classify.js";
import { segment } from "../../scripts/engine/units.js";
import { decodeBytes } from "../../scripts/io/text-io.js";

const bytes = (...parts: (string | number[])[]): Uint8Array =>
  Buffer.concat(parts.map((p) => (typeof p === "string" ? Buffer.from(p, "utf8") : Buffer.from(p))));

describe("decodeBytes: non-UTF-8 and binary input", () => {
  it("valid UTF-8 (with multilingual text) decodes without warnings", () => {
    const r = decodeBytes(bytes("- Никогда не коммить в main\n- 不要直接推送\n"), "ok.md");
    expect(r.warnings).toEqual([]);
    expect(r.text).toBe("- Никогда не коммить в main\n- 不要直接推送\n");
    expect(r.name).toBe("ok.md");
  });

  it("Latin-1 bytes become U+FFFD with one warning naming the file; the rest of the text survives", () => {
    // "café" in ISO-8859-1: 0xE9 is not valid UTF-8 on its own.
    const r = decodeBytes(bytes("- Never touch the caf", [0xe9], " table.\n- Run `make`.\n"), "legacy.md");
    expect(r.text).toBe("- Never touch the caf\uFFFD table.\n- Run `make`.\n");
    expect(r.warnings).toHaveLength(1);
    expect(r.warnings[0]).toMatch(/^legacy\.md: .*UTF-8/);
    expect(segment(r.text)).toHaveLength(2);
  });

  it("truncated multi-byte sequences and stray continuation bytes are replaced", () => {
    const r = decodeBytes(bytes([0xe4, 0xb8], "x", [0x80, 0xbf], "y", [0xf0, 0x9f]), "cut.md");
    expect(r.text.startsWith("\uFFFD")).toBe(true);
    expect(r.text).toContain("x");
    expect(r.text).toContain("y");
    expect(r.text.endsWith("\uFFFD")).toBe(true);
    expect(r.warnings).toHaveLength(1);
  });

  it("NUL bytes give a binary warning (and the text is still decoded)", () => {
    const r = decodeBytes(bytes("rule one\n", [0, 0, 0], "rule two\n"), "blob.md");
    expect(r.warnings.some((w) => /NUL/.test(w) && w.startsWith("blob.md"))).toBe(true);
    expect(r.text).toContain("rule two");
  });

  it("random binary garbage never throws, and segment + classify accept the result", () => {
    let seed = 12345;
    const rnd = (): number => {
      seed = (seed * 1103515245 + 12345) >>> 0;
      return seed >>> 24;
    };
    for (let n = 0; n < 50; n++) {
      const buf = Uint8Array.from({ length: 64 + n * 37 }, rnd);
      const r = decodeBytes(buf, "rand.bin");
      expect(typeof r.text).toBe("string");
      const units = classifyMarkdown(r.text, regexClassifier);
      for (const u of units) expect(u.line).toBeGreaterThan(0);
    }
  });

  it("a UTF-8 BOM never reaches the first unit's text (TextDecoder drops it; segment would too)", () => {
    const r = decodeBytes(bytes([0xef, 0xbb, 0xbf], "# Rules\n"), "bom.md");
    expect(r.warnings).toEqual([]);
    const first = segment(r.text)[0];
    expect(first?.kind).toBe("heading");
    expect(first?.text).toBe("# Rules");
  });

  it("UTF-16 with a byte-order mark (as PowerShell's > writes it) decodes like the UTF-8 file, in both byte orders", () => {
    const text = "# Rules\r\n- Никогда не коммить в main 🚫\r\n- 不要直接推送\r\n";
    const utf8 = decodeBytes(bytes(text), "a.md");
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, "utf16le")]);
    const be = Buffer.from(le);
    be.swap16();
    for (const [name, b] of [["le.md", le], ["be.md", be]] as const) {
      const r = decodeBytes(b, name);
      expect(r.warnings).toEqual([]);
      expect(r.text).toBe(utf8.text);
      expect(segment(r.text)).toEqual(segment(utf8.text));
    }
    // A UTF-16 file cut in the middle of a code unit keeps its text and warns once.
    const torn = decodeBytes(le.subarray(0, le.length - 1), "torn.md");
    expect(torn.warnings).toEqual(["torn.md: not valid UTF-16LE; invalid bytes replaced with U+FFFD"]);
    expect(torn.text.startsWith("# Rules")).toBe(true);
  });

  it("empty input decodes to an empty string with no warning and no units", () => {
    const r = decodeBytes(new Uint8Array(0), "empty.md");
    expect(r).toEqual({ name: "empty.md", text: "", warnings: [] });
    expect(segment(r.text)).toEqual([]);
  });
});
