import { TYPES, type KnowledgeType, type Unit } from "./types.js";

/**
 * The regex baseline tier (`--model /dev/null`): imperative rules and commands only, zero files.
 * Cue lists are hand-written from references/taxonomy.md Hard cases 1-5 (hard modality = constraint, softeners =
 * preference, commands = procedural); everything else is belief, dated/past-tense lines episodic.
 *
 * HARD and SOFT are case-insensitive without the u flag: with it, V8 takes ~4 ms to compile HARD at
 * its first use in every process (the model tier tests headings with it). What the u flag's case
 * folding adds for these cue words is that long s (U+017F) matches s and the Kelvin sign (U+212A)
 * matches k; cueText folds those two first, so the matches are the same as with "iu" (tested).
 */
export const HARD = new RegExp(
  [
    String.raw`\b(never|must|mustn't|must not|always|do not|don't|cannot|can't|shall not|forbidden|prohibited|mandatory|required|only ever|at all times|under no circumstances|read-only|not allowed)\b`,
    "\\b(nunca|siempre|debe|deben|no (?:uses|hagas|modifiques|subas)|prohibido|obligatorio)\\b",
    "\\b(niemals|immer|muss|müssen|darf nicht|dürfen nicht|verboten|keinesfalls|nie)\\b",
    "(никогда|всегда|нельзя|запрещено|обязательно|должен|должны|не (?:используй|коммить|меняй|трогай))",
    "(禁止|必须|务必|不要|不得|严禁|永远不要|一定要|绝不)",
    "(禁止|必ず|絶対に|してはいけない|しないこと|してはならない|厳禁)",
    "(절대|반드시|금지|하지 마|하지 말|해서는 안)",
  ].join("|"),
  "i",
);
export const SOFT = /\b(prefer|preferably|ideally|try to|where possible|if possible|when possible|if appropriate|should|avoid|consider|recommended|favou?r)\b|(尽量|最好|推荐|建议|なるべく|できれば|推奨|가급적|권장|preferir|vorzugsweise|möglichst|лучше|желательно|по возможности)/i;
export const COMMAND = /(^\s*(\$|>|npm|npx|pnpm|yarn|bun|pip|uv|poetry|cargo|go|make|docker|kubectl|helm|terraform|git|ssh|scp|curl|python3?|node|tsx|export|cd|psql|mvn|gradle|dotnet|bundle|rails|rake|mix|\.\/)\b)|`[^`]*\b(npm|pnpm|yarn|cargo|go|make|docker|kubectl|git|ssh|python|pytest|uv|terraform|helm)\b[^`]*`|(^|\s)--[a-z][\w-]+/i;
const STEP = /^\s*(\d+[.)]|step \d+)/i;
export const EPISODIC = /\b(20\d\d-\d\d-\d\d|yesterday|last (week|sprint|month)|we tried|was (fixed|added|removed|deployed)|fixed|implemented|completed|merged|shipped|reverted|migrated)\b|✅/i;

const FOLDED = /[\u017f\u212a]/g;
/**
 * Text for the case-insensitive cue regexes: long s (U+017F) becomes "s" and the Kelvin sign
 * (U+212A) "k", the two letters whose Unicode case folding reaches ASCII (what /iu would match).
 */
export function cueText(text: string): string {
  return text.includes("\u017f") || text.includes("\u212a") ? text.replace(FOLDED, (c) => (c === "\u017f" ? "s" : "k")) : text;
}

/**
 * Classify units with the regex tier. Output probabilities are fixed per rule
 * (0.7 for the matched type, the rest spread evenly), so they sum to 1.
 */
export function regexScores(u: Pick<Unit, "text" | "kind">): Record<KnowledgeType, number> {
  const t = u.text;
  const cues = cueText(t);
  let type: KnowledgeType = "belief";
  if (u.kind === "code") type = "procedural";
  else if (HARD.test(cues) && !SOFT.test(cues)) type = "constraint";
  else if (SOFT.test(cues)) type = "preference";
  else if (COMMAND.test(t) || STEP.test(t)) type = "procedural";
  else if (EPISODIC.test(t)) type = "episodic";
  const scores = {} as Record<KnowledgeType, number>;
  for (const k of TYPES) scores[k] = k === type ? 0.7 : 0.075;
  return scores;
}
