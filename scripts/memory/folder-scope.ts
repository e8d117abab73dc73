/**
 * Scope from a folder named without a slash ("In billing, never …", "Im Checkout …", "в billing …", "payments 里的…",
 * "kb の記事は…"): a word that is the name of a folder existing in the project counts as the rule's scope when it is
 * where the rule applies: after a locative preposition of one of the seven languages (in/inside/under, im/in,
 * en/dentro de, в/во, 在, X 里/中/下/目录, X の中/では/の, X 에서/안에서), as the sentence's first word (its subject), or
 * anywhere as a Latin word in Chinese, Japanese or Korean text (a code name there).
 * A folder after "to/into/from/nach/a/из/从/到/放在" or before "に置く/へ" is where something goes or comes from (what
 * the rule mentions), not where it applies; a procedure's steps are not scanned (its header is); only the first
 * clause that names a folder counts (a contrast after it says where the rule does not apply). Pure: the folder
 * list is injected.
 */

/** A container noun between a locative preposition and the folder name: "in the billing service", "im Ordner docs", "в модуле billing". */
const CONTAINER = "(?:module|service|folder|package|directory|dir|app|crate|modul|ordner|verzeichnis|paket|dienst|m[oó]dulo|servicio|carpeta|paquete|directorio|модуле|сервисе|папке|каталоге|пакете|директории)\\s+";
const LATIN_BEFORE = new RegExp(
  `(?:^|[\\s,(])(?:in|inside|within|under|across|throughout|im|in der|in den|innerhalb(?: von)?|unter|en|dentro de|в|во|внутри)\\s+(?:the\\s+|der\\s+|den\\s+|dem\\s+|el\\s+|la\\s+|los\\s+|las\\s+)?(?:${CONTAINER})?$`,
  "iu",
);
/** A preposition that scopes only at the start of a sentence ("For billing, …", "On the schemas side: …", "Для billing …", "Bei billing …", "Para billing, …"). */
const INITIAL_BEFORE = /^(?:for|on|about|regarding|für|bei|zu|para|sobre|en cuanto a|для|по|насчёт|насчет|про|关于|对于|至于)\s*(?:the\s+|der\s+|den\s+|dem\s+|el\s+|la\s+|los\s+|las\s+)?$/iu;
/** A container noun after the folder name: "the billing service", "billing-Modul" (a compound's suffix is cut off before matching). */
const CONTAINER_AFTER = /^[\s-](?:module|service|folder|package|directory|dir|app|code|side|thing|part|modul|ordner|verzeichnis|paket|dienst|code)(?![\p{L}])/iu;
const CJK_BEFORE = /(?:在|于)\s*$/u;
const AFTER = /^\s*(?:里|裡|中|下面?|目录|目錄|内|的|の中|では|で(?!き)|の|配下|以下|에서|안에서|안|쪽)/u;
const NOT_SCOPE_BEFORE = /(?:\b(?:to|into|from|nach|hacia|desde|из|от|file|files|datei|fichero|archivo)\s+(?:the\s+)?|(?<![\p{L}])(?:not|nor|never|nicht|noch|weder|no|ni|nunca|не|ни)\s+(?:in|into|under|im|in den|in die|en|dentro de|в|во)\s+(?:the\s+|den\s+|die\s+|el\s+|la\s+|los\s+|las\s+)?|从|到|往|[建放写存挪移搬装](?:在|到))\s*$/iu;
/** A word that is part of a command or a script name ("npm run lint:orders", "make orders"): no folder. */
const IN_COMMAND_BEFORE = /(?:[:@]|(?:run|make|just|npx|pnpm|yarn|npm|task)\s+[\w:.-]*)$/iu;
/** A verb of changing right before a folder named as its object ("don't touch connectors", "fasst du import-asv nicht an", "no toques connectors", "не трогай vendor"): the folder is where the rule applies. */
const GUARD_BEFORE = /(?<![\p{L}])(?:changes?\s+to|änderungen\s+(?:an|am|im)|cambios\s+en|изменени\p{L}*\s+(?:в|во)|leave|lass|lasst|deja|dejad|touch|edit|modify|change|fass\p{L}*(?:\s+du)?|rühr\p{L}*(?:\s+du)?|änder\p{L}*|toques|toque|modifiques|cambies|edites|трогай|трогать|правь|меняй|редактируй)\s+(?:(?:the|den|die|das|el|la|los|las)\s+)?$/iu;
/** A folder kept off limits, named before what is said of it: "crew-portal is read-only", "nebenkosten bleibt gesperrt", "dispatch не трогаем", "qa no se toca". */
const GUARD_AFTER =
  /^\s*(?:(?:is|stays|remains|bleibt|ist|es|está|queda|sigue|остаётся|остается)\s+(?:read-only|frozen|untouched|off-limits|off limits|schreibgeschützt|tabu|gesperrt|eingefroren|de solo lectura|intocable|congelad\p{L}*|только для чтения|заморожен\p{L}*)|(?:не|никто не)\s+(?:трога|меня|прав|редактир)\p{L}*|(?:bitte\s+)?nicht\s+an(?:fassen|rühren)|no se toca)(?![\p{L}])/iu;
/** A leading clause that says until when a rule holds ("Until Thursday's release, …", "Bis Freitag, …", "Пока идёт аттестация, то есть до конца месяца, …"): what follows is the sentence's subject. */
const EXPIRY_LEAD = /^(?:until|till|before|bis|hasta|до|пока)(?![\p{L}])[^,，;]{1,80}[,，]\s*(?:(?:то есть|i\.\s?e\.|d\.\s?h\.|es decir|that is)[^,，;]{1,60}[,，]\s*)?/iu;
/** A destination after the folder: "X 以下に置いて", "X に保存", "X へ" (where something goes, not where the rule applies). */
const NOT_SCOPE_AFTER = /^\s*(?:の\s*\S{0,12}?\s*)?(?:以下|の下|配下)?\s*(?:に(?:置|入れ|保存|書|移)|へ)/u;
/** Steps told as a sequence after a header's colon: "first …, then …", "сначала …, потом …", "先…然后…", "まず…次に…". */
export const SEQUENCE_RE =
  /^[:：]\s*(?:first|zuerst|erst|primero|сначала|先|首先|まず|먼저)(?![\p{L}])[\s\S]*(?:then|next|after that|dann|danach|después|luego|потом|затем|然后|再|次に|その後|그다음|다음에)/iu;

/** A branch word after a name ("main 브랜치", "develop ブランチ", "main 分支", "main branch"): a git branch, not a folder. */
const BRANCH_AFTER = /^\s*(?:브랜치|ブランチ|分支|branch|ветк|zweig)/iu;
/** Git's usual branch names: in Chinese, Japanese or Korean text they name a branch unless a locative particle follows. */
const BRANCH_NAMES = /^(?:main|master|develop|trunk|head)$/iu;

/** Words that label a sentence before a colon ("Rule: …", "Note: …") rather than name where it applies. */
const LABELS = /^(?:rules?|notes?|tips?|important|reminders?|updates?|todo|warnings?|polic(?:y|ies)|regel|hinweis|regla|nota|правило|заметка)$/iu;

/** Folder names that are also activities: as a sentence's subject they give no scope (after "in" they still do). */
const ACTIVITY_NAMES = /^(?:tests?|specs?|builds?|ci|deploy(?:s|ments?)?|releases?|logs?|lint(?:ing)?|checks?)$/iu;

/** Where a procedure's header ends: its steps name places they act on, not where the procedure applies. */
const STEPS_START = /[:：]|\s1[.)]\s/u;

/** Word forms of a folder name that count as naming it: the name, and a plural or inflection up to two letters longer (dashboards, Exporte). */
function namesFolder(word: string, base: string): boolean {
  const w = word.toLowerCase();
  const b = base.toLowerCase();
  if (w === b) return true;
  if (b.length < 4) return false;
  if (w.startsWith(b) && w.length - b.length <= 2) return true;
  if (b.startsWith(w) && b.length - w.length <= 1 && w.length >= 4) return true;
  // A cognate with another plural ending ("Migrationen" / migrations, "exportaciones" is too far): all but the last
  // two letters of the name shared, at least 6, and at most three letters more.
  let k = 0;
  while (k < w.length && k < b.length && w[k] === b[k]) k++;
  return k >= 6 && k >= b.length - 2 && w.length - k <= 3;
}

/**
 * Globs ("services/billing/**") of the existing folders a rule applies to, found from folder names without a
 * slash; [] when none. `folders` are project-relative paths ("services/billing"). When several folders share
 * the name, the shallowest ones are taken. Sentences with numbered or bulleted steps (a procedure) give [].
 */
export function folderScope(text: string, folders: readonly string[]): string[] {
  if (folders.length === 0) return [];
  // A procedure: only its header names where it applies ("发布 payments 的流程：1. …").
  const steps = STEPS_START.exec(text);
  if (steps && (/\s2[.)]\s|\n/.test(text.slice(steps.index)) || SEQUENCE_RE.test(text.slice(steps.index)))) text = text.slice(0, steps.index);
  if (text.includes("\n")) return [];
  const byName = new Map<string, string[]>();
  for (const f of folders) {
    const base = f.split("/").pop() ?? "";
    if (base.length < 2 || base.startsWith(".")) continue;
    const k = base.toLowerCase();
    byName.set(k, [...(byName.get(k) ?? []), f]);
  }
  const found = new Set<string>();
  // Only the first clause that names a folder counts: a contrast after it ("…, sql 目录下的照旧不行") names where the rule does not apply.
  let clauseOfFirst = -1;
  const stripped = text.replace(/^[\s"'«„(]+/, "");
  const sentenceStart = stripped.replace(EXPIRY_LEAD, "");
  // Inside Chinese, Japanese or Korean text a Latin word that names an existing folder is a code name: the place the rule
  // is about ("gateway 不合并新功能", "别动 appointments", "grades 스키마는 건드리지 마세요"), whatever particle follows it;
  // written exactly as the folder ("Config" is a class, "model" is not "models", "model-registry" is another name).
  const cjk = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u.test(text);
  // Words of one script each: "billing에서는" and "billing里" give "billing" (the particle after it places it).
  for (const m of text.matchAll(/[\p{Script=Latin}\p{N}][\p{Script=Latin}\p{N}_-]*|\p{Script=Cyrillic}+/gu)) {
    // A compound with a container noun ("billing-Modul") names the folder before the dash.
    // A compound with a container noun ("billing-Modul") names the folder before the dash; another compound
    // ("SQL-Migrationen") names it with its last part.
    const word = m[0].replace(/-(?:modul|ordner|verzeichnis|paket|dienst|service|code|module)$/iu, "");
    const compound = word !== m[0];
    const lastPart = word.includes("-") ? (word.split("-").pop() as string) : undefined;
    const at = m.index ?? 0;
    const before = text.slice(Math.max(0, at - 40), at);
    const after = text.slice(at + word.length, at + word.length + 12);
    // A folder inside a longer path or an identifier ("app/screens", "config.yaml") is inferScope's business.
    if (/[/.]$/.test(before) || /^[/.][\p{L}]/u.test(after)) continue;
    // An acronym in capitals ("SQL queries", "API responses") names a language or a technology, not a lowercase folder.
    // A capitalised name with a container noun kept off limits ("keine Änderungen am ATLAS-Modul") still names a module.
    if (!(compound && GUARD_BEFORE.test(before)) && word.length >= 2 && word === word.toUpperCase() && /\p{Lu}/u.test(word)) continue;
    // As a subject, an activity that is also a folder's name ("Tests must pass before merging", "Builds run on CI")
    // names what the rule is about, not where it applies.
    // A generic label before a colon ("Rule: always …", "Note: …") is not the sentence's subject.
    const initial = at === text.length - sentenceStart.length && !ACTIVITY_NAMES.test(word) && !(LABELS.test(word) && /^\s*[:：]/u.test(after));
    if (BRANCH_AFTER.test(after) || IN_COMMAND_BEFORE.test(before)) continue;
    // A capitalised common noun opening the sentence ("Object records are …", "Loan agreements, …") names the subject,
    // not the folder "objects" or "loans": as the first word, only the folder's exact name (or a code-like name) counts.
    const initialExact = !initial || word.toLowerCase() === word || /[-_]/.test(word) || byName.has(word.toLowerCase());
    const placed =
      (cjk && /^\p{Script=Latin}/u.test(word) && byName.has(word) && !BRANCH_NAMES.test(word) && !/[-_]/.test(text.slice(at + word.length, at + word.length + 1))) ||
      LATIN_BEFORE.test(before) || CJK_BEFORE.test(before) || GUARD_BEFORE.test(before) || GUARD_AFTER.test(text.slice(at + word.length, at + word.length + 40)) || AFTER.test(after) || (initial && initialExact) || INITIAL_BEFORE.test(text.slice(0, at).replace(/^[\s"'«„(]+/, "")) || (CONTAINER_AFTER.test(after) && /(?:^|\s)(?:the|der|die|das|dem|den|im|el|la|en|в|во)\s+$/iu.test(before));
    if (!placed || (NOT_SCOPE_BEFORE.test(before) && !GUARD_BEFORE.test(before)) || NOT_SCOPE_AFTER.test(text.slice(at + word.length, at + word.length + 24))) continue;
    const clause = (text.slice(0, at).match(/[,，;；、]/gu) ?? []).length;
    for (const [name, paths] of byName) {
      if (!namesFolder(word, name) && !(lastPart !== undefined && lastPart.length >= 4 && namesFolder(lastPart, name))) continue;
      if (clauseOfFirst >= 0 && clause !== clauseOfFirst) continue;
      clauseOfFirst = clause;
      const depth = Math.min(...paths.map((p) => p.split("/").length));
      for (const p of paths) if (p.split("/").length === depth) found.add(`${p}/**`);
    }
  }
  // "Tests in e2e": the deeper folder is where the rule applies, not its parent as well.
  return [...found].filter((g) => ![...found].some((o) => o !== g && o.startsWith(g.slice(0, -2)))).sort();
}
