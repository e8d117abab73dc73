#!/usr/bin/env node
// Adds or removes the Knowledge Triage hooks in one Claude Code settings file, touching nothing else.
// Plain Node 20 (no dependencies, no build): used by install.sh and uninstall.sh.
//   node scripts/install/settings-merge.mjs add    <settings.json> <abs path of dist/triage.mjs>
//   node scripts/install/settings-merge.mjs remove <settings.json> <abs path of dist/triage.mjs>
// Prints one line per change ("+ ...", "- ...", "= ..." for already present). Exit 1 with one line when the
// file is not a JSON object (the file is then left as it was). Writes are atomic (temp file + rename); a settings
// file that is a symbolic link is written at the file it points to, and the link kept.
import fs from "node:fs";
import path from "node:path";

/** Our three hooks (exec form, absolute bundle path). Timeouts in seconds (Claude Code hook `timeout`). */
export function ourHooks(bundle) {
  const h = (event, timeout) => ({ type: "command", command: "node", args: [bundle, "hook", event], timeout });
  return [
    { event: "PreCompact", matcher: "manual|auto", handler: h("pre-compact", 30) },
    { event: "SessionStart", matcher: "compact", handler: h("session-start", 30) },
    // SessionEnd: a settings-file timeout raises the shared 1.5 s budget, but the hook returns in well under 1 s anyway.
    { event: "SessionEnd", matcher: undefined, handler: h("session-end", 5) },
  ];
}

const EVENTS = new Set(["pre-compact", "session-start", "session-end"]);
/** A handler we installed: `node <.../dist/triage.mjs> hook <our event>` (any clone path, so reinstalls replace). */
export function isOurs(handler, bundle) {
  const a = handler?.args;
  if (handler?.command !== "node" || !Array.isArray(a) || a.length !== 3) return false;
  if (a[1] !== "hook" || !EVENTS.has(a[2]) || typeof a[0] !== "string") return false;
  return bundle ? a[0] === bundle : /[\\/]dist[\\/]triage\.mjs$/.test(a[0]);
}

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
const show = (e) => `${e.event}${e.matcher ? ` (${e.matcher})` : ""}: node ${e.handler.args.join(" ")}`;

function read(file) {
  if (!fs.existsSync(file)) return { data: {}, existed: false };
  const text = fs.readFileSync(file, "utf8");
  if (text.trim() === "") return { data: {}, existed: true };
  let data;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw new Error(`${file} is not valid JSON (${e.message}); fix it or move it away, nothing was changed`);
  }
  if (data === null || typeof data !== "object" || Array.isArray(data)) throw new Error(`${file} is not a JSON object; nothing was changed`);
  if (data.hooks !== undefined && (data.hooks === null || typeof data.hooks !== "object" || Array.isArray(data.hooks)))
    throw new Error(`${file}: "hooks" is not an object; nothing was changed`);
  return { data, existed: true };
}

/**
 * The file a write to `file` changes: `file` itself, or the file a symbolic link points to (a dotfiles setup links
 * ~/.claude/settings.json into a repository), so the link stays a link. A dangling link's target is created. Throws
 * on a loop of links.
 */
function target(file) {
  let link = false;
  try {
    link = fs.lstatSync(file).isSymbolicLink();
  } catch {
    return file;
  }
  if (!link) return file;
  try {
    return fs.realpathSync(file);
  } catch (e) {
    // A loop of links has no file at its end: writing would replace one of the links with a file.
    if (e?.code === "ELOOP") throw new Error(`${file} is a loop of symbolic links; nothing written (point the link at a file, or remove it)`);
    return path.resolve(path.dirname(file), fs.readlinkSync(file));
  }
}

/** " (through the link <file>)" when `file` is a symbolic link to `real`, else "". */
const through = (file, real) => (real === file ? "" : ` (through the link ${file})`);

/** Write `data` atomically (temp file + rename) at `real`, the file `file` is or links to (target()). */
function write(real, data) {
  fs.mkdirSync(path.dirname(real), { recursive: true });
  const tmp = `${real}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, `${JSON.stringify(data, null, 2)}\n`);
  fs.renameSync(tmp, real);
}

/** Remove our handlers (all clones when bundle is null); drops groups/events/hooks left empty by us. */
function strip(data, bundle, log) {
  let changed = false;
  for (const [event, groups] of Object.entries(data.hooks ?? {})) {
    if (!Array.isArray(groups)) continue;
    const kept = [];
    for (const g of groups) {
      const hs = Array.isArray(g?.hooks) ? g.hooks : null;
      const ours = hs ? hs.filter((h) => isOurs(h, bundle)) : [];
      if (ours.length === 0) {
        kept.push(g);
        continue;
      }
      changed = true;
      for (const h of ours) log.push(`- ${event}${g.matcher ? ` (${g.matcher})` : ""}: node ${h.args.join(" ")}`);
      const rest = hs.filter((h) => !isOurs(h, bundle));
      if (rest.length) kept.push({ ...g, hooks: rest });
    }
    if (kept.length) data.hooks[event] = kept;
    else delete data.hooks[event];
  }
  if (data.hooks && Object.keys(data.hooks).length === 0) delete data.hooks;
  return changed;
}

/** Add our hooks to `file` (idempotent; replaces an older copy of ours from another path or matcher). */
export function add(file, bundle) {
  const { data, existed } = read(file);
  const wanted = ourHooks(bundle);
  const present = (e) =>
    (data.hooks?.[e.event] ?? []).some((g) => g?.matcher === e.matcher && (g.hooks ?? []).some((h) => same(h, e.handler)));
  const ourCount = Object.values(data.hooks ?? {}).flat().flatMap((g) => g?.hooks ?? []).filter((h) => isOurs(h, null)).length;
  if (wanted.every(present) && ourCount === wanted.length) return wanted.map((e) => `= ${show(e)} (already installed)`);
  const log = [];
  strip(data, null, log);
  data.hooks ??= {};
  for (const e of wanted) {
    data.hooks[e.event] ??= [];
    data.hooks[e.event].push({ ...(e.matcher ? { matcher: e.matcher } : {}), hooks: [e.handler] });
    log.push(`+ ${show(e)}`);
  }
  const real = target(file);
  write(real, data);
  return [`${existed ? "updated" : "created"} ${real}${through(file, real)}`, ...log];
}

/** Remove exactly our hooks for this bundle path; deletes the file if nothing else is left in it. */
export function remove(file, bundle) {
  if (!fs.existsSync(file)) return [`= ${file} does not exist; nothing to remove`];
  const { data } = read(file);
  const log = [];
  if (!strip(data, bundle, log)) return [`= no Knowledge Triage hooks in ${file}`];
  const real = target(file);
  // A file that held only our hooks goes; behind a symbolic link it is emptied instead, so the link stays valid.
  if (Object.keys(data).length === 0 && real === file) {
    fs.rmSync(file);
    return [...log, `removed ${file} (it held only our hooks)`];
  }
  write(real, data);
  return [`updated ${real}${through(file, real)}`, ...log];
}

if (import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith("settings-merge.mjs")) {
  const [op, file, bundle] = process.argv.slice(2);
  try {
    if (!["add", "remove"].includes(op) || !file || !bundle || !path.isAbsolute(file) || !path.isAbsolute(bundle))
      throw new Error("usage: settings-merge.mjs add|remove <abs settings.json> <abs dist/triage.mjs>");
    for (const line of op === "add" ? add(file, bundle) : remove(file, bundle)) console.log(line);
  } catch (e) {
    console.error(`settings-merge: ${e.message}`);
    process.exit(1);
  }
}
