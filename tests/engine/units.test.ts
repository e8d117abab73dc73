import fc from "fast-check";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { STRUCTURE_KINDS, type Unit } from "../../scripts/engine/types.js";
import { isStructure, segment, segmentBatches } from "../../scripts/engine/units.js";

/** Compact view of units for assertions: [firstLine, lastLine, kind]. */
const shape = (units: Unit[]): [number, number, string][] => units.map((u) => [u.line, u.endLine, u.kind]);
const byLine = (units: Unit[], line: number): Unit => {
  const u = units.find((x) => x.line <= line && line <= x.endLine);
  if (!u) throw new Error(`no unit covers line ${line}`);
  return u;
};

describe("segment: line endings, BOM, whitespace", () => {
  it("empty string gives no units", () => {
    expect(segment("")).toEqual([]);
    expect(segment("\uFEFF")).toEqual([]);
  });

  it("whitespace-only lines are blank structure units, one per line", () => {
    const units = segment("   \n\t\n \t \n");
    expect(shape(units)).toEqual([
      [1, 1, "blank"],
      [2, 2, "blank"],
      [3, 3, "blank"],
    ]);
    expect(units.every(isStructure)).toBe(true);
  });

  it("CRLF gives the same units as LF, with \\r removed from text", () => {
    const lf = "# Deploy\n- Run `make ship`\n  after the tests pass.\n\nThe cluster is in eu-west-1.\n";
    const crlf = lf.replace(/\n/g, "\r\n");
    const a = segment(lf);
    const b = segment(crlf);
    expect(b).toEqual(a);
    expect(b.some((u) => u.text.includes("\r"))).toBe(false);
    expect(shape(b)).toEqual([
      [1, 1, "heading"],
      [2, 3, "list-item"],
      [4, 4, "blank"],
      [5, 5, "line"],
    ]);
    expect(byLine(b, 2).text).toBe("- Run `make ship`\n  after the tests pass.");
  });

  it("lone CR (classic Mac) splits lines too", () => {
    const units = segment("First rule.\rSecond rule.\r\rThird.");
    expect(shape(units)).toEqual([
      [1, 1, "line"],
      [2, 2, "line"],
      [3, 3, "blank"],
      [4, 4, "line"],
    ]);
    expect(units[3]?.text).toBe("Third.");
  });

  it("a leading BOM is stripped and does not shift line numbers or hide a heading", () => {
    const units = segment("\uFEFF# Rules\n- Never deploy on Fridays.");
    expect(units[0]?.kind).toBe("heading");
    expect(units[0]?.text).toBe("# Rules");
    expect(units[1]?.line).toBe(2);
    expect(units[1]?.headings).toEqual(["Rules"]);
  });

  it("tabs count as indentation (tab stop 4) for list nesting", () => {
    const units = segment("- parent item\n\t- child item\n\t  wrapped child text\n-\ttab after marker");
    expect(shape(units)).toEqual([
      [1, 1, "list-item"],
      [2, 3, "list-item"],
      [4, 4, "list-item"],
    ]);
    expect(units[1]?.depth).toBe(1);
    expect(units[1]?.leadIn).toBe("parent item");
    expect(units[2]?.depth).toBe(0);
  });

  it("a 1 MB line is one unit, text intact", () => {
    const long = `- ${"x".repeat(1024 * 1024)}`;
    const units = segment(`# Big\n${long}\n\nafter`);
    expect(shape(units)).toEqual([
      [1, 1, "heading"],
      [2, 2, "list-item"],
      [3, 3, "blank"],
      [4, 4, "line"],
    ]);
    expect(units[1]?.text.length).toBe(long.length);
  });

  it("trailing newline does not create an extra unit; a final line without newline is kept", () => {
    expect(segment("a\nb\n")).toHaveLength(2);
    expect(segment("a\nb")).toHaveLength(2);
    expect(segment("a\nb\n\n")).toHaveLength(3);
  });
});

describe("segment: lists", () => {
  it("nested lists with wrapped continuation lines", () => {
    const md = [
      "## Release",
      "- Build the image",
      "  with the release tag.",
      "  - Push it to the registry",
      "    under both tags.",
      "    - Verify the digest",
      "  - Update the changelog",
      "- Announce in the channel",
    ].join("\n");
    const units = segment(md);
    expect(shape(units)).toEqual([
      [1, 1, "heading"],
      [2, 3, "list-item"],
      [4, 5, "list-item"],
      [6, 6, "list-item"],
      [7, 7, "list-item"],
      [8, 8, "list-item"],
    ]);
    expect(units.map((u) => u.depth)).toEqual([0, 0, 1, 2, 1, 0]);
    expect(units[2]?.leadIn).toBe("Build the image");
    expect(units[3]?.leadIn).toBe("Push it to the registry");
    expect(units[4]?.leadIn).toBe("Build the image");
    expect(units[5]?.leadIn).toBe("");
    expect(units.slice(1).every((u) => u.headings.join() === "Release")).toBe(true);
  });

  it("lazy continuation: an unindented non-block line right after an item belongs to it", () => {
    const units = segment("- Never store tokens in\nplain text files.\n- Next item");
    expect(shape(units)).toEqual([
      [1, 2, "list-item"],
      [3, 3, "list-item"],
    ]);
    expect(units[0]?.text).toBe("- Never store tokens in\nplain text files.");
  });

  it("a blank line ends an item; an unindented paragraph after it is a line outside the list", () => {
    const units = segment("- item\n\nParagraph after the list.");
    expect(shape(units)).toEqual([
      [1, 1, "list-item"],
      [2, 2, "blank"],
      [3, 3, "line"],
    ]);
    expect(units[2]?.depth).toBe(0);
  });

  it("numbered lists with . and ) markers, multi-digit numbers, wrapped lines", () => {
    const units = segment("1. Stop the worker.\n2) Drain the queue\n   until it is empty.\n10. Start the worker again.");
    expect(shape(units)).toEqual([
      [1, 1, "list-item"],
      [2, 3, "list-item"],
      [4, 4, "list-item"],
    ]);
  });

  it("a line ending in ':' is the lead-in of the list below it", () => {
    const units = segment("Before every release:\n- bump the version\n- tag the commit");
    expect(units[1]?.leadIn).toBe("Before every release:");
    expect(units[2]?.leadIn).toBe("Before every release:");
  });
});

describe("segment: fenced code blocks", () => {
  it("``` block with an info string: fences are structure, content is one code unit", () => {
    const units = segment("Deploy:\n```bash title=\"deploy\"\nmake build\nmake ship\n```\nDone.");
    expect(shape(units)).toEqual([
      [1, 1, "line"],
      [2, 2, "fence"],
      [3, 4, "code"],
      [5, 5, "fence"],
      [6, 6, "line"],
    ]);
    const code = units[2] as Unit;
    expect(code.text).toBe("make build\nmake ship");
    expect(code.lang).toBe("bash");
    expect(code.leadIn).toBe("Deploy:");
    expect(code.fence).toEqual({ open: '```bash title="deploy"', close: "```", openLine: 2, closeLine: 5 });
  });

  it("~~~ block; a ``` line inside it does not close it", () => {
    const units = segment("~~~markdown\n```\nnot a fence here\n```\n~~~\nafter");
    expect(shape(units)).toEqual([
      [1, 1, "fence"],
      [2, 4, "code"],
      [5, 5, "fence"],
      [6, 6, "line"],
    ]);
    expect(units[1]?.lang).toBe("markdown");
  });

  it("a longer opening fence needs a closing fence at least as long", () => {
    const units = segment("````\n```\ninner\n```\n````");
    expect(shape(units)).toEqual([
      [1, 1, "fence"],
      [2, 4, "code"],
      [5, 5, "fence"],
    ]);
  });

  it("an unclosed fence runs to end of file, with close null", () => {
    const units = segment("# Setup\n```sh\nnpm ci\nnpm test");
    expect(shape(units)).toEqual([
      [1, 1, "heading"],
      [2, 2, "fence"],
      [3, 4, "code"],
    ]);
    expect(units[2]?.fence).toEqual({ open: "```sh", close: null, openLine: 2, closeLine: null });
  });

  it("an empty block gives fence + fence and no code unit; a blank-only block gives blanks", () => {
    expect(shape(segment("```\n```"))).toEqual([
      [1, 1, "fence"],
      [2, 2, "fence"],
    ]);
    expect(shape(segment("```\n\n```"))).toEqual([
      [1, 1, "fence"],
      [2, 2, "blank"],
      [3, 3, "fence"],
    ]);
  });

  it("a markdown heading or list marker inside a block is code, not structure", () => {
    const units = segment("```\n# not a heading\n- not an item\n```");
    expect(units.map((u) => u.kind)).toEqual(["fence", "code", "fence"]);
    expect(units[1]?.headings).toEqual([]);
  });

  it("a fence inside a list item: code gets the item as lead-in and its depth", () => {
    const units = segment("- Reset the database:\n  ```sh\n  make db-reset\n  ```\n- Then seed it.");
    expect(shape(units)).toEqual([
      [1, 1, "list-item"],
      [2, 2, "fence"],
      [3, 3, "code"],
      [4, 4, "fence"],
      [5, 5, "list-item"],
    ]);
    expect(units[2]?.leadIn).toBe("Reset the database:");
    expect(units[2]?.depth).toBe(1);
    expect(units[2]?.lang).toBe("sh");
  });

  it("inline triple backticks on one line are not a fence", () => {
    expect(segment("Use ```code``` sparingly.").map((u) => u.kind)).toEqual(["line"]);
  });
});

describe("segment: tables", () => {
  it("header, separator and rows; rows keep the header as lead-in", () => {
    const units = segment("| task | command |\n|:-----|------:|\n| test | `make test` |\n| lint | `make lint` |");
    expect(shape(units)).toEqual([
      [1, 1, "table-header"],
      [2, 2, "table-separator"],
      [3, 3, "table-row"],
      [4, 4, "table-row"],
    ]);
    expect(isStructure(units[1] as Unit)).toBe(true);
    expect(units[3]?.leadIn).toBe("| task | command |");
  });

  it("rows without a leading pipe continue the table until a blank line", () => {
    const units = segment("| env | url |\n|---|---|\nstaging | https://staging.example.test\nprod | https://example.test\n\nPlain line | with a pipe");
    expect(units.map((u) => u.kind)).toEqual(["table-header", "table-separator", "table-row", "table-row", "blank", "line"]);
  });

  it("a heading ends the table: a later line with a pipe is not a table row", () => {
    const units = segment("| a | b |\n|---|---|\n| 1 | 2 |\n## Notes\nUse a || b for defaults.");
    expect(byLine(units, 5).kind).toBe("line");
  });
});

describe("segment: frontmatter, headings, rules", () => {
  it("closed YAML frontmatter is one unit (--- or ... closes it)", () => {
    const a = segment("---\ntitle: Rules\nglobs: src/**/*.ts\n---\n# Body");
    expect(shape(a)).toEqual([
      [1, 4, "frontmatter"],
      [5, 5, "heading"],
    ]);
    expect(a[0]?.text).toBe("---\ntitle: Rules\nglobs: src/**/*.ts\n---");
    expect(shape(segment("---\na: 1\n...\nbody"))).toEqual([
      [1, 3, "frontmatter"],
      [4, 4, "line"],
    ]);
  });

  it("unclosed frontmatter is not swallowed: the --- is a rule and the rest are normal units", () => {
    const units = segment("---\ntitle: Rules\n# Heading\n- item");
    expect(shape(units)).toEqual([
      [1, 1, "rule"],
      [2, 2, "line"],
      [3, 3, "heading"],
      [4, 4, "list-item"],
    ]);
  });

  it("--- later in the file is a rule, never frontmatter", () => {
    const units = segment("text\n---\nkey: value\n---");
    expect(units.filter((u) => u.kind === "frontmatter")).toHaveLength(0);
  });

  it("ATX headings 1-6 set level and heading path; 7 hashes and #hashtag are plain lines", () => {
    const units = segment("# One\n## Two\n###### Six\n####### Seven\n#hashtag is a tag\n## Two again\ntext");
    expect(units.map((u) => [u.kind, u.level])).toEqual([
      ["heading", 1],
      ["heading", 2],
      ["heading", 6],
      ["line", 0],
      ["line", 0],
      ["heading", 2],
      ["line", 0],
    ]);
    expect(units[3]?.headings).toEqual(["One", "Two", "Six"]);
    expect(units[6]?.headings).toEqual(["One", "Two again"]);
  });

  it("a heading's closing hashes are stripped, but a # attached to a word is kept (C#, F#)", () => {
    const units = segment("## Deploy ##\n- a\n# Notes on C#\n- b");
    expect(units[1]?.headings).toEqual(["Deploy"]);
    expect(units[3]?.headings).toEqual(["Notes on C#"]);
  });

  it("an indented (4-space) # line is not a heading", () => {
    expect(segment("    # comment in indented code")[0]?.kind).toBe("line");
  });

  it("horizontal rules (---, ***, ___, - - -) are structure", () => {
    const units = segment("Above.\n\n---\n***\n___\n- - -\nBelow.");
    expect(units.map((u) => u.kind)).toEqual(["line", "blank", "rule", "rule", "rule", "rule", "line"]);
  });
});

// ---------------------------------------------------------------------------------------------
// Property: for random markdown-ish documents, units tile the lines exactly and structure kinds
// are exactly the blank / fence-marker / rule / table-separator lines.

const word = fc.constantFrom("deploy", "never", "run", "the", "tests", "prod", "prefer", "API", "main", "`make`", "Postgres", "2024-05-03", "db", "|");
const words = fc.array(word, { minLength: 1, maxLength: 6 }).map((w) => w.join(" "));
const indent = fc.constantFrom("", "  ", "    ", "\t");
const mdLine = fc.oneof(
  words,
  fc.tuple(indent, fc.constantFrom("- ", "* ", "+ ", "1. ", "2) "), words).map(([i, m, w]) => `${i}${m}${w}`),
  fc.tuple(fc.integer({ min: 1, max: 7 }), words).map(([n, w]) => `${"#".repeat(n)} ${w}`),
  fc.constantFrom("", "   ", "\t", "---", "***", "___", "```", "```bash", "~~~", "~~~~", "| a | b |", "|---|---|", "| 1 | 2 |", "x | y", "#tag", "..."),
);
const doc = fc.tuple(fc.array(mdLine, { maxLength: 40 }), fc.constantFrom("\n", "\r\n", "\r"), fc.boolean(), fc.boolean()).map(
  // A final empty line only exists when a line terminator follows it (POSIX: a line ends with a newline).
  ([lines, eol, bom, trailing]) => ({
    lines,
    text: (bom ? "\uFEFF" : "") + lines.join(eol) + ((trailing || lines[lines.length - 1] === "") && lines.length ? eol : ""),
  }),
);

describe("segment: properties", () => {
  it("every line is covered by exactly one unit; units are ordered and non-overlapping; structure kinds are exactly blank/fence/rule/separator lines", () => {
    fc.assert(
      fc.property(doc, ({ lines, text }) => {
        const units = segment(text);
        // Line count as the segmenter sees it: an empty document has none.
        const n = text.replace(/^\uFEFF/, "") === "" ? 0 : lines.length;
        let next = 1;
        for (const u of units) {
          expect(u.line).toBe(next);
          expect(u.endLine).toBeGreaterThanOrEqual(u.line);
          next = u.endLine + 1;
          const src = lines.slice(u.line - 1, u.endLine);
          expect(u.text).toBe(src.join("\n"));
          if (STRUCTURE_KINDS.has(u.kind)) {
            expect(u.endLine).toBe(u.line);
            expect(isStructure(u)).toBe(true);
            const l = (src[0] as string).trim();
            if (u.kind === "blank") expect(l).toBe("");
            if (u.kind === "fence") expect(l).toMatch(/^(`{3,}|~{3,})/);
            if (u.kind === "rule") expect(l.replace(/[ \t]/g, "")).toMatch(/^(-{3,}|\*{3,}|_{3,}|={3,})$/);
            if (u.kind === "table-separator") expect(l).toMatch(/^\|?\s*:?-+/);
          } else {
            expect(isStructure(u)).toBe(false);
            // Outside code blocks, a content unit never starts on a blank line.
            if (u.kind !== "code") expect((src[0] as string).trim()).not.toBe("");
            else expect(src.some((l) => l.trim() !== "")).toBe(true);
          }
        }
        expect(next - 1).toBe(n);
        // Blank lines outside code blocks are always blank units (code may hold blank lines).
        for (let i = 0; i < n; i++) {
          if ((lines[i] as string).trim() !== "") continue;
          const u = units.find((x) => x.line <= i + 1 && i + 1 <= x.endLine) as Unit;
          expect(["blank", "code", "frontmatter"]).toContain(u.kind);
        }
      }),
      { numRuns: Number(process.env.KNOWLEDGE_TRIAGE_RUNS ?? 400) },
    );
  }, 60_000);

  it("never throws on arbitrary strings and always tiles the lines", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 300 }), (s) => {
        const units = segment(s);
        let next = 1;
        for (const u of units) {
          expect(u.line).toBe(next);
          next = u.endLine + 1;
        }
      }),
      { numRuns: 300 },
    );
  }, 60_000);
});

describe("segmentBatches", () => {
  const example = readFileSync(join(import.meta.dirname, "..", "..", "examples", "CLAUDE.md"), "utf8");
  // The example with its line feeds as CRLF, as CR, and mixed (every third line CRLF), plus a fence left open.
  const variants: Array<[string, string]> = [
    ["LF", example],
    ["CRLF", example.replaceAll("\n", "\r\n")],
    ["CR", example.replaceAll("\n", "\r")],
    ["mixed", example.split("\n").map((l, i) => l + (i % 3 === 0 ? "\r\n" : "\n")).join("")],
    ["open fence", `${example}\n\`\`\`sh\nnpm test\n\n- not a list item inside the fence\n`],
  ];
  it.each(variants)("gives the units of segment, in batches, each unit's text being its source lines (%s)", (_, text) => {
    const all = segment(text);
    const batches = [...segmentBatches(text, 7)];
    expect(batches.length).toBeGreaterThan(1);
    expect(batches.slice(0, -1).every((b) => b.length >= 7)).toBe(true);
    expect(batches.flat()).toEqual(all);
    const lines = text.replace(/\r\n$|\r$|\n$/, "").split(/\r\n|\r|\n/);
    for (const u of all) expect(u.text).toBe(lines.slice(u.line - 1, u.endLine).join("\n"));
    expect(all.at(-1)?.endLine).toBe(lines.length);
  });

  it.each(variants)("gives the units of the decoded text from UTF-8 bytes (%s)", (_, text) => {
    expect([...segmentBatches(Buffer.from(text), 5)].flat()).toEqual(segment(text));
    const withBom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]);
    expect([...segmentBatches(withBom)].flat()).toEqual(segment(`\ufeff${text}`));
  });

  it("decodes invalid UTF-8 line by line as the whole input decodes (U+FFFD), across line ends", () => {
    const zh = Buffer.from("# 规则\n- 不要提交密钥\r\n");
    // A character cut before a line feed, a stray byte, a cut character at the very end.
    const bytes = Buffer.concat([zh.subarray(0, 9), Buffer.from("\n- a "), Buffer.from([0xff]), Buffer.from(" b\n"), zh.subarray(9), Buffer.from([0xe8, 0xae])]);
    const units = [...segmentBatches(bytes, 1)].flat();
    expect(units).toEqual(segment(new TextDecoder().decode(bytes)));
    expect(units.map((u) => u.text).join("|")).toContain("\ufffd");
  });

  it("gives no units for empty input or a lone byte order mark, as segment does", () => {
    expect([...segmentBatches(new Uint8Array(0))]).toEqual([]);
    expect([...segmentBatches(Buffer.from([0xef, 0xbb, 0xbf]))]).toEqual([]);
    expect([...segmentBatches(Buffer.from("\n"))].flat()).toEqual(segment("\n"));
  });
});

describe("block HTML comments", () => {
  it("are one structure unit each, single- or multi-line, and never classified", () => {
    const src = "# Rules\n\n<!-- Written by a tool. -->\n\n- Never push to main.\n<!--\nTODO: rewrite\nthis section\n-->\nText after.\n    <!-- indented 4: code, not a comment -->\n";
    const units = segment(src);
    const comments = units.filter((u) => u.kind === "comment");
    expect(comments.map((u) => [u.line, u.endLine])).toEqual([[3, 3], [6, 9]]);
    for (const u of comments) expect(isStructure(u)).toBe(true);
    expect(units.find((u) => u.text === "Text after.")?.kind).toBe("line");
    expect(units.some((u) => u.text.includes("indented 4") && u.kind !== "comment")).toBe(true);
  });

  it("an unclosed comment runs to the end of the file", () => {
    const units = segment("- Rule one.\n<!-- open\nstill inside\n");
    expect(units.at(-1)?.kind).toBe("comment");
    expect(units.at(-1)?.line).toBe(2);
  });
});
