import { spawnSync } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { jsonl, user } from "../fixtures/memory/jsonl.js";
import { activeRules, extractText, tempProject } from "./helpers.js";

const root = resolve(import.meta.dirname, "..", "..");
const tsx = join(root, "node_modules", ".bin", "tsx");
const cli = (args: string[], cwd: string) => spawnSync(tsx, [join(root, "scripts", "cli.ts"), ...args], { cwd, encoding: "utf8" });

// Spawning tsx takes seconds on a loaded machine: a generous per-test timeout (no timing is asserted).
describe("triage extract (CLI)", { timeout: 60_000 }, () => {
  it("exits 1 with one line for a missing transcript, and writes nothing", () => {
    const p = tempProject();
    const r = cli(["extract", "missing.jsonl", "--model", "/dev/null"], p.dir);
    expect(r.status).toBe(1);
    expect(r.stderr.trim().split("\n")).toEqual(["triage: cannot read missing.jsonl: no such file"]);
    expect(existsSync(join(p.dir, ".claude"))).toBe(false);
  });

  it("prints a JSON report with no secret in stdout or stderr; --explain shows redacted sentences", () => {
    const p = tempProject();
    const key = "gh" + "p_" + "Zz9Yy8Xx7Ww6Vv5Uu4Tt3Ss2Rr1Qq0Pp9Oo8";
    writeFileSync(p.transcript, jsonl([user(`use ${key} for releases and never force-push tags`)]));
    const r = cli(["extract", p.transcript, "--json", "--model", "/dev/null"], p.dir);
    expect(r.status).toBe(0);
    const rep = JSON.parse(r.stdout) as { added: number; files: string[] };
    expect(rep.added).toBe(1);
    expect(rep.files[0]).toContain(join(".claude", "rules", "knowledge-triage"));
    const e = cli(["extract", p.transcript, "--explain", "--dry-run", "--session", "other", "--model", "/dev/null"], p.dir);
    expect(e.stdout).toContain("KEEP");
    expect(e.stdout).toContain("[REDACTED]");
    for (const out of [r.stdout, r.stderr, e.stdout, e.stderr]) expect(out).not.toContain(key);
  });
});

describe("--llm second opinion", () => {
  it("asks the command only about borderline sentences and follows its yes/no", async () => {
    const yes = tempProject();
    await extractText(yes, jsonl([user("we use pnpm workspaces"), user("fix the login test")]), { llm: "cat >/dev/null; echo yes" });
    expect(activeRules(yes.rulesDir)).toEqual(["we use pnpm workspaces"]);
    const no = tempProject();
    await extractText(no, jsonl([user("we use pnpm workspaces"), user("Never push to main.")]), { llm: "cat >/dev/null; echo no" });
    expect(activeRules(no.rulesDir)).toEqual(["Never push to main."]);
    const broken = tempProject();
    const r = await extractText(broken, jsonl([user("we use pnpm workspaces")]), { llm: "exit 3" });
    expect(r.warnings.join("\n")).toContain("--llm command failed (exit code 3)");
  });

  it("a command that does not exist is named as not found, not as failed or timed out (fourth fresh-user pass)", async () => {
    const p = tempProject();
    const r = await extractText(p, jsonl([user("we use pnpm workspaces"), user("we deploy from the release branch")]), { llm: "nonexistent-cmd-xyz" });
    const w = r.warnings.filter((x) => x.includes("--llm"));
    expect(w).toEqual(["--llm command not found: nonexistent-cmd-xyz (the shell exited 127); the borderline sentences kept the default verdict"]);
  });
});
