/**
 * `triage status`: what the rules folder holds and what the hooks did, read from the rule files, the
 * sidecar store (`.state/rules.json`), the per-session cursors (`.state/sessions/`) and the hook log
 * (`.state/hook.log`). Read-only: takes no lock and writes nothing. Anything never measured (no store, no
 * cursor, no log) is `null`, never 0.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import * as z from "zod/mini";
import { stateDir } from "../../paths.js";
import { readRuleFiles } from "./pinned-rules.js";
import { CursorSchema } from "./store-schema.js";
import { loadStore } from "./state.js";

const Count = z.nullable(z.int().check(z.nonnegative()));

/** One hook-log line: ISO time, hook event, session id, duration in ms, message. */
export const HookLogEntrySchema = z.object({ at: z.string(), event: z.string(), session: z.string(), ms: z.nullable(z.int()), message: z.string() });
export type HookLogEntry = z.infer<typeof HookLogEntrySchema>;

/** The `triage status --json` document. */
export const StatusSchema = z.object({
  rulesDir: z.string(),
  files: z.array(z.object({ file: z.string(), rules: z.int(), globs: z.array(z.string()), chars: z.int() })),
  /** `.md` files of the rules folder that cannot be read as rules (binary, broken frontmatter: pinned-rules.ts ruleFileProblem); skipped by every command. */
  problems: z.array(z.object({ file: z.string(), why: z.string() })),
  /** Active rules in the store, by type and scope; null when there is no store (never extracted or pinned). */
  active: z.nullable(z.object({ total: z.int(), constraint: z.int(), procedural: z.int(), permission: z.int(), unscoped: z.int(), scoped: z.int() })),
  retired: Count,
  /** Permissions whose `until` condition is a date (YYYY-MM-DD) that has passed; null without a store. */
  expired: Count,
  /** Sessions whose transcript has bytes the extraction has not read yet; null when no cursor exists. */
  pending: Count,
  /** Last time a hook or `triage extract` advanced a session cursor (ISO); null when never. */
  lastExtraction: z.nullable(z.string()),
  /** The hook log's last entries (errors and warnings; successful runs only with KNOWLEDGE_TRIAGE_HOOK_DEBUG=1); null when there is no log. */
  hookLog: z.nullable(z.object({ entries: z.int(), errors: z.int(), warnings: z.int(), last: z.array(HookLogEntrySchema) })),
});
export type Status = z.infer<typeof StatusSchema>;

const LOG_LINE = /^(\S+) (\S+) session=(\S+) (?:(\d+)ms )?(.*)$/;

/** Parse hook-log text (dispatch.ts `log`) into entries; lines of another shape are skipped. Pure. */
export function parseHookLog(text: string): HookLogEntry[] {
  const out: HookLogEntry[] = [];
  for (const line of text.split("\n")) {
    const m = LOG_LINE.exec(line);
    if (m) out.push({ at: m[1] ?? "", event: m[2] ?? "", session: m[3] ?? "", ms: m[4] === undefined ? null : Number(m[4]), message: m[5] ?? "" });
  }
  return out;
}

/** The date an `until` condition names (YYYY-MM-DD anywhere in it), or null. Pure. */
export function untilDate(until: string | undefined): string | null {
  return /\b(\d{4}-\d{2}-\d{2})\b/.exec(until ?? "")?.[1] ?? null;
}

/** Collect the status of `rulesDir` (see module doc). `now` decides expiry. Throws StateError for a corrupt store. */
export function collectStatus(rulesDir: string, now: Date = new Date(), lastEntries = 5): Status {
  const st = stateDir(rulesDir);
  const skipped: Array<{ name: string; why: string }> = [];
  const files = existsSync(rulesDir)
    ? readRuleFiles(rulesDir, skipped).map((f) => {
        const text = readFileSync(join(rulesDir, f.name), "utf8");
        return { file: f.name, rules: f.rules.length, globs: f.globs, chars: text.length };
      })
    : [];
  const hasStore = existsSync(join(st, "rules.json"));
  const store = hasStore ? loadStore(rulesDir) : null;
  const act = store?.rules.filter((r) => r.status === "active") ?? [];
  const today = now.toISOString().slice(0, 10);
  const active = store
    ? {
        total: act.length,
        constraint: act.filter((r) => r.kind !== "permission" && r.type === "constraint").length,
        procedural: act.filter((r) => r.kind !== "permission" && r.type === "procedural").length,
        permission: act.filter((r) => r.kind === "permission").length,
        unscoped: act.filter((r) => r.globs.length === 0).length,
        scoped: act.filter((r) => r.globs.length > 0).length,
      }
    : null;
  const expired = store ? act.filter((r) => r.kind === "permission" && (untilDate(r.until) ?? "9999") < today).length : null;

  const sessionsDir = join(st, "sessions");
  const cursorFiles = existsSync(sessionsDir) ? readdirSync(sessionsDir).filter((n) => n.endsWith(".json")) : [];
  let pending: number | null = cursorFiles.length ? 0 : null;
  let lastMs = 0;
  for (const n of cursorFiles) {
    const p = join(sessionsDir, n);
    lastMs = Math.max(lastMs, statSync(p).mtimeMs);
    const c = CursorSchema.safeParse((() => { try { return JSON.parse(readFileSync(p, "utf8")); } catch { return null; } })());
    if (c.success && existsSync(c.data.transcriptPath) && statSync(c.data.transcriptPath).size > c.data.offset) pending = (pending ?? 0) + 1;
  }
  if (store?.pending) pending = (pending ?? 0) + 1;

  const logPath = join(st, "hook.log");
  let hookLog: Status["hookLog"] = null;
  if (existsSync(logPath)) {
    const entries = parseHookLog([`${logPath}.1`, logPath].filter(existsSync).map((p) => readFileSync(p, "utf8")).join("\n"));
    // Hooks log "error: ..." and "warning: ..." (hooks/dispatch.ts log); "<step> failed: ..." is how failures were logged before.
    const isError = (e: HookLogEntry): boolean => /^(?:error|uncaught):|^[a-z ]+ failed:/.test(e.message);
    hookLog = {
      entries: entries.length,
      errors: entries.filter(isError).length,
      warnings: entries.filter((e) => e.message.startsWith("warning:")).length,
      last: entries.slice(-lastEntries),
    };
  }
  return StatusSchema.parse({
    rulesDir,
    files,
    problems: skipped.map((k) => ({ file: k.name, why: k.why })),
    active,
    retired: store ? store.rules.filter((r) => r.status === "retired").length : null,
    expired,
    pending,
    lastExtraction: lastMs ? new Date(lastMs).toISOString() : null,
    hookLog,
  });
}

/** Human-readable status: one section per part; "never measured" where the JSON has null. Pure. */
export function renderStatus(s: Status): string {
  const n = (v: number | null, what: string): string => (v === null ? `${what}: never measured` : `${what}: ${v}`);
  const lines = [`rules folder: ${s.rulesDir}`];
  if (s.files.length === 0) lines.push("rule files: none");
  for (const f of s.files) lines.push(`  ${f.file}: ${f.rules} rule${f.rules === 1 ? "" : "s"}, ${f.chars} chars${f.globs.length ? `, paths: ${f.globs.join(", ")}` : ", unscoped"}`);
  for (const p of s.problems) lines.push(`  problem: ${p.file}: ${p.why}; its rules are not loaded (fix or remove the file)`);
  if (s.active === null) lines.push("active rules: never measured (no .state/rules.json: nothing extracted or pinned yet)");
  else lines.push(`active rules: ${s.active.total} (constraint ${s.active.constraint}, procedural ${s.active.procedural}, permission ${s.active.permission}; unscoped ${s.active.unscoped}, path-scoped ${s.active.scoped})`);
  lines.push(n(s.retired, "retired"), n(s.expired, "expired permissions"), n(s.pending, "sessions with unread transcript"));
  lines.push(`last extraction: ${s.lastExtraction ?? "never"}`);
  if (s.hookLog === null) lines.push("hook log: none (no hook has logged an error or warning here)");
  else {
    lines.push(`hook log: ${s.hookLog.entries} entries, ${s.hookLog.errors} errors, ${s.hookLog.warnings} warnings`);
    for (const e of s.hookLog.last) lines.push(`  ${e.at} ${e.event}${e.ms === null ? "" : ` ${e.ms}ms`} ${e.message}`);
  }
  return `${lines.join("\n")}\n`;
}
