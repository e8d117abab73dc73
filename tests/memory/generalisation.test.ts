/**
 * Issue 13, generalisation pass: probe sentences written for these tests (none is in data/utterances or data/sessions),
 * in the seven languages, through the judge and through real extraction runs on real-shaped transcripts.
 */
import { describe, expect, it } from "vitest";
import { regexClassifier } from "../../scripts/engine/classify.js";
import { loadUtteranceScorer } from "../../scripts/io/model-file.js";
import { judge, toStatement } from "../../scripts/memory/extract.js";
import { expiresAt } from "../../scripts/memory/expiry.js";
import { inferScope } from "../../scripts/operators/scope.js";
import { untouchedClauses } from "../../scripts/memory/withdraw.js";
import { folderScope } from "../../scripts/memory/folder-scope.js";
import { loadStore } from "../../scripts/memory/store/state.js";
import { assistant, jsonl, user } from "../fixtures/memory/jsonl.js";
import { activeRules, extractText, tempProject } from "./helpers.js";

const src = { session: "s", line: 1, offset: 0 };
const verdict = (text: string) => judge([{ text, source: src }], regexClassifier, undefined, { folders: [], utterance: loadUtteranceScorer() })[0];

describe("rules without a cue word, conditionals and 'X only' are kept in every language", () => {
  it.each([
    "Timestamps in the API are UTC with an explicit offset.",
    "Postgres only, no SQLite even in tests.",
    "Every migration goes through the review channel.",
    "If a test is flaky, quarantine it instead of retrying.",
    "Customer emails are masked in every log line.",
    "Zeitstempel in der API sind UTC mit explizitem Offset.",
    "Nur Postgres, auch in den Tests kein SQLite.",
    "Wenn ein Test flackert, kommt er in Quarantäne statt erneut zu laufen.",
    "Las fechas de la API van en UTC con desfase explícito.",
    "Si un test falla de forma intermitente, se pone en cuarentena.",
    "Время в API хранится в UTC со смещением.",
    "Если тест флапает, его отправляют в карантин.",
    "接口返回的时间是带时区偏移的 UTC。",
    "测试不稳定的话就先隔离，不要重跑。",
    "API の時刻はオフセット付きの UTC で返す。",
    "テストが不安定なら隔離して、再実行はしない。",
    "API 시간은 오프셋이 있는 UTC로 반환한다.",
    "테스트가 불안정하면 격리하고 재실행하지 않는다.",
  ])("kept: %s", (text) => {
    const v = verdict(text);
    expect(v?.kind, `${v?.score} [${v?.cues.join(",")}]`).toBe("rule");
  });
  it.each([
    "Can you add a retry to the upload function?",
    "Please rename this variable to userCount.",
    "That test has been red since Tuesday.",
    "Kannst du der Upload-Funktion einen Retry geben?",
    "Der Test ist seit Dienstag rot.",
    "¿Puedes añadir un reintento a la subida?",
    "Ese test está en rojo desde el martes.",
    "Можешь добавить ретрай в загрузку?",
    "Этот тест красный со вторника.",
    "你能给上传加个重试吗？",
    "这个测试从周二开始就是红的。",
    "アップロードにリトライを追加してくれる？",
    "このテストは火曜日から赤いです。",
    "업로드에 재시도 좀 추가해 줄래?",
    "이 테스트는 화요일부터 빨간색이야.",
  ])("one-off requests, questions and status are dropped: %s", (text) => {
    const v = verdict(text);
    expect(v?.keep, `${v?.score} [${v?.cues.join(",")}]`).toBe(false);
  });
  it.each(["If a test is flaky, quarantine it.", "Wenn der Build rot ist, wird nicht gemergt.", "Si falla el deploy, se avisa al equipo.", "Если миграция упала, релиз останавливаем.", "如果接口变了的话，先改文档。", "本番で障害が出たら、まず Slack に書く。"])(
    "a standing trigger is a conditional cue: %s",
    (text) => {
      expect(verdict(text)?.cues).toContain("conditional");
    },
  );
  it("a question with 'if' is not a conditional rule", () => {
    expect(verdict("If the cache is cold, is the first request slow?")?.keep).toBe(false);
  });
});

describe("a wish in the first person is a rule, a remark about oneself is not (issue 13, class 7)", () => {
  it.each([
    "I never want to see console.log in committed code.",
    "Ich will nie wieder console.log im committeten Code sehen.",
    "No quiero ver nunca console.log en el código que se sube.",
    "Не хочу больше видеть console.log в закоммиченном коде.",
    "我不想在提交的代码里看到 console.log。",
    "コミットされたコードに console.log は残さないでほしい。",
    "커밋된 코드에 console.log가 보이면 안 돼.",
  ])("kept as a prohibition: %s", (text) => {
    const v = verdict(text);
    expect(v?.cues).not.toContain("selfRemark");
    expect(v?.cues).toContain("normative");
    expect(v?.kind).toBe("rule");
  });
  it.each([
    "I never remember which port the admin panel runs on.",
    "Ich weiß nie, auf welchem Port der Admin läuft.",
    "Nunca me acuerdo del puerto del panel.",
    "Я вечно забываю порт админки.",
    "我老是记不住后台的端口。",
    "관리자 포트를 맨날 까먹어.",
    "Релиз большой, не хочу рисковать.",
  ])("dropped: %s", (text) => {
    expect(verdict(text)?.keep).toBe(false);
  });
});

describe("a withdrawal of one clause of a compound rule keeps the other clause", { timeout: 30_000 }, () => {
  it.each([
    ["Never deploy on Fridays and always tag releases with the version.", "The Friday deploy freeze is over now.", "always tag releases with the version."],
    ["Keine Deployments am Freitag und Releases immer mit der Version taggen.", "Der Freitags-Stopp gilt nicht mehr.", "Releases immer mit der Version taggen."],
    ["Nunca despliegues en viernes y etiqueta siempre las releases con la versión.", "Lo de los viernes ya no aplica.", "etiqueta siempre las releases con la versión."],
    ["Никогда не деплой в пятницу; релизы всегда помечай тегом версии.", "Запрет на пятницу больше не действует.", "релизы всегда помечай тегом версии."],
    ["周五不发布；发版一律打版本标签。", "周五不发布那条作废了。", "发版一律打版本标签"],
    ["금요일에는 배포하지 않는다; 릴리스에는 항상 버전 태그를 단다.", "금요일 배포 규칙은 이제 없어.", "릴리스에는 항상 버전 태그를 단다."],
  ])("%s / %s", async (rule, withdrawal, rest) => {
    const p = tempProject();
    await extractText(p, jsonl([user(rule), assistant("Ok."), user(withdrawal), assistant("Ok.")]));
    expect(activeRules(p.rulesDir)).toEqual([rest]);
    // The whole rule stays in the sidecar, retired by the withdrawal, and the kept clause points at it.
    const store = loadStore(p.rulesDir);
    const whole = store.rules.find((r) => r.text === rule);
    expect(whole?.status).toBe("retired");
    expect(store.rules.find((r) => r.text === rest)?.retires).toEqual([whole?.id]);
  });
  it("a withdrawal that names every clause, or a clause that leans on the one before, retires the whole rule", () => {
    expect(untouchedClauses("Never deploy on Fridays and always tag releases.", "Forget the Friday deploys and the release tags.")).toBeUndefined();
    expect(untouchedClauses("Secrets live in the vault, they never go into config files.", "Forget the vault rule.")).toBeUndefined();
    // A clause without a rule cue ("tests before pushing") is not a rule of its own.
    expect(untouchedClauses("Run lint and tests before pushing.", "Forget the lint part.")).toBeUndefined();
    expect(untouchedClauses("Never deploy on Fridays and weekends.", "The weekend part no longer applies.")).toBe("Never deploy on Fridays");
  });
});

describe("narrowing and topic sentences", { timeout: 30_000 }, () => {
  it("'X is OK, never anything else in Y' narrows and keeps its parent", async () => {
    const p = tempProject();
    await extractText(p, jsonl([user("Nothing in the scratch folder goes to production."), assistant("Ok."), user("Shipping the scratch health check is OK, never anything else in scratch."), assistant("Ok.")]));
    expect(activeRules(p.rulesDir)).toEqual(["Nothing in the scratch folder goes to production.", "Shipping the scratch health check is OK, never anything else in scratch."]);
  });
  it("the sentence a withdrawal takes its subject from is not stored as a rule", async () => {
    const p = tempProject();
    await extractText(p, jsonl([user("Releases are never cut on Mondays."), assistant("Ok."), user("Regarding releases on Mondays. That one is retired."), assistant("Ok.")]));
    expect(activeRules(p.rulesDir)).toEqual([]);
  });
});

describe("a standing release from an obligation withdraws the rule that asked for it (issue 13, class 5)", { timeout: 60_000 }, () => {
  const other = "Use pnpm, not npm.";
  it.each([
    ["Every PR description links the design doc.", "We stopped asking for design doc links in PRs."],
    ["Every PR description links the design doc.", "Design doc links in PR descriptions aren't necessary anymore."],
    ["Run the smoke tests after every deploy.", "Skip the post-deploy smoke tests from here on, the canary covers it."],
    ["Jeder PR verlinkt das Design-Dokument.", "Design-Dokument-Links in PRs brauchen wir nicht mehr."],
    ["Nach jedem Deploy laufen die Smoke-Tests.", "Die Smoke-Tests nach dem Deploy kannst du ab jetzt weglassen."],
    ["Cada PR enlaza el documento de diseño.", "Ya no hace falta enlazar el documento de diseño en los PR."],
    ["Después de cada despliegue se corren los smoke tests.", "Los smoke tests tras el despliegue sobran, ya los cubre el canario."],
    ["Каждый PR ссылается на дизайн-документ.", "Ссылки на дизайн-документ в PR больше не нужны."],
    ["После каждого деплоя гоняем смоук-тесты.", "Смоук-тесты после деплоя можно больше не гонять."],
    ["每个 PR 都要链接设计文档。", "PR 里不用再链接设计文档了。"],
    ["每次部署后跑冒烟测试。", "部署后的冒烟测试以后可以不跑了。"],
    ["PR には必ず設計ドキュメントのリンクを貼る。", "PR の設計ドキュメントのリンクはもう不要です。"],
    ["デプロイのたびにスモークテストを回す。", "デプロイ後のスモークテストは今後やらなくていい。"],
    ["PR에는 항상 설계 문서 링크를 단다.", "PR 설계 문서 링크는 이제 안 달아도 돼."],
    ["배포할 때마다 스모크 테스트를 돌린다.", "배포 후 스모크 테스트는 이제 안 돌려도 된다."],
  ])("%s / %s", async (rule, release) => {
    const p = tempProject();
    await extractText(p, jsonl([user(rule), assistant("Ok."), user(other), assistant("Ok."), user(release), assistant("Ok.")]));
    expect(activeRules(p.rulesDir)).toEqual([other]);
  });
  it("a release for a while is an exception: the rule stays", async () => {
    const p = tempProject();
    const rule = "Before you open a PR, run the linter and update CHANGELOG.md.";
    await extractText(p, jsonl([user(rule), assistant("Ok."), user("For today only, you can skip the CHANGELOG step."), assistant("Ok.")]));
    expect(activeRules(p.rulesDir)).toContain(rule);
  });
  it("a standing release that takes back no rule stays a rule of its own when it scores as one", async () => {
    const p = tempProject();
    await extractText(p, jsonl([user("From now on you no longer need to ask before running the unit tests."), assistant("Ok.")]));
    expect(activeRules(p.rulesDir)).toEqual(["From now on you no longer need to ask before running the unit tests."]);
  });
});

describe("a path after a preposition of each language is where the rule applies (issue 13, class 9)", () => {
  it.each([
    "Внутри jobs/export только CSV с точкой с запятой.",
    "Для экспорта в jobs/export — только CSV.",
    "Innerhalb von jobs/export nur CSV.",
    "Dentro de jobs/export solo CSV.",
    "jobs/export では CSV だけを書き出す。",
    "jobs/export 에서는 CSV만 쓴다.",
  ])("%s", (text) => {
    expect(inferScope(text).globs).toEqual(["jobs/export/**"]);
  });
  it("folder names without a slash scope a rule in every language", () => {
    const folders = ["services", "services/billing", "jobs", "jobs/export"];
    for (const text of [
      "In the billing folder, amounts are integer cents.",
      "Im Ordner billing sind Beträge ganze Cent.",
      "En la carpeta billing los importes van en céntimos.",
      "В папке billing суммы хранятся в копейках.",
      "billing 目录下的金额都用整数分。",
      "billing フォルダでは金額を整数で持つ。",
      "billing 폴더에서는 금액을 정수로 저장한다.",
    ]) {
      const v = judge([{ text, source: src }], regexClassifier, undefined, { folders, utterance: loadUtteranceScorer() })[0];
      expect(v?.globs, text).toEqual(["services/billing/**"]);
    }
  });
});

describe("expiries and one-off requests", () => {
  const at = "2026-11-29T10:00:00.000Z";
  const judged = (text: string) => judge([{ text, source: { ...src, at } }], regexClassifier, undefined, { folders: [], utterance: loadUtteranceScorer() })[0];
  it.each([
    ["Until the 2.0 release, no new public endpoints.", "Until the 2.0 release", undefined],
    ["Bis zum Release keine neuen Abhängigkeiten.", "Bis zum Release keine neuen Abhängigkeiten", undefined],
    ["Hasta la release 2.0, nada de endpoints públicos nuevos.", "Hasta la release 2.0", undefined],
    ["До релиза никаких новых зависимостей.", "До релиза никаких новых зависимостей", undefined],
    ["暂时不要动 staging。", "暂时", undefined],
    ["リリースまでは新しい依存を追加しない。", "リリースまで", undefined],
    ["릴리스까지는 새 의존성을 추가하지 않는다.", "릴리스까지", undefined],
    ["Until 2026-12-24, no deploys to prod.", "Until 2026-12-24", "2026-12-24T23:59:59.999Z"],
  ])("%s stores its end", (text, until, expires) => {
    const v = judged(text);
    expect(v?.kind).toBe("rule");
    const st = toStatement(v as NonNullable<typeof v>);
    expect(st.until).toBe(until);
    expect(st.expires).toBe(expires);
  });
  it.each([
    ["Until March 15", "2027-03-15T23:59:59.999Z"],
    ["Bis zum 15. März", "2027-03-15T23:59:59.999Z"],
    ["hasta el 15 de marzo", "2027-03-15T23:59:59.999Z"],
    ["до 15 марта", "2027-03-15T23:59:59.999Z"],
    ["3月15日まで", "2027-03-15T23:59:59.999Z"],
    ["3월 15일까지", "2027-03-15T23:59:59.999Z"],
    ["until December 1", "2026-12-01T23:59:59.999Z"],
    ["until the migration is done", undefined],
  ])("a day named without a year is the next such day: %s", (until, expires) => {
    expect(expiresAt(until, at)).toBe(expires);
  });
  it.each([
    "For this PR, skip the changelog.",
    "Just this once, push straight to main.",
    "Diesmal ohne Changelog.",
    "Esta vez sáltate el changelog.",
    "В этот раз без changelog.",
    "这次先不写 changelog。",
    "今回は changelog なしで。",
    "이번에는 changelog 없이 가자.",
  ])("a one-off request is neither a rule nor a withdrawal: %s", (text) => {
    expect(judged(text)?.keep).toBe(false);
  });
});

describe("polite and written-rule registers (ja 〜てください / 〜こと / 〜だけです, de 'X verb wir'), and what stays chat", () => {
  it.each([
    "ログには個人情報を出さないようにしてください。",
    "環境変数はすべて .env.example に書いておくこと。",
    "本番環境へのデプロイは木曜日だけです。",
    "依存パッケージのメジャーアップデートは相談してからにしてください。",
    "PR-Titel schreiben wir auf Englisch.",
    "Vor dem Merge nach main müssen alle Tests grün sein.",
  ])("kept: %s", (text) => {
    expect(verdict(text)?.kind).toBe("rule");
  });
  it.each([
    "このエラーの原因を調べてください。",
    "さっきのコマンドをもう一度実行してください。",
    "問題は、テストが遅いこと。",
    "会議が終わってから見ます。",
    "Dann machen wir das so.",
    "Morgen besprechen wir den Rest.",
    "Such bitte die Ursache für diesen Fehler.",
  ])("dropped: %s", (text) => {
    expect(verdict(text)?.keep).toBe(false);
  });
  it("'above' before a number is a bound, not a pointer at the text above; an imperative over 'any …' is universal", () => {
    const v = verdict("Flag any potassium value above 5.5 mmol/L at the top of the summary.");
    expect(v?.cues).not.toContain("deictic");
    expect(v?.cues).toContain("universal");
    expect(verdict("Fix the test above.")?.cues).toContain("deictic");
  });
});

describe("one withdrawal, several rules; a permission given back", { timeout: 60_000 }, () => {
  const other = "Use pnpm, not npm.";
  it.each([
    [["No deploys on Fridays.", "Every PR updates the changelog."], "Forget the Friday freeze and the changelog rule."],
    [["Keine Deployments am Freitag.", "Jeder PR aktualisiert das Changelog."], "Vergiss den Freitags-Stopp und die Changelog-Regel."],
  ])("each subject named takes back its own rule: %s / %s", async (rules, withdrawal) => {
    const p = tempProject();
    await extractText(p, jsonl([...rules.flatMap((r) => [user(r), assistant("Ok.")]), user(other), assistant("Ok."), user(withdrawal), assistant("Ok.")]));
    expect(activeRules(p.rulesDir)).toEqual([other]);
  });
  it.each([
    ["No deploys on Fridays.", "Deploying on Fridays is fine again."],
    ["Nunca despliegues en viernes.", "Ya se puede desplegar los viernes otra vez."],
    ["Никогда не деплой в пятницу.", "По пятницам снова можно деплоить."],
    ["周五不发布。", "周五现在也可以发布了。"],
    ["金曜日はデプロイしない。", "金曜日もデプロイしていいことになりました。"],
  ])("the prohibition is retired: %s / %s", async (rule, back) => {
    const p = tempProject();
    await extractText(p, jsonl([user(rule), assistant("Ok."), user(other), assistant("Ok."), user(back), assistant("Ok.")]));
    expect(activeRules(p.rulesDir)).not.toContain(rule);
    expect(activeRules(p.rulesDir)).toContain(other);
  });
});

describe("a code name inside Chinese, Japanese or Korean text that is an existing folder scopes the rule", () => {
  const folders = ["server", "server/gateway", "app", "app/appointments", "app/config", "api", "api/grades", "deploy", "deploy/scripts", "serving", "serving/models"];
  it.each([
    ["这周五之前，gateway 不合并任何新功能。", ["server/gateway/**"]],
    ["今天先别动 appointments，前台在用。", ["app/appointments/**"]],
    ["이번 학기 동안 grades 스키마는 건드리지 마세요.", ["api/grades/**"]],
    ["金曜まで、deploy の scripts には手を入れないでください。", ["deploy/scripts/**"]],
    // A class name in capitals, an inflected word, a longer identifier: no scope.
    ["key 都放 .env，代码里只通过 Config 读。", []],
    ["所有 model artifacts 都从 model-registry bucket 加载。", []],
  ])("%s", (text, globs) => {
    expect(folderScope(text, folders)).toEqual(globs);
  });
});

describe("more withdrawal and refinement wordings (s3 sessions as dev)", { timeout: 60_000 }, () => {
  const other = "Use pnpm, not npm.";
  it.each([
    ["Antes de publicar, revisa los enlaces rotos.", "Lo de revisar los enlaces antes de publicar, olvídalo; ya lo hace el CI."],
    ["Antes de publicar, revisa los enlaces rotos.", "Lo de los enlaces rotos, déjalo; ahora lo revisa el CI."],
    ["В payments без Марины ничего не меняем.", "Про Марину и payments — отбой, она теперь в другой команде."],
    ["发布之前先跑一遍 lint。", "发布前跑 lint 那条先不管了，CI 会做。"],
    ["배포 전에 스키마 검증부터 돌려요.", "스키마 검증 얘기는 이제 안 해도 돼요, CI에 들어갔어요."],
  ])("%s / %s", async (rule, withdrawal) => {
    const p = tempProject();
    await extractText(p, jsonl([user(rule), assistant("Ok."), user(other), assistant("Ok."), user(withdrawal), assistant("Ok.")]));
    expect(activeRules(p.rulesDir)).toEqual([other]);
  });
  it.each([
    ["Las fechas se escriben en formato largo.", "Cambio sobre las fechas: a partir de ahora en formato ISO."],
    ["Логи в drivers только через LOG_DBG.", "Поправлю себя насчёт drivers: логи там теперь только через LOG_TRACE."],
  ])("a refinement supersedes its rule: %s / %s", async (rule, refined) => {
    const p = tempProject();
    await extractText(p, jsonl([user(rule), assistant("Ok."), user(refined), assistant("Ok.")]));
    expect(activeRules(p.rulesDir)).toEqual([refined]);
  });
});

describe("states as rules, Russian conditionals and observations, narrowings that keep the rest (s3 sessions as dev)", () => {
  it.each([
    ["Config lives in settings/app.toml, nowhere else.", "fact"],
    ["Der Release-Branch ist eingefroren.", "fact"],
    ["La rama de release está congelada.", "fact"],
    ["Релизная ветка заморожена.", "fact"],
    ["发布分支是冻结的。", "fact"],
    ["リリースブランチは凍結。", "fact"],
    ["Прежде чем мержить, прогони линтер.", "conditional"],
    ["결제 모듈에서는 카드 번호를 로그에 남기지 않아요.", "convention"],
  ])("%s has the cue %s", (text, cue) => {
    expect(verdict(text)?.cues).toContain(cue);
  });
  it("'you never …' in the indicative, said to the assistant, is an observation, not a rule", () => {
    expect(verdict("Ты, кстати, никогда не забываешь про тесты, это редкость.")?.keep).toBe(false);
    expect(verdict("Никогда не забывай про тесты.")?.cues).not.toContain("pastHabit");
  });
  it.each([
    "Насчёт ревью: для опечаток оно не нужно, для остальных по-прежнему обязательно.",
    "Zum Review: bei Tippfehlern brauchst du es nicht mehr, sonst gilt es weiterhin.",
    "Lo de la revisión: para erratas no hace falta, en lo demás sigue siendo obligatoria.",
  ])("a release for some cases that keeps the rest is a narrowing, kept as a rule: %s", (text) => {
    expect(verdict(text)?.kind).toBe("rule");
  });
});

describe("a refinement applies where its rule applies", { timeout: 30_000 }, () => {
  it("inherits the scope of the rule it refines when it names no place of its own", async () => {
    const p = tempProject();
    await extractText(p, jsonl([user("In packages/payouts/, anything over 10k goes to a human reviewer."), assistant("Ok."), user("Correction on payouts: anything over 5k now goes to a human reviewer, starting today."), assistant("Ok.")]));
    const store = loadStore(p.rulesDir);
    const child = store.rules.find((r) => r.text.startsWith("Correction on payouts"));
    expect(child?.status).toBe("active");
    expect(child?.globs).toEqual(["packages/payouts/**"]);
    expect(store.rules.find((r) => r.text.startsWith("In packages/payouts/"))?.retiredReason).toBe("refined");
  });
  it("a Korean release that names its rule by one word finds it (particles and function words are no keys)", async () => {
    const p = tempProject();
    await extractText(p, jsonl([user("배포 전에 스모크 테스트부터 돌려요."), assistant("네."), user("Use pnpm, not npm."), assistant("네."), user("스모크 테스트 얘기는 이제 안 해도 돼요, 파이프라인에 들어갔거든요."), assistant("네.")]));
    expect(activeRules(p.rulesDir)).toEqual(["Use pnpm, not npm."]);
  });
});
