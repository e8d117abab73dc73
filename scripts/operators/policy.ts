/**
 * The one answer to "is this unit a rule", and the value of a droppable unit. classify, compact,
 * decompose and retrieve all take their units from decideUnits, so they give the same type for the
 * same unit of the same file, and every operator asks isRule; compaction also keeps near-rules word for
 * word (isPinned, PIN_MASS) without changing their type. The argmax itself is engine/classify.ts
 * topType (also used by evaluation and by extraction's classifierType); extraction keeps a transcript
 * sentence by its durability score (memory/durability.ts), since a sentence is not a unit of a file.
 */
import { type Classifier, classifyUnits } from "../engine/classify.js";
import { isStructure } from "../engine/units.js";
import type { ClassifiedUnit, KnowledgeType, Unit, UnitKind } from "../engine/types.js";
import { termHashes } from "./bm25.js";
import { hasForm, lineForms } from "../engine/cues.js";
import { bodyText } from "../engine/features.js";

/** The types that are rules: pinned word for word by compaction, copied by decompose, ranked first by retrieve. */
export const RULE_TYPES: ReadonlySet<ClassifiedUnit["type"]> = new Set(["constraint", "procedural"]);

/** Options of the decision. */
export interface PolicyOptions {
  /**
   * Also decide a unit to be a rule when P(constraint) + P(procedural) >= pinMass (a probability in
   * [0, 1.01]); absent: the classifier's own argmax (its decision offsets included) decides alone.
   */
  pinMass?: number;
}

/** P(constraint) + P(procedural) of a score row (the rule probability mass), in [0, 1]. */
export function ruleMass(scores: Readonly<Record<KnowledgeType, number>>): number {
  return (scores.constraint ?? 0) + (scores.procedural ?? 0);
}

/**
 * Classify units as every command shows them: each content unit is classified in the context that
 * compaction keeps byte for byte (its text, kind, depth, heading path and lead-in; not its neighbours
 * or section mates, which compaction may drop). A unit's type therefore cannot change between
 * compaction rounds while it is kept, and a rule pinned once stays pinned. With `pinMass`, a non-heading
 * unit whose rule mass reaches it takes the larger of constraint/procedural as its type.
 * Pure; one classifier call per content unit. Output: one ClassifiedUnit per input unit, same order.
 */
export function decideUnits(units: readonly Unit[], classifier: Classifier, opts: PolicyOptions = {}): ClassifiedUnit[] {
  return units.map((u) => {
    const c = classifyUnits([u], classifier)[0] as ClassifiedUnit;
    if (isStructure(u) || opts.pinMass === undefined || u.kind === "heading" || RULE_TYPES.has(c.type) || ruleMass(c.scores) < opts.pinMass) return c;
    const type: KnowledgeType = c.scores.constraint >= c.scores.procedural ? "constraint" : "procedural";
    return { ...c, type, confidence: c.scores[type] };
  });
}

/**
 * True when a unit is a rule: its decided type is constraint or procedural and it is a content unit
 * that can stand alone. Headings are never rules on their own (a heading stays with its section's
 * content and goes when the section is emptied); frontmatter and structure are not rules.
 */
export function isRule(u: ClassifiedUnit): boolean {
  return RULE_TYPES.has(u.type) && u.kind !== "heading" && u.kind !== "frontmatter";
}

/**
 * Compaction's default keep threshold on rule mass (P(constraint) + P(procedural)), a probability. A unit
 * the argmax calls a belief, preference or episode but that still carries this much rule probability is
 * kept verbatim by compaction (isPinned): losing a rule is the failure compaction exists to prevent, so
 * compaction spends part of its budget on the units most likely to be rules the argmax missed. Chosen on
 * the real dev set by `npx tsx bench/real-compact.ts --sweep`: grouped 5-fold over its files, each fold's
 * threshold chosen on the other four (the lowest cut whose median smallest accepted ratio stays <= 0.60,
 * issue 12's floor); with the current model the folds chose 0.45, 0.30, 0.30, 0.30 and 0.30, and this is
 * their median (references/operators.md, "Real files"). Re-run the sweep when the model is retrained: the
 * cut is on its probabilities.
 */
export const PIN_MASS = 0.3;

/**
 * True when compaction must keep a unit byte for byte: a rule (isRule), or a content unit (not a heading,
 * the frontmatter, a table header or structure) whose rule mass reaches `pinMass` (a probability; above 1
 * the argmax alone decides) or, at pinMass <= 1, that is an output-language directive (isLanguageDirective). The unit's
 * type is not changed: classify, decompose and retrieve still report its argmax type, and compaction
 * reports it as that type, pinned.
 */
export function isPinned(u: ClassifiedUnit, pinMass = PIN_MASS): boolean {
  if (isRule(u)) return true;
  if (u.type === "structure" || u.kind === "heading" || u.kind === "frontmatter" || u.kind === "table-header") return false;
  return ruleMass(u.scores) >= pinMass || (pinMass <= 1 && isLanguageDirective(u));
}

/**
 * True when a content unit's own form (its text and kind) is an output-language directive ("reply in
 * Chinese", "commit messages in English", 中文で回答, на русском: cues.ts form "lang"). labelling-rules.md §5 makes these
 * constraints with or without a modal, and they often sit in style sections whose scores say preference;
 * one short line each, so compaction keeps them word for word at little cost.
 */
export function isLanguageDirective(u: { text: string; kind: UnitKind }): boolean {
  return u.kind !== "code" && (hasForm(lineForms(bodyText(u), u.text, u.kind), "lang") || isLanguageSetting(bodyText(u)));
}

/** Language names in the seven languages (and a few more), lower-cased; Russian adjective stems take any ending. */
const LANGUAGE_NAME =
  "english|englisch|inglés|ingles|англ\\p{L}*|german|deutsch|alemán|немецк\\p{L}*|spanish|español|spanisch|испанск\\p{L}*|french|français|französisch|francés|французск\\p{L}*|portuguese|português|portugués|portugiesisch|italian|italiano|italienisch|russian|russisch|ruso|русск\\p{L}*|chinese|chinesisch|chino|китайск\\p{L}*|中文|汉语|漢語|英文|英语|英語|日本語|日语|japanese|japanisch|japonés|японск\\p{L}*|korean|koreanisch|coreano|корейск\\p{L}*|한국어|영어|일본어|중국어";
/** "Output language: English", "Sprache der Antworten: Deutsch", "回答语言：中文", "Язык ответов: русский", "All responses in Portuguese". */
const LANGUAGE_SETTING_RE = new RegExp(
  String.raw`(?:output|response|reply|replies|answer|antwort|respuesta|réponse|ответ|回答|回复|応答|返信|출력|응답|답변|出力|输出)[^
]{0,30}(?:language|sprache|idioma|langue|язык|语言|言語|언어)[^
]{0,12}[:：]\s*\**\s*(?:${LANGUAGE_NAME})|(?:language|sprache|idioma|langue|язык|语言|言語|언어)[^
]{0,30}(?:output|response|repl|answer|antwort|respuesta|réponse|ответ|回答|回复|応答|返信|출력|응답|답변|出力|输出)\p{L}*[^
]{0,6}[:：]\s*\**\s*(?:${LANGUAGE_NAME})|(?:^|\s)(?:all\s+)?(?:responses|answers|replies|output|antworten|respuestas|ответы)\s+(?:in|auf|en|на)\s+(?:${LANGUAGE_NAME})`,
  "u",
);

/** True when a line sets the language of the agent's answers or output as a labelled setting (see LANGUAGE_SETTING_RE). */
function isLanguageSetting(body: string): boolean {
  return LANGUAGE_SETTING_RE.test(body.toLowerCase());
}

/**
 * Value of each unit for the "what goes first" order: the sum of smooth idf (ln((1+N)/(1+df))+1,
 * scikit-learn's form, over the file's units) of its distinct terms (how much specific information it
 * carries) x (confidence + 3 x (P(constraint) + P(procedural))), so near-rules go last. Structure
 * units get 0. Output: one number per unit, >= 0.
 */
export function unitValues(units: readonly ClassifiedUnit[]): number[] {
  return valuesFromTerms(units, units.map((u) => (u.type === "structure" ? null : new Set(termHashes(u.text)))));
}

/** unitValues over precomputed distinct-term sets (null = not scored, value 0; df counts only scored units). */
export function valuesFromTerms<T>(units: readonly ClassifiedUnit[], sets: readonly (ReadonlySet<T> | null)[]): number[] {
  const df = new Map<T, number>();
  let n = 0;
  for (const s of sets) {
    if (!s) continue;
    n++;
    for (const t of s) df.set(t, (df.get(t) ?? 0) + 1);
  }
  return units.map((u, i) => {
    const s = sets[i];
    if (!s) return 0;
    let mass = 0;
    for (const t of s) mass += Math.log((1 + n) / (1 + (df.get(t) ?? 0))) + 1;
    return mass * (u.confidence + RULE_WEIGHT * ruleMass(u.scores));
  });
}

/** Weight of rule probability mass in a unit's value: near-rules that are not rules are dropped last. */
const RULE_WEIGHT = 3;
