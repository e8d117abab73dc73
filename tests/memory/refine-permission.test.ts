/**
 * Regression tests: template-sharing rules are not folded into "refinements" (every active rule reaches
 * the rule files), genuine scoped exceptions still nest at any depth, permissions are rendered apart from
 * the rules with their condition, leading discourse fillers are stripped from stored rule text only.
 */
import { readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { applyStatement, findRefinementTarget, type Statement } from "../../scripts/memory/consolidate.js";
import { stripFiller } from "../../scripts/memory/extract.js";
import { renderPinnedRules } from "../../scripts/memory/store/pinned-rules.js";
import { MAX_FILE_CHARS, planFiles } from "../../scripts/memory/render.js";
import { emptyStore, type Rule } from "../../scripts/memory/store/store-schema.js";
import { loadStore } from "../../scripts/memory/store/state.js";
import { jsonl, user } from "../fixtures/memory/jsonl.js";
import { extractText, ruleFilesText, tempProject } from "./helpers.js";

// 60 distinct rules on one template: each has its own actor, object and approver.
const ACTORS = ["the deploy bot", "the intern account", "the nightly cron", "the billing worker", "the search indexer", "the mail relay"];
const OBJECTS = ["the ledger tables", "the prod bucket", "the DNS zone", "the payroll export", "the audit log", "the feature flags", "the TLS certs", "the backup vault", "the SSO config", "the rate limiter"];
const APPROVERS = ["Priya", "Tomasz", "Amara", "Kenji", "Lucía", "Oskar", "Femi", "Ingrid", "Rahul", "Zofia"];
const TEMPLATE_RULES = Array.from({ length: 60 }, (_, i) => {
  const actor = ACTORS[i % ACTORS.length] as string;
  const object = OBJECTS[Math.floor(i / ACTORS.length) % OBJECTS.length] as string;
  const approver = APPROVERS[(i * 3 + 1) % APPROVERS.length] as string;
  return `Never let ${actor} touch ${object} unless ${approver} has approved it.`;
});

const st = (text: string, kind: Statement["kind"], offset: number): Statement => ({
  text,
  type: "constraint",
  globs: [],
  score: 5,
  source: { session: "s", line: offset, offset },
  origin: "transcript",
  kind,
});

describe("refinements: same template is not the same rule", { timeout: 30_000 }, () => {
  it("60 template rules are all active and every one of them is written to the rule files", async () => {
    expect(new Set(TEMPLATE_RULES).size).toBe(60);
    const p = tempProject();
    await extractText(p, jsonl(TEMPLATE_RULES.map((t) => user(t))));
    const store = loadStore(p.rulesDir);
    const active = store.rules.filter((r) => r.status === "active");
    expect(active.map((r) => r.text).sort()).toEqual([...TEMPLATE_RULES].sort());
    expect(active.filter((r) => r.refines)).toEqual([]);
    const files = readdirSync(p.rulesDir).filter((f) => f.endsWith(".md"));
    const text = ruleFilesText(p.rulesDir);
    for (const rule of TEMPLATE_RULES) expect(text).toContain(`- ${rule}\n`);
    for (const f of files) expect(readFileSync(join(p.rulesDir, f), "utf8").length).toBeLessThan(10_000);
    rmSync(p.dir, { recursive: true, force: true });
  });

  it("a scoped permission on the same action refines the rule and is nested under it", async () => {
    const p = tempProject();
    await extractText(p, jsonl([user("never force-push"), user("you may force-push to your own feature branches")]));
    const store = loadStore(p.rulesDir);
    const parent = store.rules.find((r) => r.text === "never force-push");
    const child = store.rules.find((r) => r.text === "you may force-push to your own feature branches");
    expect(child?.refines).toBe(parent?.id);
    expect(readFileSync(join(p.rulesDir, "constraints.md"), "utf8")).toContain("- never force-push\n  - you may force-push to your own feature branches\n");
    rmSync(p.dir, { recursive: true, force: true });
  });

  it("a bare exception refines the rule it narrows; a permission naming nothing stated is not a rule", async () => {
    const p = tempProject();
    await extractText(p, jsonl([user("Every SQL query must go through the sqlc-generated code; no raw SQL strings."), user("except in internal/migrations, where raw SQL is fine"), user("you can find the logs in the ops channel")]));
    const store = loadStore(p.rulesDir);
    expect(store.rules.find((r) => r.text.startsWith("except in"))?.refines).toBe(store.rules[0]?.id);
    expect(store.rules.some((r) => r.text.includes("logs"))).toBe(false);
    rmSync(p.dir, { recursive: true, force: true });
  });

  it("findRefinementTarget needs the same action/object, not the same template", () => {
    const store = emptyStore();
    applyStatement(store, st(TEMPLATE_RULES[0] as string, "rule", 1));
    expect(findRefinementTarget(store, TEMPLATE_RULES[1] as string)).toBeUndefined();
    expect(findRefinementTarget(store, "Never let the deploy bot touch the ledger tables unless it is a dry run.")?.text).toBe(TEMPLATE_RULES[0]);
  });

  it("renders every refinement, whatever the nesting depth, exactly once", () => {
    const store = emptyStore();
    const chain: Rule[] = Array.from({ length: 8 }, (_, i) => ({
      id: `r${i}`,
      text: `level ${i} rule text`,
      type: "constraint",
      globs: [],
      polarity: "neg",
      count: 1,
      sources: [],
      status: "active",
      origin: "transcript",
      ...(i > 0 ? { refines: `r${i - 1}` } : {}),
    }));
    // A cycle must not hide rules either.
    chain.push({ ...(chain[0] as Rule), id: "c1", text: "cycle one", refines: "c2" }, { ...(chain[0] as Rule), id: "c2", text: "cycle two", refines: "c1" });
    store.rules = chain;
    const files = planFiles(store);
    const body = files.map((f) => f.content).join("\n");
    for (const r of chain) expect(body.split(`- ${r.text}\n`).length - 1, r.text).toBe(1);
    expect(body).toContain("\n  - level 1 rule text\n    - level 2 rule text\n");
    expect(files.flatMap((f) => f.ruleIds).sort()).toEqual(chain.map((r) => r.id).sort());
  });

  it("splits a block larger than one file between files instead of dropping rules", () => {
    const store = emptyStore();
    store.rules = Array.from({ length: 80 }, (_, i) => ({
      id: `r${i}`,
      text: `rule ${i} ${"x".repeat(150)}`,
      type: "constraint" as const,
      globs: [],
      polarity: "pos" as const,
      count: 1,
      sources: [],
      status: "active" as const,
      origin: "transcript" as const,
      ...(i > 0 ? { refines: "r0" } : {}),
    }));
    const files = planFiles(store);
    expect(files.length).toBeGreaterThan(1);
    for (const f of files) expect(f.content.length).toBeLessThan(MAX_FILE_CHARS + 1000);
    expect(files.flatMap((f) => f.ruleIds).length).toBe(80);
  });
});

describe("permissions (BL-10): kept with their condition, apart from the rules", { timeout: 30_000 }, () => {
  it("retires the rule and writes the permission without its filler, in permissions.md", async () => {
    const p = tempProject();
    await extractText(p, jsonl([user("don't push straight to main, always open a PR"), user("Never run `terraform apply` without a saved plan file."), user("actually, you can push to main now - it's just the two of us until launch")]));
    const store = loadStore(p.rulesDir);
    const perm = store.rules.find((r) => r.kind === "permission");
    expect(perm).toMatchObject({ status: "active", until: "launch", text: "you can push to main now - it's just the two of us until launch" });
    const constraints = readFileSync(join(p.rulesDir, "constraints.md"), "utf8");
    expect(constraints).not.toMatch(/push to main|push straight/i);
    expect(constraints).toContain("- Never run `terraform apply` without a saved plan file.\n");
    const perms = readFileSync(join(p.rulesDir, "permissions.md"), "utf8");
    expect(perms).toContain("- Permission (until launch): you can push to main now - it's just the two of us until launch\n");
    expect(perms).not.toMatch(/actually/i);
    const pinned = renderPinnedRules(p.rulesDir).text;
    expect(pinned).toMatch(/^Rules the user stated \(kept verbatim by Knowledge Triage/);
    expect(pinned).not.toMatch(/earlier sessions/);
    expect(pinned).toContain("Permissions the user granted");
    expect(pinned.indexOf("Permission (until launch)")).toBeGreaterThan(pinned.indexOf("terraform apply"));
    rmSync(p.dir, { recursive: true, force: true });
  });

  it("a lost state folder is rebuilt from permissions.md with the permission's kind and condition", async () => {
    const p = tempProject();
    await extractText(p, jsonl([user("don't push straight to main, always open a PR"), user("actually, you can push to main now - it's just the two of us until launch")]));
    const before = readFileSync(join(p.rulesDir, "permissions.md"), "utf8");
    rmSync(join(p.rulesDir, ".state"), { recursive: true, force: true });
    await extractText(p, jsonl([user("Never run `terraform apply` without a saved plan file.")]));
    expect(loadStore(p.rulesDir).rules.find((r) => r.kind === "permission")?.until).toBe("launch");
    expect(readFileSync(join(p.rulesDir, "permissions.md"), "utf8")).toBe(before);
    rmSync(p.dir, { recursive: true, force: true });
  });
});

describe("fillers: stripped from stored rule text only", { timeout: 30_000 }, () => {
  it.each([
    ["Second: never deploy on Fridays.", "never deploy on Fridays."],
    ["Also, run `npm test -- --runInBand` before you commit.", "run `npm test -- --runInBand` before you commit."],
    ["Oh and don't touch /etc/hosts on the 3 build hosts.", "don't touch /etc/hosts on the 3 build hosts."],
    ["oh, and also: Never use port 8080 for the admin UI.", "Never use port 8080 for the admin UI."],
    ["btw never commit .env files", "never commit .env files"],
    ["BTW, always pin versions in package.json", "always pin versions in package.json"],
    ["reminder: prettier before every commit", "prettier before every commit"],
    ["Actually, you can push to main now", "you can push to main now"],
  ])("%s", (input, out) => {
    expect(stripFiller(input)).toBe(out);
  });
  it.each([
    "Reminder emails must never be sent twice.",
    "Second-level caches must be flushed after every deploy.",
    "Also",
    "Actually works fine",
    "Note that the prod database is read-only.",
    "Always run `npm test` before you commit.",
    "Plus signs in branch names are forbidden.",
  ])("leaves %s unchanged", (input) => {
    expect(stripFiller(input)).toBe(input);
  });

  it("stores the rule without the filler and leaves every other byte alone", async () => {
    const p = tempProject();
    await extractText(p, jsonl([user("Second: Never run `rm -rf ./build/*` on the CI host, not even with --dry-run."), user("Also, always use Node 20.11.1, never 21.")]));
    const text = ruleFilesText(p.rulesDir);
    expect(text).toContain("- Never run `rm -rf ./build/*` on the CI host, not even with --dry-run.\n");
    expect(text).toContain("- always use Node 20.11.1, never 21.\n");
    expect(text).not.toMatch(/Second:|Also,/);
    rmSync(p.dir, { recursive: true, force: true });
  });
});
