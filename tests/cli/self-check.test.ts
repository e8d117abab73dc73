import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { bundledModel, ensureBundle, mapWeights, tempDir, triage, removeTempDirs } from "./helpers.js";

vi.setConfig({ testTimeout: 60_000 });
beforeAll(() => ensureBundle(), 180_000);
afterAll(() => removeTempDirs());

describe("triage --self-check", () => {
  it("exits 0 with the committed model", () => {
    const r = triage(["--self-check"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^self-check ok: model tier, \d+ built-in lines/);
    expect(r.stderr).toBe("");
  });

  it("exits 1 and names the failures with a model whose weights and biases are zeroed", () => {
    const model = JSON.parse(readFileSync(bundledModel, "utf8")) as Record<string, unknown> & { bias: number[]; stage2?: { weights: number[]; bias: number[] } };
    const zeroed = {
      ...model,
      weights: mapWeights(model, (n) => Buffer.alloc(n).toString("base64")),
      bias: model.bias.map(() => 0),
      // The second stage zeroed too, so every unit gets five equal probabilities.
      ...(model.stage2 ? { stage2: { ...model.stage2, weights: model.stage2.weights.map(() => 0), bias: model.stage2.bias.map(() => 0) } } : {}),
    };
    const dir = tempDir("kt-selfcheck-");
    const path = join(dir, "zeroed.json");
    writeFileSync(path, JSON.stringify(zeroed));
    const r = triage(["--self-check", "--model", path]);
    expect(r.code).toBe(1);
    const lines = r.stderr.split("\n").filter(Boolean);
    expect(lines.length).toBeGreaterThan(0);
    for (const l of lines) expect(l).toMatch(/^triage: self-check: expected \w+, got \w+ \(0\.20\)/);
    expect(r.stderr).not.toMatch(/^\s+at /m);
  });

  it("exits 1 with a one-line error for a corrupt model", () => {
    const dir = tempDir("kt-selfcheck-");
    const path = join(dir, "bad.json");
    writeFileSync(path, "{not json");
    const r = triage(["--self-check", "--model", path]);
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toMatch(/^triage: .*not JSON\)?$/);
  });
});
