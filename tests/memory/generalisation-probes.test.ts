/**
 * Issue 13, second generalisation pass: probe sentences written for these tests (none is in data/utterances or
 * data/sessions), in the seven languages. Registers (Korean 합니다/해요/반말, Japanese です・ます/plain/てください/こと,
 * German Sie/du), precision (remarks about oneself, compliments, questions, one-off and "this time" requests,
 * answer-length wishes), and narrowings worded with withdrawal words, through the judge and through real extraction
 * runs on real-shaped transcripts.
 */
import { rmSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { regexClassifier } from "../../scripts/engine/classify.js";
import { loadUtteranceScorer } from "../../scripts/io/model-file.js";
import { judge } from "../../scripts/memory/extract.js";
import { folderScope } from "../../scripts/memory/folder-scope.js";
import { narrowingOf } from "../../scripts/memory/withdraw.js";
import { loadStore } from "../../scripts/memory/store/state.js";
import { assistant, jsonl, user } from "../fixtures/memory/jsonl.js";
import { extractText, tempProject } from "./helpers.js";

const src = { session: "s", line: 1, offset: 0 };
const utterance = loadUtteranceScorer();
const verdict = (text: string) => judge([{ text, source: src }], regexClassifier, undefined, { folders: [], utterance })[0];

describe("rules in every register are kept", () => {
  it.each([
    "배포 전에는 항상 스테이징에서 스모크 테스트를 돌립니다.",
    "커밋 메시지는 영어로 씁니다.",
    "로그에 주민번호는 남기지 않습니다.",
    "테스트 없는 PR은 머지하지 마.",
    "릴리스 노트는 매주 금요일에 정리한다.",
    "외부 라이브러리를 추가할 때는 먼저 저한테 물어봐 주세요.",
    "コミットメッセージは英語で書きます。",
    "ログに個人情報を出さないでください。",
    "新しい依存を入れる前に、私に確認すること。",
    "日付は ISO 8601 形式で保存する。",
    "本番のデータベースには直接つながない。",
    "テストのない PR はマージしないでね。",
    "Bitte schalten Sie das Caching in der Testumgebung nie ein.",
    "Gib neue Umgebungsvariablen immer auch in der .env.example an.",
    "Nehmen Sie keine neuen Abhängigkeiten ohne Rücksprache auf.",
    "Lies Secrets nur aus dem Vault aus.",
  ])("kept: %s", (text) => {
    const v = verdict(text);
    expect(v?.kind, `${v?.score} [${v?.cues.join(",")}]`).toBe("rule");
  });
});

describe("remarks, compliments, questions, one-off requests and answer-length wishes are not rules", () => {
  it.each([
    "I always mess up the rebase order, sorry about that.",
    "Thanks, that refactor was exactly what I wanted.",
    "Keep your answers short, I'm on my phone.",
    "My laptop is a hand-me-down with 8 GB anyway.",
    "Show me the failing assertion.",
    "Ich finde das neue Layout richtig gut.",
    "Antworte bitte kürzer.",
    "Zeig mir kurz die Logs vom Worker.",
    "Mein Rechner ist sowieso schon alt.",
    "Siempre me olvido de cerrar el túnel, perdona.",
    "Respóndeme más corto, por favor.",
    "Hazme un resumen rápido del módulo de pagos.",
    "Я вечно забываю про миграции, извини.",
    "Отвечай покороче.",
    "Дай мне список таблиц.",
    "我总是忘记跑 lint，不好意思。",
    "回答简短一点就行。",
    "给我列一下所有的表。",
    "いつもありがとう、助かります。",
    "私はいつもタイポしちゃうんですよね。",
    "고마워요, 이번 리팩터링 정말 좋네요.",
    "답변은 짧게 해 줘.",
    "저는 맨날 린트 돌리는 걸 까먹어요.",
  ])("dropped: %s", (text) => {
    const v = verdict(text);
    expect(v?.keep, `${v?.kind} ${v?.score} [${v?.cues.join(",")}]`).toBe(false);
  });
  it.each(["This time skip the e2e run.", "Diesmal ohne Changelog.", "Esta vez sin changelog.", "В этот раз без changelog.", "这次不用写 changelog。", "今回は changelog なしで。", "이번에는 changelog 없이 해 줘."])(
    "a request for this time only is neither a rule nor a withdrawal: %s",
    (text) => {
      const v = verdict(text);
      expect(v?.keep, `${v?.kind} ${v?.score} [${v?.cues.join(",")}]`).toBe(false);
      expect(v?.cues).toContain("thisTime");
    },
  );
  it("a request for me with a trigger recurs: not a task", () => {
    expect(verdict("Tell me before you add a dependency.")?.cues).not.toContain("task");
    expect(verdict("Avísame siempre antes de borrar tablas.")?.kind).toBe("rule");
  });
  it("a secret handed over after a slash is a credential, not a rule", () => {
    const v = verdict("管理画面には admin / [REDACTED] で入れます。");
    expect(v?.keep).toBe(false);
    expect(v?.cues).toContain("credential");
  });
});

describe("a narrowing worded with withdrawal words keeps its rule and adds the exception", () => {
  it.each([
    ["Always indent with spaces, never tabs.", "Scratch that — tabs are fine in the Makefile.", "tabs are fine in the Makefile."],
    ["Verwende immer Leerzeichen statt Tabs.", "Vergiss das mit den Tabs im Makefile — da sind Tabs in Ordnung.", "Vergiss das mit den Tabs im Makefile — da sind Tabs in Ordnung."],
    ["Nunca hagas deploy los viernes.", "Olvida eso para los hotfix: esos sí pueden salir el viernes.", "Olvida eso para los hotfix: esos sí pueden salir el viernes."],
    ["Никогда не коммить напрямую в main.", "Отбой, для опечаток в документации можно коммитить прямо в main.", "для опечаток в документации можно коммитить прямо в main."],
    ["金曜日はデプロイしないでください。", "さっきのは取り消しで、ホットフィックスなら金曜でもデプロイしていいです。", "ホットフィックスなら金曜でもデプロイしていいです。"],
    ["금요일에는 배포하지 마세요.", "아까 말 취소, 핫픽스는 금요일에도 배포해도 돼요.", "핫픽스는 금요일에도 배포해도 돼요."],
  ])("%s / %s", async (rule, narrowing, kept) => {
    const p = tempProject();
    await extractText(p, jsonl([user(rule), assistant("OK."), user("Let's look at the parser now."), assistant("Sure."), user(narrowing), assistant("Noted.")]));
    const store = loadStore(p.rulesDir);
    const parent = store.rules.find((r) => r.text === rule);
    expect(parent?.status).toBe("active");
    const child = store.rules.find((r) => r.text === kept);
    expect(child?.status).toBe("active");
    expect(child?.refines).toBe(parent?.id);
    rmSync(p.dir, { recursive: true, force: true });
  });

  it.each([
    ["Never merge on Fridays.", "Okay, the Friday merge freeze is lifted, merge whenever."],
    ["Pushe nie direkt auf main.", "Die Regel mit dem direkten Push auf main gilt nicht mehr."],
    ["Los commits van siempre en inglés.", "Ya no hace falta que los commits vayan en inglés."],
    ["Всегда запускай e2e-тесты перед мержем.", "Про e2e-тесты перед мержем забудь, больше не нужно."],
    ["提交信息一律用英文写。", "提交信息用英文那条取消了。"],
    ["コミットメッセージは英語で書くこと。", "コミットメッセージを英語にするルールはもう廃止です。"],
    ["커밋 메시지는 영어로 써요.", "커밋 메시지 영어 규칙은 이제 없던 걸로 해요."],
  ])("a withdrawal still takes the rule back and writes nothing: %s / %s", async (rule, withdrawal) => {
    const p = tempProject();
    await extractText(p, jsonl([user(rule), assistant("OK."), user(withdrawal), assistant("Noted.")]));
    const store = loadStore(p.rulesDir);
    expect(store.rules.find((r) => r.text === rule)?.status).toBe("retired");
    expect(store.rules.filter((r) => r.status === "active")).toEqual([]);
    rmSync(p.dir, { recursive: true, force: true });
  });

  it("narrowingOf: a grant for a new case narrows; a release, a change of state or a lift everywhere does not", () => {
    const rule = "Always indent with spaces, never tabs.";
    expect(narrowingOf("Scratch that — tabs are fine in the Makefile.", rule)).toBe("tabs are fine in the Makefile.");
    expect(narrowingOf("Forget it, tabs are fine now.", rule)).toBeUndefined();
    expect(narrowingOf("Forget that, tabs are fine anywhere.", rule)).toBeUndefined();
    expect(narrowingOf("Forget the tabs rule, no need to convert the Makefile.", rule)).toBeUndefined();
    expect(narrowingOf("Scratch that.", rule)).toBeUndefined();
  });
});

describe("withdrawals and refinements by meaning across inflection", () => {
  it("a Russian withdrawal names its rule with other word endings ('время' / 'времени') and a pointer word ('про')", async () => {
    const p = tempProject();
    const rule = "Отчёты всегда строим по московскому времени.";
    const procedure = "Порядок выгрузки: сначала счета, потом отчёты, потом сверка с банком.";
    await extractText(p, jsonl([user(rule), assistant("Ок."), user(procedure), assistant("Ок."), user("Про время в отчётах забудь."), assistant("Понял.")]));
    const store = loadStore(p.rulesDir);
    expect(store.rules.find((r) => r.text === rule)?.status).toBe("retired");
    expect(store.rules.find((r) => r.text === procedure)?.status).toBe("active");
    rmSync(p.dir, { recursive: true, force: true });
  });
  it.each(["Bei uns im Frontend nutzen wir nur Vanilla-CSS.", "Para las colas solo usamos RabbitMQ.", "Для очередей используем только RabbitMQ."])("'we only use' is a convention in every language: %s", (text) => {
    expect(verdict(text)?.cues).toContain("convention");
  });
  it.each(["ログの保存期間は90日に変更します。", "連続稼働の上限は3台に変更、夜間は2台まで。"])("'に変更' refines a rule: %s", (text) => {
    expect(verdict(text)?.cues).toContain("refinement");
  });
});

describe("output-language directives, German practices, addenda and this week's rules", () => {
  it.each(["Please answer in English from here.", "Bitte antworten Sie mir auf Englisch.", "Respóndeme en español.", "Отвечай мне по-русски.", "请用中文回答我。", "返事は日本語でお願いします。", "답변은 한국어로 해 주세요."])(
    "an output-language directive is a rule (../shared/research/labelling-rules.md item 5): %s",
    (text) => {
      const v = verdict(text);
      expect(v?.cues).toContain("outputLanguage");
      expect(v?.kind, `${v?.score} [${v?.cues.join(",")}]`).toBe("rule");
    },
  );
  it("an answer-length wish is still not a rule", () => {
    expect(verdict("Answer briefly.")?.keep).toBe(false);
    expect(verdict("Antworte kurz.")?.keep).toBe(false);
  });
  it.each(["Rechnungsnummern vergeben wir fortlaufend pro Jahr.", "Logs sammeln wir zentral in Loki."])("a German practice in inverted order is a convention: %s", (text) => {
    expect(verdict(text)?.cues).toContain("convention");
  });
  it.each(["Das machen wir morgen.", "Gestern haben wir das gefixt."])("not a convention: %s", (text) => {
    expect(verdict(text)?.cues).not.toContain("convention");
  });
  it.each(["Nachtrag zu den Rechnungen: Stornos bekommen eine eigene Nummer.", "Addendum to the export rule: empty columns are dropped."])("an addendum refines: %s", (text) => {
    expect(verdict(text)?.cues).toContain("refinement");
  });
  it.each(["This week no schema changes, the auditors are in.", "Diese Woche keine Schemaänderungen, die Prüfer sind da.", "이번 주에는 스키마 변경하지 마세요."])("a rule for this week has an end: %s", (text) => {
    expect(verdict(text)?.cues).toContain("expiry");
  });
});

describe("scope is where a rule applies, not what it mentions", () => {
  const folders = ["collection/objects", "collection/loans", "orders", "roster", "import-asv", "connectors", "vendor", "billing", "docs"];
  it.each([
    ["Object records are never hard-deleted, we flip the status instead.", []],
    ["Loan agreements, the process is: 1. check the insurance 2. sign 3. file it", []],
    ["提交之前跑一下 npm run lint:orders，有报错就别提交。", []],
    ["Keep those in the vault, not in roster configs.", []],
    ["Sowas landet weder im Repo noch in docs.", []],
    ["Bis zu den Herbstferien fasst du import-asv nicht an.", ["import-asv/**"]],
    ["Hasta la entrega del viernes, no toques connectors.", ["connectors/**"]],
    ["До релиза не трогай vendor.", ["vendor/**"]],
    ["In billing, amounts are integers in cents.", ["billing/**"]],
    ["Billing amounts are integers in cents.", ["billing/**"]],
  ])("%s -> %j", (text, globs) => {
    expect(folderScope(text, folders)).toEqual(globs);
  });
});

describe("prohibitions on everyone or everything named, decisions and replacements", () => {
  it.each(["None of that goes into the wiki or into tickets.", "Nobody deploys from a laptop.", "Sowas kommt weder ins Ticket noch ins Wiki.", "Никто не деплоит с ноутбука.", "Nadie despliega desde un portátil."])("a prohibition on everyone or everything: %s", (text) => {
    expect(verdict(text)?.cues).toContain("normative");
  });
  it.each(["ログは JSON で出すことになりました。", "로그는 JSON으로 남기기로 했어요.", "Store amounts as minor units instead of decimals.", "Speichere Beträge in Cent statt als Dezimalzahl."])("a decision or a replacement refines the rule it changes: %s", (text) => {
    expect(verdict(text)?.cues).toContain("refinement");
  });
  it("a narrowing in polite Japanese ('かまいません') keeps its rule", async () => {
    const p = tempProject();
    const rule = "センサーの生データは上書きしない。";
    const narrowing = "生データの件、取り消しではなくて、tests/fixtures の中なら上書きしてかまいません。";
    await extractText(p, jsonl([user(rule), assistant("はい。"), user(narrowing), assistant("了解です。")]));
    const store = loadStore(p.rulesDir);
    expect(store.rules.find((r) => r.text === rule)?.status).toBe("active");
    expect(store.rules.some((r) => r.status === "active" && r.text.includes("tests/fixtures") && r.refines !== undefined)).toBe(true);
    rmSync(p.dir, { recursive: true, force: true });
  });
});

describe("a change of mind supersedes the rule it restates", () => {
  it.each([
    ["Every release goes through the changelog bot.", "On second thought, every release goes through the changelog bot and gets a signed tag."],
    ["Jeder Export läuft über den Prüfer.", "Präzisierung: Jeder Export läuft über den Prüfer und bekommt eine Freigabe."],
    ["发票上只写订单号。", "发票那条再补充一下：发票和快递单上都只写订单号。"],
  ])("%s / %s", async (rule, refined) => {
    const p = tempProject();
    await extractText(p, jsonl([user(rule), assistant("OK."), user(refined), assistant("OK.")]));
    const store = loadStore(p.rulesDir);
    expect(store.rules.find((r) => r.text === rule)?.status).toBe("retired");
    expect(store.rules.filter((r) => r.status === "active").map((r) => r.text)).toEqual([refined]);
    rmSync(p.dir, { recursive: true, force: true });
  });
});

describe("a reason or a header on its own is not a rule", () => {
  it.each(["今後は監査チームが直接見るから。", "自動テストがやってくれるので。", "파이프라인에 들어갔거든요.", "Because the auditors signed off.", "Weil der Hook das jetzt macht.", "Потому что CI это уже проверяет.", "発注の件、訂正。", "Correction:"])("dropped: %s", (text) => {
    expect(verdict(text)?.keep).toBe(false);
  });
  it.each(["Because the DB is shared, never run migrations locally.", "今日だけは main に直接 push していいです、デモ前なので。", "本番では必ず二人で確認するから、一人でデプロイしないで。"])("a rule with its reason is still a rule: %s", (text) => {
    expect(verdict(text)?.cues).not.toContain("reason");
  });
});
