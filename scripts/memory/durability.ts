/**
 * Durability: is a user sentence a standing rule (keep) or a one-off request, question, remark or
 * narrative (drop)? Pure and deterministic. Score = sum of cue-lexicon weights (multilingual) +
 * classifier evidence (P(constraint)+P(procedural) and P(episodic)); keep when score >= DURABLE_THRESHOLD.
 * Weights and threshold were tuned on the labelled transcripts in data/transcripts/ (bench/extract.ts);
 * see references/memory.md "Extraction".
 */
import type { KnowledgeType } from "../engine/types.js";
import { SEQUENCE_RE } from "./folder-scope.js";

/** Keep a sentence when its durability score reaches this value. Tuned on data/transcripts (see bench). */
export const DURABLE_THRESHOLD = 2.5;

/** Weights of each cue family (score units; positive = durable). */
export const WEIGHTS = {
  standing: 3, // "from now on", "always", "never", 以后, впредь ...
  normative: 2, // "must", "do not", "avoid", "not allowed", 不要, нельзя ...
  fact: 2.5, // rule stated as a fact: "is read-only", "lives in X, not Y", "is allergic to"
  convention: 1.5, // "we always", "in this repo", "our convention is"
  procedure: 1.5, // a command in inline code with a standing purpose ("run tests with `…`")
  scope: 0.5, // names a path scope ("in packages/api")
  universal: 1, // a universally quantified subject: "every query …", "all user-facing strings …", "no PR …"
  classifierRule: 1.5, // x (P(constraint) + P(procedural))
  classifierEpisodic: -1, // x P(episodic)
  oneOff: -3, // "this one", "this time", "for now", "right now", "yet", 这次, 今回 ...
  deictic: -1.5, // "this file", "that test", "the bug" (the task at hand)
  question: -4, // a genuine question ("should we …?", "what …?")
  request: -1, // a polite one-off request ("can you …?")
  ack: -4, // "ok", "thanks", "looks good"
  narrative: -3, // "yesterday we fixed …", "I just ran …"
  task: -2, // a bare task imperative ("fix the login test") with no standing cue
  soft: -1.5, // "I prefer", "ideally", "if possible", "try to"
  steps: 2, // a header with numbered or bulleted steps ("the order is: 1. … 2. …"), kept whole (sentences.ts)
  expiry: 1, // a rule with an end: "until the release", "temporarily", "for today only", 暂时, 当面
  refinement: 2.5, // "make that …", "correction: …", "Korrektur:", "поправка:", 更正, 訂正
  selfRemark: -3, // the user speaking of themself: "I can never remember …", "Ich vergesse immer …", 我老是记不住
  chatStyle: -3, // a wish about the answers, not the project: "answer briefly", "keep it short", 简短一点
  praise: -3, // a compliment or thanks to the assistant: "you always nail these, thanks", "du bist immer super"
  credential: -3, // hands over a secret ("the password is [REDACTED]", "密码是[REDACTED]"): a fact for now, not a rule
  grant: 2, // a permission that stands on its own: "you can … without asking", "… yourself", "ohne Rückfrage", 不用问我
  conditional: 1.5, // a standing trigger: "before you push, …", "bevor du pushst, …", "перед пушем …", "提交前…"
  pastHabit: -3, // "always"/"never" about the past or an observation: "was never reliable", "war schon immer so", "никогда не был", 一直都, 昔から
  outputLanguage: 2.5, // the language of answers or artefacts: "answer in German", "回答请用中文", "返信は日本語で" (../shared/research/labelling-rules.md item 5: a constraint)
  limit: 1, // a bound stated as a rule: "at most hourly", "höchstens", "не чаще", "最多", "まで", "최대"
} as const;

/**
 * "Always"/"never" told of the past or as an observation, not asked of the agent: "was never reliable", "have always
 * had", "never seen", "that always happens", "war schon immer", "nunca había", "siempre ha sido", "никогда не был",
 * 一直都, 从来没, 昔から, 한 번도 안 (issue 13, class 7).
 */
export const PAST_HABIT_RE =
  /^(?:ты|вы)(?:,[^,]{1,20},)?\s+(?:\p{L}+\s+)?(?:никогда|всегда)\s+(?:не\s+)?\p{L}+(?:ешь|ёшь|ишь|ете|ёте|ите)(?![\p{L}])|(?<![\p{L}])(?<!(?:that|which|who|die|der|das|que|который|которые|которая)\s)(?:(?:was|were|has been|have been|had been|had|seemed|used to|did)\s+(?:always|never)|(?:always|never)\s+(?:was|were|been|seen|had|seemed|happens|happened|worked|did|used to|gets? me)|(?:war|waren|hat|haben|ist)\s+(?:schon\s+)?(?:immer|nie)|(?:siempre|nunca)\s+(?:ha|han|había|habían|fue|fueron|era|eran)|(?:ha|han)\s+sido\s+siempre|(?:никогда|всегда)\s+(?:не\s+)?(?:был|была|было|были)|(?:не\s+)?(?:был|была|было|были)\s+(?:никогда|всегда))(?![\p{L}])|一直都|一直是|从来没|從來沒|以前从来|昔から|ずっとこんな|한 번도 안|항상 이랬|^(?:(?:wow|oh|honestly|haha|lol),?\s+)?(?:that|it|they|he|she|das|es|eso|esto|это|так)(?:\s+(?:here|hier|aquí|тут|здесь))?\s+(?:\p{L}+\s+)?(?:always|never|immer|nie|siempre|nunca|всегда|никогда|вечно)(?![\p{L}])|^(?:这种事|大家|每个人|他们)(?:总是|老是|一直|都会)|^みんな(?:いつも|毎回)|^(?:다들|모두|팀원들은) (?:항상|늘)/iu;

/** Names of the languages a user asks answers in, in the seven languages (English, German, Spanish, Russian, Chinese, Japanese, Korean). */
const LANGUAGE_NAME = "(?:english|german|spanish|russian|chinese|japanese|korean|englisch|deutsch|spanisch|russisch|chinesisch|japanisch|koreanisch|ingl[eé]s|alem[aá]n|español|ruso|chino|japon[eé]s|coreano|английск\\p{L}*|немецк\\p{L}*|испанск\\p{L}*|русск\\p{L}*|китайск\\p{L}*|японск\\p{L}*|корейск\\p{L}*)";
/**
 * A directive about the language of the answers (issue 13; ../shared/research/labelling-rules.md item 5: output-language
 * directives are constraints): "answer in German", "antworte auf Deutsch", "respóndeme en español", "отвечай по-русски",
 * "回答请用中文", "返信は日本語で", "답변은 한국어로".
 */
export const OUTPUT_LANGUAGE_RE = new RegExp(
  `(?<![\\p{L}])(?:(?:answer|reply|respond|talk|speak|write back|explain)\\p{L}*(?: \\p{L}+){0,2} in ${LANGUAGE_NAME}|(?:antwort|sprich|schreib)\\p{L}*(?: \\p{L}+){0,2} (?:auf|in) ${LANGUAGE_NAME}|(?:resp[oó]nd|contest|habl|escr[ií]b)\\p{L}*(?: \\p{L}+){0,2} en ${LANGUAGE_NAME}|(?:отвеча|отвеч|говори|пиши)\\p{L}*(?: \\p{L}+){0,2} (?:по-\\p{L}+|на ${LANGUAGE_NAME}))(?![\\p{L}])|(?:回答|回复|答复|回覆)[^。，,]{0,6}(?:用|使用)?[中英日韩俄德西]文|用[中英日韩俄德西]文(?:回答|回复|答复)|(?:返信|回答|返事|説明)[はも]?[^。、]{0,4}(?:日本語|英語|中国語|韓国語)で|(?:日本語|英語|中国語|韓国語)で(?:返信|回答|答え|説明)|(?:답변|대답|답장|설명)[은는도]?\\s*(?:한국어|영어|중국어|일본어)로|(?:한국어|영어|중국어|일본어)로\\s*(?:답변|대답|답해|말해)`,
  "iu",
);

/** A bound: "at most", "no more than", "höchstens", "como máximo", "не чаще", "最多", "以内", "최대" (issue 13, class 1). */
export const LIMIT_RE =
  /(?<![\p{L}])(?:at most|no more than|not more than|at the most|höchstens|maximal|nicht mehr als|como m[aá]ximo|como mucho|no m[aá]s de|не (?:более|больше|чаще|дольше)|максимум)(?![\p{L}])|最多|至多|不超过|以内|最大|이하로|최대/iu;

const W = "(?<![\\p{L}\\p{N}_])";
const E = "(?![\\p{L}\\p{N}_])";
const words = (alts: string[]): RegExp => new RegExp(`${W}(?:${alts.join("|")})${E}`, "iu");
const anywhere = (alts: string[]): RegExp => new RegExp(`(?:${alts.join("|")})`, "iu");

/** Standing cues: the rule holds for future actions. English plus zh/ja/ko/ru/es/de/fr/pt/it. */
export const STANDING_RE = words([
  "from now on", "going forward", "(?:starting|beginning|effective|as of|from) (?:today|now|tomorrow)", "ab heute", "a partir de hoy", "desde hoy", "с сегодняшнего дня", "from here on(?:\\s?out)?", "in (?:the )?future", "always", "never", "don'?t ever", "do not ever",
  "never ever", "every time", "each time", "whenever", "at all times", "by default", "as a rule", "remember(?: that| to|:)?",
  "keep in mind", "for (?:all )?future", "no matter what", "under no circumstances", "for the rest of (?:this|the) (?:session|project)",
  "(?:don'?t|do not) forget", "rule of thumb", "standing rule", "permanently", "(?:before|after) (?:every|each|any)", "no longer (?:allowed|permitted)", "(?:don'?t|do not|never) [^.,;]*? any ?more",
  "de ahora en adelante", "a partir de ahora", "siempre", "nunca", "jamás", "cada vez", "recuerda",
  "ab jetzt", "von nun an", "ab sofort", "künftig", "zukünftig", "immer", "niemals", "nie", "jedes mal", "merk dir",
  "désormais", "dorénavant", "à partir de maintenant", "à l'avenir", "toujours", "jamais", "chaque fois",
  "de agora em diante", "a partir de agora", "sempre", "d'ora in poi", "da ora in poi",
  "впредь", "отныне", "с этого момента", "всегда", "никогда", "каждый раз", "запомни", "перед (?:каждым|каждой|любым)", "antes de cada", "después de cada", "vor jedem", "vor jeder", "nach jedem", "nach jeder", "после (?:каждого|каждой|любого)",
]);
const STANDING_CJK = anywhere([
  "从今天(?:起|开始)", "今日から", "오늘부터", "以后", "今后", "從現在開始", "从现在开始", "从现在起", "始终", "總是", "总是", "永远", "永遠", "每次", "一律", "切记", "记住", "記住",
  "今後", "これから", "常に", "いつも", "必ず", "絶対に", "毎回", "覚えておいて",
  "앞으로", "항상", "절대", "언제나", "매번", "기억해",
]);

/** Normative modality: obligation or prohibition. */
export const NORMATIVE_RE = words([
  "must(?:n'?t| not)?", "shall(?: not)?", "do not", "don'?t", "avoid", "only ever", "(?:is|are) required", "required to",
  "(?:is|are) not allowed", "not permitted", "forbidden", "prohibited", "should (?:always|never|not)", "make sure (?:to|that|you) always",
  "no (?:more|one)", "need to always", "needs (?:a|an|to)", "has to", "only (?:in|on|via|through|from|inside|within|after|when)", "no debes", "no hagas", "debe(?:s|n)?", "prohibido", "muss", "müssen", "darf (?:nicht|kein)",
  "verboten", "keine?", "ne (?:jamais|pas)", "il faut", "interdit", "нельзя", "не надо", "не нужно", "не (?:делай|используй|трогай|коммить|пушь)",
  "должен", "должны", "обязательно", "запрещено",
  // "none whatsoever" and "only via" in Russian, Spanish and German (issue 13, class 3)
  "hold off(?: on)?", "refrain from",
  // Nobody / none of it (a prohibition on everyone or everything just named): "None of that goes into docs", "Sowas landet weder …".
  "nobody", "none of (?:that|this|these|those|it|them)", "niemand", "weder", "nadie", "ninguno de (?:esos|estos|ellos)", "никто", "ничего из (?:этого|того)",
  // German separable verbs negated ("fass … nicht an", "rühr … nicht an") and Russian negated imperatives of any verb.
  "nicht (?:mehr )?(?:an|um|ab)(?=\\s*[.!,;]|$)", "не (?!знаю|помню|уверен)\\p{L}{2,}(?:ай|яй|ей|уй|ь|йте|ьте)", "stay (?:away|off) from", "leave [^.,;]{1,30} alone", "(?:is|are) off the table",
  "никаких", "никакого", "никакой", "ни одного", "только (?:через|в|из|на|по|с)", "nada de", "ning[uú]n(?:a)?", "solo (?:desde|en|por|con|a trav[eé]s de)", "nur (?:über|in|im|aus|mit|per)",
]);
const NORMATIVE_CJK = anywhere(["不要", "不得", "禁止", "必须", "必須", "不能", "别", "不准", "勿", "しないで", "してはいけない", "してはならない", "禁止",
  // Negated imperatives of any verb (issue 13, class 3): 流さないで, 触らないでください, 올리지 마, 건드리지 마세요.
  "[^\\s、。]ないで(?:ください|下さい|ね|ほしい|欲しい)?[。.!！]?$", "[^\\s、。]ないこと[。.]?$", "^(?!.*のは)[^。]*[^\\s、。]こと[。.!！]?$", "ように(?:して|する|しましょう|お願い)", "하지 ?마", "\\S지 마(?:세요|요|라)?(?![\\p{L}])", "하면 안", "면 안 (?:돼|된다|됩니다)", "해야", "금지"]);

/** A rule stated as a fact (references/taxonomy.md Hard case 23; references/cases.md BL-03). */
export const FACT_RE = words([
  "(?:is|are) (?:read-?only|off-?limits|frozen|forbidden|prohibited|not allowed|protected|immutable|mandatory|the (?:single )?source of truth)",
  "(?:is|are) allergic to", "(?:lives?|belongs?|goes|go|live|stays?) (?:in|under) [^,]+, (?:not (?:in|under)|(?:and )?nowhere else)",
  // The same states in the other languages: frozen, read-only, locked, on hold.
  "(?:ist|sind) (?:eingefroren|gesperrt|schreibgeschützt)", "(?:está|están) (?:congelad[oa]s?|bloquead[oa]s?)", "(?:es|son) de solo lectura", "заморожен\\p{L}*", "только для чтения", "(?:is|are) (?:only )?for [^,]+ only",
  "(?:is|are) never (?:to be )?", "(?:is|are) not to be", "only [\\w-]+ (?:may|can) ", "requires? (?:a |an )?(?:review|approval|sign-?off)",
]);

/** A state stated as a rule in Chinese, Japanese, Korean: frozen, read-only, on hold (是冻结的, は保留, 읽기 전용이다). */
const FACT_CJK = /(?:冻结|冻住|只读|保留|凍結|読み取り専用|동결|읽기 전용)(?:的|中|です|だ|이다|입니다|이에요|예요)?[。.！!]?$|(?:는|은) (?:동결|읽기 전용)/u;

/** A team or project convention. */
export const CONVENTION_RE = words([
  "we (?:always|never|only|don'?t|do not|use|prefer to|require)",
  // "We only use …" in the other languages: "nutzen wir nur", "solo usamos", "используем только".
  "(?:nutzen|verwenden|nehmen|benutzen) wir (?:nur|ausschließlich)", "wir (?:nutzen|verwenden|nehmen|benutzen) (?:nur|ausschließlich)",
  "(?:solo|solamente|únicamente) (?:usamos|utilizamos|trabajamos con)", "(?:usamos|utilizamos) (?:solo|solamente|únicamente)",
  "(?:используем|берём|берем|пишем) только", "только (?:используем|берём|берем)",
  // A route stated as the way things are done: "deploys go through the bot", "laufen über", "pasan por", "идут через".
  "(?:goes|go|run|runs|pass|passes|happen|happens) (?:only )?(?:through|via)", "(?:läuft|laufen|geht|gehen) (?:\\p{L}+ )?(?:über|durch)", "(?:pasa|pasan|va|van) (?:solo )?por", "(?:идёт|идет|идут|проходит|проходят) (?:только )?через", "our (?:convention|rule|policy|standard|style guide) (?:is|says)",
  "the (?:convention|rule|policy) (?:here )?is", "in this (?:repo(?:sitory)?|project|codebase|team|monorepo)",
  "(?:this|the) (?:repo|project|codebase|team) uses", "house rule", "team rule", "project rule",
]);

/**
 * A German practice in the inverted word order: the object first, then "<verb>en wir" ("Zolltarifnummern speichern wir
 * elfstellig", "Plots machen wir mit seaborn"): a team convention. Not with an auxiliary or a modal ("haben wir", "sollten wir").
 */
const GERMAN_WE_PRACTICE = /^(?!(?:Das|Dies|Es|Dann|Jetzt|Heute|Morgen|Gestern|Gleich|Nun|So)\s)\p{Lu}[\p{L}-]*(?:\s+[\p{L}-]+){0,3}\s+(?!(?:haben|hatten|sind|waren|wollen|wollten|könnten|sollten|müssten|würden|werden|können|dürfen)\s)\p{Ll}+n wir(?![\p{L}])/u;

/** "We don't X" as a verb form (a team convention): не делаем / не ставим, no usamos / no hacemos, machen wir nicht, 보내지 않아요. */
const WE_DO_NOT_RE = /\S지 않(?:아요|습니다)[.。]?\s*$|(?<![\p{L}])не \p{L}+(?:ем|им|ём)(?![\p{L}])|(?<![\p{L}])no \p{L}+(?:amos|emos|imos)(?![\p{L}])|(?<![\p{L}])\p{L}+en wir (?:nie|nicht|kein\p{L}*)(?![\p{L}])/iu;

/** One-off scope: the request holds for the current task only. */
export const ONE_OFF_RE = words([
  "this one", "this time", "just this once", "just once", "for now", "right now", "yet", "today", "tonight", "at the moment",
  "for this (?:task|pr|commit|change|fix|bug|ticket|branch|run|one|issue)", "this (?:commit|pr|diff|change|function|bug|error|ticket) (?:only)?",
  "(?:go ahead|please) and", "real quick", "asap",
  "esta vez", "por ahora", "hoy", "heute", "сегодня", "diesmal", "dieses mal", "vorerst", "cette fois", "pour l'instant", "desta vez", "questa volta",
  "в этот раз", "сейчас", "пока что",
]);
// Not 先 ("first", as in 先跑 npm test): it starts a step, it does not make a request one-off.
const ONE_OFF_CJK = anywhere(["这次", "這次", "这一次", "今回", "今回だけ", "이번", "이번만", "暂时"]);
/**
 * "This time" in the seven languages: the request is for the task at hand by definition, whatever the sentence model
 * reads in the rest of it ("今回は changelog なしで", "skip the e2e run this time"). A veto in extract.ts judge unless a
 * standing cue or an end date says it lasts.
 */
export const THIS_TIME_RE =
  /(?<![\p{L}])(?:this time|just this once|(?:just )?this one time|for this (?:one|run|release|commit|pr)|diesmal|dieses (?:eine )?mal|nur (?:dieses|ein) ?mal|einmalig|esta vez|solo (?:por )?esta vez|por esta vez|в этот раз|на этот раз|разово)(?![\p{L}])|这次|這次|这一次|本次|今回|이번(?:만|에는|엔|은)/iu;

/** Deictic objects naming the task at hand. */
export const DEICTIC_RE = words(["(?:this|that|the) (?:file|test|bug|error|function|line|diff|change|pr|commit|branch|one|issue|failure)(?!s)", "above(?!\\s*[\\d$€£¥+-])", "these changes"]);

const ACK_RE = /^(?:ok(?:ay)?|k|thanks?(?: you)?|thx|great|nice|cool|perfect|awesome|looks good|lgtm|yes|yep|yeah|no|nope|sure|got it|sounds good|good|done|right|hmm+|wow|excellent|好的|谢谢|了解|ありがとう|はい|네|감사|спасибо|хорошо|gracias|vale|danke|merci)\b[\s\p{P}]*(?:[\p{L}\s,']{0,30})?[.!]*$/iu;
const QUESTION_START = /^(?:should|do|does|did|is|are|was|were|what|why|how|where|when|which|who|whose|have|has|shall|am)\b/i;
const REQUEST_START = /^(?:can|could|would|will|may)\s+(?:you|we|u)\b/i;
export const NARRATIVE_RE = words([
  "yesterday", "last (?:week|time|night|month|sprint|year)", "earlier today", "this morning", "ago",
  "we (?:fixed|found|tried|had|decided|deployed|shipped|merged|saw|changed|broke|lost|spent)", "i (?:fixed|tried|noticed|found|saw|ran|just|already|was|had|spent|merged|pushed)",
  "it (?:broke|failed|crashed|worked)", "(?:was|were) (?:broken|failing|flaky|slow)", "ayer", "gestern", "вчера",
]);
const NARRATIVE_CJK = anywhere(["昨天", "昨日", "上周", "先週", "어제", "刚才"]);
const TASK_START = /^(?:(?:ok(?:ay)?|now|so|then|next|also|and|please|pls|first|great|cool|alright)[,:]?\s+)*(?:fix|add|implement|create|write|update|refactor|rename|move|delete|remove|look|check|investigate|debug|commit|push|deploy|run|make|change|build|open|show|tell|explain|try|review|merge|install|bump|revert|let'?s|lets|go|continue|finish|undo|rerun|re-run|restart|find|list|print|read|summari[sz]e|draft|generate|send|post|give|clean|format|split|port|translate|migrate|upgrade|set up|setup|start|stop|keep going)\b/i;
/** A universally quantified subject at the start ("every query …", "alle Texte …", "todas las fechas …", "все суммы …"). */
const UNIVERSAL_START = /^(?:every|each|all|any|no|alle|jede[rsnm]?|kein(?:e|en|er)?|todos?|todas?|cada|ning[uú]n[oa]?|nada de|все|всё|каждый|каждая|каждое|никаких|ни один)\s+\p{L}/iu;
/** An imperative with a universally quantified object: "flag any value above …", "markiere jeden …", "marca cualquier …", "помечай любое …". */
const UNIVERSAL_OBJECT = /^\p{L}+\s+(?:any|every|all|each|jede[nrsm]?|alle|cualquier|cada|tod[oa]s? (?:los|las)|любо[йеую]|любые|все|каждый|каждую|каждое)\s+\p{L}/iu;
/** Universality and uniformity in CJK text: 所有 / 统一 / 一律 / 都要 / 只能, すべて / 必ず / のみ, 모든 / 항상. */
const UNIVERSAL_CJK = /(?:서|로|에서|으로|에게|에)만(?=\s)|所有|统一|統一|一律|都要|都用|只能|只用|只在|只从|只放|只走|只经过|只通过|全部|每个|每個|すべて|全て|のみ|だけにする|だけ(?:です|にして(?:ください)?)?[。.]?$|\S만 (?:쓴다|쓰고|둔다|한다|사용)|모든|각 /u;
/** A plain declarative sentence end in Japanese or Korean (written-rule register, not a polite request or remark): 〜る。〜ない。〜한다。〜않는다。 */
// Not "です"/"ます" (the polite register of a remark: 本番は東京リージョンです).
const PLAIN_DECLARATIVE_CJK = /(?:(?<![でま])[るうくすつむぶぐ]|ない|しない|[는않]다)[。.]?\s*$/u;
/** A Korean plain present ending with the final consonant ㄴ before 다 (쓴다, 둔다, 본다, 만든다): Hangul syllable index % 28 === 4 (Unicode's syllable composition). */
function koreanPlainPresent(text: string): boolean {
  const m = /(\p{Script=Hangul})다[.。]?\s*$/u.exec(text);
  return m !== null && ((m[1] as string).charCodeAt(0) - 0xac00) % 28 === 4;
}
const SOFT_RE = words(["i(?:'d| would)? prefer", "i like", "i'?d rather", "ideally", "if possible", "where possible", "nice to have", "try to", "maybe", "perhaps", "i think", "i guess", "if you can", "when you get a chance"]);
const COMMANDISH = /`[^`\n]*(?:\b(?:npm|npx|pnpm|yarn|bun|node|tsx|cargo|go|make|docker|kubectl|git|ssh|scp|curl|python3?|pytest|uv|pip|terraform|helm|mvn|gradle|dotnet|bundle|rails|rake|mix|deno|just|poetry)\b|\.\/|--?[a-z])[^`\n]*`/i;
const PROC_PURPOSE = words([
  "(?:run|use|call|invoke|execute|start|build|test|deploy|lint|format|release|publish|migrate)s? (?:it |them |the [\\w-]+ |[\\w-]+ ){0,2}(?:with|via|using|through|by running)",
  "to (?:run|build|test|deploy|start|lint|format|release|publish|migrate|regenerate|reset|seed|debug|reproduce|profile)",
  "(?:the )?(?:command|way) to", "(?:is|are) (?:run|started|built|tested|deployed) (?:with|via|by)", "before (?:every|each|any)",
]);

/** Retraction cues: the user withdraws or relaxes an earlier rule. */
export const RETRACT_RE = words([
  "actually,? you (?:can|may)", "you (?:can|may) (?:now|go ahead and)", "(?:it'?s|it is) (?:ok|okay|fine|alright) to", "feel free to",
  "no need to", "(?:you )?(?:don'?t|do not|no longer) (?:need|have) to", "(?:is|are) no longer (?:needed|required|necessary|relevant|true|the case|valid|in force)",
  "no longer (?:applies|matters|holds)", "(?:isn'?t|is not|aren'?t|are not) (?:needed|required|necessary) any ?more",
  "(?:forget|ignore|disregard|drop|scrap|scratch|cancel|undo|revoke|lift) (?:that|the|my|what i said)", "scratch that", "never ?mind",
  "you(?:'re| are) (?:now )?allowed to", "is (?:now )?(?:allowed|permitted|fine|ok)", "that rule", "the rule about",
  "ya no", "olvida (?:lo|la regla)", "nicht mehr", "vergiss", "plus besoin", "oublie", "больше не", "забудь", "можно теперь", "теперь можно",
  // A permission given back: "fine again", "wieder erlaubt", "de nuevo se puede", "снова можно" (it reverses a prohibition).
  "(?:is|are|[\\p{L}-]+'s) (?:fine|ok|okay|allowed|permitted) again", "(?:can|may) [^.;]{1,40} again", "wieder (?:erlaubt|okay|ok|in ordnung|möglich)",
  "(?:darfst|kannst|dürfen|können) [^.;]{0,40}wieder", "(?:se puede|puedes|está permitido)[^.;]{0,40}(?:otra vez|de nuevo)", "(?:otra vez|de nuevo)[^.;]{0,40}(?:se puede|puedes|permitido)",
  "(?:снова|опять) можно", "можно (?:снова|опять)",
]);
const RETRACT_CJK = anywhere(["现在也可以", "又可以", "重新允许", "ていいことになりました", "してもよくなりました", "解禁", "다시 해도", "다시 허용", "不用再", "不再", "可以了", "忘掉", "取消", "もう.{0,8}(?:いい|不要)", "しなくていい", "더 이상", "안 해도 돼", "해도 돼"]);

/**
 * Withdrawal cues: the user takes an earlier rule back ("forget the pnpm test rule", "ignore what I said
 * about X", "scratch that", "never mind"). A withdrawal retires its target and stores nothing new, even
 * when the same sentence goes on with "you may ..." (a permission is only stored for a relaxing sentence
 * without a withdrawal cue, e.g. "actually, you may push to main now").
 */
export const WITHDRAW_RE = words([
  "(?:forget|ignore|disregard|drop|scrap|scratch|cancel|undo|revoke|withdraw|retract|lift|remove|kill)(?: about)? (?:that|the|this|my|what i (?:said|told you)(?: about)?|everything i said about)",
  "(?:scrap|scratch|ditch|bin) (?:it|them)", "(?:forget|drop) (?:it|them)(?: entirely| completely)?(?=\\s*(?:[,.;!，。]|$))", "(?:rule|requirement|thing) (?:is )?(?:retired|cancelled|canceled|dropped|scrapped|withdrawn)",
  "scratch that", "never ?mind", "strike that", "i take (?:that|it) back", "(?:no longer|doesn'?t|does not) (?:applies|apply|holds?|stands?)(?: any ?more)?", "(?:is|are) (?:off|gone|dead|void|obsolete)(?: now)?",
  "olvida(?:te)? (?:lo|la regla|eso|lo de)", "(?:ya no|deja de) (?:aplica|vale|hace falta|rige)", "(?:quita|elimina|anula) (?:la regla|lo de|eso)",
  "vergiss", "vergessen sie", "(?:kannst|können) (?:du|sie) (?:\\p{L}+ )?(?:vergessen|streichen)", "streich(?:e|t|en sie)?", "gilt nicht mehr", "fällt weg", "ist hinfällig", "hat sich erledigt",
  "oublie", "забудь", "отмени", "отменяется", "больше не (?:действует|актуально|нужно|применяется)", "снимаю", "не актуально",
  // Withdrawals worded without the verbs above (issue 13, class 5): "… is history", "we're done with …", "ist aufgehoben".
  "(?:is|are) no longer a thing", "(?:is|are|[\\p{L}-]+'s|[\\p{L}-]+'re) (?:now )?(?:retired|history|scrapped|dropped|cancell?ed|lifted|withdrawn|revoked)", "(?:rule|requirement|thing)[^.;]{0,40} (?:is|are) (?:now )?(?:retired|scrapped|dropped|cancell?ed|lifted|withdrawn|revoked)",
  "we(?:'ve| have)? dropped (?:the|that)", "(?:we're|we are) done with", "don'?t bother (?:with|about)",
  "(?:stop|quit) (?:worrying|caring|bothering) about", "(?:don'?t|no need to) (?:worry|care) about [^.;]{1,40} any ?more",
  "das mit [^.;]{1,40} lassen wir", "(?:lass|lassen) (?:wir )?(?:das|es) (?:sein|bleiben)", "gibt es nicht mehr",
  "ya no (?:va|vale|cuenta|corre)", "больше нет", "уже нет",
  "(?:is|are|[\\p{L}-]+'s) (?:now )?over", "(?:ist|sind) (?:jetzt )?vorbei", "se acab[oó]", "(?:закончил\\p{L}*|кончил\\p{L}*)",
  "(?:ist|sind) (?:jetzt )?(?:aufgehoben|geschichte|gestrichen|abgeschafft|obsolet)", "entfällt", "lass (?:das|die|den) [^.;]{1,40} weg",
  "olv[ií]da(?:te|lo)? de", "(?:queda|quedan) sin efecto", "descarta(?:mos)?", "se acab[oó] lo de", "ya no (?:es necesari[oa]|hace falta)",
  "забей(?:те)?(?: на)?", "отменяем", "снимаем", "отбой", "olv[ií]dal[oa]s?", "d[ée]jal[oa]s?(?= *[;,.]|$)", "desc[aá]rtal[oa]s?", "больше не (?:требуется|нужен|нужна|нужны|актуальн\\p{L}*)", "неактуальн\\p{L}*",
]);
export const WITHDRAW_CJK = anywhere(["^算了", "(?:先|就)?不管了", "别管了", "忘掉", "忘了", "取消", "撤回", "作废", "不算了", "那条(?:不要了|去掉|删掉)", "不用了", "忘れて", "取り消", "取り下げ", "撤廃", "廃止", "もう不要", "不要になった", "は不要です", "気にしなくて(?:いい|大丈夫)", "なしで", "なしにして", "もういい", "잊어", "취소", "없던 걸로",
  "不用管了", "可以不管了", "结束了", "終わりました", "끝났", "不需要了", "删了吧", "删掉吧", "撤掉", "撤了", "废了", "废掉", "不算数", "(?:那条|那个|这条)[^。，,]{0,12}(?:删|去掉|不要)",
  "もう[^。、]{0,16}なくて(?:いい|大丈夫)", "は?やめにし", "ルールは?(?:なし|終わり)",
  "없애(?:자|요|기로)", "폐지", "(?:규칙|룰)[은는]? (?:이제 )?없(?:어|다|습니다|어요)", "下线了", "停用了", "이제 [^.]{0,16}안 \\S+도 (?:돼|된다|됩니다)", "빼(?:자|기로)",
]);

/**
 * A release from an obligation, said to last: "no need to … anymore", "skip … from now on", "we stopped …", "kannst du ab
 * jetzt weglassen", "ya no hace falta", "sobran", "можно больше не …", 以后可以不…, 不用再, 〜なくていい, 안 …도 돼. It takes back
 * the rule that asked for it (found by meaning, consolidate.ts); with no such rule it may stand as a rule of its own.
 */
export const RELEASE_RE =
  /(?<![\p{L}])(?:no need to|(?:you )?(?:don'?t|do not|no longer) (?:need|have) to|skip [^.;!?]{1,60}(?:from now on|going forward|from here on|any ?more)|(?:you can|feel free to) stop|we(?:'ve| have)? stopped|(?:is|are|isn'?t|aren'?t) (?:not )?(?:necessary|needed|required) any ?more|(?:kannst|könnt|darfst|dürft) (?:du|ihr) [^.;!?]{0,60}(?:weglassen|auslassen|überspringen|sparen)|(?:brauchst|musst) du [^.;!?]{0,40}nicht mehr|nicht mehr nötig|(?:ya )?no (?:hace falta|es necesario)|ya no hay que|sobra(?:n)?|puedes dejar de|dejamos de|можно (?:больше )?не \p{L}+|(?:больше )?не нужно|не надо больше)(?![\p{L}])|可以不(?:用|再)?\p{Script=Han}|不用再|不必再?|不需要再|别再|なくて(?:も)?(?:いい|大丈夫|よい|結構)|안 \S+도 (?:돼|된다|됩니다)|하지 않아도|(?:생략|스킵)(?:해|하셔|하)도 (?:돼|됩니다|괜찮)|건너뛰어도 (?:돼|됩니다|괜찮)|(?:省略|スキップ)して(?:も)?(?:いい|構いません|かまいません|大丈夫)|可以(?:省略|跳过|省掉)/iu;

/** A narrowing: an allowance followed by what stays forbidden ("fine on your own branches, just not main", "OK for X, never anything else"). */
export const NARROWING_RE =
  /(?<![\p{L}])(?:по-прежнему|как и раньше|weiterhin|sigue(?:n)? siendo|en lo demás|for everything else|(?:is|are) still (?:required|mandatory|needed))(?![\p{L}])|나머지는 그대로|照旧|依然要|还是要|それ以外は(?:今まで通り|従来通り)|\b(?:just|but|only) not\b|(?:,\s*(?:but |and |just )?|\s(?:but|and|just) )(?:never|not|nothing|no) (?:on|in|for|to|the|anything|any|other|else)\b|\baber nicht\b|,\s*(?:aber )?(?:nie|nicht) (?:auf|in|im|für)\b|[\p{L}\s]+ nicht\.?$|,\s*pero (?:no|nunca)\b|,\s*(?:но|а) (?:не|никогда)\b|остальн\S* (?:нет|нельзя)|(?:绝对)?不行|照旧不行|だけは例外|では(?:絶対に)?(?:しない|だめ|ダメ)|는 안 (?:된다|돼)/iu;

/** Exception / refinement cues: a scoped exception to an earlier rule. */
export const EXCEPTION_RE = words(["except(?: for| when| in)?", "unless", "i said [^.;]{1,60}, but", "ich (?:hatte|habe) (?:doch )?gesagt[^.;]{0,60}, aber", "dije (?:que )?[^.;]{1,60}, pero", "я говорил\\p{L}* [^.;]{1,60}, но", "other than", "apart from", "with the exception of", "but (?:in|for|under|on) ", "excepto", "salvo", "außer", "sauf", "кроме", "за исключением"]);
export const EXCEPTION_CJK = anywhere(["除了", "除非", "以外", "を除いて", "제외", "例外", "って言ったけど", "と言ったけど", "のルールだけど", "我说过[^，,。]{0,30}[，,]\\s*(?:但|不过)", "라고 했(?:는데|지만)", "예외"]);

/** A header and at least two numbered or bulleted steps (the shape sentences.ts keeps whole). */
export const STEPS_RE = /[:：][\s\S]*?(?:^|\s)(?:1[.)]|[-*•])\s*\S[\s\S]*?(?:^|\s)(?:2[.)]|[-*•])\s*\S/mu;

/** An end to a rule: "until …", "temporarily", "for today only", "this week only" in the seven languages. */
export const EXPIRY_RE = words([
  "until", "till", "temporarily", "for now", "for (?:today|this week|this sprint) only", "(?:today|this week) only",
  // A rule for the current week or sprint: "this week no changes to …", "diese Woche keine …", "esta semana …", "на этой неделе …".
  "(?:for |during )?this (?:week|sprint)", "diese woche", "in diesem sprint", "esta semana", "este sprint", "на этой неделе", "в этом спринте",
  "hasta que", "hasta (?:el|la|los|las)", "temporalmente", "for (?:today|tonight)(?=\\s*,)", "für heute", "por hoy", "на сегодня", "solo (?:por )?(?:hoy|esta semana)", "bis (?:zum|zur|das|die|der)?", "vorübergehend", "nur (?:heute|diese woche)",
  "пока (?:не|идёт|идет)", "до (?:релиза|конца|пятницы)", "временно", "только (?:сегодня|на этой неделе)",
]);
/** The whole expiry phrase of a sentence: "until <what>", "bis <what>", "hasta <what>", "до <what>", or a bare marker (temporarily, 今日だけ, 당분간). */
export const EXPIRY_PHRASE_RE =
  /(?<![\p{L}])(?:until|till|hasta(?: que| el| la| los| las)?|bis(?: zum| zur)?|до|пока не)\s+(?:[^,.;!?，。]|\.(?=\d)|(?<=\d)\.(?=\s(?:jan|feb|mär|apr|mai|jun|jul|aug|sep|okt|nov|dez)))(?:[^,.;!?，。]|\.(?=\d)|(?<=\d)\.(?=\s(?:jan|feb|mär|apr|mai|jun|jul|aug|sep|okt|nov|dez))){1,59}|(?<![\p{L}])(?:temporarily|for (?:today|this week|this sprint) only|(?:today|this week) only|temporalmente|solo (?:por )?(?:hoy|esta semana)|vorübergehend|nur (?:heute|diese woche)|временно|только (?:сегодня|на этой неделе))(?![\p{L}])|[^，。、\s]{1,12}(?:之前|以前)|暂时|暫時|这周|今天先|[^、。\s]{1,16}まで|当面|今週だけ|今日だけ|今日中|一時的|[^,\s]{1,12}까지|당분간|이번 주만/iu;
const EXPIRY_CJK = anywhere(["之前", "以前", "暂时", "暫時", "这周", "本周", "这个迭代", "今週", "今スプリント", "이번 주", "이번 스프린트", "今天先", "まで", "当面", "今週だけ", "今日だけ", "今日中", "の間(?:は|だけ)", "一時的", "까지", "당분간", "이번 주만"]);

/** A refinement of an earlier rule: the user corrects a number or a detail. */
export const REFINEMENT_RE = /^(?:(?:actually|so|ok(?:ay)?),?\s+)?(?:make (?:that|it)|correction|change of plan|addendum|amendment|clarification|on second thought|korrektur|berichtigung|nachtrag|ergänzung|präzisierung|klarstellung|precisión|matiz|aclaración|pensándolo mejor|дополнение|correcci[oó]n|mejor|поправка|уточнение)(?![\p{L}])|^(?:更正|改一下|纠正|訂正|修正|정정|考え直して|다시 생각해 보니)|(?:那条|这条)?再?补充一下|(?:那条|那个规则)改一下|补一条|改成|改为|のルールを?(?:変更|修正)|[にへ](?:変更|変え(?:る|ます|て))|ことに(?:なりました|しました)|기로 했(?:어요|습니다|다)|(?<![\p{L}])(?:instead of|statt|anstatt|en (?:lugar|vez) de|вместо)(?![\p{L}])|而不是|の代わりに|대신 |(?:으로|로) (?:변경|바꿔|바꿉|바꾼다|바꿀게)|言い直|(?<![\p{L}])(?:mejor dicho|change (?:that|it) to|поправлю(?: себя)?|уточню)(?![\p{L}])|^(?:(?:a |one )?(?:small|quick|little|kleine|pequeño|небольшое)\s+)?(?:cambio|change|änderung|изменение|update|actualización|aktualisierung|обновление)\s+(?:sobre|en|de|on|to|regarding|for|bei|zu|für|по|насчёт|насчет)\s+[^:：]{1,40}[:：]|に変わ(?:りました|ります|った)|(?:으로|로) 바뀌었|(?<![\p{L}])теперь(?![\p{L}])(?![^.]{0,6}(?:всегда|никогда))|(?<![\p{L}])(?:(?:and|und|y|и) )?(?:now also|jetzt auch|ahora también|теперь (?:ещё|еще|и|также))(?![\p{L}])|现在(?:还要|也要)|今後は[^。]{0,20}も|이제는? [^.]{0,20}도|^actually,? [^.]{8,}, not (?:a |an |the )?[\p{L}\p{N} ]{1,20}[.!]?$|(?<![\p{L}])(?:goes|go|moves?|is|are) (?:up |down )?to \d+(?:\.\d+)? now(?![\p{L}])/iu;

/** The user speaking of themself (a remark, not a rule for the agent). Requests ("I want you to …") are not. */
export const SELF_REMARK_RE =
  /(?:[,;:]\s*|\s[-\u2013\u2014]\s*)(?:I|ich|yo|я)\s+(?:always|never|can never|can't ever|immer|nie|siempre|nunca|всегда|никогда|вечно)(?![\p{L}])(?!\s+(?:want|need|expect|require|insist|will|möchte|will|quiero|хочу)(?![\p{L}]))|^(?:(?:by the way|btw|honestly|oh|man|haha|lol|ugh|puh|uf|блин|哈哈),?\s*)?(?:I(?:'m|'ll|'ve|'d)?\b(?!\s+(?:want|need|expect|require|insist)\b)|ich\b(?!\s+(?:will|möchte|brauche|erwarte)\b)|yo\b|я(?![\p{L}])(?!\s+(?:хочу|прошу|требую)(?![\p{L}]))|我(?!们|們|希望|要求|想让|要你)|(?:私|僕|俺)(?:は|も)|(?:저는|나는|난|전)\s)|(?:^|\s)(?:me acuerdo|se me olvida|me olvido|me lío|me lio|he visto|me cuesta)\b|(?:^|\s)(?:не )?(?:люблю|любил|любила|помню|запомню|пойму|понимаю|привыкну|видел|видела|забываю|хочу рисковать)(?![\p{L}])|老是记不住|记不住|覚えられない|慣れない|忘れちゃ|忘れがち|忘れるんです|기억이 안|까먹/iu;

/**
 * The user's will about the project, in the first person: "I (never / really) want …", "I'd like …", "ich will / möchte",
 * "(no) quiero", "(не) хочу", 我(不)想 / 我希望, 〜てほしい / 欲しくない, 〜면 좋겠 / 원해. A wish is what a rule is made of,
 * not a remark about oneself: it lifts the self-remark veto (issue 13, class 7: "I never want to see console.log in
 * committed code" is a rule).
 */
export const VOLITION_RE =
  /(?<![\p{L}])(?:I(?:'d| would) (?:like|prefer|rather)|I (?:\p{L}+'?\p{L}* ){0,2}?(?:want|need|expect|require|insist)|ich (?:\p{L}+ ){0,2}?(?:will|möchte|brauche|erwarte|verlange)|(?:will|möchte) ich|quiero (?:que|ver)|necesito que|exijo|хочу,? чтобы|хочу видеть|прошу|требую)(?![\p{L}])|我(?:[^，。,\s]{0,4})?(?:想|希望|要求)|てほしい|て欲しい|ほしくない|欲しくない|(?:면|으면) 좋겠|원해|원하지 않|바란다/iu;

/** A wish that something not happen (a prohibition in the first person): "I never / don't want …", "ich will kein / nie", "no quiero", "не хочу", 我不想 / 我不希望, 〜ほしくない, 〜지 않았으면 좋겠. */
export const NEGATIVE_WISH_RE =
  /(?<![\p{L}])(?:I (?:never|don'?t|do not|really don'?t)(?: ever)? (?:want|wanna) (?:to see|to find|any|anyone|you to)|ich (?:will|möchte) (?:\p{L}+ ){0,3}?(?:nie|niemals|kein\p{L}*)|ich (?:will|möchte) nicht,? dass|no quiero (?:ver|que|ningún|ninguna|nada de)|не хочу(?: больше| никогда)?(?: видеть|,? чтобы))(?![\p{L}])|我(?:再也)?不想[^，。,]{0,20}?看到|我(?:再也)?不希望|ほしくない|欲しくない|지 않았으면 좋겠|원하지 않/iu;

/** A wish about the assistant's answers (length, tone), not a rule about the project. */
export const CHAT_STYLE_RE =
  /\b(?:answer|reply|respond|write)\s+(?:briefly|shortly|in (?:one|a few) (?:line|sentence)s?)|\b(?:keep (?:it|your answers?|replies) (?:short|brief))|\bbe (?:brief|concise)\b|\b(?:antworte|fass dich) (?:\w+ )?kurz|\b(?:contesta|responde|sé) (?:\w+ )?(?:corto|breve)|(?<![\p{L}])(?:отвечай|пиши) (?:\p{L}+ )?(?:коротко|кратко|покороче)|简短|說短|说短|短め|簡潔に|짧게|간단히 (?:말해|답해)/iu;

/** A compliment or thanks addressed to the assistant (with "you always/never …" it is small talk, not a rule). */
export const PRAISE_RE =
  /(?<![\p{L}])(?:thanks?|thank you|nice|impressive|great job|well done|lucky you|love it|amazing|awesome|danke|super|toll|klasse|gracias|genial|crack|спасибо|круто|молодец|здорово|впечатля\p{L}*|impresionante|increíble|beeindruckend|das en el clavo|приятно|a pleasure|a joy|me encanta|macht spa(?:ß|ss))(?![\p{L}])|愉快|谢谢|厉害|太棒|楽しい|즐거|편해|助かり|ありがとう|すごい|さすが|고마워|감사|최고|대단/iu;
/** A secret handed over in the sentence: "[REDACTED]" after "is", "=", ":", "ist", "es", "是", "は", "이", a credential word ("password", "пароль"), or at its end. */
export const CREDENTIAL_RE =
  /(?:(?<![\p{L}])(?:is|are|ist|sind|es|son|это|password|passwort|kennwort|contraseña|пароль|token|токен|ключ|key|basic|bearer)\s*|[:=：/]\s*|是\s*|は\s*|이\s*|로\s*|[은는]\s*)\[REDACTED\]|\[REDACTED\][\s.。!！]*$/iu;

/**
 * A sentence about the user's own things ("My laptop is …", "Mein Rechner …", "Mi portátil …", "Мой ноутбук …", 我的…,
 * 私の…, 제 …/내 …): a remark about oneself when it carries no standing or normative cue (issue 13, class 7).
 */
export const MY_START_RE = /^(?:my|mein(?:e|en|er|em)?|mi|mis|мой|моя|моё|мое|мои|我的|私の|僕の|俺の|(?:제|내) (?!생각에))(?![\p{L}])/iu;

/**
 * A request for something handed to the user now: an imperative with the first person as its receiver ("show me …",
 * "give me …", "zeig mir …", "hazme …", "dame …", "покажи мне …", "给我…", "見せて", "보여 줘"). A task, not a rule,
 * unless a standing, normative or conditional cue says it recurs ("tell me before you add a dependency").
 */
export const FOR_ME_RE =
  /^(?:(?:please|pls|bitte|por favor|пожалуйста)[,\s]+)?(?:(?:show|give|get|send|tell|make|write|draft|find|bring|fetch|explain)\s+(?:me|us)|(?:zeig|gib|schick|mach|schreib|erklär|such|bring)\w*\s+(?:mir|uns)|\p{L}+(?:me|nos)|(?:покажи|дай|пришли|сделай|напиши|объясни|найди|скинь)\s+(?:мне|нам))(?![\p{L}])|^(?:给我|帮我|替我)|(?:見せて|教えて|送って)(?:ください|くれ|ほしい)?[。.!！]?$|(?:보여|알려|보내) ?(?:줘|주세요|줄래)/iu;

/** A trigger word anywhere ("tell me before you add a dependency", "avísame cuando …"): what follows it recurs. */
const TRIGGER_RE = /(?<![\p{L}])(?:before|after|when|whenever|if|bevor|nachdem|wenn|sobald|falls|vor (?:dem|der|jedem|jeder)|nach (?:dem|der|jedem|jeder)|antes de|después de|cuando|si|перед|после|если|когда)(?![\p{L}])|之前|以前|的时候|前に|後に|ときは|時は|たら|전에|후에|때는|면/iu;

/**
 * A reason given on its own, not a rule: a sentence that ends in a causal particle ("…直接見るから。", "…맡거든요.",
 * "…하니까요.") or starts with "because" ("Because the board signed off.", "Weil …", "Porque …", "Потому что …", 因为…).
 * The Latin/Cyrillic/Chinese starts count only without a rule cue, and neither counts in a sentence with a comma (a
 * main clause before or after the reason: "今日だけは push していいです、デモ前なので" is a rule).
 */
export const REASON_END_RE = /(?:から|ので|ため)[。.!！]?$|(?:거든요|거든|니까요|니까|때문이에요|때문입니다)[.。!]?$/u;
export const REASON_START_RE = /^(?:because|since|weil|denn|porque|ya que|потому что|так как|因为|由于)(?![\p{L}])/iu;

/** A standing trigger at the start: "before you push, …", "bevor du pushst", "antes de hacer merge", "перед пушем", "提交前", "マージ前に". */
export const CONDITIONAL_RE =
  /^(?:(?:before|after|whenever|once) (?:you |we |every |each |any )?\p{L}+|(?:bevor|nachdem|sobald) \p{L}+|vor (?:jedem|jeder) \p{L}+|(?:antes|después) de \p{L}+|(?:перед|после) \p{L}+|(?:прежде чем|до того как|antes de que) \p{L}+|.{1,16}(?:之前|以前|前)[，,]|.{1,30}?(?:前に|する前|したら|てから)|.{1,16}(?:전에|후에))|^(?:if|when|wenn|falls|sobald|si|cuando|если|когда|как только)\s[^,;.!?]{3,80},\s*\p{L}|^(?:如果|要是|只要)?[^，。,]{2,24}(?:的话|时|后)[，,]|^[^。]{2,30}?(?:たら|なら|ときは|時は|場合は)(?=[、,]|\S{2})|^[^.,]{2,30}(?:면|때는|경우에는|경우),?\s/iu;
/** A permission meant to last: "without asking", "yourself", "on your own", in the seven languages. */
export const GRANT_RE =
  /(?<![\p{L}])(?:without asking(?: me)?|yourself|on your own|feel free|ohne (?:zu fragen|rückfrage|nachzufragen)|selbst(?:ständig)?|sin preguntar(?:me)?|t[úu] mism[oa]|por tu cuenta|без (?:спроса|вопросов|согласования)|сам(?:а)?)(?![\p{L}])|不用问我|不用问|自己(?:来|改|升|跑)?|確認なしで|自分で|묻지 않고|직접/iu;
const PERMISSION_CUE = /(?<![\p{L}])(?:you (?:can|may)|(?:it'?s|it is) (?:ok|okay|fine|alright) to|darfst|kannst|puedes|можешь|можно)(?![\p{L}])|可以|していい|してもいい|해도 (?:돼|된다)/iu;

const SECOND_PERSON = /^(?:you|du|t[úu]|ты|вы|с тобой|с вами|contigo|mit dir|with you|和你|跟你|你|您|あなた|君|너랑|너와|너|당신)(?![\p{L}])/iu;
/** A praise word, then a clause about the assistant: "Thanks, you always …", "Nice one, you never …", "Danke, du …", "谢谢，你…", "ありがとう、いつも…". */
const PRAISE_THEN_YOU =
  /^[\p{L}\s!']{1,24}[,，、!！]\s*(?:(?:you|du|t[úu]|ты|вы|你|您)(?![\p{L}])|いつも|항상)/iu;

/** Extract an expiry condition ("until launch") from a permission, or undefined. */
export function expiryOf(text: string): string | undefined {
  const m = /\b(?:until|till|hasta|bis|jusqu'à|до)\s+([^,.;!?—-]{2,60})/iu.exec(text);
  return m?.[1]?.trim();
}

/** Cue features of one sentence (booleans), the input of durabilityScore. */
export interface Cues {
  standing: boolean;
  normative: boolean;
  fact: boolean;
  convention: boolean;
  procedure: boolean;
  scope: boolean;
  universal: boolean;
  oneOff: boolean;
  /** "This time" (THIS_TIME_RE): a one-off by definition. */
  thisTime: boolean;
  deictic: boolean;
  question: boolean;
  request: boolean;
  ack: boolean;
  narrative: boolean;
  task: boolean;
  soft: boolean;
  retraction: boolean;
  exception: boolean;
  steps: boolean;
  expiry: boolean;
  refinement: boolean;
  selfRemark: boolean;
  /** A standing release from an obligation (RELEASE_RE): a retraction of the rule that asked for it. */
  release: boolean;
  /** A first-person wish (VOLITION_RE): with the sentence model's vote it lifts the self-remark veto (extract.ts). */
  volition: boolean;
  chatStyle: boolean;
  praise: boolean;
  credential: boolean;
  conditional: boolean;
  grant: boolean;
  limit: boolean;
  pastHabit: boolean;
  /** A directive about the language of the answers (OUTPUT_LANGUAGE_RE). */
  outputLanguage: boolean;
  /** A reason on its own (REASON_END_RE, REASON_START_RE): a veto in extract.ts judge. */
  reason: boolean;
}

/** Compute the cue features of a sentence. `hasPathScope` comes from operators/scope.ts inferScope. */
export function cuesOf(sentence: string, hasPathScope = false): Cues {
  const s = sentence.replace(/[\u2018\u2019]/g, "'");
  const bare = s.replace(/`[^`]*`/g, " CODE ");
  const standing = STANDING_RE.test(bare) || STANDING_CJK.test(bare);
  const normative = NORMATIVE_RE.test(bare) || NORMATIVE_CJK.test(bare) || NEGATIVE_WISH_RE.test(bare);
  const fact = FACT_RE.test(bare) || FACT_CJK.test(bare);
  const convention = CONVENTION_RE.test(bare) || WE_DO_NOT_RE.test(bare) || (GERMAN_WE_PRACTICE.test(bare.trim()) && !/[?？]\s*$/.test(bare));
  const procedure = COMMANDISH.test(s) && (PROC_PURPOSE.test(bare) || /^(?:to|for) [\w -]+,/i.test(bare)) ;
  const trimmed = bare.trim();
  const endsQ = /[?？]\s*$/.test(trimmed);
  const request = REQUEST_START.test(trimmed);
  const question = endsQ && !request ? true : QUESTION_START.test(trimmed) && endsQ;
  const ack = ACK_RE.test(trimmed) && trimmed.split(/\s+/).length <= 6 && !standing && !normative;
  const narrative = NARRATIVE_RE.test(bare) || NARRATIVE_CJK.test(bare);
  // "from now on", "starting today": a start, not a one-off.
  const oneOffWords = ONE_OFF_RE.test(bare.replace(/\bfrom now on\b|\bgoing forward\b|\b(?:starting|beginning|effective|as of|from) (?:today|now|tomorrow)\b|\bab heute\b|\b(?:a partir de|desde) hoy\b|с сегодняшнего дня/giu, "")) || ONE_OFF_CJK.test(bare);
  const refinement = REFINEMENT_RE.test(trimmed);
  const conditional = CONDITIONAL_RE.test(trimmed) && !endsQ;
  const forMe = FOR_ME_RE.test(trimmed) && !conditional && !TRIGGER_RE.test(bare) && !OUTPUT_LANGUAGE_RE.test(bare);
  const task = (TASK_START.test(trimmed) || forMe) && !TRIGGER_RE.test(bare) && !standing && !normative && !convention && !fact && !procedure && !refinement;
  const expiry = EXPIRY_RE.test(bare) || EXPIRY_CJK.test(bare);
  return {
    standing,
    normative,
    fact,
    convention,
    procedure,
    scope: hasPathScope,
    // Also after a fronted adverbial: "Until the release, no new endpoints", "In billing, every charge …".
    universal: UNIVERSAL_START.test(trimmed) || UNIVERSAL_OBJECT.test(trimmed) || UNIVERSAL_START.test(trimmed.replace(/^[^,，、]{1,60}[,，、]\s*/u, "")) || UNIVERSAL_CJK.test(bare) || ((PLAIN_DECLARATIVE_CJK.test(trimmed) || koreanPlainPresent(trimmed)) && !endsQ),
    oneOff: oneOffWords && !expiry,
    thisTime: THIS_TIME_RE.test(bare) && !expiry,
    deictic: DEICTIC_RE.test(bare),
    question,
    request: request && !question,
    ack,
    narrative,
    task,
    soft: SOFT_RE.test(bare),
    retraction: RETRACT_RE.test(bare) || RETRACT_CJK.test(bare),
    // A release for a while ("for today only, you can skip …") is an exception to the rule, not its end.
    release: RELEASE_RE.test(bare) && !endsQ && !expiry && !oneOffWords,
    exception: EXCEPTION_RE.test(bare) || EXCEPTION_CJK.test(bare),
    steps: STEPS_RE.test(s) || SEQUENCE_RE.test(s.slice(Math.max(0, s.search(/[:：]/)))),
    expiry,
    refinement,
    selfRemark: (SELF_REMARK_RE.test(trimmed) || (MY_START_RE.test(trimmed) && !standing && !normative && !fact && !convention)) && !NEGATIVE_WISH_RE.test(bare),
    volition: VOLITION_RE.test(bare),
    chatStyle: CHAT_STYLE_RE.test(bare),
    praise: (SECOND_PERSON.test(trimmed) || PRAISE_THEN_YOU.test(trimmed)) && PRAISE_RE.test(bare),
    credential: CREDENTIAL_RE.test(s),
    conditional,
    grant: PERMISSION_CUE.test(bare) && (GRANT_RE.test(bare) || expiry) && !endsQ,
    limit: LIMIT_RE.test(bare) && !endsQ,
    pastHabit: PAST_HABIT_RE.test(bare),
    outputLanguage: OUTPUT_LANGUAGE_RE.test(bare) && !endsQ,
    reason: (REASON_END_RE.test(trimmed) || (REASON_START_RE.test(trimmed) && !standing && !normative)) && !/[,，、]/u.test(trimmed),
  };
}

/**
 * Durability score of a sentence: Σ WEIGHTS[cue] over its true cues plus classifier evidence
 * (WEIGHTS.classifierRule × (P(constraint)+P(procedural)) + WEIGHTS.classifierEpisodic × P(episodic)).
 * Scores are in [-20, 15]; compare with DURABLE_THRESHOLD.
 */
export function durabilityScore(c: Cues, p: Record<KnowledgeType, number>): number {
  let s = 0;
  if (c.standing) s += WEIGHTS.standing;
  if (c.normative) s += WEIGHTS.normative;
  if (c.fact) s += WEIGHTS.fact;
  if (c.convention) s += WEIGHTS.convention;
  if (c.procedure) s += WEIGHTS.procedure;
  if (c.scope && (c.normative || c.standing || c.convention)) s += WEIGHTS.scope;
  if (c.universal && !c.question) s += WEIGHTS.universal;
  if (c.oneOff) s += WEIGHTS.oneOff;
  if (c.deictic && !c.standing) s += WEIGHTS.deictic;
  if (c.question) s += WEIGHTS.question;
  if (c.request) s += WEIGHTS.request;
  if (c.ack) s += WEIGHTS.ack;
  if (c.narrative && !c.standing) s += WEIGHTS.narrative;
  if (c.task) s += WEIGHTS.task;
  if (c.soft && !c.standing) s += WEIGHTS.soft;
  if (c.steps && !c.question) s += WEIGHTS.steps;
  if (c.expiry && (c.normative || c.standing || c.fact || c.grant)) s += WEIGHTS.expiry;
  if (c.refinement) s += WEIGHTS.refinement;
  if (c.selfRemark) s += WEIGHTS.selfRemark;
  if (c.chatStyle) s += WEIGHTS.chatStyle;
  if (c.praise) s += WEIGHTS.praise;
  if (c.credential && !c.standing && !c.normative) s += WEIGHTS.credential;
  if (c.conditional) s += WEIGHTS.conditional;
  if (c.grant) s += WEIGHTS.grant;
  if (c.limit) s += WEIGHTS.limit;
  if (c.pastHabit) s += WEIGHTS.pastHabit;
  if (c.outputLanguage) s += WEIGHTS.outputLanguage;
  s += WEIGHTS.classifierRule * (p.constraint + p.procedural) + WEIGHTS.classifierEpisodic * p.episodic;
  return Math.round(s * 1000) / 1000;
}

/** Rule type of a kept sentence: procedural when the classifier says so or it gives a command with a purpose, else constraint. */
export function ruleType(c: Cues, p: Record<KnowledgeType, number>): "constraint" | "procedural" {
  if (c.steps) return "procedural";
  if (c.procedure && !c.normative && !c.standing) return "procedural";
  return p.procedural > p.constraint && p.procedural >= 0.4 && !c.normative ? "procedural" : "constraint";
}
