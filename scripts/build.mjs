// Builds dist/triage.mjs: one self-contained ESM bundle (esbuild), run by the `triage` bin and the hooks.
// natural's German stemmer requires the 'stopwords-iso' package (all languages, ~1 MB) only for
// tokenizeAndStem, which we never call: it is replaced by an empty stub to keep the bundle small.
import { writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { build } from "esbuild";

// Node built-ins that cost real start-up time to load (crypto alone pulls in ~30 internal modules)
// and that only some commands use. esbuild hoists every `import ... from "node:x"` of the bundle to
// its top, so `triage classify` would load them all; instead each is replaced by a module whose
// exports load the built-in on first use (functions are wrapped; the default export is a Proxy).
const LAZY_BUILTINS = ["crypto", "child_process", "perf_hooks", "os", "fs/promises", "worker_threads", "net", "readline", "zlib", "stream"];
const req = createRequire(import.meta.url);
const lazyBuiltins = {
  name: "lazy-builtins",
  setup(b) {
    const filter = new RegExp(`^(node:)?(${LAZY_BUILTINS.map((m) => m.replace("/", "\\/")).join("|")})$`);
    b.onResolve({ filter }, (args) => ({ path: args.path.replace(/^node:/, ""), namespace: "lazy-builtin" }));
    b.onLoad({ filter: /.*/, namespace: "lazy-builtin" }, (args) => {
      const mod = req(`node:${args.path}`);
      const fns = Object.keys(mod).filter((k) => typeof mod[k] === "function" && /^[A-Za-z_$][\w$]*$/.test(k) && k !== "default");
      const lines = [
        // A require esbuild does not analyse (it would resolve back to this very module).
        'import { createRequire as lazyCreateRequire } from "node:module";',
        `let m; const g = () => (m ??= lazyCreateRequire(import.meta.url)(${JSON.stringify(`node:${args.path}`)}));`,
        ...fns.map((k) => `export function ${k}(...a) { return g().${k}(...a); }`),
        "export default new Proxy({}, { get: (_, k) => g()[k], has: (_, k) => k in g() });",
      ];
      return { contents: lines.join("\n"), loader: "js" };
    });
  },
};

// Usage: node scripts/build.mjs [entry outfile] [--no-minify]. Without arguments, builds the CLI;
// benches and profiling bundle other entries (bench/coldstart-phases.ts) exactly as the CLI ships.
const args = process.argv.slice(2).filter((a) => a !== "--no-minify");
const [entry = "scripts/cli.ts", outfile = "dist/triage.mjs"] = args;
const result = await build({
  entryPoints: [entry],
  outfile,
  write: false,
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  minify: !process.argv.includes("--no-minify"),
  legalComments: "none",
  logLevel: "warning",
  banner: {
    js: "import { createRequire as __kt_createRequire } from 'node:module';\nconst require = __kt_createRequire(import.meta.url);",
  },
  plugins: [
    lazyBuiltins,
    {
      name: "stub-stopwords",
      setup(b) {
        b.onResolve({ filter: /^stopwords-iso$/ }, () => ({ path: "stopwords-iso", namespace: "stub" }));
        b.onLoad({ filter: /.*/, namespace: "stub" }, () => ({ contents: "module.exports = {};", loader: "js" }));
      },
    },
  ],
});

// esbuild leaves non-ASCII characters inside regular-expression literals. One such character makes
// V8 decode and hold the whole ~1 MB source as a two-byte string, which costs tens of ms at every
// start. \uXXXX escapes mean the same code units everywhere in JS source (a \uD8xx\uDCxx pair is
// one code point in a /u regex), so escape every non-ASCII UTF-16 unit.
for (const file of result.outputFiles) {
  const ascii = file.text.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
  writeFileSync(file.path, ascii, { mode: 0o755 });
}
