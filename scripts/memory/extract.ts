/**
 * Pure decision step of extraction: redacted user sentences + classifier scores -> statements
 * (durable rules, retractions, scoped exceptions) with a reason for every sentence. No I/O.
 */
import { stripControls } from "./control-chars.js";
import { type Classifier, topType } from "../engine/classify.js";
import type { KnowledgeType, Unit } from "../engine/types.js";
import { inferScope } from "../operators/scope.js";
import type { RuleSource } from "./store/store-schema.js";
import type { Statement } from "./consolidate.js";
import { expiresAt, expiryPhrase } from "./expiry.js";
import { folderScope } from "./folder-scope.js";
import { leansOnPrevious, reportedNotGiven } from "./reported.js";
import { meaningKeys, RULE_REFERENCE } from "./withdraw.js";
import type { UtteranceScorer } from "./utterance-model.js";
import { DURABLE_THRESHOLD, cuesOf, durabilityScore, expiryOf, NARROWING_RE, ruleType, WEIGHTS, WITHDRAW_CJK, WITHDRAW_RE, type Cues } from "./durability.js";

/** An explicit replacement inside a sentence: "use pnpm instead of yarn", "statt", "en lugar de", "вместо", 而不是, の代わりに, 대신. */
const INSTEAD_RE = /(?<![\p{L}])(?:instead of|rather than|statt|anstatt|en (?:lugar|vez) de|вместо)(?![\p{L}])|而不是|の代わりに|대신/iu;

/** A candidate sentence with where it was said. */
export interface Candidate {
  text: string;
  source: RuleSource;
}

/** The verdict on one candidate: kept as a statement, or dropped, with the score and the cues that decided. */
export interface Verdict {
  text: string;
  source: RuleSource;
  score: number;
  keep: boolean;
  kind: Statement["kind"] | "drop";
  type: "constraint" | "procedural";
  globs: string[];
  cues: string[];
  classifierType: KnowledgeType;
  /** For a retraction that names nothing ("That no longer applies."): the sentence before it in the same message, which names its target. */
  context?: string;
}

/**
 * Weight of the sentence model's evidence (score units per unit of log-odds) and the clip of its logit, so the
 * model alone can carry a sentence with no cue past DURABLE_THRESHOLD (logit >= 2.5 / UTTERANCE_WEIGHT) and a
 * cue lexicon's veto (question, acknowledgement, narrative) still outweighs it. Tuned on the dev split of
 * data/sessions (bench/extract.ts).
 */
export const UTTERANCE_WEIGHT = 2.4;
export const UTTERANCE_CLIP = 4;
/**
 * Weight of a negative vote (score units per unit of log-odds): lower than UTTERANCE_WEIGHT, so an explicit
 * "never …" (WEIGHTS.standing = 3) survives a mildly negative vote (logit above -0.8) while a compliment or a
 * remark with "always" (logit near -2, or a selfRemark / praise veto) does not.
 */
export const UTTERANCE_NEGATIVE_WEIGHT = 0.6;
/**
 * Extra weight of a confident negative vote (score units per unit of log-odds below UTTERANCE_CONFIDENT): small
 * talk and remarks with "always"/"never" ("the build was never reliable on Windows", logit near -2.4) carry a
 * standing cue (+3) the mild weight alone cannot outvote. Tuned on the dev split of data/sessions and the old
 * transcripts of data/transcripts (bench/extract.ts), with authored probes of each language.
 */
export const UTTERANCE_CONFIDENT = -1;
export const UTTERANCE_CONFIDENT_WEIGHT = 1.4;

/** Score units the sentence model adds for a clipped logit: steeper above 0 and below UTTERANCE_CONFIDENT. */
export function utteranceEvidence(logit: number): number {
  if (logit > 0) return UTTERANCE_WEIGHT * logit;
  return UTTERANCE_NEGATIVE_WEIGHT * logit + (logit < UTTERANCE_CONFIDENT ? UTTERANCE_CONFIDENT_WEIGHT * (logit - UTTERANCE_CONFIDENT) : 0);
}

/** Exceptions that name an existing rule are kept at a lower score than new rules (they only narrow one). */
export const EXCEPTION_MARGIN = 1.5;

/** A marker with nothing after it ("二人確認の件、訂正。", "Correction:", "Поправка:"): a header for the next sentence, not a rule. */
const HEADER_ONLY = /(?:訂正|更正|修正|정정|correction|korrektur|поправка|corrección|präzisierung|nachtrag)[\s。.!！:：]*$/iu;

/**
 * A sentence that announces a change to a rule and says nothing else ("감사 로그 얘기 좀 바꿀게.", "Let me change the
 * export rule.", "Ich ändere die Regel zu den Exporten.", "Поменяю правило про логи.", "ログの件を変えます。"): a header,
 * not a rule; the next sentence of the same message is the refinement.
 */
const REFINE_HEADER =
  /^(?:(?:let me|i(?:'ll| will| am going to|'m going to)|we(?:'ll| will)) (?:change|update|adjust|amend|revise) (?:the |that |this |one )?[^.,;:]{0,40}?(?:rule|thing|bit|part)?|ich (?:ändere|passe) (?:die |das )?[^.,;:]{0,40}?(?:an)?|(?:voy a )?cambi(?:o|ar) (?:la regla|lo)[^.,;:]{0,40}|(?:поменяю|изменю|уточню) [^.,;:]{0,40})[.!]?$|(?:얘기|건|규칙|부분|거|방식|형식|정책|절차)[은는을를]?\s*(?:좀\s*)?(?:바꿀게(?:요)?|바꿉니다|수정할게(?:요)?|수정합니다|변경할게(?:요)?|변경합니다|변경하겠습니다)[.!]?$|(?:方式|形式|方針|手順)を(?:変更します|変えます)[。.!]?$|^i(?:'m| am) (?:changing|updating) (?:how|the way|the rule)[^.,;:]{0,40}[.!]?$|(?:の件|のルール|の話)[をは]?\s*(?:変えます|変更します|修正します|変えるね)[。.!]?$|^(?:那条|这条|那个规则|规则)?(?:我)?改一下[。.!]?$/iu;

const PERMISSION_RE = /\b(?:you (?:can|may)|(?:it'?s|it is) (?:ok|okay|fine|alright) to|feel free to|you(?:'re| are) (?:now )?allowed to|is (?:now )?(?:allowed|permitted))\b|можно|可以|してもいい|해도 돼/iu;

function toUnit(text: string): Unit {
  return { line: 1, endLine: 1, text, kind: "line", headings: [], level: 0, depth: 0, leadIn: "" };
}

/**
 * A prohibition on changing what lies in a path ("never edit generated code in src/gen/", "ничего не правь в src/gen/"):
 * a verb of changing, then (within 40 characters) a locative preposition right before the path. The path is where the
 * rule applies. inferScope (operators/scope.ts) leaves such a path alone after a verb, since most verbs before a path
 * name a destination ("copy … into docs/").
 */
const GUARDED_PATH =
  /(?<![\p{L}])(?:edit\p{L}*|touch\p{L}*|chang\p{L}*|modif\p{L}*|alter\p{L}*|rewrit\p{L}*|refactor\p{L}*|delet\p{L}*|remov\p{L}*|ändern|änderungen|anfassen|bearbeit\p{L}*|editier\p{L}*|lösch\p{L}*|toques|toqu\p{L}*|cambi\p{L}*|borr\p{L}*|прав\p{L}*|трога\p{L}*|меня\p{L}*|редактир\p{L}*|удаля\p{L}*)(?![\p{L}])[^.;!?]{0,40}?(?<![\p{L}])(?:in|inside|under|within|im|unter|innerhalb|en|dentro de|в|во|внутри)\s+`?((?:\.?[\w-]+\/)+[\w*-]*)`?/iu;

/**
 * A path a rule keeps off limits as its object: "leave web/player alone", "lass web/player in Ruhe", "deja web/player
 * en paz", "web/player is read-only", "web/player bleibt eingefroren", "web/player не трогаем". The path is where the rule applies.
 */
const OFF_LIMITS_PATH =
  /(?<![\p{L}])(?:leave|lass|lasst|lassen sie|deja|dejad|dejen)\s+`?((?:\.?[\w-]+\/)+[\w*-]*)`?\s+(?:alone|untouched|in ruhe|unangetastet|en paz|como está)|`?((?:\.?[\w-]+\/)+[\w*-]*)`?\s+(?:(?:is|stays|remains|bleibt|ist|es|está|queda|sigue|остаётся|остается)\s+(?:read-only|frozen|untouched|off-limits|off limits|schreibgeschützt|tabu|gesperrt|eingefroren|de solo lectura|intocable|congelad\p{L}*|только для чтения|заморожен\p{L}*)|(?:не|никто не)\s+(?:трога|меня|прав|редактир)\p{L}*)/iu;

/** The folder glob of a path a rule guards against changes (GUARDED_PATH, OFF_LIMITS_PATH), or undefined. */
function guardedPath(text: string): string | undefined {
  const o = OFF_LIMITS_PATH.exec(text);
  if (o) {
    const folder = ((o[1] ?? o[2]) as string).replace(/^\.\//, "").replace(/\/+$/, "").replace(/\/\*+$/, "");
    if (folder !== "") return `${folder}/**`;
  }
  const m = GUARDED_PATH.exec(text);
  if (!m) return undefined;
  const folder = (m[1] as string).replace(/^\.\//, "").replace(/\/+$/, "").replace(/\/\*+$/, "");
  return folder === "" ? undefined : `${folder}/**`;
}

/** A verb of writing something down, then a preposition, right before a file path: "documented in", "trag … ein in", "anota en", "записывай в", "写到", "记在". */
const RECORD_BEFORE =
  /(?:(?<![\p{L}])(?:document\p{L}*|note[ds]?|noted|record\p{L}*|log(?:s|ged)?|list(?:s|ed)?|adds?|added|writes?|written|describe[ds]?|described|register\p{L}*|mention\p{L}*|track\p{L}*|entry|entries|row|dokumentier\p{L}*|eingetragen|trag\p{L}*|notier\p{L}*|festgehalten|beschrieben|schreib\p{L}*|documenta\p{L}*|anota\p{L}*|registra\p{L}*|añad\p{L}*|apunta\p{L}*|escrib\p{L}*|describ\p{L}*|документир\p{L}*|запис\p{L}*|добав\p{L}*|опис\p{L}*|занос\p{L}*|фиксир\p{L}*)(?![\p{L}])[^.;!?]{0,40}(?<![\p{L}])(?:in|into|to|im|ins|in die|in den|en|a|al|в|во)\s+`?|(?:写到|写进|写在|记在|记到|记录在|记录到|加到|补到|更新到|补充到)\s*`?)$/iu;
/** A file path followed by "に書く / に記録 / に追記" or "에 기록 / 에 적" (where something is written down). */
const RECORD_AFTER = /^`?\s*(?:に(?:書|記録|記載|追記|追加|残)|에\s*(?:기록|적|추가|문서화))/u;

/**
 * The path globs of a rule minus those that are only what it mentions: a home-folder path ("~/.aws/credentials",
 * outside the project), a path after "file(s) in" ("a migration file in migrations/": where the file goes) and a file
 * written into ("document every endpoint in docs/openapi.yaml", RECORD_BEFORE / RECORD_AFTER).
 */
function objectPathsDropped(text: string, globs: readonly string[]): string[] {
  return globs
    .filter((g) => {
      if (g.startsWith("~")) return false;
      const folder = g.replace(/\/\*\*$/, "").replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      if (new RegExp(`(?:files?|datei(?:en)?|archivos?|ficheros?|файл\\p{L}*)\\s+(?:in|im|en|в)\\s+${folder}`, "iu").test(text)) return false;
      // A file the rule writes into ("document every endpoint in docs/openapi.yaml"): what it mentions, not where it applies.
      if (/\.[\w]+$/.test(g) && !g.includes("*")) {
        const at = text.indexOf(g);
        if (at >= 0 && (RECORD_BEFORE.test(text.slice(Math.max(0, at - 80), at)) || RECORD_AFTER.test(text.slice(at + g.length, at + g.length + 16)))) return false;
      }
      return true;
    })
    .sort();
}

/** A sentence that points back at a rule said before: "I said …, but", "ich hatte gesagt", "dije que", "я говорил", 我说过, って言ったけど, のルールだけど, 라고 했는데. */
const REFERS_BACK =
  /(?<![\p{L}])(?:i said|ich (?:hatte|habe) (?:doch )?gesagt|dije(?: que)?|я говорил\p{L}*|the rule about|die regel (?:mit|zu|über)|la regla de|правило про)(?![\p{L}])|我说过|那条规则|って言ったけど|と言ったけど|のルールだけど|라고 했(?:는데|지만)/iu;

/** True when a sentence names nothing of its own: no meaning key (withdraw.ts) beyond cue and function words. */
function contentless(text: string): boolean {
  // CJK withdrawal words ("那条作废了", "そのルールは廃止") are bigrams to meaningKeys: taken out first, as its cue words are.
  return meaningKeys(text.replace(WITHDRAW_CJK_ALL, " ").replace(POINTER_CJK, " ")).size === 0;
}
const WITHDRAW_CJK_ALL = new RegExp(WITHDRAW_CJK.source, "gu");
/** CJK words that point at an earlier rule without naming it: "that one", "this rule", "the rule". */
const POINTER_CJK = /那条|这条|那个|这个|那些|规则|規則|そのルール|このルール|ルール|それ|その件|그 규칙|규칙|그거/gu;

/** True when a sentence has a cue that can make it durable, a retraction or an exception. */
function hasPositiveCue(c: Cues): boolean {
  return c.standing || c.normative || c.fact || c.convention || c.procedure || c.retraction || c.exception || c.steps || c.refinement;
}

function cueNames(c: Cues): string[] {
  return (Object.keys(c) as Array<keyof Cues>).filter((k) => c[k]);
}

/**
 * Judge candidates in order (one batched classifier call). Retraction cues make a "retraction"
 * verdict whatever the score (the store decides whether it targets a rule); exception cues a
 * "exception" verdict when score >= threshold - EXCEPTION_MARGIN, a bare permission ("you may ...") too;
 * otherwise keep iff score >= threshold. `opt.utterance` is the sentence model (io/model-file.ts loadUtteranceScorer).
 */
export function judge(
  cands: readonly Candidate[],
  classifier: Classifier,
  threshold = DURABLE_THRESHOLD,
  opt: { classifyAll?: boolean; utterance: UtteranceScorer; folders?: readonly string[] },
): Verdict[] {
  if (cands.length === 0) return [];
  const model = opt.utterance;
  const pre = cands.map((c) => {
    const scope = inferScope(c.text);
    const named = scope.kind === "path" ? objectPathsDropped(c.text, scope.globs) : [];
    const guarded = named.length > 0 || scope.kind === "path" ? undefined : guardedPath(c.text);
    const globs = named.length > 0 ? named : guarded !== undefined ? [guarded] : folderScope(c.text, opt.folders ?? []);
    const logit = Math.max(-UTTERANCE_CLIP, Math.min(UTTERANCE_CLIP, model.logit(c.text)));
    const cues = cuesOf(c.text, globs.length > 0);
    // A wish in the first person ("I want every …", 我希望…) is not a remark about oneself when the sentence model reads it as a rule.
    if (cues.selfRemark && cues.volition && logit > 0) cues.selfRemark = false;
    return { globs, cues, logit };
  });
  // The line classifier adds at most WEIGHTS.classifierRule = 1.5: a sentence with neither a positive cue nor
  // the sentence model's vote cannot reach the threshold, so it skips the classifier (exact, and faster).
  const need = pre.map((x, i) => (opt.classifyAll === true || hasPositiveCue(x.cues) || x.logit > 0 ? i : -1)).filter((i) => i >= 0);
  const rows = need.length ? classifier.scores(need.map((i) => toUnit((cands[i] as Candidate).text))) : [];
  const probs: Array<Record<KnowledgeType, number>> = cands.map(() => ({ constraint: 0, procedural: 0, belief: 1, preference: 0, episodic: 0 }));
  need.forEach((i, k) => {
    probs[i] = rows[k] as Record<KnowledgeType, number>;
  });
  const out = cands.map((c, i) => {
    const p = probs[i] as Record<KnowledgeType, number>;
    const { globs, cues, logit } = pre[i] as { globs: string[]; cues: Cues; logit: number };
    // The sentence after a header that announces a change, in the same message, is the refinement it announces.
    const before = i > 0 ? (cands[i - 1] as Candidate) : undefined;
    if (before && before.source.offset === c.source.offset && REFINE_HEADER.test(before.text.trim())) cues.refinement = true;
    // An end date on something the sentence model reads as a rule ("until the migration is done, hold off on …")
    // is evidence it holds for a while (durability.ts adds WEIGHTS.expiry only next to a normative or standing cue).
    const timed = cues.expiry && logit > 0 && !(cues.normative || cues.standing || cues.fact || cues.grant) ? WEIGHTS.expiry : 0;
    const score = Math.round((durabilityScore(cues, p) + timed + utteranceEvidence(logit)) * 1000) / 1000;
    const base = { text: c.text, source: c.source, score, type: ruleType(cues, p), globs, cues: cueNames(cues), classifierType: topType(p) };
    // Vetoes: small talk, a remark about oneself, a wish about the answers, a secret handed over, a request for this
    // time only. Whatever the model says.
    if (cues.praise || cues.selfRemark || cues.chatStyle || (cues.credential && !cues.standing && !cues.normative) || (cues.thisTime && !cues.standing) || cues.reason || HEADER_ONLY.test(c.text) || REFINE_HEADER.test(c.text.trim()) || reportedNotGiven(c.text)) {
      return { ...base, score: Math.min(score, threshold - 1), keep: false, kind: "drop" as const };
    }
    // "今回は changelog なしで", "this time forget the X rule": a one-off exception, not a withdrawal.
    const withdraws = isWithdrawal(c.text) && !cues.oneOff;
    // A narrowing ("X is fine on your own branches, never on main") keeps its parent and is a rule of its own.
    const narrows = !withdraws && (cues.retraction || cues.release || PERMISSION_RE.test(c.text)) && NARROWING_RE.test(c.text);
    // A release or retraction for some cases that says the rest still holds ("…, для остальных по-прежнему обязательно") is one whatever its score.
    if (narrows && !cues.question && (score >= threshold - EXCEPTION_MARGIN || ((cues.release || cues.retraction) && /[,;:，；、]/u.test(c.text)))) return { ...base, keep: true, kind: "rule" as const };
    // An exception that points back at a rule ("I said X, but …", "Tailwind のみって言ったけど…", "タグのルールだけど…") is one
    // whatever its score: the store keeps it only under the rule it narrows (no such rule: dropped).
    if (cues.exception && !cues.question && (cues.retraction || REFERS_BACK.test(c.text) || score >= threshold - EXCEPTION_MARGIN)) return { ...base, keep: true, kind: "exception" as const };
    // An explicit withdrawal with no target is dropped, never stored as a rule (its score is kept below the threshold).
    const prev = i > 0 ? (cands[i - 1] as Candidate) : undefined;
    // "About the Friday freeze. That's over now.": a withdrawal that names nothing takes its subject from the sentence before.
    const context = prev && prev.source.offset === c.source.offset && contentless(c.text) ? { context: prev.text } : {};
    // "Never mind, use pnpm instead of yarn.": a withdrawal that goes on to state the rule that replaces it is a
    // refinement (it supersedes its parent), not a withdrawal that stores nothing.
    if (withdraws && cues.refinement && INSTEAD_RE.test(c.text) && !cues.question && !cues.release && score >= threshold && !contentless(c.text)) return { ...base, keep: true, kind: "rule" as const };
    if (withdraws && !cues.question) return { ...base, ...context, score: Math.min(score, threshold - 0.5), keep: true, kind: "retraction" as const };
    // "改一下导出格式：exports 里改成 SAS XPT v5，不再出 CSV。": a refinement that says what no longer holds states the new rule;
    // it supersedes its parent (the store finds it by meaning) rather than only taking it back.
    if (cues.retraction && cues.refinement && !cues.question && !cues.release && score >= threshold && !contentless(c.text)) return { ...base, keep: true, kind: "rule" as const };
    if (cues.retraction && !cues.question) return { ...base, ...context, keep: true, kind: "retraction" as const };
    // "Skip the post-deploy smoke tests from now on", "以后可以不跑了": takes back the rule that asked for it; the store
    // keeps it as a rule of its own only when it finds no such rule and it scores as one.
    if (cues.release) return { ...base, ...context, keep: true, kind: "retraction" as const };
    // A refinement ("make that 15 minutes", "… und jetzt auch die E2E-Tests") leans on its parent: kept a margin below
    // the threshold, and then stored only when it finds the rule it refines (Statement.needsParent).
    if (cues.refinement && !cues.question && !cues.oneOff && score >= threshold - EXCEPTION_MARGIN) return { ...base, keep: true, kind: "rule" as const };
    // A bare permission ("you may force-push to your own feature branches") is a candidate scoped exception:
    // the store keeps it only when it narrows an earlier rule on the same action/object (else it is dropped
    // unless it scores as a rule of its own).
    // Whatever its score: the store nests it under the rule it relaxes, or (no such rule) keeps it as a rule of its own when it scores as one.
    if (PERMISSION_RE.test(c.text) && !cues.question && !cues.request && !cues.oneOff) return { ...base, keep: true, kind: "exception" as const };
    const keep = score >= threshold;
    return { ...base, keep, kind: keep ? ("rule" as const) : ("drop" as const) };
  });
  // "About the Friday freeze. That's over now.": the sentence a withdrawal takes its subject from names the rule being
  // withdrawn; it is not a rule of its own.
  for (let i = 1; i < out.length; i++) {
    const v = out[i] as Verdict;
    const prev = out[i - 1] as Verdict;
    if (v.kind === "retraction" && v.context !== undefined && prev.kind === "rule") out[i - 1] = { ...prev, keep: false, kind: "drop", score: Math.min(prev.score, threshold - 1) };
  }
  // "The staging key is [REDACTED], use it for the smoke tests. Never print it in logs.": a rule whose object is a bare
  // pronoun is kept with the sentence of the same message that names it, so the rule file reads on its own.
  for (let i = 1; i < out.length; i++) {
    const v = out[i] as Verdict;
    const prev = out[i - 1] as Verdict;
    const c = cands[i] as Candidate;
    if (v.keep && v.kind === "rule" && !prev.keep && (cands[i - 1] as Candidate).source.offset === c.source.offset && !prev.cues.includes("question") && leansOnPrevious(v.text)) {
      const joined = out[i] as (typeof out)[number];
      out[i] = { ...joined, text: `${prev.text.trim()} ${v.text.trim()}` };
    }
  }
  return out;
}

/** Discourse fillers that must be followed by ":", ",", ";" or a spaced dash to be stripped ("Reminder emails ..." keeps its subject). */
const FILLER_SEP =
  /^(?:first(?:ly)?|second(?:ly)?|third(?:ly)?|fourth(?:ly)?|fifth|1st|2nd|3rd|[4-9]th|next|finally|lastly|one more thing|another thing|(?:(?:just )?a |quick )?reminder|note|nb|n\.b\.|fyi|ps|p\.s\.|plus|oh|ok(?:ay)?|so|anyway|anyways|and)(?:\s*[:,;]|\s+[-\u2013\u2014])\s+/iu;
/** Fillers that may also be followed by a bare space ("Oh and never ...", "btw always ..."). */
const FILLER_BARE =
  /^(?:(?:oh,? and(?: also)?|and also|also|btw|by the way)(?:\s*[:,;]|\s+[-\u2013\u2014])?|actually(?:\s*[:,;]|\s+[-\u2013\u2014]|(?=\s+(?:you|we|please|never|always|don'?t|do not|no)\s)))\s+/iu;

/**
 * Strip leading discourse fillers typed by users ("Second:", "Also,", "Oh and", "btw", "reminder:",
 * "Actually,") from a rule's text, repeatedly, but only when what remains is a whole sentence (at least
 * two words, starting with a letter, digit, quote or inline code). Only a prefix is removed: the rest
 * (commands, paths, numbers, negations, case) stays byte-identical. Pure.
 */
export function stripFiller(text: string): string {
  let out = text;
  for (let i = 0; i < 4; i++) {
    const m = FILLER_BARE.exec(out) ?? FILLER_SEP.exec(out);
    if (!m) break;
    const rest = out.slice(m[0].length);
    if (!/^[\p{L}\p{N}`"'(]/u.test(rest) || (rest.match(/[\p{L}\p{N}`]+/gu) ?? []).length < 2) break;
    out = rest;
  }
  return out;
}

const REDACTED_MARK = "[REDACTED]";

/** True when a clause only carries a secret ("my AWS secret is [REDACTED]"): redacted, no rule cue, at most 8 other words. */
function secretOnlyClause(clause: string): boolean {
  if (!clause.includes(REDACTED_MARK)) return false;
  const c = cuesOf(clause);
  if (c.standing || c.normative || c.fact || c.convention || c.procedure) return false;
  return (clause.replaceAll(REDACTED_MARK, " ").match(/[\p{L}\p{N}]+/gu) ?? []).length <= 8;
}

/**
 * Drop the clauses of a redacted sentence that only carry a secret ("Don't ever use the password
 * [REDACTED] anywhere; my AWS secret is [REDACTED]" -> the first clause), when what remains is a whole
 * rule on its own: a rule cue, at least three words, and no "it"/"them" that could point at the dropped
 * secret. Clauses are split at ";" and spaced dashes. Otherwise the sentence is returned unchanged. Pure.
 */
export function dropSecretClauses(text: string): string {
  if (!text.includes(REDACTED_MARK)) return text;
  const clauses = text.split(/\s*;\s*|\s+[\u2013\u2014-]{1,2}\s+/u).filter((c) => c.trim() !== "");
  if (clauses.length < 2) return text;
  const kept = clauses.filter((c) => !secretOnlyClause(c));
  if (kept.length === clauses.length || kept.length === 0) return text;
  const rest = kept.join("; ").trim();
  const c = cuesOf(rest);
  if (!(c.standing || c.normative || c.fact || c.convention || c.procedure)) return text;
  if ((rest.match(/[\p{L}\p{N}]+/gu) ?? []).length < 3 || /\b(?:it|them)\b/i.test(rest.replace(/`[^`]*`/g, " "))) return text;
  return rest;
}

/** True when a sentence explicitly takes a rule back ("forget the rule about …", "scrap …", "vergiss …", 作废). */
export function isWithdrawal(text: string): boolean {
  const bare = text.replace(/[\u2018\u2019]/g, "'").replace(/`[^`]*`/g, " CODE ");
  return WITHDRAW_RE.test(bare) || WITHDRAW_CJK.test(bare);
}

/** Turn a kept verdict into a statement for the store (filler stripped; permission text and expiry for retractions). */
export function toStatement(v: Verdict, origin: Statement["origin"] = "transcript"): Statement {
  // Control characters and terminal escapes of the pasted text never reach the store, the rule files or the hook's stdout.
  const st: Statement = { text: stripControls(stripFiller(v.text)).trim(), type: v.type, globs: v.globs, score: v.score, source: v.source, origin, kind: v.kind === "drop" ? "rule" : v.kind };
  const withdraws = isWithdrawal(v.text);
  // A release that points at its rule ("the dry-run thing, no need anymore", "드라이런 얘기는 이제 안 해도 돼요") names one rule, as a withdrawal does.
  if (v.kind === "retraction" && (withdraws || (v.cues.includes("release") && RULE_REFERENCE.test(v.text)))) st.withdraw = true;
  if (v.kind === "retraction" && v.context !== undefined) st.context = v.context;
  if (v.kind === "exception" && REFERS_BACK.test(v.text)) st.pointsBack = true;
  if (v.kind === "rule" && v.cues.includes("refinement")) {
    st.refine = true;
    if (v.score < DURABLE_THRESHOLD) st.needsParent = true;
  }
  if ((v.kind === "rule" || v.kind === "exception") && v.cues.includes("expiry")) {
    const until = expiryPhrase(v.text);
    if (until) {
      st.until = until;
      const end = expiresAt(until, v.source.at);
      if (end) st.expires = end;
    }
  }
  // "forget the X rule; you may ..." withdraws X: only the retirement is recorded (sidecar), no permission.
  if (v.kind === "retraction" && PERMISSION_RE.test(v.text) && !withdraws && !v.cues.includes("release")) {
    st.keepAsPermission = true;
    const until = expiryOf(v.text);
    if (until) st.until = until;
  }
  return st;
}
