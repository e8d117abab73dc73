/**
 * Language-independent descriptions of a line and of its section, for the model's conjunction
 * features (features.ts group `q`): the line's own FORM (command, prohibition, obligation, softened,
 * narrated completed work, noun phrase, path list, checklist marks, table row, directory tree, ...)
 * and its SECTION KIND (binding / soft / log / reference / procedure / neutral) from its headings and
 * lead-in. Cue lexicons in English, Japanese, Chinese, German, Russian, Spanish and Korean, after
 * shared/research/labelling-rules.md §1-§3 (modality, softening, elevation by heading), §9-§12
 * (to-do, status vs narrated work, logs) and §20 (file metadata). A Japanese progress log and an
 * English one then share features ("log section | narrated"), so what the model learns in one
 * language carries to the others. Pure; regexes only, over the lowercased text.
 */

/** Line-form flags, in bit order (bit i = 1 << i). */
export const FORMS = [
  "cmd", // shell command, leading $, command word first, or inline code command
  "imper", // imperative / infinitive instruction (any of the seven languages)
  "prohib", // prohibition (never, don't, 禁止, нельзя, nunca, niemals, 금지, ...)
  "oblig", // hard obligation (must, always, 必须, 必ず, обязательно, muss, siempre, 반드시, ...)
  "soft", // softened (should, prefer, ideally, 尽量, なるべく, желательно, möglichst, 가급적, ...)
  "past", // narrated or completed work (fixed, 完了, 已完成, завершено, erledigt, completado, 완료, ...)
  "np", // short noun phrase with no verb cue (a topic, a label, an item)
  "labelval", // "**Label**: value" / "Label: value"
  "path", // starts with a path or backticked file name
  "done", // ✅ ☑ ✔ [x]
  "no", // ❌ 🚫 ⛔ ✗
  "todo", // [ ]
  "table", // table row
  "tree", // directory-tree drawing (├ └ │)
  "date", // a date
  "question", // ends with "?"
  "nounstop", // Japanese/Korean line ending in a noun (the shape of completed-work logs)
  "persona", // role line: you are / act as / 你是 / あなたは / ты / eres / du bist / 당신은
  "lang", // output-language directive (respond in X, 中文で, на русском, en español, auf Deutsch, 한국어로)
  "meta", // file metadata: last updated, version, author, status:, 最終更新, 更新日, дата, fecha
] as const;
export type Form = (typeof FORMS)[number];
const BIT = Object.fromEntries(FORMS.map((f, i) => [f, 1 << i])) as Record<Form, number>;

/** Section kinds, from headings and lead-in. */
export const SECTION_KINDS = ["binding", "soft", "log", "reference", "procedure", "neutral"] as const;
export type SectionKind = (typeof SECTION_KINDS)[number];

/**
 * A cue regex over alternatives in several languages, in two compiled forms: all alternatives, and
 * (for ASCII-only text, most lines of most files) only the alternatives that can match ASCII text —
 * an alternative with no ASCII letter outside its escapes needs a non-ASCII character to match. The
 * same matches either way, at a fraction of the cost.
 */
function cueRegex(alternatives: readonly string[]): { test(text: string, ascii: boolean): boolean } {
  const all = new RegExp(alternatives.join("|"), "u");
  const latin = alternatives.filter((a) => /[a-z]/i.test(a.replace(/\\./g, "")));
  const asciiRe = new RegExp(latin.join("|"), "u");
  return { test: (text, ascii) => (ascii ? asciiRe : all).test(text) };
}

const PROHIB_RE = cueRegex(
  [
    String.raw`\b(never|don't|do not|does not need|must not|mustn't|shall not|should not|shouldn't|cannot|can't|may not|not allowed|forbidden|prohibited|no longer|read-only|readonly|off-limits|off limits|append-only|not in git|not in the|not on the)\b`,
    "solo lectura|schreibgeschützt|nur lesend|только для чтения|只读|読み取り専用|읽기\\s*전용",
    String.raw`^(no|not|nunca|jamás|nie|niemals|kein|keine|keinen|nicht|никогда|нельзя|не)\s`,
    String.raw`\b(nunca|jamás|prohibido|no (se )?(debe|deben|debes|uses|utilices|hagas|modifiques|cambies|agregues|añadas|crees|incluyas))\b`,
    String.raw`\b(niemals|verboten|keinesfalls|darf nicht|dürfen nicht|nicht erlaubt)\b`,
    String.raw`(никогда|нельзя|запрещ[а-яё]*|не (используй|делай|создавай|меняй|трогай|добавляй|удаляй|пиши)[а-яё]*)`,
    "不要|禁止|不得|严禁|绝不|不能|切勿|不可以|不允许|別|别",
    "しない(こと|で|ように)|してはいけない|してはならない|しないでください|厳禁|べからず|使わない|書かない|変更しない",
    "금지|하지\\s*마|하지\\s*않|말\\s*것|안\\s*됩니다|마세요|불가",
  ],
);
const OBLIG_RE = cueRegex(
  [
    String.raw`\b(must|always|required|mandatory|shall|need to|needs to|have to|has to|only|at all times|critical|important|strictly|ensure)\b`,
    String.raw`\b(siempre|debe|deben|debes|obligatorio|obligatoria|necesario|hay que|tiene que|tienes que|solo|sólo|exclusivamente)\b`,
    String.raw`\b(immer|muss|müssen|musst|pflicht|erforderlich|zwingend|unbedingt|stets|ausschließlich|nur|verpflichtend)\b`,
    "(всегда|обязательн[а-яё]*|долж(ен|на|но|ны)|необходимо|нужно|требуется|только|строго)",
    "必须|必需|务必|一定要|总是|始终|只能|应当|强制|要求",
    "必ず|必須|常に|しなければ|なければならない|のみ|絶対",
    "반드시|항상|필수|해야|만\\s",
  ],
);
const SOFT_RE = cueRegex(
  [
    String.raw`\b(should|prefer|prefers|preferably|preferred|ideally|try to|consider|recommended|avoid|if possible|where possible|when possible|if appropriate|generally|usually|favou?r|rather than|instead of|keep it|aim for)\b`,
    String.raw`\b(preferir|prefiere|prefiero|preferiblemente|idealmente|evita|evitar|intenta|procura|recomendable|recomendado|mejor|en lo posible|debería|deberías|priorizar|prioriza)\b`,
    String.raw`\b(sollte|sollten|möglichst|vorzugsweise|lieber|bevorzugt|empfohlen|idealerweise|vermeide|vermeiden|statt|anstatt|bevorzuge)\b`,
    "(лучше|желательно|следует|стоит|предпочт[а-яё]*|рекоменд[а-яё]*|избега[а-яё]*|по возможности|стара(йся|ться|емся)|вместо)",
    "尽量|最好|推荐|建议|优先|避免|应该|尽可能|倾向",
    "なるべく|できれば|できるだけ|推奨|望ましい|好ましい|避け|優先|ほうが|方が良い|べき",
    "가급적|권장|선호|지양|피하|좋습니다|바랍니다|것이\\s*좋|되도록|우선",
  ],
);
const PAST_RE = cueRegex(
  [
    String.raw`^(\w{3,}ed|was|were|had|did|ran|wrote|found|broke|got|made|built|set up)\b`,
    String.raw`\b(fixed|added|removed|implemented|completed|finished|merged|shipped|deployed|resolved|released|migrated|refactored|created|updated|done|tested|verified)\b`,
    String.raw`\b(completado|completada|implementado|implementada|agregado|añadido|corregido|creado|terminado|hecho|resuelto|actualizado)\b|^(se )?[a-zñáéíú]+(ó|aron)(?=\s|$|[.,:])`,
    String.raw`\b(erledigt|abgeschlossen|behoben|implementiert|hinzugefügt|erstellt|umgesetzt|fertig|wurde|wurden|aktualisiert|getestet)\b`,
    "(^|[^а-яё])(созда[нл]|добавл[её]н|добавил|исправл[её]н|исправил|реализова[нл]|выполн[её]н|выполнил|заверш[её]н|завершил|обновл[её]н|обновил|настро[ие]н|настроил|установл[её]н|установил|инициализирова[нл]|подготовл[её]н|подготовил|задокументирова[нл]|перенес[её]н|перен[её]с|удал[её]н|удалил|провед[её]н|пров[её]л|сделан|сделал|протестирова[нл]|внедр[её]н|внедрил|готово)[а-яё]*",
    "已完成|完成了|已经|已修复|修复了|实现了|已实现|已添加|添加了|新增了|已更新|已解决|已上线|已合并",
    "完了|済み|しました|ました|した。?$|追加した|実装した|修正した|対応済|作成済",
    "완료|했습니다|했다|됨|함\\s*$|하였|해결|추가됨|수정됨|구현됨",
  ],
);
const IMPER_RE = cueRegex(
  [
    String.raw`^(run|use|add|keep|make|write|check|ensure|call|install|set|create|update|delete|remove|put|follow|return|open|commit|push|deploy|test|read|send|ask|verify|confirm|include|document|log|respond|reply|start|stop|build|export|restart|apply|merge|rebase|tag|name|store|treat|flag|mark|report|move|copy|wrap|validate|prefer|avoid|do|don't|never|always|please|see|refer|go|review|explain|provide|answer|load|save|place|list|describe|identify|analy[sz]e|look|find|search|fix|implement|handle|define|put|give|tell|show|mention|cite|escalate)\b`,
    String.raw`^(usa|usar|utiliza|utilizar|haz|hacer|mantén|mantener|evita|evitar|asegúrate|asegurar|revisa|revisar|ejecuta|ejecutar|escribe|escribir|crea|crear|añade|agregar|analizar|evaluar|identificar|mostrar|explicar|respetar|modificar|resolver|priorizar|guarda|lista)(?=\s|$|[.,:])`,
    String.raw`^(verwende|verwenden|nutze|nutzen|benutze|führe|erkläre|schreibe|prüfe|halte|achte|lies|lese|erstelle|aktualisiere|vermeide|beachte|committe|teste)(?=\s|$|[.,:])`,
    "^(используй|используйте|использовать|делай|делать|пиши|писать|запускай|запускать|проверяй|проверять|создавай|создавать|следуй|соблюдать|сохраняй|обновляй|обновлять|добавляй|[а-яё]+(ть|ться|ти))(\\s|$|[.,:])",
    "^(请|使用|运行|执行|确保|保持|遵循|添加|更新|检查|创建|编写|阅读|提交|参考|查看|安装|调用|遵守|采用|保证|先|不要|禁止|避免)",
    "(する|すること|してください|して下さい|しろ|せよ|ください|こと|ようにする)。?$",
    "(하세요|해주세요|하십시오|할\\s*것|하라|해라|합니다|한다|하기|주세요)\\.?$",
  ],
);
/** Spanish text (a Spanish letter or function word), gating the infinitive-first instruction form. */
const ES_RE = /[ñ¿¡]|\b(el|la|los|las|del|que|para|por|con|una|según|cuando|si)\b/u;
const ES_INF_RE = /^[a-zñáéíóú]+(ar|er|ir)(se)?(?=\s|$|[.,:])/u;
/** German text (an umlaut, ß or function word), gating the infinitive-last instruction form ("README vor jeder Aufgabe lesen"). */
const DE_RE = /[äöüß]|\b(der|die|das|und|mit|für|nicht|vor|nach|bei|zu|im|den|dem|ein|eine|jede|jeder|immer)\b/u;
const DE_INF_END_RE = /\s[a-zäöüß]+(ieren|eln|ern|en)[.!]?$/u;
const CMD_FIRST_RE = /^(\$\s|npm|npx|pnpm|yarn|bun|pip|uv|poetry|cargo|go|make|docker|kubectl|helm|terraform|git|ssh|curl|python3?|node|tsx|export|psql|mvn|gradle|dotnet|pytest|flutter|composer)\s/;
const PERSONA_RE =
  /^(you are|you're|act as|your role|as an? )|^(eres|actúa como|actuar como|du bist|sie sind|agiere als)\b|^(ты|вы)\s|^(你是|您是|作为)|^(あなたは|あなたの役割)|^(당신은|너는)/u;
const LANG_RE =
  /\b(in|respond in|reply in|answer in|write in)\s+(english|chinese|japanese|korean|german|russian|spanish|french)\b|\b(en español|auf deutsch|на русском|по-русски)\b|(中文|日本語|韓国語|英語|英文|한국어|한글|영어|일본어|중국어)(で|回答|回复|输出|로|으로|作成|書)/u;
const META_RE =
  /^(\*\*)?(last updated|updated|version|author|created|status|date|owner|type|@created|@updated|@version)(\*\*)?\s*[:：]|^(\*\*)?(最終更新|更新日|作成日|バージョン|最后更新|更新时间|版本|创建|дата|создано|обновлено|версия|статус|fecha|versión|última actualización|stand|zuletzt aktualisiert|최종\s*업데이트|작성일|버전)(\*\*)?\s*[:：]/iu;
const LABELVAL_RE = /^(\*\*|__)?[^:：*]{1,40}(\*\*|__)?\s*[:：]\s*\S|^\*\*[^*]{1,40}[:：]\*\*\s*\S/u;
const PATH_START_RE = /^(`[^`\s]*[./][^`\s]*`|\.{0,2}\/?[\w.@-]+\/[\w./@*{}-]*|[\w-]+\.(ts|tsx|js|py|go|rs|md|json|ya?ml|toml|sh|java|kt|rb|cs|swift|php|sql|css|html))(\s|$|[:—–-])/u;
const TREE_RE = /[├└│]|^\s*[|`]--/u;
const DONE_RE = /✅|☑|✔|\[x\]/iu;
const NO_RE = /❌|🚫|⛔|✗|✖/u;
const DATE_RE = /\b(19|20)\d\d[-/.](0?[1-9]|1[0-2])([-/.]\d\d?)?\b|\d{4}年\d{1,2}月|\d{1,2}月\d{1,2}日|\d{4}년|\d{1,2}월\s?\d{1,2}일/u;
/** A Japanese or Korean line whose last character (before closing punctuation) is kanji, katakana or a Hangul noun syllable, not a verb ending. */
const JA_NOUNSTOP_RE = /[\p{Script=Han}\p{Script=Katakana}ー][)）」』\]】*`]*\s*$/u;
const JA_RE = /[\p{Script=Hiragana}\p{Script=Katakana}]/u;
const KO_RE = /\p{Script=Hangul}/u;
const KO_VERB_END_RE = /(다|요|죠|까|오|라|것|음|함|됨|임)[.!?)）]*\s*$/u;
const NON_ASCII_RE = /[^\x00-\x7f]/;
const WORD_RE = /[\p{L}\p{N}]+/gu;
const CJK_CHAR_RE = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/gu;

/**
 * Bitmask of the line forms (FORMS order) of a unit's body text. `kind` is the unit kind
 * (types.ts UnitKind); `raw` the unit's full text (list marker included, for checklist marks).
 */
export function lineForms(body: string, raw: string, kind: string): number {
  const t = body.slice(0, 600).trim().toLowerCase();
  // The cues of a line sit in its first few hundred characters; a code block is a command block.
  if (kind === "code") return BIT.cmd;
  const plain = t.slice(0, 400).replace(/[*_`]/g, "").replace(/^(?:[✅☑✔❌🚫⛔✗✖🔴🟡🟢⚠\s]|\uFE0F)+/u, "");
  const ascii = !NON_ASCII_RE.test(plain);
  let f = 0;
  if (kind === "table-row" || kind === "table-header") f |= BIT.table;
  if (CMD_FIRST_RE.test(plain) || /^\$\s?\S/.test(t)) f |= BIT.cmd;
  if (TREE_RE.test(raw)) f |= BIT.tree;
  if (DONE_RE.test(raw)) f |= BIT.done;
  if (NO_RE.test(raw)) f |= BIT.no;
  if (raw.includes("[ ]")) f |= BIT.todo;
  if (DATE_RE.test(t)) f |= BIT.date;
  if (/[?？]\s*$/.test(t)) f |= BIT.question;
  if (PROHIB_RE.test(plain, ascii)) f |= BIT.prohib;
  if (OBLIG_RE.test(plain, ascii)) f |= BIT.oblig;
  if (SOFT_RE.test(plain, ascii)) f |= BIT.soft;
  if (PAST_RE.test(plain, ascii)) f |= BIT.past;
  if (IMPER_RE.test(plain, ascii) || (ES_RE.test(plain) && ES_INF_RE.test(plain)) || (DE_RE.test(plain) && DE_INF_END_RE.test(plain))) f |= BIT.imper;
  if (PERSONA_RE.test(plain)) f |= BIT.persona;
  if (LANG_RE.test(plain)) f |= BIT.lang;
  if (META_RE.test(t)) f |= BIT.meta;
  if (LABELVAL_RE.test(t)) f |= BIT.labelval;
  if (PATH_START_RE.test(t.replace(/^\*\*|^__/, ""))) f |= BIT.path;
  const stripped = plain.replace(/[。.!！]+$/u, "");
  if ((JA_RE.test(stripped) && JA_NOUNSTOP_RE.test(stripped)) || (KO_RE.test(stripped) && !KO_VERB_END_RE.test(stripped))) f |= BIT.nounstop;
  const words = (plain.match(WORD_RE) ?? []).length + (plain.match(CJK_CHAR_RE) ?? []).length / 3;
  const verbal = BIT.cmd | BIT.imper | BIT.prohib | BIT.oblig | BIT.soft | BIT.past | BIT.question;
  if (words <= 8 && (f & verbal) === 0) f |= BIT.np;
  return f;
}

/** The names of the forms set in a mask (FORMS order). */
export function formNames(mask: number): Form[] {
  return FORMS.filter((_, i) => (mask & (1 << i)) !== 0);
}

/** True when `mask` has form `f`. */
export function hasForm(mask: number, f: Form): boolean {
  return (mask & BIT[f]) !== 0;
}

const SECTION_RES: [SectionKind, RegExp][] = [
  [
    // Work not yet done (labelling-rules.md §9): checked before "log", whose completion cues it contains
    // (未完了 holds 完了, 미완료 holds 완료, "not done" holds "done").
    "procedure",
    /\b(not (yet )?(done|completed|finished|implemented)|incomplete|unfinished|in progress|remaining|open items|outstanding)\b|未完了|未完成|未実装|未対応|未着手|進行中|进行中|待完成|待处理|未处理|미완료|미완성|미구현|진행\s*중|не\s*выполнено|не\s*завершено|в\s*работе|nicht erledigt|unerledigt|offen(e)? (punkte|aufgaben)|in arbeit|sin completar|en curso|por hacer/u,
  ],
  [
    // A status snapshot ("Current status", 当前状态, 現状) describes the present state: belief, like a
    // reference section (labelling-rules.md §10); checked before "log", whose cues its outer headings often hold.
    "reference",
    /\b(status|current state|state of the project)\b|状态|狀態|状況|現状|현재\s*상태|상태|состояние|статус|aktueller stand|zustand|estado actual/u,
  ],
  [
    "log",
    /\b(progress|changelog|change log|history|log|done|completed|recent changes|recent work|session|sessions|journal|accomplishments|milestones?|archive|release notes|timeline)\b|進捗|完了|履歴|更新履歴|作業ログ|実装済|进度|进展|已完成|完成情况|历史|更新日志|日志|進度|進展|歷史|日誌|紀錄|修復|修复记录|진행\s*상황|완료|이력|작업\s*로그|прогресс|выполнено|заверш|история|журнал|изменени|fortschritt|erledigt|verlauf|änderungen|protokoll|progreso|completado|historial|cambios|bitácora|(19|20)\d\d[-/.]\d\d?/u,
  ],
  [
    "binding",
    /\b(rules?|must|never|always|mandatory|critical|important|required|requirements|constraints?|do not|don't|prohibited|forbidden|strict|non-negotiable|hard limits?|guardrails?|security|safety|compliance|polic(y|ies))\b|ルール|禁止|必須|重要|厳守|制約|ポリシー|정책|политик|política|规则|规范|禁止|必须|约束|重要|注意事项|規則|規範|約束|注意事項|규칙|금지|필수|중요|제약|правил|запрещ|обязательн|важно|ограничени|regeln|verboten|pflicht|wichtig|niemals|immer|reglas|prohibido|obligatori|importante|restricciones|nunca|siempre/u,
  ],
  [
    "soft",
    /\b(style|preferences?|conventions?|tips|recommendations?|suggestions?|tone|voice|formatting|nice to have|optional)\b|推奨|スタイル|風格|风格|建议|推荐|偏好|约定|惯例|권장|스타일|선호|컨벤션|стиль|рекомендаци|соглашени|предпочтени|stil|empfehlung|konventionen|präferenz|estilo|convenciones|recomendaciones|preferencias/u,
  ],
  [
    "procedure",
    /\b(workflow|steps?|how to|commands?|setup|set up|build|testing|tests?|deploy|deployment|release|install|installation|usage|getting started|procedure|process|checklist|todo|to-do|next steps?|tasks?|plans?|planned|roadmap|backlog|pending|goals?|what's left|future|upcoming|phase)\b|手順|コマンド|ワークフロー|セットアップ|次のステップ|タスク|今後|予定|残タスク|フェーズ|次にやること|步骤|步驟|命令|流程|工作流|部署|待办|待辦|下一步|第[一二三四五六七八九十\d]+步|任务|任務|计划|計劃|計畫|目标|目標|向后|향후|계획|목표|планы?|цели|ziele|geplant|objetivos|pendiente|절차|명령|워크플로|다음\s*단계|작업|шаги|команды|процесс|установка|задачи|следующ|schritte|befehle|ablauf|aufgaben|nächste|pasos|comandos|flujo|tareas|próximos/u,
  ],
  [
    "reference",
    /\b(structure|files?|directory|directories|layout|architecture|overview|tech stack|stack|reference|references|links|docs|documentation|resources|project|about|context|glossary|components?|modules?|dependencies|environment)\b|構成|構造|ファイル|概要|技術|アーキテクチャ|ディレクトリ|参考|结构|目录|文件|概述|技术栈|架构|参考|简介|구조|파일|개요|기술|아키텍처|디렉토리|참고|структура|файл|обзор|архитектур|контекст|стек|struktur|dateien|überblick|architektur|kontext|verzeichnis|estructura|archivos|arquitectura|contexto|resumen/u,
  ],
];

/**
 * The kind of a unit's section: the first kind whose cue matches, looking at the lead-in when it is a
 * "...:" sentence, the innermost heading, a lead-in that is a parent item, then the heading above
 * (nearest context wins); "neutral" when none matches.
 */
export function sectionKind(headings: readonly string[], leadIn: string): SectionKind {
  const key = `${leadIn}\u0001${headings[headings.length - 1] ?? ""}\u0001${headings[headings.length - 2] ?? ""}`;
  let kind = sectionCache.get(key);
  if (kind === undefined) {
    kind = sectionKindUncached(headings, leadIn);
    if (sectionCache.size > 10_000) sectionCache.clear();
    sectionCache.set(key, kind);
  }
  return kind;
}
/** Memo of sectionKind: headings and lead-ins repeat over a file's units. */
const sectionCache = new Map<string, SectionKind>();

function sectionKindUncached(headings: readonly string[], leadIn: string): SectionKind {
  // A lead-in sentence ("Never do the following:") speaks for its list; a parent item that only names
  // a topic does not, so it comes after the headings.
  const inner = headings[headings.length - 1] ?? "";
  const outer = headings[headings.length - 2] ?? "";
  const ctx = /[:：]\s*(\*\*)?\s*$/.test(leadIn) ? [leadIn, inner, outer] : [inner, leadIn, outer];
  for (const c of ctx) {
    if (!c) continue;
    const t = c.toLowerCase();
    for (const [kind, re] of SECTION_RES) if (re.test(t)) return kind;
  }
  return "neutral";
}
