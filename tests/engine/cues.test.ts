import { describe, expect, it } from "vitest";
import { formNames, lineForms, sectionKind } from "../../scripts/engine/cues.js";
import { fitDecisionOffsets } from "../../scripts/engine/train.js";

const forms = (text: string, kind = "list-item"): string[] => formNames(lineForms(text, `- ${text}`, kind));

describe("lineForms: the same rule shapes in seven languages", () => {
  it("prohibitions", () => {
    for (const t of [
      "Never push straight to main.",
      "Nunca subas secretos al repositorio.",
      "Niemals direkt auf main pushen.",
      "Никогда не коммить ключи в репозиторий.",
      "不要在生产环境直接修改数据库。",
      "本番データベースを直接変更しないこと。",
      "운영 DB를 직접 수정하지 마세요.",
    ]) {
      expect(forms(t), t).toContain("prohib");
    }
  });
  it("obligations and softeners", () => {
    for (const t of ["Tests must pass before merge.", "Antes de fusionar, siempre ejecuta las pruebas.", "Vor dem Merge muss die CI grün sein.", "Всегда запускай тесты перед слиянием.", "合并前必须通过测试。", "マージ前に必ずテストを実行する。", "병합 전에 반드시 테스트를 실행합니다."]) {
      expect(forms(t), t).toContain("oblig");
    }
    for (const t of ["Prefer small pure functions.", "Preferiblemente usa funciones puras.", "Möglichst kleine Funktionen schreiben.", "Желательно писать короткие функции.", "尽量使用纯函数。", "なるべく純粋関数を使う。", "가급적 순수 함수를 사용합니다."]) {
      expect(forms(t), t).toContain("soft");
    }
  });
  it("narrated completed work, including noun-phrase logs in Japanese and Korean", () => {
    for (const t of ["Fixed the flaky checkout test.", "Se corrigió el cálculo del IVA.", "Login-Fehler behoben.", "Исправлена ошибка авторизации.", "已修复登录超时问题", "ログイン画面の実装完了", "결제 모듈 구현 완료"]) {
      expect(forms(t), t).toContain("past");
    }
    expect(forms("検索APIのキャッシュ層を追加")).toContain("nounstop");
    expect(forms("検索APIにキャッシュを追加する")).not.toContain("nounstop");
  });
  it("shapes: table row, tree, checklist marks, paths, commands, persona, output language, metadata", () => {
    expect(forms("| `api/` | HTTP handlers |", "table-row")).toEqual(expect.arrayContaining(["table", "np"]));
    expect(forms("├── src/")).toContain("tree");
    expect(forms("✅ Migrated the billing tables")).toEqual(expect.arrayContaining(["done", "past"]));
    expect(forms("❌ Rewriting whole components")).toContain("no");
    expect(forms("[ ] Add rate limiting")).toContain("todo");
    expect(forms("`scripts/seed.ts` — loads demo rows")).toContain("path");
    expect(forms("npm run lint -- --fix")).toContain("cmd");
    expect(forms("You are a careful billing support assistant.")).toContain("persona");
    expect(forms("回答は日本語で書く")).toContain("lang");
    expect(forms("**Last updated**: 2025-03-02")).toEqual(expect.arrayContaining(["meta", "date"]));
  });
  it("a short label with no verb is a noun phrase; a sentence with a verb cue is not", () => {
    expect(forms("Payment gateway")).toContain("np");
    expect(forms("Run the payment gateway tests")).not.toContain("np");
  });
});

describe("sectionKind: from the lead-in and the nearest headings", () => {
  it("reads binding, soft, log, reference and procedure sections in several languages", () => {
    expect(sectionKind(["Project", "NEVER"], "")).toBe("binding");
    expect(sectionKind(["禁止事項"], "")).toBe("binding");
    expect(sectionKind(["Code style"], "")).toBe("soft");
    expect(sectionKind(["進捗"], "")).toBe("log");
    expect(sectionKind(["Прогресс"], "")).toBe("log");
    expect(sectionKind(["Sessions", "2025-04-01"], "")).toBe("log");
    expect(sectionKind(["Projektstruktur"], "")).toBe("reference");
    expect(sectionKind(["Nächste Schritte"], "")).toBe("procedure");
    expect(sectionKind(["Notes"], "")).toBe("neutral");
  });
  it("work not yet done is a procedure, even where a completion cue is inside the word", () => {
    // 未完了 holds 完了, 미완료 holds 완료, "Not done yet" holds "done": all are to-do sections (labelling-rules.md §9).
    expect(sectionKind(["進捗", "未完了"], "")).toBe("procedure");
    expect(sectionKind(["진행 상황", "미완료 작업"], "")).toBe("procedure");
    expect(sectionKind(["Progress", "Not done yet"], "")).toBe("procedure");
    expect(sectionKind(["Progress", "Done"], "")).toBe("log");
  });
  it("a status snapshot is descriptive (reference), not a log, and numbered step headings are procedures", () => {
    expect(sectionKind(["项目进度", "当前状态"], "")).toBe("reference");
    expect(sectionKind(["Progress", "Current status"], "")).toBe("reference");
    expect(sectionKind(["提交流程", "第三步：生成提交信息"], "")).toBe("procedure");
  });
  it("guidelines and best practices are topics, not a declaration of softness", () => {
    expect(sectionKind(["Git guidelines"], "")).toBe("neutral");
    expect(sectionKind(["Testing best practices"], "")).toBe("procedure");
    expect(sectionKind(["Preferences"], "")).toBe("soft");
  });
  it("a policy section is binding", () => {
    expect(sectionKind(["Data retention policy"], "")).toBe("binding");
    expect(sectionKind(["テスト実装ポリシー"], "")).toBe("binding");
    expect(sectionKind(["언어 정책"], "")).toBe("binding");
  });
  it("the lead-in wins over the heading", () => {
    expect(sectionKind(["Code style"], "These are hard rules, never break them:")).toBe("binding");
  });
});

describe("fitDecisionOffsets: recall target with a precision floor", () => {
  // Held-out logits of 20 units: 4 gold constraints, three clear and one far behind procedural;
  // 6 procedural units whose constraint logit sits between, so the offset that finds the fourth
  // constraint also turns all six procedural units into constraints (precision 0.4).
  const held: number[][] = [];
  const y: number[] = [];
  for (const c of [1.5, 1.3, 1.2, -0.5]) {
    held.push([c, 1, 0, 0, 0]);
    y.push(0);
  }
  for (let i = 0; i < 6; i++) {
    held.push([0.6 - i * 0.05, 1, 0, 0, 0]);
    y.push(1);
  }
  for (let i = 0; i < 10; i++) {
    held.push([0, 0, 1, 0, 0]);
    y.push(2);
  }
  it("without a floor, buys recall at any precision; with one, stops where precision would fall below it", () => {
    const free = fitDecisionOffsets(held, y, 1, 0);
    const floored = fitDecisionOffsets(held, y, 1, 0.65);
    expect(free[0]).toBeGreaterThan(floored[0] as number);
    const pred = held.map((z) => z.map((v, k) => v + (floored[k] as number))).map((z) => z.indexOf(Math.max(...z)));
    const tp = pred.filter((p, i) => p === 0 && y[i] === 0).length;
    const fp = pred.filter((p, i) => p === 0 && y[i] !== 0).length;
    expect(tp / Math.max(1, tp + fp)).toBeGreaterThanOrEqual(0.65);
  });
});
