/**
 * The five knowledge types, in priority order (constraint > procedural > belief > preference > episodic).
 * Order matters: "mixed lines take the highest type present" (references/taxonomy.md, Deciding a line).
 */
export const TYPES = ["constraint", "procedural", "belief", "preference", "episodic"] as const;

/** One of the five knowledge types. */
export type KnowledgeType = (typeof TYPES)[number];

/** A unit's label: a knowledge type, or `structure` for blank lines, fences, rules, table separators and block HTML comments. */
export type Label = KnowledgeType | "structure";

/** How a unit was cut out of its markdown source. */
export type UnitKind =
  | "line"
  | "heading"
  | "list-item"
  | "code"
  | "table-row"
  | "table-header"
  | "frontmatter"
  | "blank"
  | "fence"
  | "rule"
  | "table-separator"
  | "comment";

/** Kinds that are always `structure` and never classified. */
export const STRUCTURE_KINDS: ReadonlySet<UnitKind> = new Set(["blank", "fence", "rule", "table-separator", "comment"]);

/** Fence markers of a code unit, so renderers can rebuild the block byte for byte. */
export interface Fence {
  /** The opening fence line exactly as written (e.g. "```bash"). */
  open: string;
  /** The closing fence line, or null when the block runs to end of file unclosed. */
  close: string | null;
  /** 1-based line of the opening fence. */
  openLine: number;
  /** 1-based line of the closing fence, or null when unclosed. */
  closeLine: number | null;
}

/**
 * A unit of a markdown memory file: one line, a list item with its continuation lines,
 * a fenced code block's content, a table row, or the YAML frontmatter.
 * Line numbers are 1-based and inclusive; `text` is the source lines joined with "\n"
 * (CRLF normalised to LF, trailing whitespace kept).
 */
export interface Unit {
  line: number;
  endLine: number;
  text: string;
  kind: UnitKind;
  /** Texts of the enclosing headings, outermost first (markers stripped). */
  headings: string[];
  /** Heading level (1-6) when kind is "heading", else 0. */
  level: number;
  /** List nesting depth: 0 for top-level items and non-list lines, 1 for a nested item, ... */
  depth: number;
  /** Text of the nearest lead-in: the parent list item, or the paragraph line ending in ":" just above. */
  leadIn: string;
  /** Present when kind is "code". */
  fence?: Fence;
  /** Info string of the fence (language), for code units. */
  lang?: string;
}

/** A unit with its predicted label, confidence in [0,1] and the five class probabilities (sum to 1). */
export interface ClassifiedUnit extends Unit {
  type: Label;
  confidence: number;
  scores: Record<KnowledgeType, number>;
}
