/**
 * Issue 13, third generalisation pass: probe sentences written for these tests (none is in data/utterances or
 * data/sessions), in several languages, through real extraction runs on real-shaped transcripts. Scope of a rule
 * that expires ("Until …, X is read-only"), rules quoted or reported rather than given, a task that contains a rule,
 * and a sentence whose pronoun points at the sentence before it.
 */
import { rmSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { folderScope } from "../../scripts/memory/folder-scope.js";
import { loadStore } from "../../scripts/memory/store/state.js";
import { assistant, jsonl, user } from "../fixtures/memory/jsonl.js";
import { extractText, tempProject } from "./helpers.js";

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
