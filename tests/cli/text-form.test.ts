/**
 * compact gives the input back in its own form: a byte-order mark and CRLF line breaks survive `--ratio 1`
 * byte for byte, and a smaller ratio keeps them on the lines it keeps.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
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

  it("inFormOf converts only files whose every line break is CRLF", () => {
    expect(inFormOf("a\r\nb\r\n", "a\nb\n")).toBe("a\r\nb\r\n");
    expect(inFormOf("a\r\nb\n", "a\nb\n")).toBe("a\nb\n");
    expect(inFormOf("\uFEFFa\n", "a\n")).toBe("\uFEFFa\n");
    expect(inFormOf("a", "a")).toBe("a");
  });
});
