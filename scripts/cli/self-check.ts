import type { Classifier } from "../engine/classify.js";
import { segment } from "../engine/units.js";
import { decideUnits } from "../operators/policy.js";
import { TYPES, type KnowledgeType } from "../engine/types.js";

/** Built-in lines with the type every shipped model must give them (one per type, two languages). */
export const SELF_CHECK_CASES: readonly { text: string; type: KnowledgeType }[] = [
  { text: "## Hard rules\n- Never run migrations against the prod database.", type: "constraint" },
  { text: "## Deploy\n```bash\nssh -A -J bastion deploy@10.0.3.7\n```", type: "procedural" },
  { text: "## Stack\n- The API is a FastAPI service on Python 3.12 backed by Postgres 16.", type: "belief" },
  { text: "## Style\n- Prefer small, focused functions where possible.", type: "preference" },
  { text: "## Changelog\n- 2024-05-03: migrated the job queue from Celery to arq.", type: "episodic" },
  { text: "## 禁止事项\n- 禁止直接推送到 main 分支。", type: "constraint" },
];

/**
 * Classify the built-in cases; return the list of failures (empty when all pass).
 * Also checks that every probability row sums to 1 (within 1e-6).
 */
export function runSelfCheck(classifier: Classifier): string[] {
  const failures: string[] = [];
  for (const c of SELF_CHECK_CASES) {
    const units = decideUnits(segment(c.text), classifier).filter((u) => u.type !== "structure" && u.kind !== "heading");
    const u = units[units.length - 1];
    if (!u) {
      failures.push(`no unit for ${JSON.stringify(c.text)}`);
      continue;
    }
    const sum = TYPES.reduce((a, t) => a + u.scores[t], 0);
    if (Math.abs(sum - 1) > 1e-6) failures.push(`scores sum to ${sum} for ${JSON.stringify(u.text)}`);
    if (u.type !== c.type) failures.push(`expected ${c.type}, got ${u.type} (${u.confidence.toFixed(2)}) for ${JSON.stringify(u.text)}`);
  }
  return failures;
}
