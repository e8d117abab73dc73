/**
 * `triage pin`: add one rule verbatim (secrets redacted) to the rules folder, under the same lock,
 * store and file layout as extraction. A path-scoped pin (`--paths`) goes to one file per glob with
 * `paths:` frontmatter. Idempotent: pinning the same (or a near-duplicate) rule again changes nothing.
 */
import { hasControls } from "../control-chars.js";
import { resolve } from "node:path";
import { UsageError } from "../../errors.js";
import type { Classifier } from "../../engine/classify.js";
import { classifySentence } from "../../engine/classify.js";
import { normaliseGlob } from "../../operators/scope.js";
import { applyStatement } from "../consolidate.js";
import { redactTexts } from "../redact.js";
import { readRuleFiles } from "./pinned-rules.js";
import { recoverFromFiles, syncRuleFiles } from "./rule-files.js";
import { acquireLock, assertInsideRoot, isUserRulesDir, loadStore, saveStore } from "./state.js";
import type { Store } from "./store-schema.js";

/** Options of one pin. */
export interface PinOptions {
  text: string;
  rulesDir: string;
  type?: "constraint" | "procedural";
  paths?: string[];
  classifier: Classifier;
}

/** What a pin did: "added", or "exists" when the rule was already there; the rule id and files. */
export interface PinReport {
  status: "added" | "exists" | "reactivated";
  id: string;
  text: string;
  globs: string[];
  files: string[];
  warnings: string[];
}

/**
 * Longest rule `pin` takes, in characters (`triage pin` and the MCP tool alike): a pinned rule is loaded into every
 * session whole, and 2,000 characters is several paragraphs, more than any rule in data/sessions.
 */
export const PIN_MAX_CHARS = 2000;

/** C0 and C1 control characters, DEL and the Unicode line and paragraph separators: never part of a path glob. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;
/** A POSIX root ("/etc/**"), a Windows drive ("C:\\x", "C:/x"), a UNC or backslash root ("\\\\server", "\\x"), or "~/". */
const ABSOLUTE = /^(?:[/\\]|~(?:[/\\]|$)|[A-Za-z]:(?:[/\\]|$))/;

/**
 * Pin a rule (see module doc). Throws UsageError for empty text, text over PIN_MAX_CHARS, a glob holding a control
 * character, an absolute one, one that normalises to nothing or one that leaves the project (a `..` segment).
 */
export async function pinRule(opts: PinOptions): Promise<PinReport> {
  const raw = opts.text.replace(/\r\n?/g, "\n").trim();
  if (raw === "") throw new UsageError("pin: the rule text is empty");
  // Bytes that were not UTF-8 reach us as U+FFFD (the shell's argument, an MCP client's string): refuse, not store them.
  if (raw.includes("\uFFFD")) throw new UsageError("pin: the rule holds bytes that are not valid UTF-8 (shown as U+FFFD); pin it as UTF-8 text");
  // A terminal escape or bidi override would be written raw into the rule file and printed by the hooks.
  const control = [...raw].find((c) => c !== "\t" && hasControls(c));
  if (control !== undefined) {
    const cp = `U+${(control.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, "0")}`;
    throw new UsageError(`pin: the rule holds a control character (${cp}: a terminal escape, bidi control or line separator); pin it as plain text`);
  }
  if (raw.length > PIN_MAX_CHARS) {
    throw new UsageError(`pin: the rule is ${raw.length.toLocaleString("en")} characters; at most ${PIN_MAX_CHARS.toLocaleString("en")} (it is loaded into every session whole)`);
  }
  const globs = [...new Set((opts.paths ?? []).map((p) => {
    // A newline would end the quoted `paths:` entry and let the rest become frontmatter or rule text (render.ts).
    if (CONTROL.test(p)) throw new UsageError(`pin: the path ${JSON.stringify(p)} holds a control character (a newline?); give one glob per --paths`);
    // Not rewritten to a relative glob: "/etc/**" silently becoming "etc/**" would scope the rule to another folder.
    if (ABSOLUTE.test(p)) throw new UsageError(`pin: "${p}" is an absolute path; paths are relative to the project root (e.g. "src/**")`);
    const g = normaliseGlob(p);
    if (!g) throw new UsageError(`pin: "${p}" is not a path or glob`);
    if (g.split("/").includes("..")) throw new UsageError(`pin: "${p}" leaves the project; paths are relative to the project root`);
    return g;
  }))].sort();
  if (globs.length > 0 && isUserRulesDir(opts.rulesDir)) {
    throw new UsageError("pin: Claude Code ignores paths: in user-level rules (~/.claude/rules); pin path-scoped rules into the project's .claude/rules");
  }
  const red = await redactTexts([raw]);
  const text = red.texts[0] as string;
  // Globs go into file names, `paths:` frontmatter and the sidecar verbatim: one that holds a secret is refused, not redacted.
  if (globs.length > 0 && (await redactTexts(globs)).texts.some((g, i) => g !== globs[i])) {
    throw new UsageError("pin: a path in --paths looks like it holds a secret (rule files are committed); leave it out");
  }
  let type = opts.type;
  if (!type) type = classifySentence(text, opts.classifier).type === "procedural" ? "procedural" : "constraint";
  const rulesDir = resolve(opts.rulesDir);
  return withStore(rulesDir, (store) => {
    const before = store.rules.length;
    const wasRetired = new Set(store.rules.filter((r) => r.status === "retired").map((r) => r.id));
    const res = applyStatement(store, { text, type, globs, score: 0, source: { session: "pin", line: 0, offset: 0 }, origin: "pin", kind: "rule" });
    // A rule this one contradicts or refines is retired by the store (consolidate.ts): say so, never silently.
    const replaced = store.rules.filter((r) => r.status === "retired" && !wasRetired.has(r.id) && r.id !== res.ruleId && r.id !== "");
    const sync = syncRuleFiles(rulesDir, store, (s) => saveStore(rulesDir, s));
    saveStore(rulesDir, store);
    const status = store.rules.length > before ? "added" : res.ruleId && wasRetired.has(res.ruleId) ? "reactivated" : "exists";
    const notes = replaced.map((r) => `replaces the earlier rule "${r.text}" (retired: ${r.retiredReason ?? "replaced"}; pin it again to restore it)`);
    // "already pinned" names the rule that is there, in its words, not the restatement just typed.
    const shown = status === "added" ? text : (store.rules.find((r) => r.id === res.ruleId)?.text ?? text);
    return { status, id: res.ruleId ?? "", text: shown, globs, files: sync.files, warnings: [...red.warnings, ...notes, ...sync.warnings] };
  });
}

/** What an unpin did: the rules retired (id and text) and the rule files written or removed. */
export interface UnpinReport {
  retired: Array<{ id: string; text: string }>;
  files: string[];
  warnings: string[];
}

/** Rules named (id and text) in unpin's one-line error when nothing matches. */
const UNPIN_LIST_MAX = 8;

/** Case- and space-insensitive form of a rule text, for matching what a user typed. */
const loose = (s: string): string => s.replace(/^[-*]\s+/, "").replace(/\s+/g, " ").trim().toLowerCase();

/**
 * `triage unpin`: retire one active rule of the rules folder, chosen by its id or its text (exact, ignoring
 * case and spacing, else the one rule containing the text), under the same lock and store as pinRule. The rule
 * stays in the sidecar store as retired (`retiredReason: "unpinned"`), so an unpin is recorded, not lost;
 * its line leaves the rule file. Throws UsageError when nothing or more than one rule matches (naming them).
 */
export async function unpinRule(opts: { query: string; rulesDir: string }): Promise<UnpinReport> {
  const q = loose(opts.query);
  if (q === "") throw new UsageError("unpin: give the rule's text or id");
  const rulesDir = resolve(opts.rulesDir);
  return withStore(rulesDir, (store) => {
    const active = store.rules.filter((r) => r.status === "active");
    let hits = active.filter((r) => r.id === opts.query.trim() || loose(r.text) === q);
    if (hits.length === 0) hits = active.filter((r) => loose(r.text).includes(q));
    if (hits.length === 0) {
      const shown = active.slice(0, UNPIN_LIST_MAX).map((r) => `${r.id} "${r.text.slice(0, 60)}"`);
      const more = active.length > shown.length ? `; ${active.length - shown.length} more in .state/rules.json` : "";
      throw new UsageError(
        active.length === 0 ? "unpin: no rules are pinned in this rules folder" : `unpin: no pinned rule matches "${opts.query.trim()}"; pinned: ${shown.join("; ")}${more}`,
      );
    }
    if (hits.length > 1) throw new UsageError(`unpin: ${hits.length} rules match; give one id: ${hits.map((r) => `${r.id} "${r.text.slice(0, 60)}"`).join("; ")}`);
    const rule = hits[0] as (typeof hits)[number];
    rule.status = "retired";
    rule.retiredReason = "unpinned";
    const sync = syncRuleFiles(rulesDir, store, (s) => saveStore(rulesDir, s));
    saveStore(rulesDir, store);
    // A rule file the user edited is never rewritten (rule-files.ts), so the line may still be loaded: say so.
    const still = readRuleFiles(rulesDir).filter((f) => f.rules.some((t) => loose(t) === loose(rule.text)));
    const kept = still.map((f) => `${f.name} was edited by hand and still lists this rule (Claude Code keeps loading it): remove the line there yourself`);
    return { retired: [{ id: rule.id, text: rule.text }], files: sync.files, warnings: [...sync.warnings, ...kept] };
  });
}

/**
 * Run `fn` on the rule store of `rulesDir` under its lock, after taking in hand edits of the rule files
 * (recoverFromFiles); the lock is released whatever happens. Throws what assertInsideRoot, acquireLock or `fn` throw.
 */
async function withStore<T>(rulesDir: string, fn: (store: Store) => T): Promise<T> {
  assertInsideRoot(rulesDir);
  const release = await acquireLock(rulesDir);
  try {
    const store = loadStore(rulesDir);
    recoverFromFiles(rulesDir, store);
    return fn(store);
  } finally {
    await release().catch(() => undefined);
  }
}
