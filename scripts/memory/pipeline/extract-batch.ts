/**
 * Batching for an extraction run (extract-run.ts): user utterances are gathered into batches in transcript
 * order (bounded by count, characters and the bytes they span, so memory stays bounded on huge transcripts),
 * and each batch is redacted, split into sentences, judged and consolidated into the store.
 */
import { stripControls } from "../control-chars.js";
import { createHash } from "node:crypto";
import { applyStatement } from "../consolidate.js";
import { DURABLE_THRESHOLD } from "../durability.js";
import type { Candidate, Verdict } from "../extract.js";
import { redactTexts } from "../redact.js";
import { splitSentences } from "../sentences.js";
import type { Utterance } from "../transcript.js";
import type { RuleSource, Store } from "../store/store-schema.js";
import type { ExtractOptions, ExtractReport } from "./extract-api.js";
import type { LinePos, RunProgress } from "./extract-cursor.js";
import { yieldAndCheck, type SignalTrap } from "./interrupt.js";
import { askLlm } from "./llm-review.js";
import { loadUtteranceScorer } from "../../io/model-file.js";
import { lazyUtterance } from "../utterance-model.js";

/** The default sentence model (ExtractOptions.utterance): model/utterance.json, read on first use. */
const bundledUtterance = lazyUtterance(() => loadUtteranceScorer());


/** Consonants only: a digest written with them cannot hold a digit string or most words (a PIN or a password in the corpus). */
const DIGEST_ALPHABET = "bcdfghjklmnpqrstvwxz";

/**
 * The sidecar's record of a transcript line's uuid: 16 letters of its sha256 in DIGEST_ALPHABET. Stored instead of
 * the uuid itself so no run of digits a user once typed as a PIN can turn up in the rules folder by chance.
 */
export function uuidDigest(uuid: string): string {
  const h = createHash("sha256").update(uuid).digest();
  let out = "";
  for (let i = 0; i < 16; i++) out += DIGEST_ALPHABET[(h[i] as number) % DIGEST_ALPHABET.length];
  return out;
}

/**
 * User utterances per batch (redaction, classification, consolidation). A run always finishes the first batch
 * it starts, whatever its deadline (runExtract), so the batch size bounds both how far a run can overshoot its
 * budget and the work a run resumed inside a batch repeats. 256 short user messages take about 0.2 s with a
 * small store and 1 s with 10,000 rules, mostly consolidation, on a 2-core machine (references/memory.md, Deadline).
 */
export const BATCH_UTTERANCES = 256;

/**
 * Characters of user text (before redaction) that end a batch: the utterance that reaches this many is the
 * batch's last, so with MAX_UTTERANCE_CHARS a batch holds under BATCH_CHARS + MAX_UTTERANCE_CHARS characters
 * however long its messages are.
 */
export const BATCH_CHARS = 128 * 1024;

/**
 * A batch ends before the first line that starts this many bytes (or more) after the batch's first user line.
 * A run that must finish its first batch keeps reading to fill it: this bounds that reading (tool output, a
 * huge line with no newline) to 32 MiB. It depends only on the transcript, so resumed runs batch the same way.
 */
export const BATCH_SPAN_BYTES = 32 * 1024 * 1024;

/**
 * Statements consolidated between two event-loop turns, so a SIGTERM/SIGINT handler can run during a long
 * consolidation (the flag itself is checked before every statement). Each statement costs at most
 * CANDIDATE_CAP candidate rules (consolidate.ts), so 256 of them take milliseconds, not seconds.
 */
export const CHECK_EVERY_STATEMENTS = 256;

/** Borderline band around the threshold in which `--llm` is asked (score units). */
export const LLM_BAND = 1.5;

/** A user utterance with where it was said. */
export interface Said extends LinePos {
  u: Utterance;
}

/** Limits of a batch: utterances, characters of user text, and bytes from its first user line. */
export interface BatchLimits {
  size: number;
  chars: number;
  span: number;
}

/** The utterances gathered for the next batch. */
export class Batch {
  items: Said[] = [];
  private chars = 0;
  constructor(readonly limits: BatchLimits) {}

  /** The batch's first utterance, if any. */
  get head(): Said | undefined {
    return this.items[0];
  }

  /** True when a line starting at byte `start` is too far after the head to join this batch. */
  spanEnds(start: number): boolean {
    const h = this.items[0];
    return h !== undefined && start - h.offset >= this.limits.span;
  }

  /** Add one utterance; true when the batch is now full (by count or characters). */
  push(s: Said): boolean {
    this.items.push(s);
    this.chars += s.u.text.length;
    return this.items.length >= this.limits.size || this.chars >= this.limits.chars;
  }

  /** Empty it for the next batch. */
  clear(): void {
    this.items = [];
    this.chars = 0;
  }
}

/** What the batch runner needs from its run. */
export interface BatchContext {
  opts: ExtractOptions;
  store: Store;
  report: ExtractReport;
  progress: RunProgress;
  trap: SignalTrap;
  /** Session id for provenance when a line carries none. */
  sessionId: string;
  /** Rules folder is user-level (Claude Code ignores `paths:` there). */
  userLevel: boolean;
  /** Collect every verdict (RunTuning.verdicts). */
  verdicts?: Verdict[];
  onConsolidated?: (statements: number) => void;
}

/** Redacts, judges and consolidates batches into the store, keeping count of what it did for the report. */
export class BatchRunner {
  /** Warnings of the redactor (each once). */
  readonly redactWarnings = new Set<string>();
  /** Path-scoped rules written unscoped because the rules folder is user-level. */
  scopedToUser = 0;
  private consolidated = 0;
  /** Offset of the utterance whose sentences were consolidated last (-1: none yet in this run). */
  private lastUtterance = -1;
  constructor(private readonly c: BatchContext) {}

  private timeUp(): boolean {
    return this.c.opts.deadline?.expired() === true;
  }

  /** Redact, judge and consolidate one batch; false when the deadline stopped it (progress.resumeAt says where). */
  async run(batch: readonly Said[]): Promise<boolean> {
    const { opts, store, report, progress: pr, trap } = this.c;
    const first = batch[0];
    if (first === undefined) return true;
    if (this.timeUp() && pr.finishedBatch) return pr.stopAt(first);
    // Loaded with the first batch: a run with no new user message (most hook runs) never initialises the judge,
    // the scope parser (yaml, picomatch) or the sentence model (model/utterance.json, read at its first score).
    const { dropSecretClauses, judge, toStatement } = await import("../extract.js");
    // Redact whole utterances first (secrets can span sentence ends), then split. Terminal escapes and control
    // characters go first: judged, stored and printed is the text as a reader saw it (memory/control-chars.ts).
    const red = await redactTexts(batch.map((x) => stripControls(x.u.text)));
    for (const w of red.warnings) this.redactWarnings.add(w);
    const cands: Candidate[] = [];
    batch.forEach((x, i) => {
      const src: RuleSource = { session: x.u.sessionId ?? this.c.sessionId, line: x.line, offset: x.offset };
      // Provenance time is the line's own timestamp (so reruns write the same bytes); the clock only as a fallback.
      if (x.u.timestamp) src.at = x.u.timestamp;
      else if (opts.now) src.at = opts.now().toISOString();
      if (x.u.uuid !== undefined) src.uuid = uuidDigest(x.u.uuid);
      splitSentences(red.texts[i] as string).forEach((s, n) => {
        cands.push({ text: dropSecretClauses(s), source: n === 0 ? src : { ...src, n } });
      });
    });
    const verdicts = judge(cands, opts.classifier, DURABLE_THRESHOLD, { classifyAll: Boolean(opts.llm), folders: opts.folders, utterance: opts.utterance ?? bundledUtterance });
    // Sentences that a run stopped at its deadline consolidated: skipped, with the state they left.
    const skip = Math.min(pr.skipLeft, verdicts.length);
    pr.skipLeft -= skip;
    const todo = skip > 0 ? verdicts.slice(skip) : verdicts;
    report.candidates += todo.length;
    if (opts.llm && this.timeUp() && pr.finishedBatch) return pr.stopAt(first);
    if (opts.llm) await askLlm(opts.llm, todo, DURABLE_THRESHOLD, LLM_BAND, report.warnings, opts.llmTimeoutMs);
    if (this.c.verdicts) for (const v of todo) this.c.verdicts.push(v);
    if (this.c.userLevel) {
      // User-level rules ignore paths: (references/cases.md BL-30): keep such rules, unscoped (their text still names the path).
      for (const v of todo) {
        if (v.keep && v.globs.length > 0) {
          v.globs = [];
          this.scopedToUser++;
        }
      }
    }
    if (skip > 0) this.lastUtterance = (verdicts[skip - 1] as Verdict).source.offset;
    for (let k = skip; k < verdicts.length; k++) {
      const v = verdicts[k] as Verdict;
      // Out of time: stop before this sentence; the ones before it are consolidated, the rest wait for the next run.
      if (this.timeUp() && pr.finishedBatch) return pr.stopAt(first, k);
      if (v.source.offset !== this.lastUtterance) {
        this.lastUtterance = v.source.offset;
        pr.since++;
      }
      if (!v.keep) continue;
      // Interrupted mid-batch: stop before this statement; the store is only in memory, nothing is written.
      trap.check();
      // A bare "scratch that" retracts the rule added in the previous user turn or the same one.
      let res = applyStatement(store, toStatement(v), pr.since <= 1 ? pr.recent : undefined);
      if (res.action === "no-target" && v.score >= DURABLE_THRESHOLD) res = applyStatement(store, { ...toStatement(v), kind: "rule" });
      this.consolidated++;
      this.c.onConsolidated?.(this.consolidated);
      if (this.consolidated % CHECK_EVERY_STATEMENTS === 0) await yieldAndCheck(trap);
      if (res.action === "no-target") continue;
      if (res.action === "duplicate-source") continue;
      report.kept++;
      if (res.action === "added" || res.action === "refined") report.added++;
      else if (res.action === "merged" || res.action === "reworded") report.updated++;
      if (res.action === "retired" && res.ruleId) report.added++;
      report.retired += res.retired.length;
      if (res.ruleId && res.action !== "retired") {
        pr.recent = res.ruleId;
        pr.since = 0;
      }
    }
    pr.finishedBatch = true;
    return true;
  }
}
