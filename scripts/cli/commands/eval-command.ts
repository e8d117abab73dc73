import type { Command } from "commander";
import { formatMetrics } from "../../engine/metrics.js";
import { loadLabelledData } from "../../io/labelled-data.js";
import { evaluateDocs } from "../../engine/evaluate.js";
import { loadClassifier } from "../../io/model-file.js";
import { stderrLine, writeStdout } from "../../io/text-io.js";
import { visible, visibleName } from "../../terminal.js";

export function registerEval(program: Command): void {
  program
    .command("eval")
    .description("per-class precision, recall, F1, macro-F1 and the confusion matrix on labelled data")
    .argument("<data>", "folder of labelled documents and *.jsonl units, or one such file")
    .option("--model <path>", "model file (default: bundled; /dev/null = regex tier)")
    .option("--errors", "list misclassified units")
    .option("--json", "print the metrics as JSON")
    .action((data: string, opts: { model?: string; errors?: boolean; json?: boolean }) => {
      const classifier = loadClassifier(opts.model);
      const loaded = loadLabelledData(data);
      for (const w of loaded.warnings) stderrLine(`warning: ${w}`);
      const { metrics, predictions } = evaluateDocs(loaded.docs, classifier);
      if (opts.json) {
        writeStdout(`${JSON.stringify(metrics)}\n`);
        return;
      }
      writeStdout(`${formatMetrics(`${visibleName(data)} (${classifier.name} tier)`, metrics)}\n`);
      if (opts.errors) {
        for (const p of predictions) {
          if (p.gold !== p.pred) {
            writeStdout(`${visible(`${p.group}:${p.line} gold=${p.gold} pred=${p.pred} ${p.confidence.toFixed(2)} | ${p.text.split("\n")[0]?.slice(0, 120)}`)}\n`);
          }
        }
      }
    });
}
