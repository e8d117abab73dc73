/**
 * The classify fast path reads the model cache file ahead on the thread pool
 * (scripts/model-cache-read-ahead.ts); cachedPreparedModel takes the bytes only for the same file.
 */
import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { prepareModel } from "../../scripts/engine/model.js";
import { encodeModelCache } from "../../scripts/model-cache.js";
import { modelCacheKey, modelCacheName } from "../../scripts/model-cache-name.js";
import { classifyUsesModelCache, modelCacheReadAheadDone, startModelCacheReadAhead, takeReadAhead } from "../../scripts/model-cache-read-ahead.js";
import { readModel } from "../../scripts/model-file.js";
import { bundledModel, removeTempDirs, tempDir } from "./helpers.js";

afterAll(() => removeTempDirs());

describe("model cache read-ahead", () => {
  it("reads the bundled model's cache file for this build, hands it out once and only for that file", async () => {
    const dir = join(tempDir("kt-ra-"), "cache");
    mkdirSync(dir);
    const key = modelCacheKey(statSync(bundledModel, { bigint: true }), "build-1");
    const file = join(dir, modelCacheName(key));
    writeFileSync(file, encodeModelCache(prepareModel(readModel(bundledModel)), key));
    expect(takeReadAhead(file)).toBeUndefined(); // nothing started yet
    startModelCacheReadAhead(bundledModel, dir, "build-1");
    await modelCacheReadAheadDone();
    expect(takeReadAhead(join(dir, "model-0000000000000000.ktmodel"))).toBeUndefined();
    const bytes = takeReadAhead(file);
    expect(bytes?.equals(readFileSync(file))).toBe(true);
    expect(takeReadAhead(file)).toBeUndefined(); // handed out once
  });

  it("is wanted for classify only with the bundled model and the model cache switch on", () => {
    expect(classifyUsesModelCache(["examples/CLAUDE.md"], undefined)).toBe(true);
    expect(classifyUsesModelCache(["a.md", "--json"], "1")).toBe(true);
    expect(classifyUsesModelCache(["a.md", "--model", "m.json"], undefined)).toBe(false);
    expect(classifyUsesModelCache(["--model=m.json", "a.md"], undefined)).toBe(false);
    for (const off of ["0", "false", "NO", "off"]) expect(classifyUsesModelCache(["a.md"], off)).toBe(false);
  });
});
