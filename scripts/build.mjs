// Builds dist/triage.mjs: one self-contained ESM bundle (esbuild), run by the `triage` bin and the hooks.
// natural's German stemmer requires the 'stopwords-iso' package (all languages, ~1 MB) only for
// tokenizeAndStem, which we never call: it is replaced by an empty stub to keep the bundle small.
import { build } from "esbuild";

await build({
  entryPoints: ["scripts/cli.ts"],
  outfile: "dist/triage.mjs",
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
