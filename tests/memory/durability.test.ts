import { describe, expect, it } from "vitest";
import { regexClassifier } from "../../scripts/engine/classify.js";
import { judge } from "../../scripts/memory/extract.js";
import { loadUtteranceScorer } from "../../scripts/io/model-file.js";

const src = { session: "s", line: 1, offset: 0 };
const verdict = (text: string) => judge([{ text, source: src }], regexClassifier, undefined, { utterance: loadUtteranceScorer() })[0];

describe("durability: standing rules are kept", () => {
  it.each([
    "Remember: never push to main.",
    "from now on, run the linter before every push",
    "do not add a co-author line to commits",
    "The staging database is read-only for agents.",
    "Run integration tests with `pnpm -w test:int -- --runInBand`; plain `pnpm test` skips them.",
    "In packages/api, always validate request bodies with zod schemas.",
    "Going forward, answer in English even when I write in German.",
    "以后不要直接推送到 main 分支。",
    "今後、評価スクリプトはテストセットに対して一度しか実行しないでください。",
    "앞으로 모든 코드 예제는 실행 가능한 상태로 유지해 주세요.",
    "Впредь никогда не удаляй старые страницы.",
    "De ahora en adelante, nunca cambies los nombres de los campos públicos.",
    "Ab jetzt bitte keine neuen Abhängigkeiten ohne Rückfrage hinzufügen.",
    "Désormais, écris les messages de commit en anglais.",
    "The patient in bed 4 is allergic to penicillin.",
  ])("keeps %s", (text) => {
    const v = verdict(text);
    expect(v?.keep).toBe(true);
    expect(v?.kind).toBe("rule");
  });
});

describe("durability: one-off requests, questions, remarks and narrative are dropped", () => {
  it.each([
    "looks good, commit this one",
    "fix the login test",
    "Please say ok.",
    "yesterday we fixed the login bug.",
    "I prefer tabs.",
    "should we always use pnpm?",
    "thanks, that is perfect",
    "just this once, skip the schema check so we can backfill",
    "bump the timeout to 5s for now",
    "Mach das Layout schmaler, diesmal reicht ein schneller Fix.",
    "这次先把 num_workers 改成 8 试试",
    "The staging database runs Postgres 16.",
    "can you also make the jump a bit higher?",
  ])("drops %s", (text) => {
    const v = verdict(text);
    expect(v?.keep).toBe(false);
  });
});

describe("durability: retractions and exceptions are recognised", () => {
  it("a permission is a retraction", () => {
    expect(verdict("actually, you can push to main now - it's just the two of us until launch")?.kind).toBe("retraction");
    expect(verdict("you don't need to run the lint before pushing anymore, CI does it")?.kind).toBe("retraction");
  });
  it("a scoped exception is an exception, not a retraction", () => {
    expect(verdict("except in internal/migrations, where raw SQL is fine")?.kind).toBe("exception");
  });
  it("a procedure with a command is typed procedural, a prohibition constraint", () => {
    expect(verdict("To roll back a release, run `helm rollback web 0 --namespace shop --wait`.")?.type).toBe("procedural");
    expect(verdict("Never run `terraform apply` without a saved plan file.")?.type).toBe("constraint");
  });
});

describe("durability: a new prohibition with 'anymore' is a rule, not a retraction", () => {
  it.each(["don't use var anymore", "Tests are no longer allowed to hit the network."])("%s", (text) => {
    const v = verdict(text);
    expect(v?.kind).toBe("rule");
    expect(v?.keep).toBe(true);
  });
  it.each(["you don't need to run the lint before pushing anymore, CI does it", "the changelog entry is no longer required", "no need to sign commits"])("%s is a retraction", (text) => {
    expect(verdict(text)?.kind).toBe("retraction");
  });
});

describe("durability: first-person needs are requests, third-person needs are rules", () => {
  it.each(["we need a staging bucket for the image uploads", "the database password is [REDACTED] if you need to connect locally", "I have to leave early today"])("drops %s", (text) => {
    expect(verdict(text)?.keep).toBe(false);
  });
  it("keeps 'every query against prod needs a LIMIT clause'", () => {
    expect(verdict("every query against prod needs a LIMIT clause")?.keep).toBe(true);
  });
});

describe("durability: the line classifier alone never keeps a sentence with no rule cue (the sentence model is undecided here)", () => {
  const alwaysConstraint = { name: "worst-case", scores: (u: readonly unknown[]) => u.map(() => ({ constraint: 1, procedural: 0, belief: 0, preference: 0, episodic: 0 })) };
  it.each(["we need a staging bucket for the image uploads", "fix the login test", "looks good, commit this one", "The staging database runs Postgres 16.", "Please say ok.", "what does the mailer do on bounce?"])("%s", (text) => {
    expect(judge([{ text, source: src }], alwaysConstraint, undefined, { utterance: { logit: () => 0 } })[0]?.keep).toBe(false);
  });
});
