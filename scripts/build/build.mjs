// Builds dist/triage.mjs: one self-contained ESM bundle (esbuild) of the CLI, run by the `triage` bin,
// the hooks and the plugin from a clone with no `npm install`, and dist/mcp.mjs beside it, the MCP server
// that `triage mcp` loads; then copies what the Claude Code plugin needs into plugins/knowledge-triage/ as
// real files (no symbolic links: they break on checkouts with core.symlinks=false).
// Usage: node scripts/build/build.mjs [entry outfile] [--no-minify]   (benches bundle other entries)
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { isBuiltin } from "node:module";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const flags = new Set(process.argv.slice(2).filter((a) => a.startsWith("--")));
const args = process.argv.slice(2).filter((a) => !a.startsWith("--"));
const [entry = "scripts/cli.ts", outfile = "dist/triage.mjs"] = args;

// module.enableCompileCache (Node 22.1+) keeps V8's compiled code of the bundle in Node's own cache
// folder; on Node 20 it does not exist and this is a no-op. createRequire gives the CommonJS parts of
// the bundle (natural's stemmers, commander) a require for Node built-ins.
const banner = [
  "import { createRequire as __ktCreateRequire } from 'node:module';",
  "import __ktModule from 'node:module';",
  "__ktModule.enableCompileCache?.();",
  "const require = __ktCreateRequire(import.meta.url);",
].join("\n");

/** Bundle `entry` into `outfile` (one self-contained ESM file; `shebang` for the `triage` bin). */
async function bundle(entry, outfile, shebang) {
  const result = await build({
    entryPoints: [resolve(root, entry)],
    write: false,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    minify: !flags.has("--no-minify"),
    legalComments: "none",
    logLevel: "warning",
    banner: { js: banner },
    plugins: [
      {
        // Node built-ins imported by our ES modules become lazy CommonJS requires: an ES `import` of a built-in is
        // hoisted to the top of the bundle, so every run would load all of them (node:crypto, node:child_process,
        // node:fs/promises, ...) and node:fs's ES facade reads every export, which loads the stream modules too.
        // As a require, a built-in loads when the first module that uses it is initialised (cli/command-registry.ts
        // keeps most modules uninitialised until a command needs them): `triage hook session-end` loads neither.
        name: "lazy-builtins",
        setup(b) {
          b.onResolve({ filter: /^[a-z0-9_/:]+$/ }, (a) =>
            a.kind === "import-statement" && isBuiltin(a.path) ? { path: a.path.startsWith("node:") ? a.path : `node:${a.path}`, namespace: "lazy-builtin" } : undefined,
          );
          b.onLoad({ filter: /.*/, namespace: "lazy-builtin" }, (a) => ({ contents: `module.exports = require(${JSON.stringify(a.path)});`, loader: "js" }));
        },
      },
      {
        // natural's German stemmer requires 'stopwords-iso' (all languages, ~1 MB) only for
        // tokenizeAndStem, which we never call: an empty stub keeps the bundle small.
        name: "stub-stopwords",
        setup(b) {
          b.onResolve({ filter: /^stopwords-iso$/ }, () => ({ path: "stopwords-iso", namespace: "stub" }));
          b.onLoad({ filter: /.*/, namespace: "stub" }, () => ({ contents: "module.exports = {};", loader: "js" }));
        },
      },
    ],
  });
  const out = resolve(root, outfile);
  mkdirSync(dirname(out), { recursive: true });
  const body = result.outputFiles[0].text.replace(/^#![^\n]*\n/, "");
  writeFileSync(out, shebang ? `#!/usr/bin/env node\n${body}` : body, { mode: shebang ? 0o755 : 0o644 });
}

await bundle(entry, outfile, true);

if (args.length === 0) {
  // The MCP server (with the MCP SDK, ~290 KB) is a second file that `triage mcp` imports from beside the bundle
  // (cli/commands/mcp-command.ts): in dist/triage.mjs, even unrun, that code would be parsed at every cold start.
  await bundle("scripts/mcp/server.ts", "dist/mcp.mjs", false);

  // The skill links these references (SKILL.md); a skill folder must carry what it links, because it is
  // installed on its own (plugin cache, ~/.claude/skills/): copy them next to skills/knowledge-triage/SKILL.md.
  const skillRefs = join(root, "skills", "knowledge-triage", "references");
  rmSync(skillRefs, { recursive: true, force: true });
  mkdirSync(skillRefs, { recursive: true });
  for (const name of ["claude-code.md", "memory.md"]) cpSync(join(root, "references", name), join(skillRefs, name));

  // The plugin folder the marketplace points at (.claude-plugin/marketplace.json): real copies.
  const plugin = join(root, "plugins", "knowledge-triage");
  for (const part of ["dist", "hooks", "model", "skills", "commands"]) rmSync(join(plugin, part), { recursive: true, force: true });
  const copy = (from, to = from) => {
    mkdirSync(dirname(join(plugin, to)), { recursive: true });
    cpSync(join(root, from), join(plugin, to), { recursive: true, dereference: true });
  };
  copy("dist/triage.mjs");
  copy("dist/mcp.mjs");
  copy("hooks/hooks.json");
  copy("model/model.json");
  copy("model/utterance.json");
  copy("skills");
  copy("commands");
  const manifest = join(plugin, ".claude-plugin", "plugin.json");
  const text = readFileSync(join(root, ".claude-plugin", "plugin.json"));
  rmSync(manifest, { force: true }); // never write through a symbolic link
  writeFileSync(manifest, text);
  // The MCP server goes in the plugin's .mcp.json, not inline in plugin.json: Claude Code 2.1.197 starts either, but
  // `claude plugin details` counts only .mcp.json. Its source is not a .mcp.json at the repository root, which
  // Claude Code would read as this repository's own project servers (with ${CLAUDE_PLUGIN_ROOT} unset).
  const mcp = join(plugin, ".mcp.json");
  rmSync(mcp, { force: true });
  writeFileSync(mcp, readFileSync(join(root, ".claude-plugin", "mcp.json")));
}
