/**
 * Rules a user quotes or reports rather than gives, and sentences that lean on the one before them. Pure.
 * - reported: someone else's rule (a colleague, an old README) that the user dismisses in the same sentence ("My
 *   colleague says you must always use tabs, but I disagree"; "The old README said 'Always run make clean' but
 *   that's outdated"): not a rule.
 * - a task on quoted text ('Translate to French: "Never leave the door open."'): the quote is the task's material.
 * - dangling: a short sentence whose object is a bare pronoun ("Never print it in logs.") names its subject only in
 *   the sentence before it; alone it is not a readable rule.
 */

/** Someone else's words: a third party or an old document, then a verb of saying or writing, in the seven languages. */
const REPORTED_RE =
  /(?<![\p{L}])(?:(?:my|our|a|the|some)\s+)?(?:colleagues?|co-?workers?|boss|manager|lead|team ?lead|teammates?|somebody|someone|people|they|he|she|(?:old|previous|former)\s+(?:readme|docs?|wiki|guide|contributing(?:\.md)?)|readme|wiki|style ?guide)(?![\p{L}])[^.!?]{0,30}?(?<![\p{L}])(?:says?|said|claims?|claimed|told (?:me|us)|wrote|writes|suggests?|suggested|thinks?)(?![\p{L}])|(?<![\p{L}])(?:(?:mein|meine|unser|unsere|der|die|das)\s+)?(?:kollege|kollegin|chef|chefin|teamleiter\p{L}*|jemand|man|alte\s+readme|alten\s+readme|readme|wiki|doku)(?![\p{L}])[^.!?]{0,30}?(?<![\p{L}])(?:meint|sagt|sagte|schreibt|schrieb|behauptet|stand)(?![\p{L}])|(?<![\p{L}])(?:(?:mi|mis|nuestro|nuestra|el|la)\s+)?(?:compañer[oa]s?|jef[ea]|alguien|readme|wiki|guía)(?![\p{L}])[^.!?]{0,30}?(?<![\p{L}])(?:dice|dijo|opina|escribió|pone|decía)(?![\p{L}])|(?<![\p{L}])(?:коллег\p{L}*|начальни\p{L}*|тимлид\p{L}*|кто-то|в старом readme|в readme|в вики)(?![\p{L}])[^.!?]{0,30}?(?<![\p{L}])(?:говорит|сказал\p{L}*|считает|пишет|писал\p{L}*|написано)(?![\p{L}])|(?:同事|老板|领导|组长|有人|旧的?\s*README|以前的文档|文档里|README\s*里)[^。！？]{0,12}?(?:说|说过|写着|写的是|认为)|(?:同僚|上司|先輩|誰か|古い\s*README|昔の(?:ドキュメント|README|資料))[^。！？]{0,24}?(?:って言って|と言って|と書いて|って書いて|と言う|って言う)|(?:동료|팀장|선배|누가|예전 README|옛날 문서|README에)[^.!?]{0,24}?(?:라고 (?:하|했|말|적)|래요|라던데|라고요)/iu;

/** The user dismisses what was reported: disagrees, calls it outdated or wrong. */
const DISMISS_RE =
  /(?<![\p{L}])(?:i (?:disagree|don't agree|do not agree)|(?:that's|that is|it's|it is|which is)\s+(?:outdated|obsolete|wrong|not true|no longer true|out of date)|outdated|ignore (?:that|it)|das sehe ich anders|stimmt nicht|veraltet|überholt|nicht mehr aktuell|no estoy de acuerdo|desactualizad[oa]|obsolet[oa]|ya no (?:es|vale)|не согласен|не согласна|устарел\p{L}*|неправда|уже не актуально)(?![\p{L}])|不同意|过时|已经不适用|不对|反対|古い情報|もう古い|違います|동의하지 않|옛날 얘기|틀렸|안 맞아/iu;

/** A task on text: translate, rephrase, proofread, summarise, in the seven languages. */
const TEXT_TASK_RE =
  /(?<![\p{L}])(?:translate|rephrase|reword|paraphrase|proofread|spell-?check|summari[sz]e|übersetz\p{L}*|umformulier\p{L}*|korrigier\p{L}*|fass\p{L}* zusammen|traduc\p{L}*|reformul\p{L}*|corrig\p{L}*|resum\p{L}*|перевед\p{L}*|переведи|перефразир\p{L}*|исправь|сократи)(?![\p{L}])|翻译|译成|改写|润色|翻訳|訳して|言い換え|校正|번역|다듬어|교정/iu;

/** A quoted span: "…", “…”, „…“, «…», 「…」, 『…』; a quote left open at the end counts (the sentence splitter may cut at the quote's own full stop). */
const QUOTE_RE = /"[^"]{3,}(?:"|$)|“[^”]{3,}(?:”|$)|„[^“”]{3,}(?:[“”]|$)|«[^»]{3,}(?:»|$)|「[^」]{2,}(?:」|$)|『[^』]{2,}(?:』|$)/gu;

/** True when a sentence reports someone else's rule and dismisses it, or asks for a task on quoted text. */
export function reportedNotGiven(text: string): boolean {
  if (REPORTED_RE.test(text) && DISMISS_RE.test(text)) return true;
  const quotes = text.match(QUOTE_RE);
  if (!quotes) return false;
  // The task verb is outside the quotes: the quote is the material ("Translate to French: \"Never …\"").
  const outside = text.replace(QUOTE_RE, " ");
  return TEXT_TASK_RE.test(outside);
}

/** A bare pronoun as a short sentence's object ("Never print it in logs.", "Gib es nie weiter.", "Nunca lo subas.", "Никогда не выводи его в логи.", "别把它打到日志里。"). */
const DANGLING_RE =
  /^(?:(?:and|but|also|please|und|aber|bitte|y|pero|por favor|и|но|пожалуйста)[\s,]+)?(?:(?:never|always|don't|do not|please)\s+)?[\p{L}-]+\s+(?:it|them)(?![\p{L}])|^(?:(?:bitte\s+)?(?:nie|niemals|immer)\s+)?[\p{L}]+\s+(?:es|ihn)\s+(?:nie|niemals|nicht|immer)(?![\p{L}])|^(?:nunca|no|siempre)\s+(?:lo|la|los|las)\s+\p{L}+|^(?:никогда\s+)?(?:не\s+)?\p{L}+\s+(?:его|её|ее|их)(?![\p{L}])|^(?:别|不要|永远不要|千万别)?把?它|^(?:それ|これ)(?:は|を)|^(?:그건|그거|이건|그걸)\s/iu;

/** True when a sentence of at most 10 words leans on the one before it through a bare pronoun (DANGLING_RE). */
export function leansOnPrevious(text: string): boolean {
  const t = text.trim();
  const words = (t.match(/[\p{L}\p{N}]+/gu) ?? []).length + (t.match(/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/gu) ?? []).length / 3;
  return words <= 10 && DANGLING_RE.test(t);
}
