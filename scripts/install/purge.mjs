#!/usr/bin/env node
// Removes what Knowledge Triage wrote in one rules folder, and nothing else. Plain Node 20 (no dependencies,
// no build): used by `uninstall.sh --purge`.
//   node scripts/install/purge.mjs <rules folder>
// Removed: the `.state/` folder (ours alone: sidecar, cursors, hook log, lock), our temp files
// (`<name>.<pid>.<n>.tmp`), and each rule file that `.state/rules.json` records with the sha256 it still has.
// Kept and named: every other file (a file the user put there, one edited since we wrote it, anything when the
// sidecar is missing or unreadable). The folder itself goes only when nothing is left in it.
// Prints "- <path>" per removal and "= kept <path>: <why>" per kept file. Exit 1 with one line on a usage error.
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

/** sha256 (hex) of text as UTF-8: the hash scripts/memory/render.ts records for every rule file it writes. */
const sha256 = (s) => createHash("sha256").update(s, "utf8").digest("hex");

/** Our atomic-write temp files: `<target>.<pid>.<counter>.tmp` (scripts/io/write-files.ts replaceAtomically). */
const TEMP = /\.\d+\.\d+\.tmp$/;

/**
 * The files `<dir>/.state/rules.json` records as written by Knowledge Triage: name -> sha256 at write time,
 * leaving out files it marks as edited by hand. Empty when the sidecar is missing or not of our format
 * (then nothing but `.state/` and temp files counts as ours).
 */
export function recordedFiles(dir) {
  let store;
  try {
    store = JSON.parse(fs.readFileSync(path.join(dir, ".state", "rules.json"), "utf8"));
  } catch {
    return new Map();
  }
  const out = new Map();
  if (store?.format !== "knowledge-triage/rules" || typeof store.files !== "object" || store.files === null) return out;
  for (const [name, rec] of Object.entries(store.files)) {
    // Only plain file names in the folder itself: a sidecar must not send the purge elsewhere.
    if (typeof rec?.sha256 !== "string" || rec.handEdited === true || name !== path.basename(name) || name === ".state") continue;
    out.set(name, rec.sha256);
  }
  return out;
}

/** Purge one rules folder; returns { removed: string[], kept: [path, why][] } (absolute paths). */
export function purge(dir) {
  const removed = [];
  const kept = [];
  let st;
  try {
    st = fs.lstatSync(dir);
  } catch {
    return { removed, kept };
  }
  if (!st.isDirectory()) {
    kept.push([dir, st.isSymbolicLink() ? "a symbolic link, not a folder Knowledge Triage made" : "not a folder"]);
    return { removed, kept };
  }
  const recorded = recordedFiles(dir);
  for (const name of fs.readdirSync(dir).sort()) {
    const p = path.join(dir, name);
    const lst = fs.lstatSync(p);
    if (name === ".state" && lst.isDirectory()) {
      fs.rmSync(p, { recursive: true, force: true });
      removed.push(p);
      continue;
    }
    if (lst.isFile() && TEMP.test(name)) {
      fs.rmSync(p, { force: true });
      removed.push(p);
      continue;
    }
    const want = recorded.get(name);
    if (want !== undefined && lst.isFile() && sha256(fs.readFileSync(p, "utf8")) === want) {
      fs.rmSync(p, { force: true });
      removed.push(p);
      continue;
    }
    kept.push([p, want !== undefined && lst.isFile() ? "edited since Knowledge Triage wrote it" : "not written by Knowledge Triage"]);
  }
  if (kept.length === 0) {
    fs.rmdirSync(dir);
    removed.push(dir);
  }
  return { removed, kept };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const dir = process.argv[2];
  if (!dir || process.argv.length !== 3) {
    process.stderr.write("purge.mjs: usage: node purge.mjs <rules folder>\n");
    process.exit(1);
  }
  const { removed, kept } = purge(path.resolve(dir));
  for (const p of removed) process.stdout.write(`- purged ${p}\n`);
  for (const [p, why] of kept) process.stdout.write(`= kept ${p}: ${why}\n`);
}
