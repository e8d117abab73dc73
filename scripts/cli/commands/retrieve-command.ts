import type { Command } from "commander";
import { UsageError } from "../../errors.js";
import { loadClassifier } from "../../io/model-file.js";
import { memoryDocs } from "../../io/memory-files.js";
import { stderrLine, writeStdout } from "../../io/text-io.js";
import { visible } from "../../terminal.js";
import { retrieve } from "../../operators/retrieve.js";
import { RetrieveJsonSchema } from "../operator-json.js";
import { pinMassFlag } from "./compact-command.js";

interface RetrieveFlags {
  base?: string[];
  path?: string;
  k?: string;
  json?: boolean;
  model?: string;
  pinMass?: string;
}

/** `triage retrieve "<query>" --base <file...> [--path P] [-k N] [--json]`. */
export function registerRetrieve(program: Command): void {
  program
    .command("retrieve")
    .description("return the k best memory units for a query: in-scope rules first, then the rest by BM25")
    .argument("<query>", "what the agent is about to do")
    .requiredOption("--base <files...>", "markdown memory files")
    .option("--path <path>", "file being worked on (selects path-scoped rules)")
    .option("-k <n>", "number of results (in-scope rules are never cut)", "10")
    .option("--json", "print JSON")
    .option("--model <path>", "classifier model (default: bundled model/model.json; /dev/null = regex tier)")
    .option("--pin-mass <p>", "also count units with P(constraint)+P(procedural) >= p as rules (default: the classifier's type alone)")
    .action((query: string, opts: RetrieveFlags, cmd: Command) => {
      opts.model ??= (cmd.optsWithGlobals() as { model?: string }).model; // a global --model may capture the flag
      const k = Number(opts.k);
      if (!Number.isInteger(k) || k < 1) throw new UsageError(`-k must be a positive integer, got "${opts.k}"`);
      if (query.trim() === "") throw new UsageError("empty query");
      const classifier = loadClassifier(opts.model);
      const pinMass = pinMassFlag(opts.pinMass);
      const { docs, warnings } = memoryDocs(opts.base ?? [], classifier, { pinMass });
      for (const w of warnings) stderrLine(`warning: ${w}`);
      const r = retrieve(docs, query, { k, path: opts.path });
      if (r.exceeded) stderrLine(`note: ${r.inScope} in-scope rules exceed -k ${k}; all of them are returned`);
      if (opts.json) {
        const json = RetrieveJsonSchema.parse({
          query,
          path: opts.path ?? null,
          k,
          inScope: r.inScope,
          exceeded: r.exceeded,
          hits: r.hits.map((h) => ({ file: h.doc, line: h.line, endLine: h.endLine, type: h.type, rule: h.rule, inScope: h.inScope, why: h.why, score: Math.round(h.score * 1e4) / 1e4, scope: h.scope, text: h.text })),
        });
        writeStdout(`${JSON.stringify(json)}\n`);
        return;
      }
      // Say so rather than print nothing: an empty answer looks like a failure.
      if (r.hits.length === 0) stderrLine(`no rule is in scope${opts.path ? ` for ${opts.path}` : ""} and no unit matches "${query}"`);
      r.hits.forEach((h, n) => {
        const first = (h.text.split("\n")[0] ?? "").trim();
        const tag = h.inScope ? `RULE (${h.why})` : `${h.type} ${h.score.toFixed(2)}`;
        // visible(): the memory text, its file name and its scope glob go to a terminal as they are.
        writeStdout(visible(`${String(n + 1).padStart(3)}  ${h.doc}:${h.line}  ${tag}\n     ${first}${h.endLine > h.line ? ` (+${h.endLine - h.line} lines)` : ""}\n`));
      });
    });
}
