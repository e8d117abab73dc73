/**
 * Writes planned rule files into the rules folder, respecting hand edits. The store records the
 * sha256 of every file we wrote; a file whose bytes no longer match was edited by the user: it is never
 * rewritten or deleted again (a warning says so), rules the user removed from it are retired
 * ("removed-by-hand"), and new rules go to another file name. `.md` files we did not write are never
 * touched. Only `<rulesDir>/*.md` and `<rulesDir>/.state/` are ever written.
 *
 * Crash consistency: before the first file is replaced or removed, the store is saved with every file it is
 * about to change and the bytes that file may still hold (FileRecord.prev); only then are files written, and
 * the caller saves the final store. A kill at any step leaves files that each match their record's old or new
 * bytes, so the next run takes none of them for a hand edit and writes what an uninterrupted run would have.
 */
import { existsSync, readdirSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { applyStatement } from "../consolidate.js";
import { parseRuleFile } from "./pinned-rules.js";
import { NOTICE, parsePermissionLine, planFiles, sha256, type PlannedFile } from "../render.js";
import type { Store } from "./store-schema.js";
import { INPUT_MAX_BYTES, readFileCapped } from "../../io/read-files.js";
import { makeDirs } from "../../io/write-files.js";
import { writeIfChanged } from "./state.js";

/** Result of a sync: files written, removed, left alone (hand-edited), and warnings (one line each). */
export interface SyncResult {
  written: string[];
  removed: string[];
  frozen: string[];
  files: string[];
  warnings: string[];
  retired: number;
}

/** Text of a rule file (`p`), or null when it is missing, unreadable, not a regular file (a FIFO) or over INPUT_MAX_BYTES. */
export function readOrNull(p: string): string | null {
  try {
    return readFileCapped(p, { maxBytes: INPUT_MAX_BYTES }).toString("utf8");
  } catch {
    return null;
  }
}

/**
 * Rebuild an empty store from rule files we wrote earlier (they carry NOTICE) when the state folder was
 * lost: their bullets become active rules again (origin "pin", session "recovered"), so the next write
 * reproduces the same files instead of duplicating every rule into new ones. Returns the rules recovered.
 */
export function recoverFromFiles(rulesDir: string, store: Store): number {
  if (store.rules.length > 0 || Object.keys(store.files).length > 0) return 0;
  let names: string[] = [];
  try {
    names = readdirSync(rulesDir).filter((f) => f.endsWith(".md")).sort();
  } catch {
    return 0;
  }
  let n = 0;
  let k = 0;
  for (const name of names) {
    const text = readOrNull(join(rulesDir, name));
    if (text === null || !text.includes(NOTICE)) continue;
    const f = parseRuleFile(name, text);
    const type = name.startsWith("procedures") ? "procedural" : "constraint";
    const texts: string[] = [];
    let indent = 0;
    for (const block of f.rules) {
      for (const l of block.split("\n")) {
        const b = /^( *)- /.exec(l);
        if (b) {
          indent = (b[1] as string).length;
          texts.push(l.slice(b[0].length));
        } else if (texts.length > 0) texts[texts.length - 1] += `\n${l.slice(Math.min(indent + 2, l.length - l.trimStart().length))}`;
        else texts.push(l);
      }
    }
    const ids: string[] = [];
    for (const t of texts) {
      const perm = name.startsWith("permissions") ? parsePermissionLine(t) : null;
      const res = applyStatement(store, { text: perm ? perm.text : t, type, globs: f.globs, score: 0, source: { session: "recovered", line: 0, offset: k++ }, origin: "pin", kind: "rule" });
      if (res.action === "added") n++;
      if (res.ruleId) ids.push(res.ruleId);
      const r = perm && res.action === "added" ? store.rules.find((x) => x.id === res.ruleId) : undefined;
      if (r && perm) {
        r.kind = "permission";
        if (perm.until) r.until = perm.until;
      }
    }
    // Ours, unedited as far as we can tell: the next write may replace it.
    store.files[name] = { sha256: sha256(text), ruleIds: ids };
  }
  return n;
}

/** True when `cur` (a file's text, null when missing) is what we last wrote there, or what it held before a write a crash interrupted. */
function isOurs(rec: Store["files"][string], cur: string | null): boolean {
  if (cur === null) return rec.prev === null;
  const h = sha256(cur);
  return h === rec.sha256 || (typeof rec.prev === "string" && h === rec.prev);
}

/**
 * Detect hand edits (mutating `store.files` and retiring rules removed by hand), then plan the files.
 * Pure with respect to the rules folder except for reads. Used by both sync and dry runs.
 */
export function reconcile(rulesDir: string, store: Store): { plan: PlannedFile[]; frozen: string[]; warnings: string[]; retired: number } {
  const warnings: string[] = [];
  const frozen: string[] = [];
  const hosted = new Set<string>();
  let retired = 0;
  const byId = new Map<string, Store["rules"][number]>();
  for (const r of store.rules) if (!byId.has(r.id)) byId.set(r.id, r);
  for (const [name, rec] of Object.entries(store.files)) {
    const cur = readOrNull(join(rulesDir, name));
    const edited = rec.handEdited === true || !isOurs(rec, cur);
    if (!edited) continue;
    if (!rec.handEdited) warnings.push(`${name} was ${cur === null ? "deleted" : "edited"} by hand; it is left as is and new rules go to another file`);
    rec.handEdited = true;
    frozen.push(name);
    for (const id of rec.ruleIds) {
      const r = byId.get(id);
      if (r?.status !== "active") continue;
      if (cur?.includes(r.text.split("\n")[0] ?? r.text)) hosted.add(id);
      else {
        r.status = "retired";
        r.retiredReason = "removed-by-hand";
        retired++;
      }
    }
  }
  const taken = new Set<string>(frozen);
  if (existsSync(rulesDir)) {
    for (const f of readdirSync(rulesDir)) if (f.endsWith(".md") && !store.files[f]) taken.add(f);
  }
  return { plan: planFiles(store, taken, hosted), frozen, warnings, retired };
}

/**
 * Write the planned files (atomic, only when bytes change), delete files we wrote earlier that hold no
 * active rule any more (only when unedited), and record hashes in `store.files`. Mutates `store`.
 * `journal(store)` is called once, before the first file changes, when any will (the run saves the store
 * there: see the file comment); the caller saves the final store afterwards.
 */
export function syncRuleFiles(rulesDir: string, store: Store, journal: (s: Store) => void = () => {}): SyncResult {
  const { plan, frozen, warnings, retired } = reconcile(rulesDir, store);
  makeDirs(rulesDir);
  const planned = new Set(plan.map((p) => p.name));
  // 1. What will change, and the bytes each file may hold until it has (recorded in `prev`).
  const writes: typeof plan = [];
  for (const p of plan) {
    const cur = readOrNull(join(rulesDir, p.name));
    const was = cur === null ? null : sha256(cur);
    const sha = sha256(p.content);
    store.files[p.name] = { sha256: sha, ruleIds: p.ruleIds };
    if (was === sha) continue;
    writes.push(p);
    (store.files[p.name] as Store["files"][string]).prev = was;
  }
  const removals: string[] = [];
  for (const [name, rec] of Object.entries(store.files)) {
    if (planned.has(name) || rec.handEdited) continue;
    // Unedited (reconcile froze the rest): ours to remove. Missing afterwards is fine (prev null).
    if (readOrNull(join(rulesDir, name)) !== null) removals.push(name);
    rec.prev = null;
  }
  if (writes.length > 0 || removals.length > 0) journal(store);
  // 2. The files themselves.
  const written: string[] = [];
  for (const p of writes) if (writeIfChanged(join(rulesDir, p.name), p.content)) written.push(p.name);
  const removed: string[] = [];
  for (const name of removals) {
    unlinkSync(join(rulesDir, name));
    removed.push(name);
  }
  // 3. Settled: drop the records of removed files and the in-flight marks.
  for (const [name, rec] of Object.entries(store.files)) {
    if (!planned.has(name) && !rec.handEdited) delete store.files[name];
    else delete rec.prev;
  }
  const sortedFiles: Store["files"] = {};
  for (const k of Object.keys(store.files).sort()) sortedFiles[k] = store.files[k] as Store["files"][string];
  store.files = sortedFiles;
  return { written, removed, frozen, files: plan.map((p) => join(rulesDir, p.name)), warnings, retired };
}
