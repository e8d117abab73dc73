/**
 * Globs for path-scoped rules: normalisation, matching (picomatch) and overlap, and the globs of a
 * rules file's frontmatter. Pure; compiled matchers are cached like compiled regexes.
 */
import picomatch from "picomatch";
import { parse as parseYaml } from "yaml";

/**
 * Normalise a path or glob to a project-root-anchored glob: strips quotes, backticks, trailing
 * punctuation, "./" and a leading "/"; a folder becomes "folder/**", a bare "*.ext" or ".ext"
 * becomes "**\/*.ext". Returns "" for input with nothing path-like left.
 */
export function normaliseGlob(raw: string): string {
  let g = raw.trim().replace(/\\/g, "/");
  for (let prev = ""; prev !== g; ) {
    prev = g;
    g = g.replace(/^[`'"(]+/, "").replace(/[`'".,;:!?)\]]+$/, "");
  }
  g = g.replace(/^[A-Za-z]:\//, "").replace(/^(?:\.\/)+/, "").replace(/^\/+/, "").replace(/\/{2,}/g, "/");
  if (g === "" || g === "." || g === "/") return "";
  if (/^\.[A-Za-z]\w{0,7}$/.test(g) && !g.includes("/")) return `**/*${g}`;
  if (/^[^/.*?{[]+\.[A-Za-z0-9]{1,8}$/.test(g)) return `**/${g}`; // a bare file name: memory.md -> **/memory.md
  if (/[*?{[]/.test(g)) return g.includes("/") ? g : `**/${g}`;
  if (g.endsWith("/")) return `${g}**`;
  const last = g.split("/").pop() ?? "";
  if (/^[^.]+\.[A-Za-z0-9]{1,8}$/.test(last) && g.includes("/")) return g;
  return `${g}/**`;
}

const matcherCache = new Map<string, (p: string) => boolean>();

/**
 * True when `path` matches any of `globs` (picomatch, dotfiles included). The path is normalised
 * ("\\" -> "/", leading "./" and "/" dropped) and also tried with each leading folder removed, so an
 * absolute path such as /home/me/repo/packages/api/x.ts matches "packages/api/**". Empty globs -> false.
 */
export function matchesPath(globs: readonly string[], path: string): boolean {
  if (globs.length === 0) return false;
  const isMatch = matcher(globs);
  let p = path.trim().replace(/\\/g, "/").replace(/^(?:\.\/)+/, "").replace(/^\/+/, "").replace(/\/+$/, "");
  while (p !== "") {
    if (isMatch(p)) return true;
    const slash = p.indexOf("/");
    if (slash < 0) break;
    p = p.slice(slash + 1);
  }
  return false;
}

/** Compiled picomatch matcher for a glob list (dotfiles included), cached like a compiled regex. */
export function compileGlobs(globs: readonly string[]): (p: string) => boolean {
  return matcher(globs);
}

function matcher(globs: readonly string[]): (p: string) => boolean {
  const key = globs.length === 1 ? (globs[0] as string) : globs.join("\u0000");
  let isMatch = matcherCache.get(key);
  if (!isMatch) {
    isMatch = picomatch([...globs], { dot: true });
    if (matcherCache.size > 1000) matcherCache.clear();
    matcherCache.set(key, isMatch);
  }
  return isMatch;
}

/**
 * True when two globs can match a common path: either glob matches the other's literal base
 * folder (or a file in it). Used to decide whether a path-scoped rule governs a path-named partition.
 */
export function globsOverlap(ruleGlobs: readonly string[], areaGlobs: readonly string[]): boolean {
  for (const area of areaGlobs) {
    const rule = matcher(ruleGlobs);
    for (const probe of probesOf(area)) if (rule(probe)) return true;
    for (const r of ruleGlobs) {
      const rb = probesOf(r)[1];
      if (rb !== undefined && matcher([area])(rb)) return true;
    }
  }
  return false;
}

const probeCache = new Map<string, string[]>();

export { probesOf };

/** Literal stand-ins of a glob: the glob with wildcards filled in, and a file under its literal base folder. */
function probesOf(glob: string): string[] {
  let v = probeCache.get(glob);
  if (!v) {
    const scan = picomatch.scan(glob);
    const filled = scan.isGlob ? glob.replace(/\*\*\/?/g, "x/").replace(/\*/g, "x").replace(/\/+$/, "") : glob;
    v = scan.isGlob && scan.base !== "" ? [filled, `${scan.base}/x`] : [filled]; // a literal path is a file: itself only
    if (probeCache.size > 5000) probeCache.clear();
    probeCache.set(glob, v);
  }
  return v;
}

/**
 * Globs of a frontmatter block's `paths:` (Claude Code rules) or `globs:` (Cursor rules) key, normalised.
 * Input: the frontmatter unit text including its "---" lines. Accepts a YAML list or a comma-separated
 * string; returns [] for no key or YAML that does not parse (never throws).
 */
export function frontmatterGlobs(frontmatter: string): string[] {
  const body = frontmatter.replace(/^---[^\n]*\n/, "").replace(/\n(?:---|\.\.\.)\s*$/, "");
  let data: unknown;
  try {
    data = parseYaml(body);
  } catch {
    return [];
  }
  if (data === null || typeof data !== "object") return [];
  const rec = data as Record<string, unknown>;
  const raw = rec.paths ?? rec.globs;
  const list = Array.isArray(raw) ? raw : typeof raw === "string" ? raw.split(",") : [];
  return [...new Set(list.filter((x): x is string => typeof x === "string").map(normaliseGlob).filter((g) => g !== ""))];
}

/** At most this many globs from one brace expansion; a larger product is returned unexpanded. */
export const BRACE_EXPANSION_MAX = 64;

/**
 * Expand brace alternatives as a shell or picomatch would: "src/**\/*.{ts,tsx}" -> ["src/**\/*.ts",
 * "src/**\/*.tsx"]; nested and repeated groups multiply ("{a,b}/{c,d}" -> 4 globs). Needed where an agent
 * splits a glob list on commas (Cursor `globs`, Copilot `applyTo`). A group without a comma ("{a}"), an
 * unbalanced brace or more than BRACE_EXPANSION_MAX results leaves the glob as it is. Pure; keeps order.
 */
export function expandBraces(glob: string): string[] {
  const open = glob.indexOf("{");
  if (open < 0) return [glob];
  let depth = 0;
  const cuts: number[] = [];
  let close = -1;
  for (let i = open; i < glob.length; i++) {
    const c = glob[i];
    if (c === "{") depth++;
    else if (c === "}" && --depth === 0) {
      close = i;
      break;
    } else if (c === "," && depth === 1) cuts.push(i);
  }
  if (close < 0) return [glob];
  const head = glob.slice(0, open);
  const tail = expandBraces(glob.slice(close + 1));
  if (cuts.length === 0) return tail.map((t) => `${head}${glob.slice(open, close + 1)}${t}`);
  const starts = [open + 1, ...cuts.map((c) => c + 1)];
  const ends = [...cuts, close];
  const out: string[] = [];
  for (let k = 0; k < starts.length; k++) {
    for (const alt of expandBraces(glob.slice(starts[k], ends[k]))) for (const t of tail) out.push(`${head}${alt}${t}`);
    if (out.length > BRACE_EXPANSION_MAX) return [glob];
  }
  return [...new Set(out)];
}
