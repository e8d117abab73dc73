/**
 * compact gives the input back in its own form: a byte-order mark and CRLF line breaks survive `--ratio 1`
 * byte for byte; input that is not valid UTF-8 is refused by the commands that write it back.
 */
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { inFormOf } from "../../scripts/io/text-io.js";
import { triage } from "./helpers.js";

const windowsFile = "\uFEFF# Deploy rules\r\n\r\n- Never run migrations against prod.\r\n- Deploys go out on Tuesdays after the release review.\r\n- We moved the staging cluster to eu-west-1 last spring.\r\n";

describe("compact keeps the input's form", () => {
  it("--ratio 1 writes the same bytes as the input (BOM, CRLF)", () => {
    const dir = mkdtempSync(join(tmpdir(), "kt-form-"));
    const input = join(dir, "CLAUDE.md");
    writeFileSync(input, windowsFile);
    const out = join(dir, "out.md");
    expect(triage(["compact", input, "--ratio", "1", "-o", out]).code).toBe(0);
    expect(readFileSync(out).equals(readFileSync(input))).toBe(true);
    const stdout = triage(["compact", input, "--ratio", "1"]);
    expect(stdout.stdout).toBe(windowsFile);
  });

  it("a UTF-16 file stays UTF-16 in -o (its byte order and mark), as the same bytes at --ratio 1; standard output is UTF-8 (found by a fresh-user pass)", () => {
    const dir = mkdtempSync(join(tmpdir(), "kt-form-"));
    for (const [name, bom, encode] of [
      ["le.md", [0xff, 0xfe], (t: string) => Buffer.from(t, "utf16le")],
      ["be.md", [0xfe, 0xff], (t: string) => Buffer.from(t, "utf16le").swap16()],
    ] as const) {
      const text = windowsFile.slice(1);
      const input = join(dir, name);
      writeFileSync(input, Buffer.concat([Buffer.from(bom), encode(text)]));
      const out = join(dir, `out-${name}`);
      expect(triage(["compact", input, "--ratio", "1", "-o", out]).code).toBe(0);
      expect(readFileSync(out).equals(readFileSync(input))).toBe(true);
      expect(triage(["compact", input, "--ratio", "1"]).stdout).toBe(text);
    }
  });

  it("compact and decompose refuse bytes that are not UTF-8 instead of writing U+FFFD in their place; classify only warns", () => {
    const dir = mkdtempSync(join(tmpdir(), "kt-form-"));
    const input = join(dir, "CLAUDE.md");
    writeFileSync(input, Buffer.concat([Buffer.from("# Rules\n- Never store caf"), Buffer.from([0xe9]), Buffer.from(" receipts in git.\n")]));
    for (const args of [["compact", input, "--ratio", "1", "-o", join(dir, "out.md")], ["decompose", input, "--out", join(dir, "parts")]]) {
      const r = triage(args);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/^triage: .*not valid UTF-8; (compact|decompose) keeps rules byte for byte/);
    }
    expect(readdirSync(dir)).toEqual(["CLAUDE.md"]);
    const c = triage(["classify", input]);
    expect(c.code).toBe(0);
    expect(c.stderr).toContain("not valid UTF-8");
  });

  it("inFormOf converts only files whose every line break is CRLF", () => {
    expect(inFormOf("a\r\nb\r\n", "a\nb\n")).toBe("a\r\nb\r\n");
    expect(inFormOf("a\r\nb\n", "a\nb\n")).toBe("a\nb\n");
    expect(inFormOf("\uFEFFa\n", "a\n")).toBe("\uFEFFa\n");
    expect(inFormOf("a", "a")).toBe("a");
  });
});
