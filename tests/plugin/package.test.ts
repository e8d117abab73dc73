/**
 * The npm package holds what a user runs and nothing it would need node_modules for: package.json
 * declares no runtime dependency (the bundle is self-contained; everything it bundles is a
 * devDependency), `npm pack --dry-run --json` lists the runtime files (bundle, model, hook table,
 * skill, install scripts and the one helper they run, the plugin folders) and no source, test, data or
 * bench file, and the bundle unpacked from the real tarball classifies a file with no node_modules.
 */
import { spawnSync } from "node:child_process";
import { builtinModules } from "node:module";
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { z } from "zod";
import { describe, expect, it } from "vitest";

const repo = resolve(import.meta.dirname, "..", "..");
const read = (p: string): string => readFileSync(join(repo, p), "utf8");

/** The part of `npm pack --json` output we read (npm 10 and 11). */
const PackSchema = z.array(z.object({ files: z.array(z.object({ path: z.string() })), entryCount: z.number() })).length(1);

function npm(args: string[], cwd = repo): string {
  const r = spawnSync("npm", args, { cwd, encoding: "utf8", env: { ...process.env, npm_config_loglevel: "error" } });
  if (r.status !== 0) throw new Error(`npm ${args.join(" ")} failed: ${r.stderr}`);
  return r.stdout;
}

describe("package.json", () => {
  const pkg = z.looseObject({ bin: z.record(z.string(), z.string()), files: z.array(z.string()) }).parse(JSON.parse(read("package.json")));
  it("declares no runtime dependency of any kind", () => {
    for (const key of ["dependencies", "optionalDependencies", "peerDependencies", "bundleDependencies", "bundledDependencies"]) {
      expect(Object.keys((pkg as Record<string, unknown>)[key] ?? {}), key).toEqual([]);
    }
  });
  it.each(["dist/triage.mjs", "dist/mcp.mjs"])("%s: its static and dynamic imports are all Node built-ins (what it bundles is build-time only)", (file) => {
    const text = read(file);
    const specs = [...text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*)["']((?:node:)?@?[a-z][\w./-]*)["']/g)].map((m) => m[1] ?? "");
    expect(specs.length).toBeGreaterThan(0);
    expect(specs.filter((s) => !builtinModules.includes(s.replace(/^node:/, "")))).toEqual([]);
  });
  it("the MCP SDK is in dist/mcp.mjs only, so the other commands never parse it", () => {
    // A string of the SDK's protocol code (server/index.js), absent from our own sources.
    expect(read("dist/mcp.mjs")).toContain("notifications/initialized");
    expect(read("dist/triage.mjs")).not.toContain("notifications/initialized");
  });
});

describe("npm pack", () => {
  const packed = PackSchema.parse(JSON.parse(npm(["pack", "--dry-run", "--json", "--ignore-scripts"])))[0];
  const files = (packed?.files ?? []).map((f) => f.path).sort();

  it("holds the runtime files", () => {
    for (const f of [
      "dist/triage.mjs",
      "dist/mcp.mjs",
      "model/model.json",
      "model/utterance.json",
      "hooks/hooks.json",
      "SKILL.md",
      "skills/knowledge-triage/SKILL.md",
      "README.md",
      "install.sh",
      "uninstall.sh",
      "scripts/install/settings-merge.mjs",
      "scripts/install/purge.mjs",
      ".claude-plugin/marketplace.json",
      ".claude-plugin/plugin.json",
      "plugins/knowledge-triage/dist/triage.mjs",
      "plugins/knowledge-triage/dist/mcp.mjs",
      "plugins/knowledge-triage/.mcp.json",
      "plugins/knowledge-triage/.claude-plugin/plugin.json",
    ]) {
      expect(files, f).toContain(f);
    }
    expect(files.filter((f) => f.startsWith("references/") && f.endsWith(".md")).length).toBeGreaterThan(0);
  });

  it("holds every file install.sh and uninstall.sh run from their own folder", () => {
    for (const script of ["install.sh", "uninstall.sh"]) {
      const used = [...read(script).matchAll(/\$ROOT\/([\w./-]+)/g)].map((m) => m[1] ?? "");
      expect(used.length, script).toBeGreaterThan(0);
      for (const f of used) expect(files, `${script} uses ${f}`).toContain(f);
    }
  });

  it("holds no source, test, data, bench or example file", () => {
    const stray = files.filter(
      (f) => (f.startsWith("scripts/") && f !== "scripts/install/settings-merge.mjs" && f !== "scripts/install/purge.mjs") || /^(tests|data|bench|examples|types|node_modules|\.ci)\//.test(f) || /\.ts$/.test(f),
    );
    expect(stray).toEqual([]);
    expect(files).not.toContain("package-lock.json");
  });

  it("the bundle from the real tarball runs with no node_modules anywhere above it", () => {
    const dir = mkdtempSync(join(tmpdir(), "kt-pack-"));
    const out = npm(["pack", "--ignore-scripts", "--pack-destination", dir, "--json"]);
    const name = z.array(z.object({ filename: z.string() })).length(1).parse(JSON.parse(out))[0]?.filename ?? "";
    const tar = spawnSync("tar", ["-xzf", join(dir, name), "-C", dir], { encoding: "utf8" });
    expect(tar.status, tar.stderr).toBe(0);
    const unpacked = join(dir, "package");
    expect(readdirSync(unpacked)).not.toContain("node_modules");
    const memory = join(dir, "CLAUDE.md");
    writeFileSync(memory, "## Rules\n- Never push to main without a review.\n- Run `pnpm test` before committing.\n");
    const r = spawnSync(process.execPath, [join(unpacked, "dist", "triage.mjs"), "classify", memory, "--json"], { cwd: dir, encoding: "utf8" });
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    const rows = z.array(z.object({ type: z.string(), text: z.string() })).parse(JSON.parse(r.stdout));
    expect(rows.find((u) => u.text.includes("Never push"))?.type).toBe("constraint");
    // The MCP server too: the SDK is bundled, so it answers with no node_modules (stdin closes after the lines).
    const rpc = [
      { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "0" } } },
      { jsonrpc: "2.0", method: "notifications/initialized" },
      { jsonrpc: "2.0", id: 2, method: "tools/list" },
    ];
    const m = spawnSync(process.execPath, [join(unpacked, "dist", "triage.mjs"), "mcp"], { cwd: dir, input: rpc.map((x) => `${JSON.stringify(x)}\n`).join(""), encoding: "utf8", timeout: 30_000 });
    expect(m.stderr).toBe("");
    const replies = m.stdout.trim().split("\n").map((l) => JSON.parse(l) as { id: number; result: { tools?: Array<{ name: string }> } });
    expect(replies.find((x) => x.id === 2)?.result.tools?.map((t) => t.name)).toEqual(["rules_list", "retrieve", "pin", "unpin", "dig", "dig_read"]);
  });
});
