import { TYPES, type KnowledgeType, type Unit } from "./types.js";
import { isStructure } from "./units.js";

/** A gold label for one source line of a labelled document (`<name>.labels.jsonl`). */
export interface LineLabel {
  line: number;
  type: KnowledgeType;
  domain: string;
  lang: string;
}

/** A unit with its gold type, domain and language. */
export interface GoldUnit {
  unit: Unit;
  type: KnowledgeType;
  domain: string;
  lang: string;
}

/**
 * Give each non-structure unit the gold type of its labelled lines: the highest type present
 * (constraint > procedural > belief > preference > episodic), as in references/taxonomy.md, Deciding a line.
 * Units with no labelled line are returned in `unlabelled` (they are not scored), never guessed.
 */
export function alignLabels(units: Unit[], labels: LineLabel[]): { gold: GoldUnit[]; unlabelled: Unit[] } {
  const byLine = new Map<number, LineLabel>();
  for (const l of labels) byLine.set(l.line, l);
  const gold: GoldUnit[] = [];
  const unlabelled: Unit[] = [];
  for (const u of units) {
    if (isStructure(u)) continue;
    let best: LineLabel | undefined;
    for (let n = u.line; n <= u.endLine; n++) {
      const l = byLine.get(n);
      if (l && (!best || TYPES.indexOf(l.type) < TYPES.indexOf(best.type))) best = l;
    }
    if (best) gold.push({ unit: u, type: best.type, domain: best.domain, lang: best.lang });
    else unlabelled.push(u);
  }
  return { gold, unlabelled };
}
