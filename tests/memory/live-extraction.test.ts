import { describe, expect, it } from "vitest";
import { regexClassifier } from "../../scripts/engine/classify.js";
import { judge } from "../../scripts/memory/extract.js";
import { folderScope } from "../../scripts/memory/folder-scope.js";
import { splitSentences } from "../../scripts/memory/sentences.js";
import { loadUtteranceScorer } from "../../scripts/io/model-file.js";
import { parseUtteranceTsv, trainUtteranceModel, utteranceScorer } from "../../scripts/memory/utterance-model.js";
import { findWithdrawTarget } from "../../scripts/memory/withdraw.js";
import { assistant, jsonl, user } from "../fixtures/memory/jsonl.js";
import { activeRules, extractText, filesUnder, tempProject } from "./helpers.js";

const src = { session: "s", line: 1, offset: 0 };
const verdict = (text: string, folders: string[] = []) => judge([{ text, source: src }], regexClassifier, undefined, { folders, utterance: loadUtteranceScorer() })[0];

describe("procedures are one rule, kept whole", () => {
  it("a header ending in ':' and its numbered lines are one candidate, markers kept", () => {
    expect(splitSentences("Hi. Before a release, the order is:\n1. run the tests\n2. tag it\n\nThanks.")).toEqual([
      "Hi.",
      "Before a release, the order is:\n1. run the tests\n2. tag it",
      "Thanks.",
    ]);
  });
  it("inline numbered steps after a colon (tui prompts) stay with their header; a later sentence is apart", () => {
    expect(splitSentences("Release steps are: 1. bump the version 2. run the suite 3. push the tag. Thanks!")).toEqual([
      "Release steps are: 1. bump the version 2. run the suite 3. push the tag.",
      "Thanks!",
    ]);
  });
  it("a procedure without any cue word is kept as a procedural rule", () => {
    const v = verdict("Der Ablauf ist: 1. Branch anlegen 2. Test schreiben 3. Review anfordern");
    expect(v?.keep).toBe(true);
    expect(v?.type).toBe("procedural");
  });
});

describe("durability is decided by the sentence model, not a cue lexicon", () => {
  it("rules with no cue word are kept in several languages (at least 5 of 7); small talk with always/never is not", () => {
    const rules = [
      "Session tokens live in the keychain, not in local storage.",
      "Uploads landen im Objektspeicher, nie auf der lokalen Platte.",
      "Los informes se generan desde la réplica de lectura.",
      "Все суммы в отчётах округляются до копеек.",
      "日志统一走 logger。",
      "設定値は環境ごとの YAML から読む。",
      "업로드 파일은 오브젝트 스토리지에 둔다.",
    ];
    const kept = rules.filter((r) => verdict(r)?.keep);
    expect(kept.length, `kept: ${kept.join(" | ")}`).toBeGreaterThanOrEqual(5);
    for (const c of ["I can never find the right terminal tab.", "You always spot these typos, thank you!", "Keep your answers short, I'm on a call.", "Ты всегда так быстро отвечаешь, спасибо."]) expect(verdict(c)?.keep, c).toBe(false);
  });
  it("training is deterministic and the trained model separates its own two labels", () => {
    const rows = parseUtteranceTsv("rule\tNo pushes to main.\nrule\tTests run before every merge.\nchat\tThanks, that helps.\nchat\tWhat does this function do?\n", "en");
    const a = trainUtteranceModel(rows);
    expect(trainUtteranceModel(rows)).toEqual(a);
    const s = utteranceScorer(a);
    expect(s.logit("No pushes to main.")).toBeGreaterThan(0);
    expect(s.logit("Thanks, that helps.")).toBeLessThan(0);
    expect(() => parseUtteranceTsv("maybe\tx\n", "en")).toThrow(/rule.*chat/);
  });
  it("the bundled model scores a rule above a question", () => {
    const m = loadUtteranceScorer();
    expect(m.logit("Every schema change goes through a reviewed migration.")).toBeGreaterThan(m.logit("Why does the migration fail?"));
  });
});

describe("small talk with always/never, remarks and praise are not rules; rules with always/never are", () => {
  it.each([
    "The build was never reliable on Windows.",
    "Wow, that always happens right before a release.",
    "Этот сервис никогда не был стабильным.",
    "Nunca había visto un Makefile tan largo.",
    "Das war schon immer so in diesem Projekt.",
    "这个项目一直都挺乱的。",
    "Nice one, you never miss these.",
    "Danke, du denkst immer an alles.",
    "Man, I always forget the kubectl context flag.",
    "The flags, I can never keep them apart.",
    "毎回ポート番号を忘れちゃう。",
    "С тобой всегда приятно работать.",
  ])("dropped: %s", (text) => {
    const v = verdict(text);
    expect(v?.keep, `${v?.score} [${v?.cues.join(",")}]`).toBe(false);
  });
  it.each([
    "Always run Prettier before you commit.",
    "OK, I never want to see console.log in commits.",
    "Thanks, and from now on you never push to main.",
    "Renames are fine for fields that were never released.",
  ])("kept: %s", (text) => {
    expect(verdict(text)?.cues).not.toContain("pastHabit");
    expect(verdict(text)?.cues).not.toContain("selfRemark");
  });
  it("a remark with 'forget the' withdraws nothing", async () => {
    const p = tempProject();
    await extractText(p, jsonl([user("Always pass --context explicitly to kubectl."), assistant("Ok."), user("Man, I always forget the kubectl context flag."), assistant("Ok.")]));
    expect(activeRules(p.rulesDir)).toEqual(["Always pass --context explicitly to kubectl."]);
  });
});

describe("bounds and end dates are evidence, not doors", () => {
  it.each(["Reports refresh at most once an hour.", "Отчёты обновляются не чаще раза в час.", "报表最多一小时刷新一次。"])("a bound is a cue: %s", (text) => {
    expect(verdict(text)?.cues).toContain("limit");
  });
  it("'hold off on' is a prohibition, and with an end date it is kept with its expiry", () => {
    const v = verdict("Until the broker migration is done, hold off on adding new consumers.");
    expect(v?.cues).toEqual(expect.arrayContaining(["normative", "expiry"]));
    expect(v?.keep).toBe(true);
  });
  it("a question with a bound is still a question", () => {
    expect(verdict("Should reports refresh at most once an hour?")?.keep).toBe(false);
  });
});

describe("negated imperatives of any verb are prohibitions (issue 13, class 3)", () => {
  it.each(["本番のテーブルは触らないでください。", "운영 DB는 건드리지 마세요.", "Fass die Migrationen nicht an.", "Не запускай сиды на проде.", "勿提交 .env 文件。"])("%s", (text) => {
    expect(verdict(text)?.cues).toContain("normative");
  });
  it.each(["Mehr hält die Datenbank nicht aus.", "Не знаю, что там."])("not a prohibition: %s", (text) => {
    expect(verdict(text)?.cues).not.toContain("normative");
  });
  it("'今日中は' is an end date", () => {
    expect(verdict("今日中は plan も apply も流さないで。")?.cues).toEqual(expect.arrayContaining(["normative", "expiry"]));
  });
});

describe("refinements lean on their parent", { timeout: 30_000 }, () => {
  it("'… und jetzt auch …' supersedes the rule it extends", async () => {
    const p = tempProject();
    await extractText(p, jsonl([user("Bevor du pushst, lass den Linter und die Unit-Tests laufen."), assistant("Ok."), user("Bevor du pushst, laufen Linter, Unit-Tests und jetzt auch die E2E-Tests."), assistant("Ok.")]));
    expect(activeRules(p.rulesDir)).toEqual(["Bevor du pushst, laufen Linter, Unit-Tests und jetzt auch die E2E-Tests."]);
  });
  it("a weak refinement with no rule to refine is not stored", async () => {
    const p = tempProject();
    await extractText(p, jsonl([user("Make that 15 minutes for the canary, 30 was overkill."), assistant("Ok.")]));
    expect(activeRules(p.rulesDir)).toEqual([]);
  });
});

describe("narrowing, withdrawal by meaning, replays", { timeout: 30_000 }, () => {
  it("a narrowing keeps its parent and is stored as a rule of its own", async () => {
    const p = tempProject();
    await extractText(p, jsonl([user("No force-pushes to any branch."), assistant("Ok."), user("Force-pushing your own topic branches is fine, just not main."), assistant("Ok.")]));
    expect(activeRules(p.rulesDir)).toEqual(["No force-pushes to any branch.", "Force-pushing your own topic branches is fine, just not main."]);
  });
  it("a withdrawal worded differently finds its target by a compound's part and a shared name", () => {
    const rules = [
      { id: "a", text: "Amounts in ledger are integers in cents, never floats." },
      { id: "b", text: "Every endpoint gets an integration test." },
    ];
    expect(findWithdrawTarget(rules, "The cents-only thing for the ledger no longer applies.")?.id).toBe("a");
    expect(findWithdrawTarget(rules, "Scrap that requirement about the weather.")).toBeUndefined();
  });
  it("the clause that points at the rule names it; a replacement or reason in another clause is no counter-evidence", () => {
    const rules = [
      { id: "a", text: "pages では data fetching を getServerSideProps 経由で行う。" },
      { id: "b", text: "回填历史数据的做法：\n- 先在 dev 库跑一天\n- 再按月分批跑" },
      { id: "c", text: "在 benchmarks 里，每次 run 都 pin 住 batch size 和 GPU type。" },
    ];
    expect(findWithdrawTarget(rules, "getServerSideProps の件、App Router に移行するのでもう気にしなくていいです。")?.id).toBe("a");
    expect(findWithdrawTarget(rules, "回填那套流程作废了，现在换成 Airflow 的 backfill 命令。")?.id).toBe("b");
    expect(findWithdrawTarget(rules, "benchmarks 那条 pin batch size 的规则 scrap it，我们现在用 sweep 了。")?.id).toBe("c");
    // Naming several things none of which the rule has still finds nothing.
    expect(findWithdrawTarget(rules, "The Airflow and Kafka rule is gone.")).toBeUndefined();
  });
  it.each([
    "The staging freeze is no longer a thing.",
    "We're done with the feature-flag rule.",
    "Die Regel mit den Feature-Flags ist aufgehoben.",
    "La regla del squash queda sin efecto.",
    "Правило про squash отменяем.",
    "squash 的要求撤掉。",
    "changelog 규칙은 없애자.",
    "スクリーンショットはもう貼らなくていいです。",
  ])("a withdrawal without the usual verbs is one: %s", (text) => {
    expect(verdict(text)?.kind).toBe("retraction");
    expect(verdict(text)?.score).toBeLessThan(2.5);
  });
  it.each([
    ["Every PR needs a linked ticket.", "Stop worrying about tickets on PRs."],
    ["Every PR needs a linked ticket.", "The ticket requirement on PRs is gone, we track work in the board now."],
    ["No deploys on Fridays.", "About the Friday deploy freeze. That's over now."],
    ["Freitags keine Deployments.", "Zum Freitags-Deployment-Stopp: Das gilt nicht mehr."],
    ["Cada PR lleva un ticket enlazado.", "Lo del ticket en los PR ya no va."],
    ["По пятницам не деплоим.", "Насчёт запрета деплоя по пятницам. Это больше не действует."],
    ["周五不发布。", "关于周五不发布。那条作废了。"],
    ["PR には必ずチケットを紐づける。", "チケット紐づけのルールはもうなしで。"],
    ["PR에는 항상 티켓을 연결한다.", "PR 티켓 연결 규칙은 이제 없어."],
  ])("withdrawn in a real run (acronyms, particles, a subject in the sentence before): %s / %s", async (rule, withdrawal) => {
    const p = tempProject();
    const other = "Use pnpm, not npm.";
    await extractText(p, jsonl([user(rule), assistant("Ok."), user(other), assistant("Ok."), user(withdrawal), assistant("Ok.")]));
    expect(activeRules(p.rulesDir)).toEqual([other]);
  });
  it("a line replayed in a later run with its uuid but a new timestamp does not revive its withdrawn rule", async () => {
    const p = tempProject();
    const rule = user("Never deploy on Fridays.", "s1", { uuid: "u-r", timestamp: "2026-11-29T10:00:00.000Z" });
    const take = user("Forget the rule about Friday deploys.", "s1", { uuid: "u-t", timestamp: "2026-11-29T10:05:00.000Z" });
    const first = jsonl([rule, assistant("Ok."), take, assistant("Ok.")]);
    await extractText(p, first);
    expect(activeRules(p.rulesDir)).toEqual([]);
    const { appendFileSync } = await import("node:fs");
    appendFileSync(p.transcript, jsonl([user("Never deploy on Fridays.", "s1", { uuid: "u-r", timestamp: "2026-11-29T11:00:00.000Z" })]));
    await extractText(p, null);
    expect(activeRules(p.rulesDir)).toEqual([]);
    // The same words typed again (a new uuid) do bring the rule back.
    appendFileSync(p.transcript, jsonl([user("Never deploy on Fridays.", "s1", { uuid: "u-new", timestamp: "2026-11-29T12:00:00.000Z" })]));
    await extractText(p, null);
    expect(activeRules(p.rulesDir)).toEqual(["Never deploy on Fridays."]);
  });
  it("the sidecar keeps a consonant digest of the uuid, never the uuid (its digits could match a PIN typed elsewhere)", async () => {
    const { uuidDigest } = await import("../../scripts/memory/pipeline/extract-batch.js");
    expect(uuidDigest("5f0c4821-aa10-4b7e-9c11-0d2b3e4f5a6b")).toMatch(/^[bcdfghjklmnpqrstvwxz]{16}$/);
    expect(uuidDigest("x")).toBe(uuidDigest("x"));
    const p = tempProject();
    await extractText(p, jsonl([user("Never deploy on Fridays.", "s1", { uuid: "5f0c4821-aa10-4b7e-9c11-0d2b3e4f5a6b" })]));
    const { readFileSync } = await import("node:fs");
    const { join } = await import("node:path");
    const all = filesUnder(p.rulesDir).map((f) => readFileSync(join(p.rulesDir, f), "utf8")).join("\n");
    expect(all).toContain("Never deploy on Fridays.");
    expect(all).not.toContain("4821");
  });
  it("an exception that points back at its rule ('I said X, but', って言ったけど) nests under it; kana endings are no evidence of a target", async () => {
    const p = tempProject();
    await extractText(
      p,
      jsonl([
        user("スタイルは Tailwind のみ。"),
        assistant("了解です。"),
        user("pages では data fetching を getServerSideProps 経由で行う。"),
        assistant("了解です。"),
        user("Tailwind のみって言ったけど、styles の globals.css だけは例外で、編集していいです。"),
        assistant("了解です。"),
        user("getServerSideProps の件、App Router に移行するのでもう気にしなくていいです。"),
        assistant("了解です。"),
      ]),
    );
    expect(activeRules(p.rulesDir)).toEqual(["スタイルは Tailwind のみ。", "Tailwind のみって言ったけど、styles の globals.css だけは例外で、編集していいです。"]);
    const q = tempProject();
    await extractText(q, jsonl([user("I said the exceptions module is off-limits, but you can add new error classes there."), assistant("Ok.")]));
    expect(activeRules(q.rulesDir)).toEqual([]);
  });
  it("a withdrawal in other words retires its rule in a real run", async () => {
    const p = tempProject();
    await extractText(p, jsonl([user("Amounts in ledger are integers in cents, never floats."), assistant("Ok."), user("The cents-only thing for the ledger no longer applies, we use decimals there now."), assistant("Ok.")]));
    expect(activeRules(p.rulesDir)).not.toContain("Amounts in ledger are integers in cents, never floats.");
  });
  it("a replayed line (same uuid, as stream transcripts repeat around a compaction) does not revive a withdrawn rule", async () => {
    const p = tempProject();
    const rule = user("Never deploy on Fridays.", "s1", { uuid: "u-rule", timestamp: "2026-11-29T10:00:00.000Z" });
    const take = user("Forget the rule about Friday deploys.", "s1", { uuid: "u-take", timestamp: "2026-11-29T10:05:00.000Z" });
    await extractText(p, jsonl([rule, assistant("Ok."), take, assistant("Ok."), rule, take.replace("u-take", "u-take") ]));
    expect(activeRules(p.rulesDir)).toEqual([]);
    const q = tempProject();
    await extractText(q, jsonl([rule, assistant("Ok."), take]));
    await extractText(q, jsonl([rule, assistant("Ok."), take, assistant("Ok."), rule]));
    expect(activeRules(q.rulesDir)).toEqual([]);
  });
});

describe("scope from folder names without a slash", () => {
  const folders = ["services", "services/billing", "services/ledger", "docs", "notebooks"];
  it("after a preposition of each language, or as the subject, an existing folder scopes the rule", () => {
    expect(folderScope("In billing, never retry a charge.", folders)).toEqual(["services/billing/**"]);
    expect(folderScope("Im Ledger keine Gleitkommazahlen.", folders)).toEqual(["services/ledger/**"]);
    expect(folderScope("В billing никаких повторов.", folders)).toEqual(["services/billing/**"]);
    expect(folderScope("ledger 里的表只读。", folders)).toEqual(["services/ledger/**"]);
    expect(folderScope("Notebooks are never scheduled.", folders)).toEqual(["notebooks/**"]);
  });
  it("a folder that does not exist, a destination and a procedure give no scope", () => {
    expect(folderScope("In payments, never retry a charge.", folders)).toEqual([]);
    expect(folderScope("Copy the summary into docs before the release.", folders)).toEqual([]);
    expect(folderScope("The order is:\n1. in billing run the tests\n2. tag", folders)).toEqual([]);
  });
  it("more prepositions (sentence-initial for/для/bei/para, container nouns), particles without a space, compounds", () => {
    const more = [...folders, "infra", "sql", "sql/migrations", "tests", "tests/e2e"];
    expect(folderScope("For the billing service, retries are capped at three.", more)).toEqual(["services/billing/**"]);
    expect(folderScope("Для billing ретраи не больше трёх.", more)).toEqual(["services/billing/**"]);
    expect(folderScope("Bei billing nie automatisch erneut abbuchen.", more)).toEqual(["services/billing/**"]);
    expect(folderScope("En el módulo billing no se reintenta un cobro fallido.", more)).toEqual(["services/billing/**"]);
    expect(folderScope("Im billing-Modul werden Beträge in Cent gespeichert.", more)).toEqual(["services/billing/**"]);
    expect(folderScope("billing에서는 금액을 정수로 저장한다.", more)).toEqual(["services/billing/**"]);
    expect(folderScope("SQL-Migrationen werden nie nachträglich geändert.", more)).toEqual(["sql/migrations/**"]);
    expect(folderScope("Tests in e2e run against staging only.", more)).toEqual(["tests/e2e/**"]);
  });
  it("a prohibition on changing what lies in a path is scoped to it; an activity as the subject is not a folder scope", () => {
    expect(verdict("Never edit generated code in src/gen/.")?.globs).toEqual(["src/gen/**"]);
    expect(verdict("Ничего не правь в src/gen/ руками.")?.globs).toEqual(["src/gen/**"]);
    expect(verdict("Copy the release notes into docs/releases/.")?.globs).toEqual([]);
    expect(folderScope("Tests must pass before merging.", ["tests"])).toEqual([]);
    expect(folderScope("In tests, no network calls.", ["tests"])).toEqual(["tests/**"]);
  });
  it("an acronym in capitals is a language, not the lowercase folder; a file written into is not the scope", () => {
    expect(folderScope("SQL queries never use SELECT *.", ["sql"])).toEqual([]);
    expect(verdict("Document every new endpoint in docs/api/openapi.yaml.")?.globs).toEqual([]);
    expect(verdict("接口改动都写到 docs/api.yaml 里。")?.globs).toEqual([]);
    expect(verdict("In packages/api/src/gen/, never edit anything by hand.")?.globs).toEqual(["packages/api/src/gen/**"]);
  });
  it("judge uses the injected folder list", () => {
    expect(verdict("In billing, never retry a failed charge automatically.", folders)?.globs).toEqual(["services/billing/**"]);
    expect(verdict("In billing, never retry a failed charge automatically.")?.globs).toEqual([]);
  });
});

describe("refinement and expiry", { timeout: 30_000 }, () => {
  it("a refined rule supersedes its parent, with a record in the sidecar", async () => {
    const p = tempProject();
    await extractText(p, jsonl([user("Canary deploys always run for 30 minutes before promotion."), assistant("Ok."), user("Make that 15 minutes for the canary."), assistant("Ok.")]));
    const { loadStore } = await import("../../scripts/memory/store/state.js");
    const store = loadStore(p.rulesDir);
    const parent = store.rules.find((r) => r.text.startsWith("Canary deploys"));
    const child = store.rules.find((r) => r.text.startsWith("Make that"));
    expect(child?.status).toBe("active");
    expect(parent?.status).toBe("retired");
    expect(parent?.retiredReason).toBe("refined");
    expect(parent?.retiredById).toBe(child?.id);
  });
  it("'for today only' stores an expiry; a line on a later day retires the rule; an event-bound expiry stays", async () => {
    const p = tempProject();
    const day1 = (t: string, uuid: string) => user(t, "s1", { uuid, timestamp: "2026-11-29T10:00:00.000Z" });
    await extractText(p, jsonl([day1("For today only, you can skip the changelog step.", "d1"), day1("Until the billing migration is done, no schema changes in billing.", "d2")]));
    const { loadStore } = await import("../../scripts/memory/store/state.js");
    let store = loadStore(p.rulesDir);
    const today = store.rules.find((r) => r.text.startsWith("For today only"));
    expect(today?.until).toBe("For today only");
    expect(today?.expires).toBe("2026-11-29T23:59:59.999Z");
    expect(store.rules.find((r) => r.text.startsWith("Until the billing"))?.expires).toBeUndefined();
    await extractText(p, jsonl([day1("For today only, you can skip the changelog step.", "d1"), day1("Until the billing migration is done, no schema changes in billing.", "d2"), user("Never log card numbers.", "s1", { uuid: "d3", timestamp: "2026-11-30T09:00:00.000Z" })]));
    store = loadStore(p.rulesDir);
    expect(store.rules.find((r) => r.text.startsWith("For today only"))?.retiredReason).toBe("expired");
    expect(activeRules(p.rulesDir)).toEqual(["Until the billing migration is done, no schema changes in billing.", "Never log card numbers."]);
  });
});

describe("folder scope from a word: labels and branch names (found by the second fresh-user pass)", () => {
  const folders = ["rules", "src", "src/main", "src/main/java", "docs", "grades"];
  it("a 'Rule:' label and a branch named main are not folders; a folder after a locative still is", async () => {
    const { folderScope } = await import("../../scripts/memory/folder-scope.js");
    expect(folderScope("Rule: always update the docs when you change an API.", folders)).toEqual([]);
    expect(folderScope("앞으로는 절대로 main 브랜치에 직접 푸시하지 마세요.", folders)).toEqual([]);
    expect(folderScope("main ブランチには直接プッシュしないでください。", folders)).toEqual([]);
    expect(folderScope("Docs: keep them short.", folders)).toEqual(["docs/**"]);
    expect(folderScope("grades 스키마는 건드리지 마세요.", folders)).toEqual(["grades/**"]);
    expect(folderScope("main 里的代码不要直接改。", folders)).toEqual(["src/main/**"]);
  });
});
