/**
 * Regressions from a fresh-user test run: short passwords after a password word, secret-only clauses,
 * withdrawals that must not become permissions, lock waiting and stale locks, signal handling, linear
 * consolidation on thousands of rules, and the --llm timeout killing the command's process group.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { regexClassifier } from "../../scripts/engine/classify.js";
import { dropSecretClauses } from "../../scripts/memory/extract.js";
import { InterruptedError, trapSignals } from "../../scripts/memory/pipeline/interrupt.js";
import { askLlm, runShell } from "../../scripts/memory/pipeline/llm-review.js";
import { redactTexts, REDACTED } from "../../scripts/memory/redact.js";
import { acquireLock, loadStore } from "../../scripts/memory/store/state.js";
import { runExtract } from "../../scripts/memory/pipeline/extract-run.js";
import type { Verdict } from "../../scripts/memory/extract.js";
import { jsonl, user } from "../fixtures/memory/jsonl.js";
import { distinctRules } from "../fixtures/memory/many-rules.js";
import { activeRules, extractText, ruleFilesText, snapshot, tempProject } from "./helpers.js";

const AWS_ID = "AK" + "IA" + "IOSFODNN7" + "EXAMPLE";

describe("item 1: a password stated after a password word is redacted even when short", () => {
  it.each([
    ["the password hunter2", "the password [REDACTED]"],
    ["password is hunter2", "password is [REDACTED]"],
    ["password: hunter2", "password: [REDACTED]"],
    ["pw=hunter2", "pw=[REDACTED]"],
    ["пароль qwerty", "пароль [REDACTED]"],
    ["密码是zq123", "密码是[REDACTED]"],
    ["パスワードはneko", "パスワードは[REDACTED]"],
    ["la contraseña es gato1", "la contraseña es [REDACTED]"],
    ["das Passwort ist blume", "das Passwort ist [REDACTED]"],
    ["비밀번호는 mrkv", "비밀번호는 [REDACTED]"],
    ["my PIN is 7309", "my PIN is [REDACTED]"],
    ["the api key is qz9kfw", "the api key is [REDACTED]"],
    ["token: hunter2", "token: [REDACTED]"],
  ])("%s", async (input, want) => {
    expect((await redactTexts([input])).texts[0]).toBe(want);
  });

  it.each([
    "The password field must never be logged.",
    "Never store the password in plain text.",
    "passwords must be hashed with argon2",
    "the token expires after 15 minutes",
    "Never commit the password to git.",
    "use the password manager for credentials",
    "the secret to fast tests is isolation",
    "pin versions in package.json",
  ])("leaves the ordinary rule alone: %s", async (text) => {
    expect((await redactTexts([text])).texts[0]).toBe(text);
  });

  it("drops a clause that only carries a secret when the rest is a whole rule", () => {
    expect(dropSecretClauses(`Don't ever use the password ${REDACTED} anywhere; my AWS secret is ${REDACTED}`)).toBe(`Don't ever use the password ${REDACTED} anywhere`);
    // The rest points at the secret ("it"): kept whole.
    expect(dropSecretClauses(`the restricted key is ${REDACTED}; never commit it`)).toBe(`the restricted key is ${REDACTED}; never commit it`);
    // No secret-only clause: unchanged.
    expect(dropSecretClauses("Never push to main; always open a PR")).toBe("Never push to main; always open a PR");
  });

  it("end to end: the stored rule holds neither the password nor the AWS key clause", async () => {
    const p = tempProject();
    await extractText(p, jsonl([user(`Don't ever use the password hunt${"er2"} anywhere; my AWS secret is ${AWS_ID}`)]));
    expect(activeRules(p.rulesDir)).toEqual([`Don't ever use the password ${REDACTED} anywhere`]);
    const all = JSON.stringify(snapshot(p.rulesDir));
    expect(all).not.toContain(`hunt${"er2"}`);
    expect(all).not.toContain(AWS_ID);
    rmSync(p.dir, { recursive: true, force: true });
  });
});

describe("item 2: a withdrawal retires the rule and stores nothing new", () => {
  it.each([
    "actually, forget the pnpm test rule; you may commit without running tests",
    "ignore what I said about running pnpm test before commits",
    "forget the pnpm test rule",
  ])("%s", async (withdrawal) => {
    const p = tempProject();
    await extractText(p, jsonl([user("Always run `pnpm test` before committing."), user("Never push to main."), user(withdrawal)]));
    const store = loadStore(p.rulesDir);
    expect(store.rules.filter((r) => r.status === "active").map((r) => r.text)).toEqual(["Never push to main."]);
    const old = store.rules.find((r) => r.text.startsWith("Always run `pnpm test`"));
    expect(old?.status).toBe("retired");
    expect(old?.retiredBy).toBe(withdrawal.replace(/^actually, /, ""));
    expect(store.rules.some((r) => r.kind === "permission")).toBe(false);
    const files = readdirSync(p.rulesDir).filter((f) => f.endsWith(".md"));
    expect(files).toEqual(["constraints.md"]);
    expect(ruleFilesText(p.rulesDir)).not.toMatch(/Permission|forget|ignore what/);
    rmSync(p.dir, { recursive: true, force: true });
  });

  it("a relaxing sentence without a withdrawal cue is still a permission, in permissions.md only", async () => {
    const p = tempProject();
    await extractText(p, jsonl([user("Never push to main."), user("actually, you may push to main now")]));
    expect(readFileSync(join(p.rulesDir, "permissions.md"), "utf8")).toContain("- Permission: you may push to main now");
    expect(existsSync(join(p.rulesDir, "constraints.md"))).toBe(false);
    rmSync(p.dir, { recursive: true, force: true });
  });
});

describe("item 3: the lock is waited for, and a stale lock is broken at once", { timeout: 60_000 }, () => {
  it("six concurrent runs on one project all succeed and every session's rules are saved", async () => {
    const p = tempProject();
    const runs = Array.from({ length: 6 }, (_, i) => {
      const t = join(p.dir, `session-${i}.jsonl`);
      writeFileSync(t, jsonl([user(`Never touch the ledger shard number ${i} by hand.`, `sess-${i}`)]));
      return runExtract({ transcriptPath: t, rulesDir: p.rulesDir, classifier: regexClassifier });
    });
    const results = await Promise.allSettled(runs);
    expect(results.map((r) => r.status)).toEqual(Array(6).fill("fulfilled"));
    expect(activeRules(p.rulesDir).sort()).toEqual(Array.from({ length: 6 }, (_, i) => `Never touch the ledger shard number ${i} by hand.`).sort());
    expect(existsSync(join(p.rulesDir, ".state", "lock"))).toBe(false);
    rmSync(p.dir, { recursive: true, force: true });
  });

  it("a held lock is waited for until released", async () => {
    const p = tempProject();
    await extractText(p, jsonl([user("Never push to main.")]));
    const release = await acquireLock(p.rulesDir);
    const waiting = extractText(p, jsonl([user("Never push to main."), user("Always sign release tags.")]), { lockWaitMs: 20_000 });
    setTimeout(() => void release(), 400);
    await expect(waiting).resolves.toBeDefined();
    expect(activeRules(p.rulesDir)).toEqual(["Never push to main.", "Always sign release tags."]);
    rmSync(p.dir, { recursive: true, force: true });
  });

  it("a lock left by a dead process is broken (its pid is gone) well within a short wait", async () => {
    const p = tempProject();
    const dead = spawn(process.execPath, ["-e", ""]);
    const pid = dead.pid as number;
    await new Promise((res) => dead.on("exit", res));
    const lock = join(p.rulesDir, ".state", "lock");
    mkdirSync(lock, { recursive: true });
    writeFileSync(join(lock, "owner.json"), JSON.stringify({ pid, host: hostname(), token: "deadbeef" }));
    await extractText(p, jsonl([user("Never push to main.")]), { lockWaitMs: 1000 });
    expect(activeRules(p.rulesDir)).toEqual(["Never push to main."]);
    expect(existsSync(lock)).toBe(false);
    rmSync(p.dir, { recursive: true, force: true });
  });

  it("a lock folder without an owner file, older than a few seconds, is stale", async () => {
    const p = tempProject();
    const lock = join(p.rulesDir, ".state", "lock");
    mkdirSync(lock, { recursive: true });
    const old = new Date(Date.now() - 10_000);
    utimesSync(lock, old, old);
    await extractText(p, jsonl([user("Never push to main.")]), { lockWaitMs: 500 });
    expect(activeRules(p.rulesDir)).toEqual(["Never push to main."]);
    rmSync(p.dir, { recursive: true, force: true });
  });

  it("a lock held by a live process still fails with LOCK_BUSY after the wait", async () => {
    const p = tempProject();
    const release = await acquireLock(p.rulesDir);
    await expect(extractText(p, jsonl([user("Never push to main.")]), { lockWaitMs: 300 })).rejects.toMatchObject({ code: "LOCK_BUSY" });
    await release();
    rmSync(p.dir, { recursive: true, force: true });
  });
});

describe("item 4: SIGTERM/SIGINT stop a run and release the lock", () => {
  it("a signal caught while a run waits for the lock ends it with INTERRUPTED (143) and leaves the other holder's lock", async () => {
    const p = tempProject();
    const release = await acquireLock(p.rulesDir);
    const run = extractText(p, jsonl([user("Never push to main.")]), { lockWaitMs: 20_000 });
    setTimeout(() => process.emit("SIGTERM", "SIGTERM"), 200);
    await expect(run).rejects.toBeInstanceOf(InterruptedError);
    await expect(run).rejects.toMatchObject({ exitCode: 143 });
    expect(existsSync(join(p.rulesDir, ".state", "lock", "owner.json"))).toBe(true); // still the holder's
    await release();
    rmSync(p.dir, { recursive: true, force: true });
  });

  it("a trap maps SIGINT to exit 130 and restores the handlers on dispose", () => {
    const before = process.listenerCount("SIGINT");
    const trap = trapSignals();
    expect(process.listenerCount("SIGINT")).toBe(before + 1);
    process.emit("SIGINT", "SIGINT");
    expect(() => trap.check()).toThrow(expect.objectContaining({ exitCode: 130 }));
    trap.dispose();
    expect(process.listenerCount("SIGINT")).toBe(before);
  });
});

describe("item 5: consolidation scales (indexed candidates, not all-pairs)", { timeout: 120_000 }, () => {
  it("3,000 distinct rules are all kept once; restating 300 of them merges; a withdrawal retires the right one", async () => {
    const rules = distinctRules(3000);
    expect(new Set(rules).size).toBe(3000);
    const p = tempProject();
    const restated = rules.filter((_, i) => i % 10 === 3);
    await extractText(p, jsonl([...rules.map((r) => user(r)), ...restated.map((r) => user(r, "s2")), user("forget the rule about archiving the refund queues during business hours", "s2")]));
    const store = loadStore(p.rulesDir);
    const active = store.rules.filter((r) => r.status === "active");
    const target = "Never archive the refund queues during business hours.";
    expect(rules).toContain(target);
    expect(store.rules.find((r) => r.text === target)?.status).toBe("retired");
    expect(active.map((r) => r.text).sort()).toEqual(rules.filter((r) => r !== target).sort());
    expect(store.rules).toHaveLength(3000);
    for (const r of active) expect(r.count, r.text).toBe(restated.includes(r.text) ? 2 : 1);
    const text = ruleFilesText(p.rulesDir);
    for (const r of rules.slice(0, 200)) if (r !== target) expect(text.split(`- ${r}\n`)).toHaveLength(2);
    rmSync(p.dir, { recursive: true, force: true });
  });
});

describe("item 6: --llm calls time out and their whole process group is killed", { timeout: 30_000 }, () => {
  it("a slow command is stopped after the timeout, including the children of its shell", async () => {
    const p = tempProject();
    const marker = join(p.dir, "child-still-running");
    // The shell starts a grandchild that would write a marker after 2 s if it survived the timeout.
    const cmd = `(sleep 2; touch '${marker}') & sleep 30`;
    const t0 = Date.now();
    await expect(runShell(cmd, "prompt", 300)).rejects.toThrow(/timed out/);
    expect(Date.now() - t0).toBeLessThan(5000); // stall guard: not the 30 s of the command
    await new Promise((r) => setTimeout(r, 2500));
    expect(existsSync(marker)).toBe(false);
    rmSync(p.dir, { recursive: true, force: true });
  });

  it("askLlm keeps the default verdict and warns with the timeout", async () => {
    const v: Verdict = { text: "keep commits small", source: { session: "s", line: 1, offset: 0 }, score: 2, keep: false, kind: "drop", type: "constraint", globs: [], cues: [], classifierType: "constraint" };
    const warnings: string[] = [];
    await askLlm("sleep 30", [v], 2.5, 1.5, warnings, 200);
    expect(v.keep).toBe(false);
    expect(warnings.join("\n")).toMatch(/timed out after 200 ms/);
  });
});

describe("item 7: a transcript with no rules leaves no state folder", () => {
  it("writes nothing at all (no rules folder, no .state)", async () => {
    const p = tempProject();
    await extractText(p, jsonl([user("fix the login test"), user("thanks, looks good")]));
    expect(existsSync(join(p.dir, ".claude"))).toBe(false);
    // A rule arriving later is written normally.
    writeFileSync(p.transcript, readFileSync(p.transcript, "utf8") + jsonl([user("Never push to main.")]));
    await extractText(p, null);
    expect(activeRules(p.rulesDir)).toEqual(["Never push to main."]);
    rmSync(p.dir, { recursive: true, force: true });
  });
});
