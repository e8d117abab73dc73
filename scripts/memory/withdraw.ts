/**
 * Finding what a withdrawal takes back by meaning, not by exact term overlap alone. A withdrawal rarely repeats
 * its rule's words ("the cents-only thing for the ledger no longer applies" for "amounts in ledger are integers in
 * cents"): it names the rule's subject with a shared identifier (a path, a folder, inline code, a name in Latin
 * script inside CJK text), a compound's part ("cents-only" -> "cents"), or a word with the same first letters
 * ("deploys" / "deployment"). Pure.
 */
import { tokenize } from "../engine/tokenize.js";
import { cuesOf, RELEASE_RE, WITHDRAW_CJK, WITHDRAW_RE } from "./durability.js";

/** Words of the withdrawal itself (cue words in 7 languages), never evidence for a target. */
const CUE_WORDS = new Set(
  ("forget ignore disregard drop scrap scratch cancel undo revoke withdraw retract lift rule rules thing said told about what that this the "
    + "applies apply anymore longer needed required valid gone off instead moved now also anything "
    + "vergiss streich regel gilt nicht mehr olvida regla ya no aplica забудь правило больше не отменяется "
    // Function words of 3+ letters: never evidence either.
    + "only and for with not are was all any our your you but just from into one ones der die das und den dem mit los las del que por para con для что это как все "
    + "every each can wir ein eine einen jetzt lassen lass jeder jede alle immer cada una uno ahora теперь всегда "
    // Verbs and words of withdrawing itself ("that's over", "gilt nicht mehr", "больше не действует").
    + "over holds hold stands history retired vorbei aufgehoben entfällt vale rige sirve действует актуально применяется нужно "
    // Words that point at a rule ("про X", "насчёт X", "über X", "sobre X"): the pointer, not the subject.
    + "про насчёт насчет über sobre regarding").split(" "),
);

/**
 * Development loanwords written in katakana, Hangul or Cyrillic, and the key of their English word (as meaningKeys cuts
 * it), so "テストの件" or "템플릿 테스트 얘기" finds the rule that says "npm run test:templates".
 */
const LOANWORDS: ReadonlyArray<readonly [RegExp, string]> = [
  [/テスト|테스트|(?<![\p{L}])тест/iu, "test"],
  [/テンプレート|템플릿|темплейт/iu, "templ"],
  [/プッシュ|푸시|(?<![\p{L}])пуш/iu, "push"],
  [/コミット|커밋|коммит/iu, "commi"],
  [/デプロイ|디플로이|деплой/iu, "deplo"],
  [/ビルド|빌드|билд/iu, "build"],
  [/リリース|릴리스|릴리즈|релиз/iu, "relea"],
  [/ブランチ|브랜치/iu, "branc"],
  [/マージ|머지|мерж/iu, "merge"],
  [/レビュー|리뷰|ревью/iu, "revie"],
  [/マイグレーション|마이그레이션|миграц/iu, "migra"],
  [/スキーマ|스키마|схем/iu, "schem"],
  [/スクリプト|스크립트|скрипт/iu, "scrip"],
  [/キャッシュ|캐시|кэш/iu, "cache"],
  [/バッチ|배치 작업|батч/iu, "batch"],
  [/ダッシュボード|대시보드|дашборд/iu, "dashb"],
  [/テンプレ|템플/iu, "templ"],
];

/** Lowercased word keys of a text: development loanwords as their English key (LOANWORDS), two-letter acronyms, Latin (Cyrillic) words of 3+ letters without a plural "s" cut to their first 5 (4) letters, Hangul words by their first two syllables, compounds split at "-", "_", "/" and ".", and CJK runs as bigrams. */
export function meaningKeys(text: string): Set<string> {
  const out = new Set<string>();
  const clean = text.replace(/\[REDACTED\]/g, " ");
  // Two-letter acronyms count ("PR", "CI", "DB"; "PRs" too): they often are the whole subject.
  for (const m of clean.matchAll(/(?<![\p{L}\p{N}])([A-Z]{2})s?(?![\p{Ll}\p{N}])/gu)) out.add((m[1] as string).toLowerCase());
  const t = tokenize(clean);
  // Tokens split where the script changes ("pr에는" -> "pr", "에는"); a possessive "'s" goes.
  for (const tok of t.raw.flatMap((r) => r.replace(/'s?$/, "").match(/\p{Script=Hangul}+|[^\p{Script=Hangul}]+/gu) ?? [])) {
    if (/^\p{Script=Hangul}+$/u.test(tok)) {
      // A Hangul word carries its particles ("티켓을", "규칙은"): its first two syllables are the key.
      if ([...tok].length >= 2 && !/^(?:규칙|이제|항상|절대|앞으로|해도|해요|하고|하면|돼요|되고|돼|얘기|이런|그런|저런|이번|그대|나머|정도|있어|없어|아까|방금|그건|말씀)/u.test(tok)) out.add([...tok].slice(0, 2).join(""));
      continue;
    }
    for (const part of tok.toLowerCase().split(/[-_/.]+/)) {
      if (part.length < 3 || CUE_WORDS.has(part)) continue;
      // A plural "s" goes first, so "pages" and "page", "tables" and "table" give one key.
      const stem = part.length > 3 && part.endsWith("s") && !part.endsWith("ss") ? part.slice(0, -1) : part;
      // Russian inflects the stem's end as well ("время" / "времени", "отчёт" / "отчётах"): four letters for Cyrillic.
      out.add([...stem].slice(0, /^\p{Script=Cyrillic}/u.test(stem) ? 4 : 5).join(""));
    }
  }
  // Bigrams of kana only ("いい", "です", "して") are endings and particles, no evidence of a subject.
  for (const g of t.cjk) if ([...g].length === 2 && !/^[\p{Script=Hiragana}ー]+$/u.test(g)) out.add(g);
  for (const [re, key] of LOANWORDS) if (re.test(clean)) out.add(key);
  return out;
}

/** Identifiers a text names: inline code, paths, Latin words inside CJK text, words with digits. Lowercased. */
export function namedThings(text: string): Set<string> {
  const out = new Set<string>();
  for (const m of text.matchAll(/`([^`]+)`|([\w.-]+\/[\w./*-]*)|([A-Za-z][\w.-]*\d[\w.-]*)/g)) out.add((m[1] ?? m[2] ?? m[3] ?? "").toLowerCase().replace(/\/+$/, ""));
  if (/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u.test(text)) {
    for (const m of text.matchAll(/[A-Za-z][\w.-]{2,}/g)) out.add(m[0].toLowerCase());
  }
  out.delete("");
  return out;
}

/** Words naming a procedure (process, steps, order) in the seven languages. */
const PROCEDURE_WORDS = /(?<![\p{L}])(?:procedure|process|steps|checklist|order|ablauf|reihenfolge|vorgehen|proceso|pasos|orden|порядок|процесс|процедур\p{L}*|шаги)(?![\p{L}])|流程|做法|步骤|手順|手続き|절차|순서/iu;

/** A word that points at an earlier rule ("the X rule", "X の件", "那条", "lo de X", "насчёт X"): its clause names the target. */
export const RULE_REFERENCE = /(?<![\p{L}])(?:rules?|thing|requirement|regel|regla|lo de|das mit|die sache mit|правил\p{L}*|насчёт|насчет|про)(?![\p{L}])|件|那条|那套|那个|这条|规则|規則|规定|要求|ルール|규칙|얘기/iu;

/**
 * The clause of a withdrawal that names its target: the clause (split at commas, semicolons, CJK commas and
 * full stops) with a word pointing at a rule ("getServerSideProps の件、App Router に移行するので…" -> the first),
 * else the whole text. The rest often names the replacement or the reason ("now we use Airflow"), which the
 * withdrawn rule does not mention.
 */
export function targetClause(text: string): string {
  const clauses = text.split(/[,;，、；。]\s*|\s+[-\u2013\u2014]\s+/u).filter((c) => c.trim() !== "");
  return clauses.find((c) => RULE_REFERENCE.test(c)) ?? text;
}

/** A rule as the finder sees it. */
export interface Withdrawable {
  id: string;
  text: string;
}

/**
 * The rule a withdrawal most likely takes back, or undefined. Evidence: shared named things (2 points each) and
 * shared meaning keys (1 point each); when the withdrawal names two or more things, a rule must share more than half of
 * them, counted in the clause that points at the rule (targetClause; not for a refinement, which adds details); a withdrawal about a procedure gives a rule with steps 1 point; the
 * best rule needs at least 2 points (a tie goes to the
 * later rule, the one said most recently), or, for an explicit withdrawal whose target clause has at most three meaning keys, 1 point when
 * it is the only rule with any. `rules` in the order they were stated.
 */
export function findWithdrawTarget(rules: readonly Withdrawable[], text: string, opts: { refinement?: boolean; explicit?: boolean } = {}): Withdrawable | undefined {
  const keys = meaningKeys(text);
  const things = namedThings(text);
  const guard = opts.refinement ? things : namedThings(targetClause(text));
  const aboutProcedure = PROCEDURE_WORDS.test(text);
  let best: Withdrawable | undefined;
  let bestScore = 0;
  let single: Withdrawable | undefined;
  let singles = 0;
  for (const r of rules) {
    let s = 0;
    let sharedThings = 0;
    let sharedGuard = 0;
    for (const t of namedThings(r.text)) {
      if (things.has(t)) sharedThings++;
      if (guard.has(t)) sharedGuard++;
    }
    // A withdrawal that names things (paths, code, Latin words in CJK text) in the clause that points at its rule names
    // its rule's: most of them must be there. A refinement adds details, so it may name more than its rule.
    if (!opts.refinement && guard.size > 1 && sharedGuard * 2 <= guard.size) continue;
    s += 2 * sharedThings;
    // "that procedure is obsolete": a rule with steps is what it points at.
    if (aboutProcedure && /\n|\s2[.)]\s/.test(r.text)) s += 1;
    for (const k of meaningKeys(r.text)) if (keys.has(k)) s += 1;
    if (s >= 2 && s >= bestScore) {
      best = r;
      bestScore = s;
    }
    if (s >= 1) {
      single = r;
      singles++;
    }
  }
  // An explicit withdrawal naming one subject ("forget the pagination rule") takes the only rule that shares it.
  if (!best && opts.explicit === true && singles === 1 && meaningKeys(targetClause(text)).size <= 3) return single;
  return best;
}

/** Where a compound rule splits into clauses a withdrawal can take back one at a time: ";", "; and", ", and", " and also", "und", "y", "и", "；", "。", "，并且/而且/另外". */
const CLAUSE_SPLIT = /\s*[;；]\s*(?:(?:and|und|y|и)\s+)?|,?\s+(?:and also|and|und auch|und|y también|y|и)\s+|。\s*|，(?:并且|而且|另外|还有)/iu;
/** A clause that leans on the one before it ("they never go into …", "它们…"): not a rule on its own. */
const LEANS_BACK = /^(?:it|they|them|this|that|those|these|es|sie|das|dies|ello|ellos|ellas|eso|esto|это|они|оно|он|она|它|它们|这|那|それ|これ|그것|그거)(?![\p{L}])/iu;

/**
 * For a withdrawal that takes back one clause of a compound rule ("Never deploy on Fridays and always tag releases" /
 * "the Friday thing is over"): the clauses of the rule it does not touch, joined with "; ", or undefined when it takes
 * back the whole rule. A clause is touched when it shares a meaning key or a named thing with the withdrawal; an
 * untouched clause is kept only when it is at least three words, has a rule cue (durability.ts) and does not lean on the
 * clause before it. Pure.
 */
export function untouchedClauses(ruleText: string, withdrawal: string): string | undefined {
  const clauses = ruleText.split(CLAUSE_SPLIT).map((c) => c.trim()).filter((c) => c !== "");
  if (clauses.length < 2) return undefined;
  const keys = meaningKeys(withdrawal);
  const things = namedThings(withdrawal);
  const touched = clauses.map((c) => [...meaningKeys(c)].some((k) => keys.has(k)) || [...namedThings(c)].some((t) => things.has(t)));
  if (touched.every((t) => t) || touched.every((t) => !t)) return undefined;
  const rest = clauses.filter((_, i) => !touched[i]);
  const words = (c: string): number => (c.match(/[\p{L}\p{N}]+/gu) ?? []).length + (c.match(/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/gu) ?? []).length / 2;
  // Each kept clause must read as a rule of its own: three words or more, a rule cue, not leaning on the clause before.
  const ruleLike = (c: string): boolean => {
    const q = cuesOf(c);
    return q.standing || q.normative || q.fact || q.convention || q.universal || q.limit;
  };
  if (rest.some((c) => words(c) < 3 || LEANS_BACK.test(c) || !ruleLike(c))) return undefined;
  return rest.join("; ");
}

/** Coordination between the subjects of one withdrawal: "the Friday freeze and the changelog rule", "und", "y", "и", 和, と, 과/와. */
const CONJUNCTS = /\s+(?:and|und|y|e|и|as well as|sowie)\s+|\s*(?:和|以及|跟|及)\s*|(?<=\p{Script=Han}|\p{Script=Katakana}|[a-z])と|(?<=\p{Script=Hangul})(?:과|와)\s/iu;

/**
 * The rules one explicit withdrawal takes back when it names two or more subjects joined by "and" ("forget the Friday
 * freeze and the changelog rule"): one target per conjunct of the clause that points at the rules (findWithdrawTarget,
 * explicit), distinct, in the order named; [] when fewer than two conjuncts find a rule (the caller then looks for one).
 */
export function findWithdrawTargets(rules: readonly Withdrawable[], text: string): Withdrawable[] {
  const parts = targetClause(text).split(CONJUNCTS).filter((p) => meaningKeys(p).size > 0);
  if (parts.length < 2) return [];
  const found: Withdrawable[] = [];
  for (const p of parts) {
    const r = findWithdrawTarget(rules, p, { explicit: true });
    if (r && !found.includes(r)) found.push(r);
  }
  return found.length >= 2 ? found : [];
}

/** A permission word in the seven languages: "fine", "ok", "allowed", "can", "darfst", "in Ordnung", "puede(n)", "можно", 可以, いい, 돼요. */
const GRANT_WORD =
  /(?<![\p{L}])(?:fine|ok(?:ay)?|alright|allowed|permitted|acceptable|can|may|in ordnung|erlaubt|okay|darf(?:st)?|dürfen|kannst|können|geht|se puede|puede[ns]?|pueden|puedes|vale|permitid[oa]s?|можно|допустим[оы]?|разрешен[оы]?|нормально)(?![\p{L}])|可以|也行|没问题|いい(?:です|よ)?|かまわない|かまいません|構わない|構いません|大丈夫|돼(?:요)?|됩니다|괜찮/iu;
/** A lift of the whole rule (a change of state, not a case): "now", "any day", "whenever", "anything", "again", "wieder", "de nuevo", "снова", 随时, 又, いつでも, 언제든, 다시. */
const WHOLE_LIFT =
  /(?<![\p{L}])(?:now|jetzt|ahora|теперь|any ?(?:day|time|more)|whenever|anything|anywhere|again|everywhere|jederzeit|wieder|überall|cuando quieras|de nuevo|otra vez|en cualquier|снова|опять|когда угодно|везде)(?![\p{L}])|现在|随时|又可以|再次|重新|今は|いつでも|どこでも|이제|언제든|다시/iu;
/** Every withdrawal cue of a lead-in (durability.ts WITHDRAW_RE, WITHDRAW_CJK), to be taken out before looking for a case. */
const WITHDRAW_ANY = new RegExp(`${WITHDRAW_RE.source}|${WITHDRAW_CJK.source}`, "giu");
/** "Without" in the seven languages: a grant to skip something. */
const WITHOUT = /(?<![\p{L}])(?:without|ohne|sin|без)(?![\p{L}])|不用|无需|なしで|せずに|없이/iu;
const RELEASE_ALL = new RegExp(RELEASE_RE.source, "giu");
/** The user says it is not a withdrawal: "not taking it back, but …", "取り消しではなくて", "不是取消", "취소는 아니고", "nicht zurückgenommen". */
const NOT_A_WITHDRAWAL = /(?<![\p{L}])(?:not (?:a withdrawal|withdrawing|taking (?:it|that) back|scrapping)|nicht zurück(?:genommen|nehmen)|no (?:lo )?(?:retiro|anulo)|не отменяю)(?![\p{L}])|(?:取り消し|撤回)(?:では|じゃ|というわけでは|というわけじゃ)な|不是(?:取消|撤回)|취소는 아니/iu;
/** Where a withdrawal's lead-in ends ("Scratch that — …", "Отбой, …", "算了，…", "取り消しで、…"): a dash, a colon, a comma. */
const LEAD_IN_END = /\s*(?:[-\u2013\u2014]{1,2}|[:：;；,，、])\s*/u;

/**
 * A narrowing worded as a withdrawal ("Scratch that — tabs are fine in the Makefile" after "Always indent with spaces,
 * never tabs"; "算了，热修复周五也可以发"; "핫픽스는 금요일에도 배포해도 돼요"): the statement grants something (GRANT_WORD)
 * for a case its rule does not name (a meaning key or named thing the rule lacks), and does not lift the rule as a
 * whole (WHOLE_LIFT). Returns the text to keep as the rule's exception (a leading withdrawal clause with no case of
 * its own dropped, the rest byte-identical), or undefined when the statement takes the rule back. Pure.
 */
export function narrowingOf(text: string, ruleText: string): string | undefined {
  // A release ("no need to", "なくていい", "안 해도 돼") or a "もういい" is a grant of nothing: the words of withdrawing go first.
  // "You may commit without running tests": a grant to do without the rule's action is a release of it (unless the
  // rule itself says "without": "elfstellig und ohne Leerzeichen").
  if (!GRANT_WORD.test(text.replace(WITHDRAW_ANY, " ").replace(RELEASE_ALL, " ")) || WHOLE_LIFT.test(text) || (WITHOUT.test(text) && !WITHOUT.test(ruleText))) return undefined;
  const own = meaningKeys(ruleText);
  const ownThings = namedThings(ruleText);
  // Bigrams with kana ("日も", "ことに") straddle particles and endings: no case of their own.
  const newCase = (t: string): boolean => [...meaningKeys(t)].some((k) => !own.has(k) && !/\p{Script=Hiragana}/u.test(k)) || [...namedThings(t)].some((k) => !ownThings.has(k));
  const shared = (t: string): boolean => [...meaningKeys(t)].some((k) => own.has(k)) || [...namedThings(t)].some((k) => ownThings.has(k));
  // "Forget the replica rule, staging can run one": a withdrawal that names its rule (RULE_REFERENCE) with no case of
  // its own takes the whole rule back; what follows is what the user now allows.
  const reference = targetClause(text);
  if (RULE_REFERENCE.test(reference) && reference !== text && !newCase(reference) && !NOT_A_WITHDRAWAL.test(text)) return undefined;
  // The granting part must name the rule's subject (a shared key) and a case of its own.
  const m = LEAD_IN_END.exec(text);
  const lead = m && m.index > 0 ? text.slice(0, m.index) : "";
  const rest = m && m.index > 0 ? text.slice(m.index + m[0].length) : text;
  // A lead-in that is only a withdrawal ("Scratch that", "Отбой", "取り消しで") names no case: dropped.
  // "The 3-replica minimum is gone; staging may go to one": a lead-in that withdraws the rule by its own words (a
  // withdrawal cue, a key of the rule, no case of its own) takes it back whole; the grant after it is the new state.
  const withdrawsWhole = (t: string): boolean => new RegExp(WITHDRAW_ANY.source, "iu").test(t) && shared(t) && !newCase(t);
  if (lead !== "" && withdrawsWhole(lead)) return undefined;
  const leadIsBare = lead !== "" && !GRANT_WORD.test(lead) && ![...meaningKeys(lead.replace(WITHDRAW_ANY, " "))].some((k) => !/^[\p{Script=Hiragana}ー]+$/u.test(k)) && namedThings(lead).size === 0;
  const body = leadIsBare && GRANT_WORD.test(rest) ? rest : text;
  if (!newCase(body) || !shared(body)) return undefined;
  return body.trim();
}
