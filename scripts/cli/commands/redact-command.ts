import type { Command } from "commander";
import { readInput, stderrLine, writeStdout } from "../../io/text-io.js";
import { REDACTED, redactTexts } from "../../memory/redact.js";

/**
 * `triage redact [file]`: the redactor that runs before anything is written (scripts/memory/redact.ts: own
 * patterns plus secretlint's recommended preset), from a file or stdin ("-", the default) to stdout. Every
 * secret becomes `[REDACTED]`; every other byte is kept. `--count` adds one stderr line with the number of
 * redactions. Input that cannot be read is a one-line `triage:` error (exit 1).
 */
export function registerRedact(program: Command): void {
  program
    .command("redact")
    .description("replace secrets in text by [REDACTED] (stdin or a file to stdout), as extraction does before writing")
    .argument("[file]", "text to redact ('-' = stdin)", "-")
    .option("--count", "print the number of redactions on stderr")
    .action(async (file: string, _o: unknown, cmd: Command) => {
      const opts = cmd.optsWithGlobals<{ count?: boolean }>();
      const input = readInput(file);
      for (const w of input.warnings) stderrLine(`warning: ${w}`);
      const { texts, warnings } = await redactTexts([input.text]);
      for (const w of warnings) stderrLine(`warning: ${w}`);
      const out = texts[0] ?? "";
      writeStdout(out);
      if (opts.count) {
        // Markers already in the input are not new redactions.
        const n = out.split(REDACTED).length - input.text.split(REDACTED).length;
        stderrLine(`${n} redaction${n === 1 ? "" : "s"}`);
      }
    });
}
