/**
 * Static checks of the plugin files (the CLI's own `claude plugin validate --strict` runs in tests/e2e and
 * .ci/plugin.sh): Agent Skills frontmatter (spec keys only, name = folder), the hook table (exec form, the
 * bundle, known events, timeouts in seconds), the marketplace entry and the plugin folder (real files copied by the build).
 */
import { existsSync, lstatSync, readdirSync, readFileSync, } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { HOOK_EVENTS } from "../../scripts/hooks/payload.js";

const repo = resolve(import.meta.dirname, "..", "..");
const read = (p: string): string => readFileSync(join(repo, p), "utf8");

/** The Agent Skills specification's frontmatter (agentskills/agentskills docs/specification.mdx): six keys. */
const SkillFrontmatterSchema = z.strictObject({
  name: z.string().min(1).max(64).regex(/^[a-z0-9]+(-[a-z0-9]+)*$/),
  description: z.string().min(1).max(1024),
  license: z.string().optional(),
  compatibility: z.string().max(500).optional(),
  metadata: z.record(z.string(), z.string()).optional(),
  "allowed-tools": z.union([z.string(), z.array(z.string())]).optional(),
});

function frontmatter(text: string): unknown {
  const m = /^---\n([\s\S]*?)\n---\n/.exec(text);
  if (!m) throw new Error("no frontmatter");
  return parseYaml(m[1] ?? "");
}

describe("SKILL.md", () => {
  const file = "skills/knowledge-triage/SKILL.md";
  it("uses only the spec's keys, and its name equals its folder", () => {
    const fm = SkillFrontmatterSchema.parse(frontmatter(read(file)));
    expect(fm.name).toBe(basename(dirname(file)));
  });
  it("stays within the spec's size guidance (under 500 lines)", () => {
    expect(read(file).split("\n").length).toBeLessThan(500);
  });
  it("the top-level SKILL.md is the same file, byte for byte", () => {
    expect(read("SKILL.md")).toBe(read(file));
  });
  it("the zod check rejects what skills-ref rejects", () => {
    const bad = [{ name: "Bad_Name", description: "x" }, { name: "ok" }, { name: "ok", description: "x", paths: ["src/**"] }];
    for (const b of bad) expect(SkillFrontmatterSchema.safeParse(b).success).toBe(false);
  });
});

const HandlerSchema = z.strictObject({
  type: z.literal("command"),
  command: z.literal("node"),
  // biome-ignore lint/suspicious/noTemplateCurlyInString: Claude Code substitutes this placeholder, not JS
  args: z.tuple([z.literal("${CLAUDE_PLUGIN_ROOT}/dist/triage.mjs"), z.literal("hook"), z.enum(HOOK_EVENTS)]),
  timeout: z.number().int().positive().max(600), // seconds (a value like 5000 would mean 5000 s)
});
const HooksFileSchema = z.strictObject({
  description: z.string(),
  hooks: z.record(
    z.enum(["PreCompact", "SessionStart", "SessionEnd"]),
    z.array(z.strictObject({ matcher: z.string().optional(), hooks: z.array(HandlerSchema).min(1) })),
  ),
});

describe("hooks/hooks.json", () => {
  const file = HooksFileSchema.parse(JSON.parse(read("hooks/hooks.json")));
  it("wires the three events to the bundle in exec form, with the documented matchers", () => {
    const rows = Object.entries(file.hooks).flatMap(([ev, gs]) => gs.flatMap((g) => g.hooks.map((h) => [ev, g.matcher ?? "", h.args[2]])));
    expect(rows).toEqual([
      ["PreCompact", "manual|auto", "pre-compact"],
      ["SessionStart", "compact", "session-start"],
      ["SessionEnd", "", "session-end"],
    ]);
  });
  it("the bundle it points at exists", () => {
    expect(existsSync(join(repo, "dist", "triage.mjs"))).toBe(true);
  });
});

describe("plugin and marketplace manifests", () => {
  const plugin = JSON.parse(read(".claude-plugin/plugin.json"));
  const market = JSON.parse(read(".claude-plugin/marketplace.json"));
  const pkg = JSON.parse(read("package.json"));
  it("agree on name and version with each other and package.json", () => {
    expect(market.plugins).toHaveLength(1);
    expect(market.plugins[0].name).toBe(plugin.name);
    expect([plugin.version, market.plugins[0].version]).toEqual([pkg.version, pkg.version]);
  });
  it("the plugin declares the MCP server in its .mcp.json: the bundle's `mcp` command, by the plugin's own path", () => {
    const mcp = JSON.parse(read(join(market.plugins[0].source, ".mcp.json")));
    expect(mcp).toEqual({ mcpServers: { "knowledge-triage": { command: "node", args: [`\${CLAUDE_PLUGIN_ROOT}/dist/triage.mjs`, "mcp"] } } });
    // Not inline as well (two servers of one name), and no .mcp.json at the root (it would be this repository's own).
    expect(plugin.mcpServers).toBeUndefined();
    expect(existsSync(join(repo, ".mcp.json"))).toBe(false);
  });
  it("the marketplace source is a folder of real files (no symbolic links) equal to what the build copies, without package.json", () => {
    const src = join(repo, market.plugins[0].source);
    const walk = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)]));
    const files = walk(src);
    for (const f of files) expect(lstatSync(f).isSymbolicLink(), f).toBe(false);
    for (const [copy, original] of [
      [".claude-plugin/plugin.json", ".claude-plugin/plugin.json"],
      [".mcp.json", ".claude-plugin/mcp.json"],
      ["hooks/hooks.json", "hooks/hooks.json"],
      ["dist/triage.mjs", "dist/triage.mjs"],
      ["dist/mcp.mjs", "dist/mcp.mjs"],
      ["model/model.json", "model/model.json"],
      ["model/utterance.json", "model/utterance.json"],
      ["skills/knowledge-triage/SKILL.md", "skills/knowledge-triage/SKILL.md"],
      ["skills/knowledge-triage/references/memory.md", "references/memory.md"],
      ["skills/knowledge-triage/references/claude-code.md", "references/claude-code.md"],
      ...readdirSync(join(repo, "commands")).map((n) => [`commands/${n}`, `commands/${n}`] as const),
    ] as const) {
      expect(readFileSync(join(src, copy)).equals(readFileSync(join(repo, original))), `${copy} is stale: run npm run build`).toBe(true);
    }
    expect(existsSync(join(src, "package.json"))).toBe(false); // so Claude Code runs no `npm ci` on the copy
  });
});

/** Relative link targets of a markdown text: `[text](target)` with no scheme and no leading `/` or `#`. */
const relativeLinks = (md: string): string[] =>
  [...md.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1] ?? "").filter((t) => !/^(?:[a-z]+:|\/|#)/i.test(t));

describe("the skill works where it is installed", () => {
  const skill = read("skills/knowledge-triage/SKILL.md");
  // Every place the skill is loaded from: the repository root, the skill folder (copied on its own into
  // ~/.claude/skills or another agent's skills folder) and the plugin folder the marketplace installs.
  const homes = ["", "skills/knowledge-triage", "plugins/knowledge-triage/skills/knowledge-triage"];
  it.each(homes)("every relative link resolves to a file shipped next to it (%s)", (home) => {
    const links = relativeLinks(skill);
    expect(links.length).toBeGreaterThan(0);
    for (const l of links) expect(existsSync(join(repo, home, l)), `${join(home, l)} is missing`).toBe(true);
  });
  it("names references it does not link only when they ship too", () => {
    for (const m of skill.matchAll(/`(references\/[\w.-]+)`/g))
      for (const home of homes) expect(existsSync(join(repo, home, m[1] ?? "")), `${join(home, m[1] ?? "")}`).toBe(true);
  });
  it("calls the bundled CLI by the plugin root and never tells an agent to run npx triage", () => {
    const calls = skill.split("\n").filter((l) => /^node "\$\{CLAUDE_PLUGIN_ROOT\}\/dist\/triage\.mjs" [a-z]+/.test(l));
    expect(calls.length).toBeGreaterThanOrEqual(6);
    const npx = skill.split("\n").filter((l) => /npx\s+(?:--\S+\s+)*triage\b/.test(l));
    expect(npx).toEqual([expect.stringMatching(/^- \*\*Never run `npx triage`\*\*/)]);
    // No bare `triage <command>` at the start of a shell line: that would resolve through PATH or npx.
    expect(skill.split("\n").filter((l) => /^triage /.test(l))).toEqual([]);
  });
  it("each plugin command calls the bundled CLI by the plugin root and has a description", () => {
    const names = readdirSync(join(repo, "commands")).sort();
    expect(names).toEqual(["dig.md", "forget.md", "pin.md", "status.md"]);
    for (const n of names) {
      const text = read(`commands/${n}`);
      const fm = z.object({ description: z.string().min(10) }).parse(frontmatter(text));
      expect(fm.description.length).toBeLessThan(200);
      expect(text, n).toMatch(/node "\$\{CLAUDE_PLUGIN_ROOT\}\/dist\/triage\.mjs" (?:status|pin|unpin|dig) /);
      // `npx triage` appears only in the warning against it.
      for (const m of text.matchAll(/.{0,12}npx triage/g)) expect(m[0], n).toMatch(/[Nn]ever run `npx triage/);
    }
  });
});
