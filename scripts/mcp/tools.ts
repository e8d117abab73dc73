/**
 * The tools of `triage mcp`: each a name, a description for the model, a zod input shape, a zod output shape and a
 * handler that returns a short text answer plus the same answer as structured data. The handlers call what the CLI
 * commands call (memory/store/pin-rule.ts, memory/archive/dig-index.ts, operators/retrieve.ts over
 * io/memory-files.ts); they throw TriageError on bad input, which the server turns into a tool error.
 */
import { relative } from "node:path";
// Classic zod, unlike the rest of scripts/ (zod/mini): the SDK itself is built on it, so it is in dist/mcp.mjs anyway,
// and its .describe() puts each field's description into the JSON schema the model reads.
import * as z from "zod";
import type { Classifier } from "../engine/classify.js";
import { UsageError } from "../errors.js";
import { memoryDocs, projectMemoryFiles } from "../io/memory-files.js";
import { archiveDir } from "../memory/archive/archive.js";
import { DigIndex, readMessage } from "../memory/archive/dig-index.js";
import { readRuleFiles } from "../memory/store/pinned-rules.js";
import { PIN_MAX_CHARS, pinRule, unpinRule } from "../memory/store/pin-rule.js";
import { loadStore } from "../memory/store/state.js";
import { retrieve } from "../operators/retrieve.js";

/** Where the tools work: the project folder, its rules folder, and the classifier (loaded on first use). */
export interface ToolContext {
  projectDir: string;
  rulesDir: string;
  classifier: () => Classifier;
  /** Set when the tools must not write (the project folder is the filesystem root or the home folder): why. */
  noWrites?: string;
}

/** Throw UsageError when the context forbids writes (pin, unpin). */
function assertWritable(ctx: ToolContext): void {
  if (ctx.noWrites) throw new UsageError(`nothing written: the project folder ${ctx.projectDir} is ${ctx.noWrites}, not a project (start Claude Code inside a project)`);
}

/** A tool's answer: `text` for the model to read (a few lines), `data` the same as structured content. */
export interface ToolAnswer {
  text: string;
  data: Record<string, unknown>;
}

/** One tool: its MCP name, description, zod input and output shapes, and handler. */
export interface ToolDef<I extends z.ZodRawShape = z.ZodRawShape> {
  name: string;
  description: string;
  input: I;
  output: z.ZodRawShape;
  run: (ctx: ToolContext, args: z.infer<z.ZodObject<I>>) => Promise<ToolAnswer>;
}

/** Type-check a tool against its own input shape, then erase the shape for the list of all tools. */
function defineTool<I extends z.ZodRawShape>(def: ToolDef<I>): ToolDef {
  return def as unknown as ToolDef;
}

/** Most results `retrieve` and `dig` return in one call (each answer stays short; in-scope rules are never cut). */
export const MAX_K = 50;

const k = z.number().int().min(1).max(MAX_K).optional().describe(`number of results (1-${MAX_K}, default 10)`);
const ScopeOut = z.array(z.string());

/** Case- and space-insensitive form of a rule line without its bullet, for matching a rule file line to the store. */
const loose = (s: string): string => s.replace(/^[-*]\s+/, "").replace(/\s+/g, " ").trim().toLowerCase();

const rulesList = defineTool({
  name: "rules_list",
  description:
    "List the rules pinned for this project (the .md files of .claude/rules/knowledge-triage as they are on disk), with the id `unpin` takes and the path globs a rule is scoped to.",
  input: {},
  output: {
    rulesDir: z.string(),
    rules: z.array(z.object({ id: z.string().nullable(), text: z.string(), file: z.string(), globs: ScopeOut, type: z.string().nullable() })),
  },
  async run(ctx) {
    const active = loadStore(ctx.rulesDir).rules.filter((r) => r.status === "active");
    const rules = readRuleFiles(ctx.rulesDir).flatMap((f) =>
      f.rules.map((line) => {
        const l = loose(line);
        // A permission line reads "Permission: <text>" or "Permission (until <when>): <text>" (render.ts): match the stored text in it.
        const r = active.find((x) => loose(x.text) === l) ?? (l.startsWith("permission") ? active.find((x) => x.kind === "permission" && l.includes(loose(x.text))) : undefined);
        return { id: r?.id ?? null, text: line.replace(/^[-*]\s+/, ""), file: f.name, globs: f.globs, type: r ? (r.kind ?? r.type) : null };
      }),
    );
    const text = rules.length
      ? rules.map((r) => `- ${r.text}${r.globs.length ? ` (paths: ${r.globs.join(", ")})` : ""}${r.id ? ` [id ${r.id}]` : ""}`).join("\n")
      : `no rule is pinned in ${ctx.rulesDir}`;
    return { text, data: { rulesDir: ctx.rulesDir, rules } };
  },
});

const retrieveTool = defineTool({
  name: "retrieve",
  description:
    "TypeRetrieve over the project's memory (CLAUDE.md, CLAUDE.local.md, .claude/CLAUDE.md, .claude/rules/**/*.md): the rules that govern the task first (global, matching `path`, or on the query's topic), then the most relevant other lines by BM25.",
  input: {
    query: z.string().trim().min(1).describe("what you are about to do"),
    path: z.string().min(1).optional().describe("the file being worked on, absolute or relative to the project (selects path-scoped rules)"),
    k,
  },
  output: {
    query: z.string(),
    path: z.string().nullable(),
    files: z.number().int(),
    inScope: z.number().int(),
    hits: z.array(z.object({ file: z.string(), line: z.number().int(), type: z.string(), inScope: z.boolean(), why: z.string().nullable(), text: z.string() })),
  },
  async run(ctx, args) {
    const found = projectMemoryFiles(ctx.projectDir, ctx.rulesDir);
    const nameOf = (p: string): string => relative(ctx.projectDir, p) || p;
    const { docs } = memoryDocs(found.files, ctx.classifier(), { nameOf });
    // matchesPath (operators/globs.ts) also takes an absolute path, as Claude Code's Read and Edit give.
    const r = retrieve(docs, args.query, { k: args.k ?? 10, path: args.path });
    const hits = r.hits.map((h) => ({ file: h.doc, line: h.line, type: h.type, inScope: h.inScope, why: h.why, text: h.text }));
    const text = hits.length
      ? hits.map((h) => `${h.file}:${h.line} ${h.inScope ? `RULE (${h.why})` : h.type}\n${h.text}`).join("\n")
      : `no rule is in scope${args.path ? ` for ${args.path}` : ""} and no line matches "${args.query}" (${found.files.length} memory files searched)`;
    return { text, data: { query: args.query, path: args.path ?? null, files: found.files.length, inScope: r.inScope, hits } };
  },
});

const PinOut = { status: z.string(), id: z.string(), text: z.string(), globs: ScopeOut, files: z.array(z.string()), warnings: z.array(z.string()) };

const pin = defineTool({
  name: "pin",
  description:
    "Pin a rule the user stated, word for word, into .claude/rules/knowledge-triage so it survives compaction (secrets are redacted; pinning it again changes nothing). Give `paths` globs to scope it to files.",
  input: {
    text: z.string().trim().min(1).max(PIN_MAX_CHARS).describe("the rule, in the user's words"),
    type: z.enum(["constraint", "procedural"]).optional().describe("constraint or procedural (default: the classifier decides)"),
    paths: z.array(z.string().min(1)).max(20).optional().describe("path globs the rule applies to, relative to the project root, e.g. src/**/*.ts"),
  },
  output: PinOut,
  async run(ctx, args) {
    assertWritable(ctx);
    const r = await pinRule({ text: args.text, rulesDir: ctx.rulesDir, type: args.type, paths: args.paths, classifier: ctx.classifier() });
    const what = r.status === "added" ? "pinned" : r.status === "reactivated" ? "pinned again (was retired)" : "already pinned";
    const text = [`${what} [id ${r.id}]: ${r.text}${r.globs.length ? ` (paths: ${r.globs.join(", ")})` : ""}`, ...r.warnings].join("\n");
    return { text, data: { ...r } };
  },
});

const unpin = defineTool({
  name: "unpin",
  description: "Remove a pinned rule, chosen by its id (from rules_list) or by its text or a part of its text that matches one rule; it is kept as retired in the sidecar store.",
  input: { rule: z.string().trim().min(1).describe("the rule's id, its text, or a part of its text") },
  output: { retired: z.array(z.object({ id: z.string(), text: z.string() })), files: z.array(z.string()), warnings: z.array(z.string()) },
  async run(ctx, args) {
    assertWritable(ctx);
    const r = await unpinRule({ query: args.rule, rulesDir: ctx.rulesDir });
    const text = [...r.retired.map((x) => `unpinned ${x.id}: ${x.text}`), ...r.warnings].join("\n");
    return { text, data: { ...r } };
  },
});

/** The loaded archive index, kept between calls: each call takes in what the hooks archived since (DigIndex.refresh). */
let cached: { root: string; index: DigIndex } | null = null;

function digIndex(ctx: ToolContext): { root: string; index: DigIndex } {
  const root = archiveDir(ctx.rulesDir);
  if (!cached || cached.root !== root || !cached.index.refresh(root)) cached = { root, index: DigIndex.load(root) };
  return cached;
}

const dig = defineTool({
  name: "dig",
  description:
    "Search the archived transcripts of this project's sessions (kept before every compaction) for what was said or done before: BM25 over user and assistant text and tool calls, newest first on ties. Returns short snippets with ids; dig_read <id> returns one whole message.",
  input: { query: z.string().trim().min(1).max(1000).describe("words to look for"), k },
  output: {
    query: z.string(),
    messages: z.number().int(),
    hits: z.array(z.object({ id: z.string(), session: z.string(), role: z.string(), timestamp: z.string().nullable(), score: z.number(), snippet: z.string() })),
  },
  async run(ctx, args) {
    const { root, index } = digIndex(ctx);
    const hits = index.search(args.query, args.k ?? 10);
    const text =
      index.docs.length === 0
        ? `no archive yet in ${root} (the PreCompact and SessionEnd hooks fill it)`
        : hits.length === 0
          ? `no archived message matches "${args.query}" (${index.docs.length} messages searched)`
          : `${hits.map((h) => `${h.id}  ${h.role}  ${h.timestamp ?? ""}\n    ${h.snippet}`).join("\n")}\n(dig_read with an id returns the whole message)`;
    return { text, data: { query: args.query, messages: index.docs.length, hits } };
  },
});

const digRead = defineTool({
  name: "dig_read",
  description: "Return one whole archived message (user text, or assistant text with every tool call and its input) by the id `dig` gave, redacted.",
  input: { id: z.string().trim().min(1).max(200).describe("a message id from dig, e.g. 1a2b3c4d:5120") },
  output: { id: z.string(), session: z.string(), role: z.string(), timestamp: z.string().nullable(), text: z.string() },
  async run(ctx, args) {
    const { root, index } = digIndex(ctx);
    const d = index.find(args.id);
    if (!d) throw new UsageError(`no archived message with id "${args.id}" (ids come from dig)`);
    const text = await readMessage(root, d);
    return { text: `${args.id}  ${d.r}  ${d.t ?? ""}\n${text}`, data: { id: args.id, session: d.session, role: d.r, timestamp: d.t ?? null, text } };
  },
});

/** Every tool of the server, in the order tools/list gives them. */
export const TOOLS: readonly ToolDef[] = [rulesList, retrieveTool, pin, unpin, dig, digRead];
