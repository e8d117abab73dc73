/**
 * The LLM SafetyMargin tier's wire format: the prompt sent on stdin to a user-supplied command,
 * and the parser of its answer. Pure; the command is spawned by the CLI.
 */
import { TYPES, type KnowledgeType } from "../engine/types.js";

/** Prompt asking for one type name, with the decision rule of references/taxonomy.md ("what would go wrong if lost"). */
export function buildLlmPrompt(text: string, headings: readonly string[]): string {
  return [
    "Classify one line of an AI agent's memory file into exactly one type.",
    "constraint: a rule; breaking it is a failure (including rules stated as facts).",
    "procedural: a step, an exact command, a template or a to-do item.",
    "belief: a fact or the current state.",
    "preference: a soft guideline (prefer, try to, ideally) or a style choice.",
    "episodic: a past event (what was done, tried or happened).",
    "Ask what would go wrong if the agent lost the line; a mixed line takes the highest type (constraint > procedural > belief > preference > episodic).",
    `Section: ${headings.length ? headings.join(" > ") : "(none)"}`,
    "Line:",
    text,
    "Answer with one word: constraint, procedural, belief, preference or episodic.",
    "",
  ].join("\n");
}

/**
 * Parse an answer: the first of the five type names appearing as a word (case-insensitive).
 * Returns null for anything else (empty, garbage, or several different types named first-equal).
 */
export function parseLlmAnswer(out: string): KnowledgeType | null {
  const m = /\b(constraint|procedural|belief|preference|episodic)\b/i.exec(out);
  if (!m) return null;
  const t = (m[1] as string).toLowerCase() as KnowledgeType;
  return TYPES.includes(t) ? t : null;
}
