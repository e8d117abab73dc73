/**
 * Issue 13, third generalisation pass: probe sentences written for these tests (none is in data/utterances or
 * data/sessions), in several languages, through real extraction runs on real-shaped transcripts. Scope of a rule
 * that expires ("Until …, X is read-only"), rules quoted or reported rather than given, a task that contains a rule,
 * and a sentence whose pronoun points at the sentence before it.
 */
import { rmSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { folderScope } from "../../scripts/memory/folder-scope.js";
import { leansOnPrevious, reportedNotGiven } from "../../scripts/memory/reported.js";
import { meaningKeys } from "../../scripts/memory/withdraw.js";
import { loadStore } from "../../scripts/memory/store/state.js";
import { assistant, jsonl, user } from "../fixtures/memory/jsonl.js";
import { FAKE_SECRETS, holdsSecret } from "../fixtures/memory/secrets.js";
import { extractText, ruleFilesText, tempProject } from "./helpers.js";

/** Active rules (text and scope globs) after one extraction of the given user turns, each answered by the assistant. */
async function rulesAfter(turns: readonly string[], folders: readonly string[] = []): Promise<Array<{ text: string; scope: string[] }>> {
  const p = tempProject();
  try {
    await extractText(p, jsonl(turns.flatMap((t) => [user(t), assistant("OK.")])), { folders: [...folders] });
    return loadStore(p.rulesDir)
      .rules.filter((r) => r.status === "active")
      .map((r) => ({ text: r.text, scope: [...r.globs] }));
  } finally {
    rmSync(p.dir, { recursive: true, force: true });
  }
}

describe("a rule that expires is scoped to the folder it keeps off limits", () => {
  const folders = ["ledger", "ledger/core", "mobile", "mobile/app", "intake", "atlas", "reports"];
  it.each([
    ["Until the audit closes, ledger is read-only for you.", ["ledger/**"]],
    ["Until next Monday, leave mobile/app alone.", ["mobile/app/**"]],
    ["Bis zur Abnahme bitte keine Änderungen an intake.", ["intake/**"]],
    ["Bis Freitag, ledger bleibt eingefroren.", ["ledger/**"]],
    ["Hasta el cierre del trimestre, intake queda congelado.", ["intake/**"]],
    ["Пока идёт ревизия, то есть до пятницы, reports не трогаем.", ["reports/**"]],
    ["Diese Woche keine Änderungen am ATLAS-Modul, es wird geprüft.", ["atlas/**"]],
  ])("%s -> %j", async (text, globs) => {
    const rules = await rulesAfter([text], folders);
    expect(rules.find((r) => r.text.startsWith(text.slice(0, 12)))?.scope).toEqual(globs);
  });
  it.each([
    ["Shipments leave only through the ATLAS-Modul gateway.", []],
    ["Copy the nightly totals to reports when you are done.", []],
  ])("a folder a sentence only mentions gives no scope: %s", (text, globs) => {
    expect(folderScope(text, folders)).toEqual(globs);
  });
});

/** Store rules (text, status) after one extraction of the given user turns, each answered by the assistant. */
async function storeAfter(turns: readonly string[]): Promise<Array<{ text: string; status: string; retiredReason?: string }>> {
  const p = tempProject();
  try {
    await extractText(p, jsonl(turns.flatMap((t) => [user(t), assistant("OK.")])));
    return loadStore(p.rulesDir).rules.map((r) => ({ text: r.text, status: r.status, retiredReason: r.retiredReason }));
  } finally {
    rmSync(p.dir, { recursive: true, force: true });
  }
}

describe("a refinement supersedes the rule it changes, however it is announced", () => {
  it.each([
    ["Nightly backups are kept for 14 days, never longer.", "Small change to backups: nightly backups are kept for 30 days now, never longer.", "30 days"],
    ["모든 환불은 항상 정산 큐를 거칩니다.", "환불 얘기 좀 바꿀게. 환불은 정산 큐를 거치고, 팀장 승인도 받아야 해.", "팀장 승인"],
    ["アクセスログは取得から7日で消します。", "アクセスログの保存期間は取得から90日に変わりました。", "90日"],
    ["Цены в catalog храним в копейках, без исключений.", "Цены в catalog теперь храним в рублях с двумя знаками, тоже без исключений.", "рублях"],
    ["reports 里的报表一律用 PDF 格式。", "改一下报表格式：reports 里改成 HTML，不再出 PDF。", "HTML"],
    ["Invoices are always rendered as PDF.", "Change to invoices: they are always rendered as HTML now, no longer as PDF.", "HTML"],
  ])("%s / %s", async (rule, refined, mark) => {
    const rules = await storeAfter([rule, "Got it, thanks.", refined]);
    expect(rules.find((r) => r.text === rule)?.status).toBe("retired");
    expect(rules.some((r) => r.status === "active" && r.text.includes(mark))).toBe(true);
  });
  it("the header that announces the change is not a rule of its own", async () => {
    const rules = await storeAfter(["모든 환불은 항상 정산 큐를 거칩니다.", "환불 얘기 좀 바꿀게. 환불은 정산 큐를 거치고, 팀장 승인도 받아야 해."]);
    expect(rules.some((r) => r.text.includes("바꿀게"))).toBe(false);
  });
  it("a one-line change of format does not retire a checklist that shares a word with it", async () => {
    const checklist = "Порядок закрытия квартала:\n- выгрузить остатки по складам\n- сверить счета\n- отдать отчёт на проверку";
    const rules = await storeAfter([checklist, "Отчёты в reports теперь выгружаем в csv, никаких xlsx."]);
    expect(rules.find((r) => r.text.startsWith("Порядок закрытия"))?.status).toBe("active");
  });
});

describe("a rule quoted or reported is not a rule given", () => {
  it.each([
    "My manager says we must never squash commits, but I disagree, squash all you like.",
    'The old wiki said "Always deploy from the release branch" but that is outdated.',
    "Mein Kollege meint, man soll Migrationen immer von Hand schreiben, aber das sehe ich anders.",
    "Mi jefa dice que nunca usemos ORM, pero no estoy de acuerdo.",
    "Коллега говорит, что всегда надо писать тесты до кода, но я не согласен.",
    "同事说永远不要用 ORM，但我不同意。",
    'Translate to German: "Never store passwords in plain text."',
    "Переведи на английский: «Никогда не храни пароли в открытом виде».",
    "把这句翻译成日语：“永远不要在周五发布。”",
    "「本番には絶対に直接デプロイしない」を英語に翻訳して。",
  ])("not written: %s", async (text) => {
    expect(reportedNotGiven(text)).toBe(true);
    const rules = await rulesAfter([text]);
    expect(rules).toEqual([]);
  });
  it.each([
    "My manager says we always squash commits, and she is right: always squash.",
    "Never store passwords in plain text.",
    'Always quote paths in shell scripts, like "$HOME/bin".',
  ])("still a rule: %s", async (text) => {
    expect(reportedNotGiven(text)).toBe(false);
    expect((await rulesAfter([text])).length).toBe(1);
  });
});

describe("a rule whose object is a bare pronoun is kept with the sentence that names it", () => {
  it("the key sentence and its rule are written together, the key redacted", async () => {
    const stripe = FAKE_SECRETS.find((f) => f.name === "stripe") as (typeof FAKE_SECRETS)[number];
    const p = tempProject();
    try {
      const msg = `The staging payments key is ${stripe.needle}, use it for the smoke tests. Never print it in logs.`;
      await extractText(p, jsonl([user(msg), assistant("Understood.")]));
      const active = loadStore(p.rulesDir).rules.filter((r) => r.status === "active").map((r) => r.text);
      expect(active.some((t) => t.startsWith("Never print it"))).toBe(false);
      expect(active.some((t) => t.includes("payments key") && t.endsWith("Never print it in logs."))).toBe(true);
      expect(holdsSecret(ruleFilesText(p.rulesDir), stripe)).toBe(false);
    } finally {
      rmSync(p.dir, { recursive: true, force: true });
    }
  });
  it.each([
    ["Never print it in logs.", true],
    ["Gib es nie an Dritte weiter.", true],
    ["Nunca lo subas al repositorio.", true],
    ["Никогда не выводи его в логи.", true],
    ["别把它写进日志。", true],
    ["Never print tokens in logs.", false],
    ["Keep the staging key out of git, never print it in logs, and rotate it every month after the billing run.", false],
  ])("%s leans on the sentence before: %s", (text, leans) => {
    expect(leansOnPrevious(text)).toBe(leans);
  });
});

describe("a release worded as 'may be skipped now' takes its rule back", () => {
  it.each([
    ["배포 전에는 항상 스테이징에서 환불 시나리오를 돌립니다.", "배포 전 스테이징 환불 시나리오는 이제 생략하셔도 됩니다."],
    ["リリース前に必ず負荷テストを回すこと。", "リリース前の負荷テストは、もう省略してもいいです。"],
    ["发布前一定要跑一遍压力测试。", "发布前的压力测试以后可以省略了。"],
  ])("%s / %s", async (rule, release) => {
    const rules = await storeAfter([rule, "OK.", release]);
    expect(rules.find((r) => r.text === rule)?.status).toBe("retired");
    expect(rules.some((r) => r.status === "active" && r.text === release)).toBe(false);
  });
  it("a header 'X 방식을 변경합니다.' is not a rule; the sentence after it supersedes the rule it changes", async () => {
    const rules = await storeAfter(["포인트는 항상 주문 즉시 적립합니다.", "OK.", "포인트 적립 방식을 변경합니다. 포인트는 결제 확정 후에만 적립합니다."]);
    expect(rules.some((r) => r.text.includes("변경합니다"))).toBe(false);
    expect(rules.find((r) => r.text === "포인트는 항상 주문 즉시 적립합니다.")?.status).toBe("retired");
    expect(rules.some((r) => r.status === "active" && r.text.includes("결제 확정 후"))).toBe(true);
  });
});

describe("a withdrawal that names its rule by a loanword finds it ('テスト' / 'test:…', '템플릿' / 'templates')", () => {
  it.each([
    ["テスト", "test"],
    ["템플릿 테스트", "templ"],
    ["Про деплой", "deplo"],
  ])("%s has the key %s", (text, key) => {
    expect(meaningKeys(text).has(key)).toBe(true);
  });
  it.each([
    [["デプロイの前に npm run test:api を回すこと。", "main には絶対に直接 push しないこと。"], "デプロイ前のテストの件は取り消します。"],
    [["배포 전에 항상 npm run test:templates 돌려요.", "main 브랜치에는 절대 직접 푸시하지 마세요."], "아까 템플릿 테스트 얘기요, 그거 이제 안 해도 돼요."],
  ])("%j / %s", async ([target, other], withdrawal) => {
    const rules = await storeAfter([target as string, "OK.", other as string, "OK.", withdrawal]);
    expect(rules.find((r) => r.text === target)?.status).toBe("retired");
    expect(rules.find((r) => r.text === other)?.status).toBe("active");
  });
});
