/**
 * Test helpers for the operators: a classifier whose labels the test controls (by sentence pool),
 * and a fast-check generator of random, real-shaped markdown memory files.
 */
import fc from "fast-check";
import type { Classifier } from "../../scripts/engine/classify.js";
import { TYPES, type KnowledgeType, type Unit } from "../../scripts/engine/types.js";

/** Sentence pools per type (our own wording, several domains, two languages). */
export const POOL: Record<KnowledgeType, string[]> = {
  constraint: [
    "Never force-push to the release branch.",
    "Do not log card numbers, not even masked ones.",
    "All money amounts must be stored as integer cents.",
    "The patient is allergic to penicillin.",
    "Contracts must be countersigned before work starts.",
    "不要在周五部署生产环境。",
    "In packages/api, always validate request bodies with zod schemas.",
    "Components under apps/web must use the shared Button component.",
    "Never run migrations against prod by hand.",
  ],
  procedural: [
    "Run `pnpm test --filter api` before opening a pull request.",
    "To rotate the key, run `vault write -f transit/keys/app/rotate`.",
    "Restart the worker with `systemctl restart ingest-worker`.",
    "先运行 `make lint`，再提交代码。",
    "Escalate a refund over 500 EUR to the finance lead.",
  ],
  belief: [
    "The staging cluster runs in eu-west-1 with 3 nodes.",
    "Invoices are generated nightly at 02:00 UTC by the `billing-cron` job.",
    "The API basically listens on port 8080 (mostly) in development.",
    "Our support queue is handled by Dana and Luis.",
    "The ledger service is not replicated across regions.",
    "测试数据库每天凌晨重置一次。",
  ],
  preference: [
    "Prefer small pull requests where possible.",
    "Prefer small pull requests whenever possible.",
    "Try to keep functions under 40 lines.",
    "Ideally, write the summary first and the details after.",
    "尽量使用简短的提交信息。",
  ],
  episodic: [
    "On 2026-03-02 we fixed the flaky invoice test.",
    "Yesterday the deploy failed because of a missing env var.",
    "Last sprint we tried caching tax lookups and reverted it.",
    "We migrated the queue to SQS in May.",
  ],
};

const LABEL = new Map<string, KnowledgeType>();
for (const t of TYPES) for (const s of POOL[t]) LABEL.set(s, t);
const CODE_LABEL = new Map<string, KnowledgeType>([
  ["pnpm build\npnpm deploy --env staging", "procedural"],
  ["{\n  \"port\": 8080\n}", "belief"],
]);

/** Label of a unit for the pool classifier: the pool type of the sentence it contains, else belief. */
export function poolType(u: Pick<Unit, "text" | "kind">): KnowledgeType {
  if (u.kind === "code") return CODE_LABEL.get(u.text) ?? "belief";
  for (const [s, t] of LABEL) if (u.text.includes(s)) return t;
  return "belief";
}

/** A Classifier that labels pool sentences with their pool type (probability 0.9). */
export const poolClassifier: Classifier = {
  name: "pool",
  scores: (units) =>
    units.map((u) => {
      const t = poolType(u);
      return Object.fromEntries(TYPES.map((k) => [k, k === t ? 0.9 : 0.025])) as Record<KnowledgeType, number>;
    }),
};

const sentence = fc.constantFrom(...TYPES).chain((t) => fc.constantFrom(...POOL[t]));
const block: fc.Arbitrary<string> = fc.oneof(
  { weight: 5, arbitrary: fc.array(sentence, { minLength: 1, maxLength: 5 }).map((xs) => xs.map((s) => `- ${s}`).join("\n")) },
  { weight: 2, arbitrary: fc.tuple(sentence, fc.array(sentence, { minLength: 1, maxLength: 3 })).map(([p, cs]) => [`- ${p}`, ...cs.map((c) => `  - ${c}`)].join("\n")) },
  { weight: 2, arbitrary: sentence },
  { weight: 1, arbitrary: fc.array(sentence, { minLength: 1, maxLength: 3 }).map((xs) => ["Before you ship:", "", ...xs.map((s, i) => `${i + 1}. ${s}`)].join("\n")) },
  { weight: 1, arbitrary: fc.constantFrom(...CODE_LABEL.keys()).map((c) => `\`\`\`${c.startsWith("{") ? "json" : "bash"}\n${c}\n\`\`\``) },
  { weight: 1, arbitrary: fc.array(sentence, { minLength: 1, maxLength: 3 }).map((xs) => ["| Item | Note |", "| --- | --- |", ...xs.map((s, i) => `| ${i} | ${s} |`)].join("\n")) },
);
const section = fc
  .tuple(fc.constantFrom("Rules", "Testing", "packages/api", "apps/web", "Deploy", "Clinical notes", "部署"), fc.array(block, { minLength: 1, maxLength: 4 }))
  .map(([h, bs]) => [`## ${h}`, "", bs.join("\n\n")].join("\n"));

/** Random memory file: optional frontmatter, an optional H1 with intro, 1-5 sections. Ends with "\n". */
export const memoryDoc: fc.Arbitrary<string> = fc
  .tuple(fc.boolean(), fc.boolean(), fc.array(section, { minLength: 1, maxLength: 5 }))
  .map(([fm, h1, ss]) => {
    const parts: string[] = [];
    if (fm) parts.push("---\ndescription: team memory\n---");
    if (h1) parts.push("# Team memory\n\nThis file collects what the agent should know.");
    parts.push(...ss);
    return `${parts.join("\n\n")}\n`;
  });

/**
 * A Classifier that returns gold labels by source line (as in `<name>.labels.jsonl`): a unit gets the
 * highest type among its lines (constraint > ... > episodic), belief when unlabelled; probability 0.9.
 */
export function goldClassifier(labels: { line: number; type: KnowledgeType }[]): Classifier {
  const byLine = new Map(labels.map((l) => [l.line, l.type]));
  return {
    name: "gold",
    scores: (units) =>
      units.map((u) => {
        let best: KnowledgeType | undefined;
        for (let n = u.line; n <= u.endLine; n++) {
          const t = byLine.get(n);
          if (t && (!best || TYPES.indexOf(t) < TYPES.indexOf(best))) best = t;
        }
        const t = best ?? "belief";
        return Object.fromEntries(TYPES.map((k) => [k, k === t ? 0.9 : 0.025])) as Record<KnowledgeType, number>;
      }),
  };
}

/** Read a labels.jsonl text into {line, type} rows. */
export function parseLabels(jsonl: string): { line: number; type: KnowledgeType }[] {
  return jsonl
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as { line: number; type: KnowledgeType });
}

/**
 * Extra sentences for documents scored by the real model (our own wording): borderline lines whose
 * rule mass depends on context (facts with identifiers, soft rules, steps stated as facts).
 */
const BORDERLINE: string[] = [
  "Exports from the billing job are deduplicated on `invoice_id` + `period`.",
  "The `orders` table is append-only; corrections go in `orders_adjustments`.",
  "Reviews usually take a day, so ask early.",
  "Use the staging token only for smoke tests.",
  "Dose changes are confirmed with the attending physician.",
  "Logs older than 30 days are deleted by the retention job.",
  "Run the linter on changed files only if the full run is too slow.",
  "Keep secrets in the vault, never in `.env` files that are committed.",
  "The holdout set is read-only.",
  "Tag releases as `vMAJOR.MINOR.PATCH`.",
  "Los importes se guardan siempre en céntimos.",
  "Die Produktionsdatenbank wird nur über Migrationen geändert.",
  "客户数据不得导出到个人电脑。",
  "Ask before touching the payments schema.",
  "It is nicer to squash commits before merging.",
  "Last week the cache key changed and hit rates dropped.",
];

const richSentence = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...TYPES).chain((t) => fc.constantFrom(...POOL[t])) },
  { weight: 2, arbitrary: fc.constantFrom(...BORDERLINE) },
);
const richBlock: fc.Arbitrary<string> = fc.oneof(
  { weight: 5, arbitrary: fc.array(richSentence, { minLength: 1, maxLength: 6 }).map((xs) => xs.map((s) => `- ${s}`).join("\n")) },
  { weight: 2, arbitrary: fc.tuple(richSentence, fc.array(richSentence, { minLength: 1, maxLength: 3 })).map(([p, cs]) => [`- ${p}`, ...cs.map((c) => `  - ${c}`)].join("\n")) },
  { weight: 2, arbitrary: richSentence },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom("Before you ship:", "Notes:", "When the pager fires:"), fc.array(richSentence, { minLength: 1, maxLength: 3 })).map(([lead, xs]) => [lead, "", ...xs.map((s, i) => `${i + 1}. ${s}`)].join("\n")) },
  { weight: 1, arbitrary: fc.tuple(richSentence, fc.constantFrom(...CODE_LABEL.keys())).map(([s, c]) => `${s}\n\n\`\`\`${c.startsWith("{") ? "json" : "bash"}\n${c}\n\`\`\``) },
  { weight: 1, arbitrary: fc.array(richSentence, { minLength: 1, maxLength: 3 }).map((xs) => ["| Item | Note |", "| --- | --- |", ...xs.map((s, i) => `| ${i} | ${s} |`)].join("\n")) },
);
const richSection = fc
  .tuple(fc.constantFrom("Rules", "NEVER", "Testing", "packages/api", "Deploy", "Known facts", "Clinical notes", "Experiment log", "部署"), fc.array(richBlock, { minLength: 1, maxLength: 4 }))
  .map(([h, bs]) => [`## ${h}`, "", bs.join("\n\n")].join("\n"));

/** Random memory file for the real model: like memoryDoc, with borderline sentences and more section names. */
export const richMemoryDoc: fc.Arbitrary<string> = fc
  .tuple(fc.boolean(), fc.array(richSection, { minLength: 1, maxLength: 4 }))
  .map(([h1, ss]) => `${[...(h1 ? ["# Team memory\n\nThis file collects what the agent should know."] : []), ...ss].join("\n\n")}\n`);
