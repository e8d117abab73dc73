// Builds dist/triage.mjs: one self-contained ESM bundle (esbuild), run by the `triage` bin and the hooks.
// natural's German stemmer requires the 'stopwords-iso' package (all languages, ~1 MB) only for
// tokenizeAndStem, which we never call: it is replaced by an empty stub to keep the bundle small.
import { writeFileSync } from "node:fs";
import { build } from "esbuild";

const result = await build({
  entryPoints: ["scripts/cli.ts"],
  outfile: "dist/triage.mjs",
  write: false,
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  minify: true,
  legalComments: "none",
  logLevel: "warning",
  banner: {
    js: "import { createRequire as __kt_createRequire } from 'node:module';\nconst require = __kt_createRequire(import.meta.url);",
  },
  plugins: [
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
