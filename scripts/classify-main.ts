/**
 * The fast path of `triage classify` inside dist/triage.mjs: a second, small program (the engine,
 * model loading and the classify command; no commander, no other command) that the bundle's loader
 * runs for `triage classify`, so a cold start reads, compiles and initialises ~90 KB of JavaScript
 * instead of the whole CLI (references/classifier.md, "Cold start"). It takes the command's plain
 * forms — files (or - for stdin), --json, --summary, --model PATH — and runs the same runClassify
 * as the CLI; any other argument list (--help, --model=PATH, --, an unknown option, no file) goes to
 * the full CLI unchanged, so every message and exit code is the CLI's own. It exports nothing: the
 * loader runs it as a script.
 */
import "./classify-main-start.js";
import { plainClassifyArgs, runClassify } from "./commands/classify.js";
import { errorReport } from "./errors.js";
import { modelCacheReadAheadDone } from "./model-cache-read-ahead.js";
import { loaderInfo } from "./runtime.js";

/** Run `triage classify` from process.argv, or hand the arguments to the full CLI. */
async function main(): Promise<void> {
  const plain = plainClassifyArgs(process.argv.slice(3));
  const full = loaderInfo()?.runFullProgram;
  if (!plain && full) return full();
  if (!plain) throw new Error("classify-main: arguments need the full CLI, and no loader gave it");
  await modelCacheReadAheadDone();
  try {
    runClassify(plain.files, plain.opts);
  } catch (err) {
    const report = errorReport(err, false);
    process.stderr.write(report.text);
    process.exitCode = report.exitCode;
  }
}

void main();
