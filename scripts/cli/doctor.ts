/**
 * `triage doctor`: the wiring of Claude Code (hooks registered in a settings file or by the enabled plugin,
 * the bundle they run reachable, registered in one place only, Node 20+) and the lint of the rules folder and of the files `triage export`
 * writes for other agents (scripts/memory/store/rule-lint.ts). Reads settings from `~/.claude` (or
 * `$CLAUDE_CONFIG_DIR`) and `<project>/.claude`; writes nothing.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import * as z from "zod/mini";
import { renderPinnedRules } from "../memory/store/pinned-rules.js";
import { lintGlobList, lintRuleFiles, type LintProblem } from "../memory/store/rule-lint.js";
import { isUserRulesDir, loadStore } from "../memory/store/state.js";
import { untilDate } from "../memory/store/status-report.js";
import { stateDir } from "../paths.js";

/** One doctor line: ok, or a problem naming its file. */
export interface DoctorFinding {
  ok: boolean;
  file: string;
  message: string;
}

const EVENTS = ["PreCompact", "SessionStart", "SessionEnd"] as const;

/** Settings as far as doctor reads them: hook handlers and enabled plugins; every other key is ignored. */
const HandlerSchema = z.looseObject({ command: z.optional(z.string()), args: z.optional(z.array(z.string())) });
const SettingsSchema = z.looseObject({
  hooks: z.optional(z.record(z.string(), z.array(z.looseObject({ hooks: z.optional(z.array(HandlerSchema)) })))),
  enabledPlugins: z.optional(z.record(z.string(), z.unknown())),
});
const InstalledSchema = z.looseObject({ plugins: z.optional(z.record(z.string(), z.array(z.looseObject({ installPath: z.optional(z.string()) })))) });

function readJson(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, "utf8"));
  } catch {
    return undefined;
  }
}

/** The wiring checks (see module doc) for a project folder. `configDir`: Claude Code's user folder. */
export function checkWiring(projectDir: string, configDir = process.env.CLAUDE_CONFIG_DIR || join(homedir(), ".claude"), nodeVersion = process.versions.node): DoctorFinding[] {
  const out: DoctorFinding[] = [];
  const major = Number(nodeVersion.split(".")[0]);
  out.push({ ok: major >= 20, file: "node", message: major >= 20 ? `Node ${nodeVersion}` : `Node ${nodeVersion}: Knowledge Triage needs Node 20 or newer` });
  const settingsFiles = [join(configDir, "settings.json"), join(projectDir, ".claude", "settings.json"), join(projectDir, ".claude", "settings.local.json")];
  const registered = new Set<string>();
  // Where each event's hook is registered: a settings file, or the plugin. Claude Code runs every registration.
  const places = new Map<string, Set<string>>();
  let plugin = false;
  for (const file of settingsFiles) {
    if (!existsSync(file)) continue;
    const raw = readJson(file);
    const s = SettingsSchema.safeParse(raw);
    if (!s.success) {
      out.push({ ok: false, file, message: "not valid JSON settings (Claude Code ignores it)" });
      continue;
    }
    for (const [key, on] of Object.entries(s.data.enabledPlugins ?? {})) if (key.startsWith("knowledge-triage@") && on === true) plugin = true;
    for (const [event, groups] of Object.entries(s.data.hooks ?? {})) {
      for (const h of groups.flatMap((g) => g.hooks ?? [])) {
        const parts = [h.command ?? "", ...(h.args ?? [])];
        const bundle = parts.flatMap((p) => p.split(/\s+/)).find((p) => /triage\.mjs["']?$/.test(p));
        if (!bundle) continue;
        registered.add(event);
        places.set(event, (places.get(event) ?? new Set<string>()).add(file));
        // biome-ignore lint/suspicious/noTemplateCurlyInString: Claude Code's placeholder, substituted here as it would
        const path = bundle.replace(/^["']|["']$/g, "").replace("${CLAUDE_PROJECT_DIR}", projectDir);
        if (!existsSync(path)) out.push({ ok: false, file, message: `the ${event} hook runs ${path}, which does not exist (moved clone? run install.sh again)` });
      }
    }
  }
  if (plugin) {
    const inst = InstalledSchema.safeParse(readJson(join(configDir, "plugins", "installed_plugins.json")));
    const paths = inst.success ? Object.entries(inst.data.plugins ?? {}).filter(([k]) => k.startsWith("knowledge-triage@")).flatMap(([, v]) => v.map((x) => x.installPath ?? "")) : [];
    const reachable = paths.some((p) => p && existsSync(join(p, "dist", "triage.mjs")));
    out.push({ ok: true, file: "plugin", message: "the knowledge-triage plugin is enabled (its hooks.json registers PreCompact, SessionStart and SessionEnd)" });
    if (!reachable) out.push({ ok: false, file: join(configDir, "plugins", "installed_plugins.json"), message: "the plugin's installed copy has no dist/triage.mjs: reinstall it (claude plugin install knowledge-triage@…)" });
  }
  const PLUGIN = "the knowledge-triage plugin";
  const twice = EVENTS.filter((e) => (places.get(e)?.size ?? 0) + (plugin ? 1 : 0) > 1);
  if (twice.length > 0) {
    const n = Math.max(...twice.map((e) => (places.get(e)?.size ?? 0) + (plugin ? 1 : 0)));
    const where = [...new Set([...(plugin ? [PLUGIN] : []), ...twice.flatMap((e) => [...(places.get(e) ?? [])])])];
    out.push({ ok: false, file: where.filter((w) => w !== PLUGIN).join(", "), message: `Knowledge Triage hooks are registered in more than one place (${where.join(", ")}): Claude Code runs each, so ${twice.join(", ")} run ${n === 2 ? "twice" : `${n} times`}; keep one (uninstall.sh --scope …, or disable the plugin)` });
  }
  const missing = EVENTS.filter((e) => !registered.has(e));
  if (!plugin && missing.length === EVENTS.length) out.push({ ok: false, file: settingsFiles.join(", "), message: "no Knowledge Triage hooks registered: install the plugin or run install.sh" });
  else if (!plugin && missing.length) out.push({ ok: false, file: settingsFiles.join(", "), message: `hooks missing for ${missing.join(", ")}: run install.sh again` });
  else if (!plugin) out.push({ ok: true, file: "settings", message: `hooks registered in settings for ${EVENTS.join(", ")}` });
  return out;
}

/** Lint the rules folder and the other agents' exported files in `projectDir` (see rule-lint.ts). */
export function lintProject(rulesDir: string, projectDir: string, now: Date = new Date()): LintProblem[] {
  const names = existsSync(rulesDir) ? readdirSync(rulesDir).filter((n) => n.endsWith(".md") && statSync(join(rulesDir, n)).isFile()).sort() : [];
  const files = names.map((name) => ({ name, text: readFileSync(join(rulesDir, name), "utf8") }));
  const today = now.toISOString().slice(0, 10);
  const expired: Array<{ file: string; text: string }> = [];
  if (existsSync(join(stateDir(rulesDir), "rules.json"))) {
    const store = loadStore(rulesDir);
    for (const r of store.rules) {
      if (r.status !== "active" || r.kind !== "permission" || (untilDate(r.until) ?? "9999") >= today) continue;
      const file = Object.entries(store.files).find(([, rec]) => rec.ruleIds.includes(r.id))?.[0] ?? ".";
      expired.push({ file, text: r.text });
    }
  }
  const uncut = renderPinnedRules(rulesDir, Number.MAX_SAFE_INTEGER).text.length;
  const problems = lintRuleFiles(files, { userLevel: isUserRulesDir(rulesDir), sessionStartChars: uncut, expired }).map((p) => ({ ...p, file: p.file === "." ? rulesDir : join(rulesDir, p.file) }));
  for (const [dir, suffix] of [[".cursor/rules", ".mdc"], [".github/instructions", ".instructions.md"], [".windsurf/rules", ".md"]] as const) {
    const d = join(projectDir, dir);
    if (!existsSync(d)) continue;
    for (const n of readdirSync(d).filter((x) => x.endsWith(suffix)).sort()) problems.push(...lintGlobList(join(d, n), readFileSync(join(d, n), "utf8")));
  }
  return problems;
}
