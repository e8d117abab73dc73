/**
 * `triage export` into agent files as users have them: Windows files (CRLF line breaks, UTF-16 with a
 * byte-order mark, as PowerShell's `>` writes) keep their encoding and line breaks, and AGENTS.md as a
 * symbolic link to CLAUDE.md stays a link (the block goes into the file it points to). A link that leads
 * out of the project is refused before anything is written.
 */
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { exportRules } from "../../scripts/memory/store/export-rules.js";
import { WriteError } from "../../scripts/errors.js";

function project(agents?: string | Buffer): { d: string; rd: string } {
  const d = mkdtempSync(join(tmpdir(), "kt-export-forms-"));
  const rd = join(d, ".claude", "rules", "knowledge-triage");
  mkdirSync(rd, { recursive: true });
  writeFileSync(join(rd, "constraints.md"), "# Constraints\n\n- Never push to main.\n- Run `npm test` before every commit.\n");
  if (agents !== undefined) writeFileSync(join(d, "AGENTS.md"), agents);
  return { d, rd };
}

describe("export keeps the form of the file it merges into", () => {
  it("CRLF: the whole file stays CRLF, the user's lines byte for byte, and a second export changes nothing", () => {
    const mine = "# Build\r\n\r\nUse pnpm, not npm.\r\n";
    const { d, rd } = project(mine);
    exportRules(rd, d, "agents");
    const once = readFileSync(join(d, "AGENTS.md"), "utf8");
    expect(once.startsWith(mine)).toBe(true);
    expect(once).toContain("- Never push to main.\r\n");
    expect(once.replace(/\r\n/g, "")).not.toContain("\n");
    exportRules(rd, d, "agents");
    expect(readFileSync(join(d, "AGENTS.md"), "utf8")).toBe(once);
  });

  it("UTF-16LE with a byte-order mark stays UTF-16LE; its text is the user's plus the block", () => {
    const mine = "# Règles\n\nLes migrations passent par l'équipe données.\n";
    const { d, rd } = project(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(mine, "utf16le")]));
    exportRules(rd, d, "agents");
    const bytes = readFileSync(join(d, "AGENTS.md"));
    expect([bytes[0], bytes[1]]).toEqual([0xff, 0xfe]);
    const text = bytes.subarray(2).toString("utf16le");
    expect(text.startsWith(mine)).toBe(true);
    expect(text).toContain("- Never push to main.");
    exportRules(rd, d, "agents");
    expect(readFileSync(join(d, "AGENTS.md")).equals(bytes)).toBe(true);
  });

  it("UTF-16BE stays UTF-16BE", () => {
    const mine = "# Notes\n\nKeep it short.\n";
    const { d, rd } = project(Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(mine, "utf16le").swap16()]));
    exportRules(rd, d, "agents");
    const bytes = readFileSync(join(d, "AGENTS.md"));
    expect([bytes[0], bytes[1]]).toEqual([0xfe, 0xff]);
    const text = Buffer.from(bytes.subarray(2)).swap16().toString("utf16le");
    expect(text.startsWith(mine)).toBe(true);
    expect(text).toContain("- Never push to main.");
  });

  it("a UTF-8 byte-order mark is kept", () => {
    const { d, rd } = project("\uFEFF# Notes\n\nShort.\n");
    exportRules(rd, d, "agents");
    expect(readFileSync(join(d, "AGENTS.md")).subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
  });
});

describe("export through symbolic links", () => {
  it("AGENTS.md -> CLAUDE.md: the link stays a link and CLAUDE.md gets the block after its own text", () => {
    const { d, rd } = project();
    writeFileSync(join(d, "CLAUDE.md"), "# Project\n\nThe API lives in packages/api.\n");
    symlinkSync("CLAUDE.md", join(d, "AGENTS.md"));
    exportRules(rd, d, "agents");
    expect(lstatSync(join(d, "AGENTS.md")).isSymbolicLink()).toBe(true);
    expect(readlinkSync(join(d, "AGENTS.md"))).toBe("CLAUDE.md");
    const claude = readFileSync(join(d, "CLAUDE.md"), "utf8");
    expect(claude.startsWith("# Project\n\nThe API lives in packages/api.\n")).toBe(true);
    expect(claude).toContain("- Never push to main.");
  });

  it("a link that leads out of the project is refused and the file outside is not touched", () => {
    const { d, rd } = project();
    const elsewhere = mkdtempSync(join(tmpdir(), "kt-export-outside-"));
    writeFileSync(join(elsewhere, "AGENTS.md"), "shared team file\n");
    symlinkSync(join(elsewhere, "AGENTS.md"), join(d, "AGENTS.md"));
    expect(() => exportRules(rd, d, "agents")).toThrow(WriteError);
    expect(() => exportRules(rd, d, "agents")).toThrow(/symbolic link to .*outside the project/);
    expect(readFileSync(join(elsewhere, "AGENTS.md"), "utf8")).toBe("shared team file\n");
    expect(lstatSync(join(d, "AGENTS.md")).isSymbolicLink()).toBe(true);
  });
});

describe("export never copies a secret out of a hand-written rule file", () => {
  it("the token is [REDACTED] in AGENTS.md and the plan warns", async () => {
    const { d, rd } = project();
    const token = `ghp_${"aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789".slice(0, 36)}`;
    writeFileSync(join(rd, "hand.md"), `- Deploy with token ${token} only.\n`);
    const r = exportRules(rd, d, "agents");
    const agents = readFileSync(join(d, "AGENTS.md"), "utf8");
    expect(agents).not.toContain(token);
    expect(agents).toContain("- Deploy with token [REDACTED] only.");
    expect(agents).toContain("- Never push to main.");
    expect(r.warnings.join("\n")).toMatch(/1 rule in the rules folder holds a secret/);
  });
});

describe("export refuses what it would damage (found by the second fresh-user pass)", () => {
  it("an AGENTS.md that is not UTF-8 (Latin-1) is refused and left byte for byte", () => {
    const latin1 = Buffer.from("# Caf\xe9\nmine\n", "latin1");
    const { d, rd } = project(latin1);
    expect(() => exportRules(rd, d, "agents")).toThrow(/not valid UTF-8/);
    expect(readFileSync(join(d, "AGENTS.md")).equals(latin1)).toBe(true);
  });

  it("a folder on the way that is a link out of the project (.github -> elsewhere) is refused before anything is written", () => {
    const { d, rd } = project();
    const elsewhere = mkdtempSync(join(tmpdir(), "kt-export-outside-"));
    writeFileSync(join(elsewhere, "copilot-instructions.md"), "theirs\n");
    symlinkSync(elsewhere, join(d, ".github"));
    expect(() => exportRules(rd, d, "copilot")).toThrow(/outside the project/);
    expect(readFileSync(join(elsewhere, "copilot-instructions.md"), "utf8")).toBe("theirs\n");
    expect(readdirSync(elsewhere)).toEqual(["copilot-instructions.md"]);
  });
});
