import type { Command } from "commander";
import { UsageError } from "../../errors.js";
import { writeStdout } from "../../io/text-io.js";
import { visible } from "../../terminal.js";
import { rulesDirFrom } from "../../io/project-folders.js";

interface DigFlags {
  k?: string;
  json?: boolean;
  rulesDir?: string;
}

/**
 * `triage dig "<query>" [-k N] [--json] [--rules-dir DIR]`: BM25 search over the transcript archive, short snippets
 * with ids; `triage dig read <id> [--json]`: the whole message with its tool calls. Both redacted.
 */
export function registerDig(program: Command): void {
  program
    .command("dig")
    .description("search the transcript archive (snippets with ids); `dig read <id>` prints one whole message")
    .argument("<words...>", "the query, or `read <id>`")
    .option("-k <n>", "number of results", "10")
    .option("--json", "print JSON")
    .option("--rules-dir <dir>", "rules folder holding archive/ (default: .claude/rules/knowledge-triage of the project: the nearest folder up to the git root that has one, else the git root, else here; never $HOME or /)")
    .action(async (words: string[], opts: DigFlags) => {
      const { archiveDir } = await import("../../memory/archive/archive.js");
      if (words[0] === "read" && words.length === 1) throw new UsageError("dig read: missing id (ids come from `triage dig \"<query>\"`)");
      const { DigIndex, readMessage } = await import("../../memory/archive/dig-index.js");
      const root = archiveDir(rulesDirFrom(opts.rulesDir, process.cwd()));
      const index = DigIndex.load(root);
      if (words[0] === "read" && words.length === 2) {
        const id = words[1] as string;
        const d = index.find(id);
        if (!d) throw new UsageError(`no archived message with id "${id}" (ids come from \`triage dig "<query>"\`)`);
        const text = await readMessage(root, d);
        if (opts.json) writeStdout(`${JSON.stringify({ id, session: d.session, role: d.r, timestamp: d.t ?? null, text })}\n`);
        else writeStdout(`${visible(`${id}  ${d.r}  ${d.t ?? ""}`)}\n${visible(text)}\n`);
        return;
      }
      const k = Number(opts.k);
      if (!Number.isInteger(k) || k < 1) throw new UsageError(`-k must be a positive integer, got "${opts.k}"`);
      const query = words.join(" ");
      if (query.trim() === "") throw new UsageError("empty query");
      const hits = index.search(query, k);
      if (opts.json) {
        writeStdout(`${JSON.stringify({ query, k, messages: index.docs.length, hits })}\n`);
        return;
      }
      if (index.docs.length === 0) {
        writeStdout(`no archive yet in ${root} (the PreCompact and SessionEnd hooks fill it)\n`);
        return;
      }
      if (hits.length === 0) writeStdout(`no archived message matches "${visible(query)}" (${index.docs.length} messages searched)\n`);
      for (const h of hits) writeStdout(`${visible(`${h.id}  ${h.role}  ${h.timestamp ?? ""}  ${h.score}`)}\n    ${visible(h.snippet)}\n`);
      if (hits.length > 0) writeStdout(`(\`triage dig read <id>\` prints a whole message with its tool calls)\n`);
    });
}
