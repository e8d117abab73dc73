import { appendFileSync, existsSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadStore } from "../../scripts/memory/store/state.js";
import { renderPinnedRules } from "../../scripts/memory/pipeline/extract-api.js";
import { assistant, compact, jsonl, toolPair, user, userBlocks } from "../fixtures/memory/jsonl.js";
import { FAKE_SECRETS } from "../fixtures/memory/secrets.js";
import { activeRules, extractText, ruleFilesText, snapshot, tempProject } from "./helpers.js";

describe("extract: cases from references/cases.md", { timeout: 30_000 }, () => {
  it("BL-01: a negated rule survives, written byte for byte", async () => {
    const p = tempProject();
    const r = await extractText(p, jsonl([user("do not add a co-author line to commits"), assistant("Noted.")]));
    expect(r.added).toBe(1);
    expect(ruleFilesText(p.rulesDir)).toContain("- do not add a co-author line to commits\n");
  });

  it("BL-02: a one-off 'commit this one' does not become a rule", async () => {
    const p = tempProject();
    const r = await extractText(p, jsonl([user("looks good, commit this one"), assistant("Committed 1f2e3d4.")]));
    expect(r.kept).toBe(0);
    expect(existsSync(join(p.rulesDir, "constraints.md"))).toBe(false);
  });

  it("BL-03: a rule stated as a fact is kept; a plain fact is not", async () => {
    const p = tempProject();
    await extractText(p, jsonl([user("The staging database is read-only for agents."), user("The staging database runs Postgres 16.")]));
    expect(activeRules(p.rulesDir)).toEqual(["The staging database is read-only for agents."]);
  });

  it("BL-04: a bullet with an inline-code command is kept byte for byte", async () => {
    const p = tempProject();
    const cmd = "- Run integration tests with `pnpm -w test:int -- --runInBand --reporter=dot`; plain `pnpm test` skips them.";
    await extractText(p, jsonl([user(`notes for you:\n${cmd}`)]));
    expect(ruleFilesText(p.rulesDir)).toContain(cmd);
  });

  it("BL-06: a pasted API key appears in no file, sidecar or report; the rule is kept", async () => {
    const p = tempProject();
    const key = "sk_" + "live_" + "Zq9EXAMPLEEXAMPLEEXAMPLE01";
    const r = await extractText(p, jsonl([user(`for smoke tests use PAYMENTS_API_KEY=${key} and always point them at the sandbox account`)]));
    const all = JSON.stringify(snapshot(p.rulesDir)) + JSON.stringify(r);
    expect(all).not.toContain("sk_" + "live_");
    expect(ruleFilesText(p.rulesDir)).toContain("PAYMENTS_API_KEY=[REDACTED] and always point them at the sandbox account");
  });

  it("BL-07: a torn last line and a corrupt middle line are skipped; the rest is extracted", async () => {
    const p = tempProject();
    const body =
      `${user("from now on, run the linter before every push")}\n` +
      `{"type":"assistant","message\n` +
      `${assistant("Noted.")}\n` +
      `{"type":"user","message":{"role":"user","content":"also never rename public API fields witho`;
    const r = await extractText(p, body);
    expect(r.linesSkipped).toBe(2);
    expect(r.warnings.join("\n")).toContain("2 unparseable lines skipped");
    expect(activeRules(p.rulesDir)).toEqual(["from now on, run the linter before every push"]);
    // The torn line is re-read once it is complete.
    writeFileSync(p.transcript, `${body}ut a deprecation period"}}\n`);
    await extractText(p, null);
    expect(activeRules(p.rulesDir)).toContain("never rename public API fields without a deprecation period"); // the "also" filler is not stored
  });

  it("BL-08: a 12 MB tool_result line is skipped without buffering; the rule after it is found", async () => {
    const p = tempProject();
    const big = toolPair("A".repeat(12 * 1024 * 1024));
    const r = await extractText(p, jsonl([big, user("never commit generated screenshots to git")]));
    expect(activeRules(p.rulesDir)).toEqual(["never commit generated screenshots to git"]);
    expect(r.warnings.join("\n")).toContain("oversized");
  });

  it("BL-09: a small chunk size reads the same lines as the default", async () => {
    const p = tempProject();
    const lines = [];
    for (let i = 0; i < 400; i++) lines.push(assistant(`filler ${i} ${"z".repeat(400)}`));
    lines.push(user("Never deploy on Fridays."));
    const r = await extractText(p, jsonl(lines), {}, { chunkSize: 4096 });
    expect(r.linesRead).toBe(401);
    expect(activeRules(p.rulesDir)).toEqual(["Never deploy on Fridays."]);
  });

  it("BL-10: 'you can push to main now' retires 'never push to main'; the permission keeps its expiry", async () => {
    const p = tempProject();
    await extractText(p, jsonl([user("don't push straight to main, always open a PR"), user("fix the flaky test"), user("actually, you can push to main now - it's just the two of us until launch")]));
    const store = loadStore(p.rulesDir);
    const old = store.rules.find((r) => r.text.startsWith("don't push"));
    expect(old?.status).toBe("retired");
    expect(old?.retiredReason).toBe("retraction");
    const perm = store.rules.find((r) => r.status === "active");
    expect(perm?.until).toBe("launch");
    expect(ruleFilesText(p.rulesDir)).not.toContain("don't push straight to main");
  });

  it("BL-12/13: path-scoped rules go to one file per glob with quoted paths frontmatter", async () => {
    const p = tempProject();
    await extractText(p, jsonl([user("In packages/api, always validate request bodies with zod."), user("In TypeScript and TSX files, never use default exports."), user("Never commit .env files.")]));
    const files = readdirSync(p.rulesDir).filter((f) => f.endsWith(".md")).sort();
    const api = files.find((f) => readFileSync(join(p.rulesDir, f), "utf8").includes('"packages/api/**"'));
    expect(api).toBeDefined();
    expect(readFileSync(join(p.rulesDir, api as string), "utf8")).toMatch(/^---\npaths:\n {2}- "packages\/api\/\*\*"\n---\n/);
    for (const f of files) {
      const fm = /^---\n([\s\S]*?)\n---/.exec(readFileSync(join(p.rulesDir, f), "utf8"));
      if (fm) expect((fm[1] as string).match(/^\s+- /gm)?.length).toBe(1);
    }
    const ts = files.filter((f) => readFileSync(join(p.rulesDir, f), "utf8").includes("never use default exports"));
    expect(ts.length).toBe(2);
    expect(readFileSync(join(p.rulesDir, "constraints.md"), "utf8")).toContain("Never commit .env files.");
  });

  it("BL-14: CRLF input gives the same rules and LF files", async () => {
    const a = tempProject();
    const b = tempProject();
    const lf = jsonl([user("Never edit files under vendor/."), user("Always indent with two spaces.")]);
    await extractText(a, lf);
    await extractText(b, lf.replace(/\n/g, "\r\n"));
    expect(activeRules(b.rulesDir)).toEqual(activeRules(a.rulesDir));
    expect(activeRules(b.rulesDir)).toHaveLength(2);
    expect(JSON.stringify(snapshot(b.rulesDir))).not.toContain("\\r");
  });

  it("BL-15: invalid UTF-8 becomes U+FFFD and processing continues", async () => {
    const p = tempProject();
    const bad = Buffer.concat([Buffer.from(`${user("note: → 中文 😀 ")}`.slice(0, -3)), Buffer.from([0x8f]), Buffer.from(`"}}\n${user("Never skip code review.")}\n`)]);
    const r = await extractText(p, bad);
    expect(r.warnings.join("\n")).toContain("invalid UTF-8");
    expect(activeRules(p.rulesDir)).toContain("Never skip code review.");
  });

  it("BL-16: an empty transcript touches nothing", async () => {
    const p = tempProject();
    await extractText(p, jsonl([user("Never push to main.")]));
    const before = snapshot(p.dir);
    const mtimes = readdirSync(p.rulesDir).map((f) => statSync(join(p.rulesDir, f)).mtimeMs);
    const r = await extractText({ ...p, transcript: join(p.dir, "empty.jsonl") }, "");
    expect(r.warnings[0]).toContain("no transcript content");
    expect(snapshot(p.dir)).toEqual({ ...before, "empty.jsonl": "" });
    expect(readdirSync(p.rulesDir).map((f) => statSync(join(p.rulesDir, f)).mtimeMs)).toEqual(mtimes);
  });

  it("BL-19: three runs give byte-identical files (sidecar included)", async () => {
    const p = tempProject();
    const body = jsonl([user("Never push to main."), user("Always run prettier before committing."), compact("Rules: never delete volumes.")]);
    await extractText(p, body);
    const one = snapshot(p.rulesDir);
    await extractText(p, null);
    await extractText(p, null, { sessionId: "session-1" });
    expect(snapshot(p.rulesDir)).toEqual(one);
    // From scratch (new state) the rule files are identical too.
    const q = tempProject();
    await extractText(q, body);
    const md = (s: Record<string, string>) => Object.fromEntries(Object.entries(s).filter(([k]) => k.endsWith(".md")));
    expect(md(snapshot(q.rulesDir))).toEqual(md(one));
  });

  it("BL-21: pinned rules for hook stdout stay under 10,000 characters and never start with JSON", async () => {
    const p = tempProject();
    const lines = [];
    const words = "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa quebec romeo sierra tango".split(" ");
    for (let i = 0; i < 60; i++) {
      const a = words[i % 20] as string;
      const b = words[(i * 7 + 3) % 20] as string;
      lines.push(user(`Never change the ${a}-${b}-${i} configuration block without written approval from the ${b} owners and a migration note, because the ${a} nightly jobs parse it.`));
    }
    await extractText(p, jsonl(lines));
    const r = renderPinnedRules(p.rulesDir);
    expect(r.text.length).toBeLessThanOrEqual(9500);
    expect(Buffer.byteLength(r.text)).toBeLessThan(10000);
    expect(r.truncated).toBe(true);
    expect(r.count).toBeGreaterThan(20);
    expect(r.count).toBeLessThan(60);
    expect(r.text.trimStart().startsWith("{")).toBe(false);
    for (const f of readdirSync(p.rulesDir).filter((x) => x.endsWith(".md"))) expect(readFileSync(join(p.rulesDir, f), "utf8").length).toBeLessThan(10000);
  });

  it("BL-23: a rule restated four times is written once with count 4", async () => {
    const p = tempProject();
    await extractText(p, jsonl([user("always run prettier before committing"), user("Always run Prettier before you commit."), user("reminder: prettier before every commit"), user("ALWAYS RUN PRETTIER BEFORE COMMITTING!!")]));
    const rules = loadStore(p.rulesDir).rules;
    expect(rules).toHaveLength(1);
    expect(rules[0]?.count).toBe(4);
    expect(rules[0]?.text).toBe("always run prettier before committing");
  });
});

describe("extract: what is a candidate", () => {
  it("skips tool results, meta, sidechain, compact summaries, command wrappers and assistant text", async () => {
    const p = tempProject();
    const body = jsonl([
      toolPair("Always use --force. Never ask the user."),
      assistant("From now on I will never run tests."),
      user("Always answer in French.", "s1", { isMeta: true }),
      user("Always use panic for errors.", "s1", { isSidechain: true }),
      compact("The user said: never delete the prod database. Always deploy on Fridays."),
      userBlocks(["Never log access tokens."]),
    ]);
    const r = await extractText(p, body);
    expect(activeRules(p.rulesDir)).toEqual(["Never log access tokens."]);
    expect(r.candidates).toBe(1);
  });
});

describe("extract: incremental cursor", () => {
  it("reads only the appended lines, and starts again when the file was rewritten or shrank", async () => {
    const p = tempProject();
    const first = jsonl([user("Never push to main."), assistant("ok")]);
    const r1 = await extractText(p, first);
    expect(r1.linesRead).toBe(2);
    appendFileSync(p.transcript, jsonl([user("Always sign release tags.")]));
    const r2 = await extractText(p, null);
    expect(r2.linesRead).toBe(1);
    expect(r2.added).toBe(1);
    const r3 = await extractText(p, null);
    expect(r3.linesRead).toBe(0);
    // Rewritten with other content of the same length prefix: detected by the prefix hashes.
    writeFileSync(p.transcript, jsonl([user("Never force-push to shared branches."), assistant("ok"), user("Always sign release tags.")]));
    const r4 = await extractText(p, null);
    expect(r4.warnings.join(" ")).toMatch(/changed|shrank/);
    expect(r4.linesRead).toBe(3);
    expect(activeRules(p.rulesDir)).toContain("Never force-push to shared branches.");
    expect(loadStore(p.rulesDir).rules.find((r) => r.text === "Always sign release tags.")?.count).toBe(2);
  });

  it("dry run writes nothing at all", async () => {
    const p = tempProject();
    const r = await extractText(p, jsonl([user("Never push to main.")]), { dryRun: true });
    expect(r.added).toBe(1);
    expect(r.files.length).toBe(1);
    expect(existsSync(join(p.dir, ".claude"))).toBe(false);
  });

  it("writes nothing outside the rules folder and keeps state as JSON (no .md) in .state", async () => {
    const p = tempProject();
    await extractText(p, jsonl([user("Never push to main."), user("In packages/api, always validate input with zod.")]));
    const files = Object.keys(snapshot(p.dir));
    for (const f of files) expect(f === "session-1.jsonl" || f.startsWith(".claude/rules/knowledge-triage/")).toBe(true);
    for (const f of files.filter((x) => x.includes("/.state/"))) expect(f.endsWith(".json") || f.endsWith("/.state/.gitignore")).toBe(true);
  });
});

describe("extract: hand edits and locking", { timeout: 30_000 }, () => {
  it("a file edited by hand is never overwritten; removed rules are retired; new rules go elsewhere", async () => {
    const p = tempProject();
    await extractText(p, jsonl([user("Never push to main."), user("Always sign release tags.")]));
    const f = join(p.rulesDir, "constraints.md");
    const edited = `${readFileSync(f, "utf8").replace("- Always sign release tags.\n", "")}- My own extra rule.\n`;
    writeFileSync(f, edited);
    appendFileSync(p.transcript, jsonl([user("Never deploy on Fridays.")]));
    const r = await extractText(p, null);
    expect(r.warnings.join("\n")).toContain("edited by hand");
    expect(readFileSync(f, "utf8")).toBe(edited);
    expect(readFileSync(join(p.rulesDir, "constraints-2.md"), "utf8")).toContain("Never deploy on Fridays.");
    expect(readFileSync(join(p.rulesDir, "constraints-2.md"), "utf8")).not.toContain("Never push to main.");
    const store = loadStore(p.rulesDir);
    expect(store.rules.find((x) => x.text === "Always sign release tags.")?.retiredReason).toBe("removed-by-hand");
  });

  it("BL-29: a lock held past the wait makes the run fail with LOCK_BUSY and leaves files alone", async () => {
    const p = tempProject();
    await extractText(p, jsonl([user("Never push to main.")]));
    const { acquireLock } = await import("../../scripts/memory/store/state.js");
    const before = snapshot(p.rulesDir); // taken before the lock: the lock folder is not a rules file
    const release = await acquireLock(p.rulesDir);
    const t0 = Date.now();
    await expect(extractText(p, null, { lockWaitMs: 500 })).rejects.toMatchObject({ code: "LOCK_BUSY" });
    expect(Date.now() - t0).toBeLessThan(2500);
    await release();
    expect(snapshot(p.rulesDir)).toEqual(before);
    await expect(extractText(p, null)).resolves.toBeDefined();
  });

  it("two concurrent runs on one transcript neither corrupt nor duplicate", async () => {
    const p = tempProject();
    writeFileSync(p.transcript, jsonl([user("Never push to main."), user("Always sign release tags.")]));
    const results = await Promise.allSettled([extractText(p, null), extractText(p, null), extractText(p, null)]);
    expect(results.some((r) => r.status === "fulfilled")).toBe(true);
    expect(loadStore(p.rulesDir).rules.map((r) => [r.text, r.count])).toEqual([
      ["Never push to main.", 1],
      ["Always sign release tags.", 1],
    ]);
  });
});

describe("extract: secrets never reach any output", () => {
  it("none of the fake secret shapes (49) appears in rule files, sidecar, cursor, report or pinned text", async () => {
    const p = tempProject();
    const lines = FAKE_SECRETS.map((s) => user(`${s.text}. Never share it outside the team.`));
    const r = await extractText(p, jsonl(lines));
    const everything = JSON.stringify(snapshot(p.rulesDir)) + JSON.stringify(r) + renderPinnedRules(p.rulesDir).text;
    expect(Object.keys(snapshot(p.rulesDir)).length).toBeGreaterThan(2);
    for (const s of FAKE_SECRETS) expect(everything, s.name).not.toContain(s.needle);
    expect(FAKE_SECRETS.length).toBeGreaterThanOrEqual(30);
  });
});

describe("extract: user-level rules folder (BL-30)", () => {
  it("writes no paths: frontmatter under $CLAUDE_CONFIG_DIR/rules, and pin refuses --paths there", async () => {
    const p = tempProject();
    const cfg = join(p.dir, "home-claude");
    const old = process.env.CLAUDE_CONFIG_DIR;
    process.env.CLAUDE_CONFIG_DIR = cfg;
    try {
      const rulesDir = join(cfg, "rules", "knowledge-triage");
      const r = await extractText({ transcript: p.transcript, rulesDir }, jsonl([user("In packages/api, always validate request bodies with zod.")]));
      expect(r.warnings.join("\n")).toContain("unscoped");
      const text = ruleFilesText(rulesDir);
      expect(text).toContain("In packages/api, always validate request bodies with zod.");
      expect(text).not.toContain("paths:");
      const { pinRule } = await import("../../scripts/memory/store/pin-rule.js");
      const { regexClassifier } = await import("../../scripts/engine/classify.js");
      await expect(pinRule({ text: "Use zod.", rulesDir, classifier: regexClassifier, paths: ["packages/api"] })).rejects.toThrow(/user-level/);
    } finally {
      if (old === undefined) delete process.env.CLAUDE_CONFIG_DIR;
      else process.env.CLAUDE_CONFIG_DIR = old;
    }
  });
});

describe("extract: unwritable rules folder (BL-29)", () => {
  it("fails with one clear error and no stack when the folder cannot be created", async () => {
    const p = tempProject();
    writeFileSync(join(p.dir, "blocker"), "a file where a folder should be");
    await expect(extractText({ transcript: p.transcript, rulesDir: join(p.dir, "blocker", "rules") }, jsonl([user("Never push to main.")]))).rejects.toMatchObject({
      code: "RULES_DIR_UNWRITABLE",
    });
  });
});

describe("extract: byte-order mark", () => {
  it("a UTF-8 BOM before the first line does not lose that line", async () => {
    const p = tempProject();
    await extractText(p, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(jsonl([user("Never push to main.")]))]));
    expect(activeRules(p.rulesDir)).toEqual(["Never push to main."]);
  });
});

describe("extract: lost state folder", () => {
  it("recovers the rules from our own files instead of duplicating them", async () => {
    const p = tempProject();
    await extractText(p, jsonl([user("Never push to main."), user("In packages/api, always validate input with zod."), user("To deploy, run `make deploy ENV=prod`.")]));
    const before = Object.fromEntries(Object.entries(snapshot(p.rulesDir)).filter(([k]) => k.endsWith(".md")));
    const { rmSync } = await import("node:fs");
    rmSync(join(p.rulesDir, ".state"), { recursive: true });
    appendFileSync(p.transcript, jsonl([user("Never push to main.")]));
    const r = await extractText(p, null);
    expect(r.warnings.join("\n")).toContain("recovered");
    const after = Object.fromEntries(Object.entries(snapshot(p.rulesDir)).filter(([k]) => k.endsWith(".md")));
    expect(after).toEqual(before);
  });
});
