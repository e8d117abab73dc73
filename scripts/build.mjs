// Builds dist/triage.mjs: one self-contained ESM bundle (esbuild), run by the `triage` bin and the hooks.
// natural's German stemmer requires the 'stopwords-iso' package (all languages, ~1 MB) only for
// tokenizeAndStem, which we never call: it is replaced by an empty stub to keep the bundle small.
import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { build } from "esbuild";

// Node built-ins that cost real start-up time to load (crypto alone pulls in ~30 internal modules)
// and that only some commands use. esbuild hoists every `import ... from "node:x"` of the bundle to
// its top, so `triage classify` would load them all; instead each is replaced by a module whose
// exports load the built-in on first use (functions are wrapped; the default export is a Proxy).
const LAZY_BUILTINS = ["crypto", "child_process", "perf_hooks", "os", "fs/promises", "worker_threads", "net", "readline", "zlib", "stream", "v8"];
// Built-ins every command needs, taken with require instead of an ESM import: importing a built-in
// as ESM makes Node build a facade that reads every export, and fs's lazy getters (promises,
// ReadStream) then load fs/promises and the stream modules (~15 ms at every start). Their exports
// are the built-in's own values (no wrappers).
const REQUIRED_BUILTINS = ["fs", "path", "url"];
const req = createRequire(import.meta.url);
const identifier = /^[A-Za-z_$][\w$]*$/;
const lazyBuiltins = {
  name: "lazy-builtins",
  setup(b) {
    const names = [...LAZY_BUILTINS, ...REQUIRED_BUILTINS].map((m) => m.replace("/", "\\/")).join("|");
    const filter = new RegExp(`^(node:)?(${names})$`);
    b.onResolve({ filter }, (args) => ({ path: args.path.replace(/^node:/, ""), namespace: "lazy-builtin" }));
    b.onLoad({ filter: /.*/, namespace: "lazy-builtin" }, (args) => {
      const mod = req(`node:${args.path}`);
      const spec = JSON.stringify(`node:${args.path}`);
      // A require esbuild does not analyse (it would resolve back to this very module).
      const head = 'import { createRequire as lazyCreateRequire } from "node:module";';
      if (REQUIRED_BUILTINS.includes(args.path)) {
        // Plain data properties only: reading a getter (fs.promises) would load what we avoid.
        const keys = Object.keys(mod).filter((k) => identifier.test(k) && k !== "default" && "value" in (Object.getOwnPropertyDescriptor(mod, k) ?? {}));
        const lines = [head, `const m = lazyCreateRequire(import.meta.url)(${spec});`, ...keys.map((k) => `export const ${k} = m.${k};`), "export default m;"];
        return { contents: lines.join("\n"), loader: "js" };
      }
      const fns = Object.keys(mod).filter((k) => typeof mod[k] === "function" && identifier.test(k) && k !== "default");
      const lines = [
        head,
        `let m; const g = () => (m ??= lazyCreateRequire(import.meta.url)(${spec}));`,
        ...fns.map((k) => `export function ${k}(...a) { return g().${k}(...a); }`),
        "export default new Proxy({}, { get: (_, k) => g()[k], has: (_, k) => k in g() });",
      ];
      return { contents: lines.join("\n"), loader: "js" };
    });
  },
};

// Usage: node scripts/build.mjs [entry outfile] [--no-minify] [--plain]. Without arguments, builds
// the CLI, dist/triage.mjs: the full CLI (scripts/cli.ts) plus the classify fast path
// (scripts/classify-main.ts), see withLoader. Benches and profiling bundle other entries the same
// way (one program); --plain gives one ordinary ESM module (top-level await allowed) instead of the
// code-cache loader below.
const flags = new Set(process.argv.slice(2).filter((a) => a.startsWith("--")));
const args = process.argv.slice(2).filter((a) => !a.startsWith("--"));
const [entry = "scripts/cli.ts", outfile = "dist/triage.mjs"] = args;
const plain = flags.has("--plain");

/** One entry bundled as a single program text (see the escaping note below). */
async function bundleProgram(entryPoint) {
  const result = await build({
    entryPoints: [entryPoint],
    outfile,
    write: false,
    bundle: true,
    platform: "node",
    // The program is a classic script (run by the loader through node:vm, see below); import.meta.url
    // becomes a parameter the loader passes in.
    format: plain ? "esm" : "cjs",
    ...(plain ? {} : { define: { "import.meta.url": "__kt_import_meta_url" } }),
    target: "node20",
    minify: !flags.has("--no-minify"),
    legalComments: "none",
    logLevel: "warning",
    ...(plain
      ? { banner: { js: "import { createRequire as __kt_createRequire } from 'node:module';\nconst require = __kt_createRequire(import.meta.url);" } }
      : {}),
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
  // V8 decode and hold the whole ~0.5 MB source as a two-byte string, which costs tens of ms at every
  // start. \uXXXX escapes mean the same code units everywhere in JS source (a \uD8xx\uDCxx pair is
  // one code point in a /u regex), so escape every non-ASCII UTF-16 unit.
  return result.outputFiles[0].text.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** A module of scripts/ as a (minified) script for the loader, its exports in the global `name`. */
async function loaderPart(entry, name) {
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    format: "iife",
    globalName: name,
    platform: "node",
    target: "node20",
    minify: true,
    write: false,
    logLevel: "warning",
  });
  return result.outputFiles[0].text.trim();
}
// __kt_parts.{trustedFolder, checksum64, hashableBuffer, startClassifyReadAhead}.
const loaderPartsSource = await loaderPart("scripts/loader-parts.ts", "__kt_parts");

const main = await bundleProgram(entry);
const programs = args.length === 0 && !plain ? { classify: await bundleProgram("scripts/classify-main.ts"), main } : { main };
writeFileSync(outfile, plain ? main : withLoader(programs), { mode: 0o755 });

/**
 * dist/triage.mjs: a small ESM loader followed by the programs as line comments ("//" + each line),
 * each block between a mark line `//@kt-program <build> <name>` and an end line
 * `//@kt-end <build> <name>`. V8 only skims comments, so the module compiles in about a millisecond; the loader reads its own file, strips the comment marks of one
 * block and compiles that program with node:vm, passing V8 code-cache data from the previous run of
 * the same program and command (bytecode of every function that run compiled): the same mechanism as
 * Node 22's module.enableCompileCache(), which Node 20 lacks. Blocks: "classify", the fast path of
 * `triage classify` (scripts/classify-main.ts: ~90 KB, no commander, no other command), run when the
 * first argument is classify; "main", the full CLI, run otherwise and by the fast path for argument
 * lists it leaves to the CLI (runFullProgram). The cache lives in $TRIAGE_CACHE_DIR, else
 * $XDG_CACHE_HOME/knowledge-triage, else ~/.cache/knowledge-triage (created 0700); one file per
 * build (content hash), bundle size and modification time, Node version, CPU architecture, block and
 * command, written atomically at a successful exit when missing, damaged or rejected by V8, with a
 * checksum of ours (scripts/checksum.ts) so a corrupt file is rejected, not fatal; TRIAGE_CODE_CACHE=0 turns it off
 * (TRIAGE_CACHE=0 turns off this and the model cache, scripts/model-cache.ts). Any cache problem only
 * means compiling from source: output never depends on it. The program gets { build, cacheDir,
 * debug, runFullProgram? } as __kt_loader (scripts/runtime.ts).
 */
function withLoader(programs) {
  const blocks = Object.entries(programs).map(([name, text]) => {
    const code = text.replace(/^#![^\n]*\n/, "");
    if (code.includes("\r")) throw new Error(`program ${name} contains a carriage return: it cannot be carried in line comments`);
    return [name, code];
  });
  const hash = createHash("sha256");
  for (const [name, code] of blocks) hash.update(`${name}\n${code}\n`);
  const id = hash.digest("hex").slice(0, 16);
  const loader = `#!/usr/bin/env node
// Knowledge Triage CLI, built by scripts/build.mjs from scripts/ (do not edit; run npm run build).
// The programs are the commented blocks at the end of this file; see withLoader() in scripts/build.mjs.
import { createRequire } from "node:module";
const require = createRequire(import.meta.url);
const { closeSync, existsSync, openSync, readFileSync, readSync, statSync } = require("node:fs");
const { dirname, isAbsolute, join, resolve } = require("node:path");
const { fileURLToPath } = require("node:url");
const vm = require("node:vm");
const BUILD = ${JSON.stringify(id)};
const file = fileURLToPath(import.meta.url);
const MARK = "//@kt-program " + BUILD + " ";
const head = "(function (require, __kt_import_meta_url, __kt_loader) {";
const tail = "\\n})";
// Where each block's mark line starts and where the block ends, in bytes (filled in by the build).
const BLOCKS = __KT_BLOCKS__;
const BUILT_SIZE = Math.max(...Object.values(BLOCKS).map((b) => b[1]));
const stamp = statSync(file);
if (stamp.size < Math.min(...Object.values(BLOCKS).map((b) => b[0]))) {
  process.stderr.write("triage: " + file + " is damaged: it is cut short (run npm run build, or clone again)\\n");
  process.exit(1);
}
const ROOM = 64; // bytes read before a mark line: room for the wrapper's head
let whole;
let wholeDamaged;
// The bytes of one block: read alone at its recorded place, or, when the file is not as built (a
// CRLF copy, an edit), found in the whole file; { damaged: why } when the file lacks a block or an
// end line.
function blockBytes(name) {
  const at = BLOCKS[name];
  // Only a file of the size built has its blocks where recorded; any other (a CRLF copy, an edit) is searched.
  if (at && stamp.size === BUILT_SIZE) {
    try {
      const buf = Buffer.allocUnsafe(at[1] - at[0] + ROOM);
      const fd = openSync(file, "r");
      let n;
      try {
        n = readSync(fd, buf, 0, buf.length, at[0] - ROOM);
      } finally {
        closeSync(fd);
      }
      if (n === buf.length && buf.indexOf(MARK + name + "\\n", ROOM - 1) === ROOM) return { buf, at: ROOM, end: buf.length };
    } catch {}
  }
  if (whole === undefined) {
    whole = readFileSync(file);
    // A file not as built must still hold every block whole (each one's end line, ended by a line
    // feed), or it is damaged for every command alike (the fast path then reports what the CLI
    // would). Checked once, before any block is put together in place over its own mark line.
    for (const n of Object.keys(BLOCKS)) {
      const endLine = whole.indexOf("//@kt-end " + BUILD + " " + n);
      if (whole.indexOf(MARK + n) < 0) wholeDamaged ??= n + " program block is missing";
      else if (endLine < 0 || whole.indexOf(10, endLine) < 0) wholeDamaged ??= n + " program block is cut short";
    }
  }
  if (wholeDamaged) return { damaged: wholeDamaged };
  const mark = whole.indexOf(MARK + name);
  const next = whole.indexOf("\\n" + MARK, mark);
  return { buf: whole, at: mark, end: next < 0 ? whole.length : next + 1 };
}
// The source of one block: every line after its mark (up to the block's end) without its leading
// "//", wrapped in a function; { damaged: why } when a block is missing or cut short. It is put
// together in place, in the buffer the block was read into (the wrapper's head over the end of the mark line, each line moved
// left over its "//"), and decoded once: one string on V8's heap and no second buffer, whose fresh
// pages would each cost a page fault. Blocks lie apart, so putting one together leaves the others
// intact. (A CRLF copy of the file still works: a CR is a line terminator in JavaScript too.)
function source(name) {
  const block = blockBytes(name);
  if (block.damaged) return block;
  const { buf } = block;
  const start = buf.indexOf(10, block.at) + 1;
  // Each block ends with its own end line: without it the block was cut short (or edited into
  // something else) and would run as a fragment of the program.
  const end = buf.lastIndexOf("//@kt-end " + BUILD + " " + name, block.end);
  if (start <= 0 || end < start || buf.indexOf(10, end) + 1 !== block.end) return { damaged: name + " program block is cut short" };
  let from = start - head.length;
  buf.write(head, from, "latin1");
  let size = start;
  for (let s = start; s < end; ) {
    const nl = buf.indexOf(10, s);
    const e = nl < 0 || nl >= end ? end : nl + 1;
    const b = buf[s] === 47 && buf[s + 1] === 47 ? s + 2 : s;
    buf.copyWithin(size, b, e);
    size += e - b;
    s = e;
  }
  // The tail goes over the end line, which is longer.
  size += buf.write(tail, size, "latin1");
  return buf.toString("latin1", from, size);
}
const env = process.env;
const no = (v) => /^(0|false|no|off)$/i.test(v ?? "");
const debug = /^(1|true|yes|on)$/i.test(env.TRIAGE_CACHE_DEBUG ?? env.TRIAGE_CODE_CACHE_DEBUG ?? "");
const absolute = (p) => (p && isAbsolute(p) ? p : null);
const home = absolute(env.HOME || env.USERPROFILE);
// TRIAGE_CACHE=0 turns off every start-up cache (this code cache and the program's model cache).
// A cache folder that someone else could write to, or swap (a shared XDG_CACHE_HOME=/tmp, say), could
// hand this process another user's bytecode: then no cache at all. The rule is trustedFolder, bundled
// here from scripts/trusted-folder.ts with the other parts the loader needs (scripts/loader-parts.ts).
// Checked again right before each read and after the folder is made at exit (a folder missing at
// start could be made by someone else meanwhile); reads and writes use the real path.
${loaderPartsSource}
const { trustedFolder: trusted, checksumAvailable, readCodeCache, storeCodeCache, startClassifyReadAhead } = __kt_parts;
const wanted = no(env.TRIAGE_CACHE) ? null : absolute(env.TRIAGE_CACHE_DIR) ?? (absolute(env.XDG_CACHE_HOME) ? join(env.XDG_CACHE_HOME, "knowledge-triage") : home ? join(home, ".cache", "knowledge-triage") : null);
// A missing folder is made 0700 at exit (and checked then).
const cacheDir = wanted && (!existsSync(wanted) || trusted(wanted)) ? wanted : null;
if (debug && wanted && !cacheDir) process.stderr.write("start-up caches: off (" + wanted + " is not a private folder of this user)\\n");
// Without WebAssembly for the checksum (node --jitless, an address-space limit) there is no code cache.
const dir = no(env.TRIAGE_CODE_CACHE) || !cacheDir || !checksumAvailable() ? null : cacheDir;
const command = /^[a-z][a-z-]{0,15}$/.test(process.argv[2] ?? "") ? process.argv[2] : "main";
const fastClassify = command === "classify" && "classify" in BLOCKS;
// The model cache file \`triage classify\` will want is read on the thread pool from here on, while
// this thread reads and compiles the program (scripts/model-cache-read-ahead.ts; same model path as
// defaultModelPath() in scripts/paths.ts: <bundle folder>/../model/model.json).
if (fastClassify) startClassifyReadAhead(process.argv.slice(3), cacheDir, BUILD, resolve(dirname(file), "..", "model", "model.json"));
// Compile and run one block with its code cache; extra fields go to the program's __kt_loader.
function run(name, extra) {
  const code = source(name);
  if (typeof code !== "string") {
    process.stderr.write("triage: " + file + " is damaged: its " + code.damaged + " (run npm run build, or clone again)\\n");
    process.exit(1);
  }
  // Node and V8 flags (node --expose-gc ..., NODE_OPTIONS) enter V8's flag hash, which a cache must
  // match: each flag set gets its own file (FNV-1a of the flags), so callers with different flags
  // (a hook and a shell, say) do not reject and rewrite each other's cache at every run.
  const flags = process.execArgv.join("\\n") + "\\n" + (env.NODE_OPTIONS ?? "");
  let flagTag = "";
  if (flags.trim() !== "") {
    let h = 0x811c9dc5;
    for (let i = 0; i < flags.length; i++) h = Math.imul(h ^ flags.charCodeAt(i), 0x01000193);
    flagTag = "-f" + (h >>> 0).toString(16).padStart(8, "0");
  }
  const suffix = "-" + process.version + "-" + process.arch + "-" + name + "-" + command + flagTag + ".v8cache";
  // The build hash names the programs; the bundle's size, modification and change times catch a
  // bundle edited after the build (V8 itself only compares the source length; tools can reset the
  // modification time, not the change time).
  const cacheName = BUILD + "-" + stamp.size + "-" + Math.floor(stamp.mtimeMs) + "-" + Math.floor(stamp.ctimeMs) + suffix;
  const cacheFile = dir && join(dir, cacheName);
  // Read only from a folder trusted right now, through its real path; checked with our checksum
  // (scripts/code-cache.ts: V8 release builds would deserialise a damaged file).
  const readFrom = cacheFile && trusted(dir);
  const { data: cachedData, damaged: damagedCache } = readFrom ? readCodeCache(readFrom, cacheName) : { damaged: false };
  let script;
  try {
    script = new vm.Script(code, { filename: file, cachedData });
  } catch (e) {
    // Only a damaged (cut, edited) file gets here: the build compiled every block.
    process.stderr.write("triage: " + file + " is damaged: its " + name + " program does not compile (" + e.message + "; run npm run build, or clone again)\\n");
    process.exit(1);
  }
  if (debug) process.stderr.write("code cache: " + (cacheFile ? (damagedCache || script.cachedDataRejected ? "rejected" : cachedData === undefined ? "miss" : "hit") + " " + cacheFile : "off") + "\\n");
  if (cacheFile && (cachedData === undefined || script.cachedDataRejected)) {
    process.once("exit", (code) => {
      // Not while the bundle is "racily" new on a file system with whole-second timestamps: an edit
      // in place within the same tick would keep size and both times (the model cache's rule, isRacilyNew).
      const coarse = stamp.mtimeMs % 1000 === 0 && stamp.ctimeMs % 1000 === 0;
      if (code !== 0 || (coarse && Date.now() - Math.max(stamp.mtimeMs, stamp.ctimeMs) < 2000)) return;
      storeCodeCache(dir, cacheName, suffix, () => script.createCachedData());
    });
  }
  script.runInThisContext()(require, import.meta.url, { build: BUILD, cacheDir, debug, ...extra });
}
// \`triage classify\` runs the fast path when the bundle has it (custom builds carry "main" only).
if (fastClassify) run("classify", { runFullProgram: () => run("main") });
else run("main");
`;
  const parts = blocks.map(([name, code]) => [name, `//@kt-program ${id} ${name}\n${(code.endsWith("\n") ? code.slice(0, -1) : code).split("\n").map((l) => `//${l}`).join("\n")}\n//@kt-end ${id} ${name}\n`]);
  // The loader records each block's byte range, which depends on the loader's own length: repeat
  // until the numbers stop changing (two rounds unless a number gains a digit).
  let table = "{}";
  for (let round = 0; round < 8; round++) {
    let at = Buffer.byteLength(loader.replace("__KT_BLOCKS__", table));
    const ranges = {};
    for (const [name, text] of parts) {
      ranges[name] = [at, at + Buffer.byteLength(text)];
      at += Buffer.byteLength(text);
    }
    const next = JSON.stringify(ranges);
    if (next === table) return loader.replace("__KT_BLOCKS__", table) + parts.map(([, text]) => text).join("");
    table = next;
  }
  throw new Error("withLoader: block offsets did not settle");
}
