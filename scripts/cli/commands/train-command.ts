import type { Command } from "commander";
import { computeMetrics, summarizeMetrics, formatMetrics } from "../../engine/metrics.js";
import { encodeFloat32, encodeInt32, quantizeInt8, MODEL_FORMAT, MODEL_VERSION, type ModelFile } from "../../engine/model-format.js";
import { modelClassifier } from "../../engine/inference.js";
import { argmax, buildExamples, crossValidate, DEFAULT_MIN_CONSTRAINT_PRECISION, DEFAULT_MIN_CONSTRAINT_RECALL, DEFAULT_TRAIN_OPTIONS, fitDecisionOffsets, fitModel, fitTemperature, type TrainOptions } from "../../engine/train.js";
import { TYPES, type KnowledgeType } from "../../engine/types.js";
import { GROUPS, HASH_BITS } from "../../engine/features.js";
import { packStems } from "../../engine/tokenize.js";
import { loadLabelledData } from "../../io/labelled-data.js";
import { UsageError } from "../../errors.js";
import { refuseOverwrite } from "../../io/write-files.js";
import { stderrLine, writeStdout } from "../../io/text-io.js";
import { INPUT_MAX_BYTES, readFileCapped } from "../../io/read-files.js";
import { visible } from "../../terminal.js";
import { evaluateDocs } from "../../engine/evaluate.js";
import { writeModel } from "../../io/model-file.js";

/**
 * True when `path` holds a Knowledge Triage model file (any format version): a retrain may replace it.
 * Read with the input cap, so `-o /dev/zero` is "not a model file", not an endless read.
 */
function isModelFile(path: string): boolean {
  try {
    return (JSON.parse(readFileCapped(path, { maxBytes: INPUT_MAX_BYTES }).toString("utf8")) as { format?: unknown } | null)?.format === MODEL_FORMAT;
  } catch {
    return false;
  }
}

/** Most folds or epochs accepted: beyond this a run would never end (or not fit in memory) anyway. */
const INT_OPT_MAX = 1_000_000;

function intOpt(name: string, v: string | undefined, def: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (v === undefined) return def;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min) throw new UsageError(`${name} must be an integer >= ${min} (got ${JSON.stringify(v)})`);
  if (n > max) throw new UsageError(`${name} must be at most ${max.toLocaleString("en")} (got ${JSON.stringify(v)})`);
  return n;
}

/** A one-line progress bar on stderr when it is a terminal; silent otherwise. */
function progressBar(total: number): { tick: (label: string) => void; done: () => void } {
  const tty = process.stderr.isTTY === true;
  let n = 0;
  return {
    tick(label) {
      n++;
      if (!tty || (n % 5 !== 0 && n !== total)) return;
      const w = 30;
      const filled = Math.round((n / total) * w);
      process.stderr.write(`\r[${"#".repeat(filled)}${"-".repeat(w - filled)}] ${Math.round((n / total) * 100)}% ${label}   `);
    },
    done() {
      if (tty) process.stderr.write("\n");
    },
  };
}

/** Training date for metadata: SOURCE_DATE_EPOCH (reproducible-builds convention) or today's UTC date. */
function trainingDate(): string {
  const epoch = process.env.SOURCE_DATE_EPOCH;
  const d = epoch && /^\d+$/.test(epoch) ? new Date(Number(epoch) * 1000) : new Date();
  return d.toISOString().slice(0, 10);
}

export function registerTrain(program: Command): void {
  program
    .command("train")
    .description("train the classifier on labelled data; prints k-fold CV and test metrics")
    .argument("<data>", "folder of <name>.md + <name>.labels.jsonl documents and *.jsonl units, or one such file")
    .requiredOption("-o, --output <model.json>", "where to write the model")
    .option("--folds <k>", "k for grouped k-fold cross-validation (0 = skip)", "5")
    .option("--seed <n>", "random seed (fold assignment)", String(DEFAULT_TRAIN_OPTIONS.seed))
    .option("--epochs <n>", "optimisation epochs", String(DEFAULT_TRAIN_OPTIONS.epochs))
    .option("--test <data>", "held-out labelled data to evaluate the final model on")
    .option("--min-constraint-recall <r>", "constraint recall the decision offsets aim for on CV (0 = argmax)", String(DEFAULT_MIN_CONSTRAINT_RECALL))
    .option("--min-constraint-precision <p>", "constraint precision the decision offsets must keep on CV", String(DEFAULT_MIN_CONSTRAINT_PRECISION))
    .option("--force", "allow -o to overwrite an existing file that is not a model file")
    .action((data: string, opts: { output: string; folds?: string; seed?: string; epochs?: string; test?: string; minConstraintRecall: string; minConstraintPrecision: string; force?: boolean }) => {
      const minRecall = Number(opts.minConstraintRecall);
      if (!(minRecall >= 0 && minRecall <= 1)) throw new UsageError(`--min-constraint-recall must be in [0, 1] (got ${opts.minConstraintRecall})`);
      const minPrecision = Number(opts.minConstraintPrecision);
      if (!(minPrecision >= 0 && minPrecision <= 1)) throw new UsageError(`--min-constraint-precision must be in [0, 1] (got ${opts.minConstraintPrecision})`);
      const options: TrainOptions = {
        ...DEFAULT_TRAIN_OPTIONS,
        folds: intOpt("--folds", opts.folds, 5, 0, INT_OPT_MAX),
        seed: intOpt("--seed", opts.seed, DEFAULT_TRAIN_OPTIONS.seed, 0),
        epochs: intOpt("--epochs", opts.epochs, DEFAULT_TRAIN_OPTIONS.epochs, 1, INT_OPT_MAX),
      };
      if (options.folds === 1) throw new UsageError("--folds must be 0 (no CV) or at least 2");
      if (opts.output === "-") throw new UsageError("-o -: the model must be written to a file (standard output carries the metrics)");
      refuseOverwrite(opts.output, { force: opts.force, inputs: [data, ...(opts.test ? [opts.test] : [])], owned: isModelFile });
      const t0 = performance.now();
      const train = loadLabelledData(data);
      const test = opts.test ? loadLabelledData(opts.test) : null;
      for (const w of [...train.warnings, ...(test?.warnings ?? [])]) stderrLine(`warning: ${w}`);
      // Headings are not scored (references/taxonomy.md) and their labels are the noisiest: train on scored units only.
      const examples = buildExamples(train.docs, false);
      if (examples.length < 10) throw new UsageError(`${data}: only ${examples.length} labelled units; need at least 10`);
      const bar = progressBar((options.folds + 1) * options.epochs);
      let cv: ModelFile["metadata"]["cv"] = null;
      let temperature = 1;
      let offsets = TYPES.map(() => 0);
      if (options.folds >= 2) {
        const r = crossValidate(examples, options, (f, e) => bar.tick(`fold ${f + 1}/${options.folds} epoch ${e}`));
        const held = r.scored.map((i) => r.logits[i] as number[]);
        const ys = r.scored.map((i) => (examples[i] as (typeof examples)[number]).y);
        offsets = fitDecisionOffsets(held, ys, minRecall, minPrecision);
        temperature = fitTemperature(
          held.map((z) => z.map((v, k) => v + (offsets[k] as number))),
          ys,
        );
        const adjusted = computeMetrics(
          ys.map((y) => TYPES[y] as KnowledgeType),
          held.map((z) => TYPES[argmax(z.map((v, k) => v + (offsets[k] as number)))] as KnowledgeType),
        );
        bar.done();
        writeStdout(`${formatMetrics(`${options.folds}-fold grouped cross-validation, argmax`, r.metrics)}\n\n`);
        writeStdout(
          `${formatMetrics(`${options.folds}-fold grouped cross-validation, with decision offsets ${offsets.map((o) => o.toFixed(2)).join(" ")} (constraint recall target ${minRecall}, precision floor ${minPrecision})`, adjusted)}\n\n`,
        );
        cv = { ...summarizeMetrics(adjusted), folds: options.folds };
      }
      const fit = fitModel(examples, options, (e) => bar.tick(`final fit epoch ${e}`));
      bar.done();
      const model: ModelFile = {
        format: MODEL_FORMAT,
        version: MODEL_VERSION,
        classes: [...TYPES],
        hashing: { function: "fnv1a32", bits: HASH_BITS, groups: GROUPS },
        terms: encodeInt32(fit.terms),
        idf: encodeFloat32(fit.idf),
        ...(({ weights, scales }) => ({ weights, weightScales: scales }))(quantizeInt8(fit.w, TYPES.length)),
        bias: Array.from(fit.b).map((b, k) => b + (offsets[k] as number)),
        temperature,
        groupWeights: { ...options.groupWeights },
        stems: packStems(),
        metadata: {
          createdAt: trainingDate(),
          trainer: "one-vs-rest logistic regression, full-batch Adam (scripts/engine/train.ts)",
          seed: options.seed,
          dataSha256: train.sha256,
          trainingUnits: examples.length,
          minDf: options.minDf,
          l2: options.l2,
          epochs: options.epochs,
          decisionOffsets: offsets,
          minConstraintRecall: minRecall,
          minConstraintPrecision: minPrecision,
          cv,
          test: null,
        },
      };
      if (test) {
        const r = evaluateDocs(test.docs, modelClassifier(model));
        writeStdout(`${formatMetrics(`test (${visible(opts.test ?? "")})`, r.metrics)}\n\n`);
        model.metadata.test = summarizeMetrics(r.metrics);
      }
      const bytes = writeModel(opts.output, model);
      writeStdout(
        `wrote ${visible(opts.output)}: ${fit.terms.length} terms, ${(bytes / 1024).toFixed(0)} KiB, ${examples.length} training units, ` +
          `temperature ${temperature.toFixed(3)}, ${((performance.now() - t0) / 1000).toFixed(1)} s\n`,
      );
    });
}
