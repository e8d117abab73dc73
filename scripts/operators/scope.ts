/**
 * The scope of a rule: which part of a project (or memory base) it governs. One home for this
 * decision, used by decompose, retrieve and the rules store. Pure; no I/O.
 *
 * Rules (in priority order):
 * 1. path: a path or glob named after a scope cue in the rule ("In packages/api ...", "Components
 *    under apps/web ...", "For *.py files ...", "在 packages/api 中 ..."), a sentence-initial path
 *    ("src/legacy/ is frozen"), a language's files ("In TypeScript and TSX files" -> **\/*.ts, **\/*.tsx),
 *    or a path in one of the rule's headings ("## apps/web"). A path that is merely the object of the
 *    rule ("Never commit .env files") is not a scope.
 * 2. topic: the nearest heading that names a subject (not a generic one such as "Rules" or "Notes").
 * 3. global: no scope signal.
 * Globs are anchored at the project root and normalised: "./a/b/" -> "a/b/**", "a/b" -> "a/b/**",
 * "*.ts" -> "**\/*.ts", "a/x.ts" stays a file path; backslashes become "/".
 */
import { normaliseGlob } from "./globs.js";

export { compileGlobs, frontmatterGlobs, globsOverlap, matchesPath, normaliseGlob, probesOf } from "./globs.js";

/** What a rule governs. `topics` (lower-cased) are listed for every kind: section topic first, then named identifiers. */
export interface Scope {
  kind: "global" | "path" | "topic";
  globs: string[];
  topics: string[];
  /** One-line reason, e.g. `path "packages/api/**" from the rule text` (for manifests). */
  reason: string;
}

const SEG = String.raw`(?:[\w@+~*?-]|\.(?=[\w*{])|\{[^}\s]*\})+`;
const PATH_TOKEN = new RegExp(String.raw`(?:\.{1,2}\/|\/)?(?:${SEG}\/)+(?:${SEG})?|\*{1,2}\.${SEG}|\.[A-Za-z][\w]{0,7}(?=\s+files?\b)`, "g");
// Prepositions of the seven languages: Cyrillic ones need a letter lookbehind (\b is ASCII-only).
const CUE_BEFORE = /(?:\b(?:in|inside|within|under|for|across|throughout|beneath|below|applies to|apply to|editing|touching|changing|modifying|en|dans|im|unter|für|innerhalb(?: von)?|para|dentro de|sous)|(?<![\p{L}])(?:в|во|внутри|под|для)|在|于|对于|對於)\s*(?:(?:the|all|any|every|each|our|this|these|those|its)\s+)?[`'"]?$/iu;
const CUE_AFTER = /^[`'"]?\s*(?:中|里|裡|下|内|內|目录|目錄|配下|以下|では|の中|에서는|에서|안에서|안의|안에)/u;
// A rule verb before the path makes the path the rule's object ("Never commit anything under secrets/"),
// unless a scope phrase introduces it ("... when editing src/legacy/").
const VERB_BEFORE = /\b(?:never|always|must|mustn't|should|shouldn't|do not|don't|avoid|prefer|use|run|make sure|ensure|commit|push|delete|remove|edit|add|write|put|keep|store|create|place)\b|禁止|必须|不要|务必/i;
const SCOPE_PHRASE = /\b(?:when (?:editing|working (?:in|on|inside)|touching|changing|modifying|writing)|applies to|apply to|only (?:in|under|inside|within|for))\s*(?:(?:the|all|any|every|each|our|this|these|those|its)\s+)?[`'"]?$/i;
const START_BEFORE = /^\s*(?:[-*+•]|\d{1,3}[.)])?\s*(?:\*\*)?[`'"]?$/;
const STRONG_ROOTS = new Set(
  "src lib app apps packages services docs test tests spec scripts infra pkg cmd internal web api frontend backend components modules config tools .github server client migrations deploy charts terraform".split(" "),
);
const NOT_PATHS = new Set(["and/or", "either/or", "w/o", "w/", "read/write", "input/output", "yes/no", "on/off", "client/server", "true/false", "pros/cons", "he/she", "his/her", "before/after", "and/", "or/"]);

const LANGS: Record<string, string[]> = {
  typescript: ["ts"], ts: ["ts"], tsx: ["tsx"], javascript: ["js"], js: ["js"], jsx: ["jsx"],
  python: ["py"], go: ["go"], golang: ["go"], rust: ["rs"], java: ["java"], kotlin: ["kt"], swift: ["swift"],
  ruby: ["rb"], php: ["php"], "c#": ["cs"], csharp: ["cs"], markdown: ["md"], css: ["css"], scss: ["scss"],
  sql: ["sql"], yaml: ["yml", "yaml"], json: ["json"], shell: ["sh"], bash: ["sh"], vue: ["vue"], svelte: ["svelte"], html: ["html"],
};
const LANG_ALT = Object.keys(LANGS).map((k) => k.replace(/[+#]/g, "\\$&")).join("|");
const LANG_RE = new RegExp(String.raw`\b((?:${LANG_ALT})(?:\s*(?:,|\band\b|\bor\b|&|\/)\s*(?:${LANG_ALT}))*)\s+(?:files?|sources?|modules?|code|components|tests?|scripts?)\b`, "gi");

const GENERIC = new Set(
  "rules rule constraints constraint guidelines guideline conventions convention general important notes note overview instructions instruction must do dont don't dos donts always never policies policy requirements requirement critical key ground house basic core global project team coding principles standards best practices practice memory claude agents agent readme misc miscellaneous other others the and of for our to 规则 约束 注意事项 重要 通用 说明 règles regeln reglas правила".split(" "),
);
// A heading naming rules ("Hard rules", "NEVER", "Pflichten", "禁止事项") marks a rules section, not a subject.
const RULE_WORDS = new Set(
  "rules rule constraints constraint guidelines guideline conventions convention policies policy principles requirements must never always don't dont forbidden prohibited mandatory permissions non-negotiable musts regeln pflichten niemals immer verboten reglas nunca siempre obligatorio prohibido règles jamais toujours interdit правила запрещено никогда обязательно".split(" "),
);
const RULE_CJK = /规则|规范|约束|禁止|必须|ルール|規則|禁止事項|必須|규칙|금지|필수/;
const IDENT_RE = /`([A-Za-z_$][\w$.:-]*(?:\(\))?)`/g;

/** True for a token that can only be a path (trailing "/", 2+ "/", a glob, a known root folder, or a file extension). */
function strongPath(tok: string): boolean {
  if (/[*?{]/.test(tok) || tok.endsWith("/") || (tok.match(/\//g) ?? []).length >= 2) return true;
  const first = tok.replace(/^\.?\//, "").split("/")[0] ?? "";
  return STRONG_ROOTS.has(first) || /\/[\w-]+\.[A-Za-z]{1,6}$/.test(tok);
}

function plausiblePath(tok: string): boolean {
  if (tok.length < 2 || NOT_PATHS.has(tok.toLowerCase()) || tok.includes("://")) return false;
  const segs = tok.split("/").filter((s) => s !== "");
  if (segs.length === 0) return tok.startsWith("*") || tok.startsWith(".");
  if (segs.every((s) => /^\d+$/.test(s))) return false; // 1/2, 12/05/2024
  if (segs.length > 1 && segs.every((s) => /^[A-Z]{1,5}$/.test(s))) return false; // CI/CD, I/O, TCP/IP
  if (/^[a-z0-9-]+\.(?:com|org|net|io|dev|ai|co|gov|edu)$/i.test(segs[0] ?? "")) return false; // domains
  return true;
}


const FILE_WORD = /\b(?:files?|sources?|modules?|code|components|tests?|scripts?)\b/i;
const scanCache = new Map<string, string[]>();

/** Globs named anywhere in a heading ("## apps/web", "## Python files"), memoised per heading text. */
export { headingPaths };
/** Memoised pathsInText for headings (few distinct strings, scanned for every unit under them). */
function headingPaths(heading: string): string[] {
  let v = scanCache.get(heading);
  if (!v) {
    if (scanCache.size > 5000) scanCache.clear();
    v = pathsInText(heading, true);
    scanCache.set(heading, v);
  }
  return v;
}

function pathsInText(text: string, anywhere: boolean): string[] {
  const out: string[] = [];
  const fileWord = FILE_WORD.test(text);
  if (!fileWord && !text.includes("/") && !text.includes("*")) return out;
  for (const m of text.matchAll(PATH_TOKEN)) {
    const tok = m[0];
    const before = text.slice(Math.max(0, (m.index ?? 0) - 40), m.index);
    const after = text.slice((m.index ?? 0) + tok.length, (m.index ?? 0) + tok.length + 6);
    if (!plausiblePath(tok)) continue;
    const clause = text.slice(0, m.index).split(/[.;!?。；！？]\s/).pop() ?? "";
    const cued = (CUE_BEFORE.test(before) || CUE_AFTER.test(after)) && (!VERB_BEFORE.test(clause) || SCOPE_PHRASE.test(before));
    const initial = START_BEFORE.test(before) && strongPath(tok);
    if (cued || initial || (anywhere && strongPath(tok))) {
      const g = normaliseGlob(tok);
      if (g) out.push(g);
    }
  }
  if (!fileWord) return [...new Set(out)];
  for (const m of text.matchAll(LANG_RE)) {
    const before = text.slice(Math.max(0, (m.index ?? 0) - 40), m.index);
    const clause = text.slice(0, m.index).split(/[.;!?。；！？]\s/).pop() ?? "";
    const cued = CUE_BEFORE.test(before) && (!VERB_BEFORE.test(clause) || SCOPE_PHRASE.test(before));
    if (!(anywhere || cued || START_BEFORE.test(before))) continue;
    for (const w of (m[1] ?? "").toLowerCase().split(/\s*(?:,|\band\b|\bor\b|&|\/)\s*/)) {
      for (const ext of LANGS[w] ?? []) out.push(`**/*.${ext}`);
    }
  }
  return [...new Set(out)];
}

/** Lower-cased topic of a heading, or "" when the heading is generic ("Notes") or names rules ("Hard rules", "NEVER"). */
export function headingTopic(heading: string): string {
  let v = topicCache.get(heading);
  if (v === undefined) {
    if (topicCache.size > 5000) topicCache.clear();
    v = topicOf(heading);
    topicCache.set(heading, v);
  }
  return v;
}

const topicCache = new Map<string, string>();

/**
 * True when a heading names a rules section ("Hard rules", "NEVER", "Ground rules (set by the ward
 * manager)", "禁止事项"): such a heading carries the sense of the rules under it, so decompose copies it
 * with them and retrieve returns it as an in-scope rule.
 */
export function namesRules(heading: string): boolean {
  let v = rulesCache.get(heading);
  if (v === undefined) {
    const clean = heading.replace(/^\s*#{1,6}\s*/, "").replace(/[`*_#]/g, "").toLowerCase();
    v = clean.split(/[^\p{L}\p{N}'-]+/u).some((w) => RULE_WORDS.has(w)) || RULE_CJK.test(clean);
    if (rulesCache.size > 5000) rulesCache.clear();
    rulesCache.set(heading, v);
  }
  return v;
}

const rulesCache = new Map<string, boolean>();

/**
 * A heading that only names the language its section is written in, or a team's notes ("## Deutsch", "## 日本語メモ",
 * "## Notas en español", "## チームメモ (Tokyo)"): the rules under it hold everywhere, so it is no topic.
 */
const LANGUAGES =
  "english|englisch|inglés|deutsch|german|alemán|español|spanisch|spanish|русский|русском|russisch|russian|ruso|中文|汉语|漢語|chinese|chinesisch|chino|日本語|japanese|japanisch|japonés|korean|koreanisch|coreano|한국어|français|french";
const LANGUAGE_OR_NOTES = new RegExp(
  String.raw`^(?:(?:team|our|unsere?|nuestras?|наши|チーム|团队|팀)\s*)?(?:${LANGUAGES})?\s*(?:notes?|memos?|notizen|notas|заметки|メモ|笔记|筆記|備考|메모)?(?:\s+(?:en|auf|in|на)\s+(?:${LANGUAGES}))?\s*(?:\([^)]*\))?$`,
  "u",
);

function topicOf(heading: string): string {
  const clean = heading.replace(/[`*_#]/g, "").replace(/^\s*\d+[.)]\s*/, "").replace(/[:：]\s*$/, "").trim().toLowerCase();
  if (LANGUAGE_OR_NOTES.test(clean)) return "";
  const words = clean.split(/[^\p{L}\p{N}'-]+/u).filter((w) => w !== "");
  if (words.length === 0 || words.every((w) => GENERIC.has(w)) || words.some((w) => RULE_WORDS.has(w)) || RULE_CJK.test(clean)) return "";
  return clean;
}

/** Identifiers a rule names: backticked code identifiers such as `chargeCard()` or `cust_key` (lower-cased, without "()"). */
export function namedIdentifiers(text: string): string[] {
  const out: string[] = [];
  if (!text.includes("`")) return out;
  for (const m of text.matchAll(IDENT_RE)) {
    const id = (m[1] ?? "").replace(/\(\)$/, "").toLowerCase();
    if (id.length > 1) out.push(id);
  }
  return [...new Set(out)];
}

/**
 * Infer the scope of a rule from its text and its heading path (outermost first).
 * Output: kind, normalised globs (path kind only), topics (lower-cased), and a reason. Deterministic; never throws.
 */
export function inferScope(text: string, headings: readonly string[] = []): Scope {
  const ids = namedIdentifiers(text);
  const fromText = pathsInText(text, false);
  if (fromText.length > 0) {
    return { kind: "path", globs: fromText, topics: ids, reason: `path ${fromText.join(", ")} from the rule text` };
  }
  for (let i = headings.length - 1; i >= 0; i--) {
    const fromHeading = headingPaths(headings[i] ?? "");
    if (fromHeading.length > 0) {
      return { kind: "path", globs: fromHeading, topics: ids, reason: `path ${fromHeading.join(", ")} from heading "${headings[i]}"` };
    }
  }
  const nearest = headings.length > 0 ? headingTopic(headings[headings.length - 1] ?? "") : "";
  if (nearest !== "") {
    return { kind: "topic", globs: [], topics: [nearest, ...ids.filter((t) => t !== nearest)], reason: `topic "${nearest}" from its section` };
  }
  return { kind: "global", globs: [], topics: ids, reason: "no scope signal" };
}

/**
 * Scope of a unit of a memory file: inferScope, except that a heading is its own section (a rule
 * heading such as "## NEVER" or "## Deploy" governs what its section governs) and a fenced code block
 * takes its scope from its headings only (paths and identifiers inside code are not scope cues).
 */
export function inferUnitScope(u: { text: string; kind: string }, headings: readonly string[] = []): Scope {
  if (u.kind === "heading") {
    const own = u.text.replace(/^\s*#{1,6}\s*/, "").replace(/\s*#*\s*$/, "");
    return inferScope("", [...headings, own]);
  }
  if (u.kind === "code") return inferScope("", headings);
  return inferScope(u.text, headings);
}
