/**
 * The model cache (scripts/model-cache.ts): a model file's inference tables stored as bytes beside
 * the code cache. It must only ever change speed: the tables read back are those prepareModel
 * builds, any damaged, foreign or stale file is ignored, and the bundle's output is the same with
 * and without it.
 */
import { execFileSync } from "node:child_process";
import type { BigIntStats } from "node:fs";
import { chmodSync, copyFileSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, unlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { loadLabelledData } from "../../scripts/data.js";
import { modelClassifier, type PreparedModel, prepareModel, preparedClassifier } from "../../scripts/engine/model.js";
import { cachedPreparedModel, decodeModelCache, encodeModelCache, isRacilyNew, modelCacheKey, modelCacheName, storeModelCache } from "../../scripts/model-cache.js";
import { readModel } from "../../scripts/model-file.js";
import { trustedFolder } from "../../scripts/paths.js";
import { bundledModel, ensureBundle, removeTempDirs, repo, tempDir, triage } from "./helpers.js";

vi.setConfig({ testTimeout: 60_000 });
beforeAll(() => ensureBundle(), 180_000);
afterAll(() => removeTempDirs());

const model = readModel(bundledModel);
const prepared = prepareModel(model);
const KEY = "1|test-build|1:2:3:4:5";
/** Bytes before the JSON header of a cache file: magic, layout, header length, zero, u64 checksum. */
const FIXED = 24;

function expectSameTables(a: PreparedModel, b: PreparedModel): void {
  expect(b.index.bits).toBe(a.index.bits);
  expect(Buffer.from(b.index.table.buffer, b.index.table.byteOffset, b.index.table.byteLength).equals(Buffer.from(a.index.table.buffer, a.index.table.byteOffset, a.index.table.byteLength))).toBe(true);
  expect(Array.from(b.index.scale)).toEqual(Array.from(a.index.scale));
  expect(Array.from(b.weights)).toEqual(Array.from(a.weights));
  expect(Array.from(b.bias)).toEqual(Array.from(a.bias));
  expect(Array.from(b.weightScales)).toEqual(Array.from(a.weightScales));
  expect(b.temperature).toBe(a.temperature);
  expect(b.stems).toEqual(a.stems);
}

describe("model cache: encoding", () => {
  it("decodes to the very tables prepareModel builds, and the classifier scores every test unit identically", () => {
    const bytes = encodeModelCache(prepared, KEY);
    expect(bytes.length).toBeGreaterThan(500_000);
    const back = decodeModelCache(bytes, KEY);
    expect(back).toBeDefined();
    expectSameTables(prepared, back as PreparedModel);
    const fromJson = modelClassifier(model);
    const fromCache = preparedClassifier(back as PreparedModel);
    for (const doc of loadLabelledData(join(repo, "data", "test")).docs) expect(fromCache.scores(doc.units)).toEqual(fromJson.scores(doc.units));
  });

  it("a file of another key, layout or shape is refused (undefined), never half-read", () => {
    const bytes = encodeModelCache(prepared, KEY);
    expect(decodeModelCache(bytes, `${KEY}x`)).toBeUndefined();
    const wrongLayout = Buffer.from(bytes);
    wrongLayout.writeUInt32LE(99, 4);
    expect(decodeModelCache(wrongLayout, KEY)).toBeUndefined();
    const wrongMagic = Buffer.from(bytes);
    wrongMagic[0] = 0;
    expect(decodeModelCache(wrongMagic, KEY)).toBeUndefined();
    for (const cut of [0, 3, 11, 12, 40, 5000, bytes.length - 1]) expect(decodeModelCache(bytes.subarray(0, cut), KEY)).toBeUndefined();
    expect(decodeModelCache(Buffer.concat([bytes, Buffer.from([0])]), KEY)).toBeUndefined();
    const headLength = bytes.readUInt32LE(8);
    const badHeader = Buffer.from(bytes);
    badHeader.write("{", FIXED + headLength - 1, "latin1");
    expect(decodeModelCache(badHeader, KEY)).toBeUndefined();
    const hugeHeader = Buffer.from(bytes);
    hugeHeader.writeUInt32LE(0xffffffff, 8);
    expect(decodeModelCache(hugeHeader, KEY)).toBeUndefined();
    expect(decodeModelCache(Buffer.from("not a cache"), KEY)).toBeUndefined();
  });

  it("a damaged payload or header value (key and length intact) is refused: zeroed blocks, flipped bits, NaN scales, a changed temperature or bias", () => {
    const bytes = encodeModelCache(prepared, KEY);
    expect(decodeModelCache(bytes, KEY)).toBeDefined();
    const headLength = bytes.readUInt32LE(8);
    const payloadStart = FIXED + headLength + ((8 - ((FIXED + headLength) % 8)) % 8);
    // Header values outside the payload: one digit of the temperature, one of the first bias.
    const header = bytes.toString("latin1", FIXED, FIXED + headLength);
    for (const field of ['"temperature":', '"bias":[']) {
      const at = FIXED + header.indexOf(field) + field.length + 2;
      const edited = Buffer.from(bytes);
      edited[at] = edited[at] === 0x31 ? 0x32 : 0x31;
      expect(decodeModelCache(edited, KEY), `${field} edited`).toBeUndefined();
    }
    for (const at of [payloadStart, payloadStart + 262_144, bytes.length - 4096, bytes.length - 1]) {
      const zeroed = Buffer.from(bytes);
      zeroed.fill(0, at, Math.min(at + 4096, bytes.length));
      if (!zeroed.equals(bytes)) expect(decodeModelCache(zeroed, KEY), `zeroed at ${at}`).toBeUndefined();
      const flipped = Buffer.from(bytes);
      flipped[at] = (flipped[at] as number) ^ 0x40;
      expect(decodeModelCache(flipped, KEY), `bit flipped at ${at}`).toBeUndefined();
    }
    // Every slot of the hash table filled: without the checksum a lookup would probe for ever.
    const full = Buffer.from(bytes);
    const tableBytes = (2 << prepared.index.bits) * 4;
    for (let i = payloadStart; i < payloadStart + tableBytes; i += 4) full.writeInt32LE(0x7fffff00, i);
    expect(decodeModelCache(full, KEY)).toBeUndefined();
  });

  it("an unaligned buffer is copied, not misread", () => {
    const bytes = encodeModelCache(prepared, KEY);
    const shifted = Buffer.alloc(bytes.length + 1).subarray(1);
    bytes.copy(shifted);
    expectSameTables(prepared, decodeModelCache(shifted, KEY) as PreparedModel);
  });

  it("the key changes with the model file's content, times and the program build; names are stable", () => {
    const dir = tempDir("kt-mc-");
    const file = join(dir, "model.json");
    copyFileSync(bundledModel, file);
    const k1 = modelCacheKey(statSync(file, { bigint: true }), "b1");
    expect(modelCacheKey(statSync(file, { bigint: true }), "b1")).toBe(k1);
    expect(modelCacheKey(statSync(file, { bigint: true }), "b2")).not.toBe(k1);
    // Same bytes written again with the old modification time restored: the change time still moves.
    const st = statSync(file);
    writeFileSync(file, readFileSync(file));
    utimesSync(file, st.atime, st.mtime);
    expect(modelCacheKey(statSync(file, { bigint: true }), "b1")).not.toBe(k1);
    expect(modelCacheName(k1)).toMatch(/^model-[0-9a-f]{16}\.ktmodel$/);
    expect(modelCacheName(k1)).toBe(modelCacheName(k1));
    expect(modelCacheName(k1)).not.toBe(modelCacheName(`${k1} `));
  });
});

describe("model cache: files", () => {
  it("a stored file is found for the same model file and build, and only for them", () => {
    const dir = tempDir("kt-mc-");
    const cacheDir = join(dir, "cache");
    const file = join(dir, "model.json");
    copyFileSync(bundledModel, file);
    const seen: string[] = [];
    const load = (): PreparedModel => prepareModel(readModel(file));
    const first = cachedPreparedModel(file, cacheDir, "b1", load, (s) => seen.push(s));
    expect(seen).toEqual(["miss"]);
    // The real write happens at process exit; store it as that handler would.
    const key = modelCacheKey(statSync(file, { bigint: true }), "b1");
    storeModelCache(cacheDir, join(cacheDir, modelCacheName(key)), first, key);
    expect(statSync(cacheDir).mode & 0o777).toBe(0o700);
    expect(statSync(join(cacheDir, modelCacheName(key))).mode & 0o777).toBe(0o600);
    let loads = 0;
    const counted = (): PreparedModel => {
      loads++;
      return load();
    };
    expectSameTables(prepared, cachedPreparedModel(file, cacheDir, "b1", counted, (s) => seen.push(s)));
    expect(loads).toBe(0);
    cachedPreparedModel(file, cacheDir, "b2", counted, (s) => seen.push(s));
    expect(loads).toBe(1);
    writeFileSync(file, readFileSync(file));
    cachedPreparedModel(file, cacheDir, "b1", counted, (s) => seen.push(s));
    expect(loads).toBe(2);
    expect(seen).toEqual(["miss", "hit", "miss", "miss"]);
  });

  it("keeps only the newest 8 model caches of a folder", () => {
    const cacheDir = join(tempDir("kt-mc-"), "cache");
    for (let i = 0; i < 11; i++) {
      const key = `1|b|${i}`;
      storeModelCache(cacheDir, join(cacheDir, modelCacheName(key)), prepared, key);
    }
    expect(readdirSync(cacheDir).filter((n) => n.endsWith(".ktmodel"))).toHaveLength(8);
  });

  it("a model file is racily new for 2 s after its last modification or change, and when dated in the future", () => {
    const at = (mtimeMs: number, ctimeMs: number) => ({ mtimeNs: BigInt(mtimeMs) * 1_000_000n, ctimeNs: BigInt(ctimeMs) * 1_000_000n }) as unknown as BigIntStats;
    const now = 1_800_000_000_000;
    expect(isRacilyNew(at(now - 10_000, now - 10_000), now)).toBe(false);
    expect(isRacilyNew(at(now - 2_000, now - 2_000), now)).toBe(false);
    expect(isRacilyNew(at(now - 1_999, now - 10_000), now)).toBe(true);
    expect(isRacilyNew(at(now - 10_000, now - 500), now)).toBe(true);
    expect(isRacilyNew(at(now + 60_000, now - 10_000), now)).toBe(true);
  });

  it("a cache folder that is not private (group or others may write) is neither read nor written", () => {
    const cacheDir = join(tempDir("kt-mc-"), "cache");
    mkdirSync(cacheDir, { mode: 0o700 });
    const file = join(tempDir("kt-mc-"), "model.json");
    copyFileSync(bundledModel, file);
    utimesSync(file, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
    const key = modelCacheKey(statSync(file, { bigint: true }), "b1");
    const name = join(cacheDir, modelCacheName(key));
    storeModelCache(cacheDir, name, prepared, key);
    expect(readdirSync(cacheDir)).toHaveLength(1);
    const seen: string[] = [];
    let loads = 0;
    const load = () => {
      loads++;
      return prepared;
    };
    cachedPreparedModel(file, cacheDir, "b1", load, (status) => seen.push(status));
    expect([seen, loads]).toEqual([["hit"], 0]);
    chmodSync(cacheDir, 0o770);
    expect(trustedFolder(cacheDir)).toBeNull();
    cachedPreparedModel(file, cacheDir, "b1", load, (status) => seen.push(status));
    expect([seen, loads]).toEqual([["hit", "miss"], 1]);
    unlinkSync(name);
    storeModelCache(cacheDir, name, prepared, key);
    expect(readdirSync(cacheDir)).toEqual([]);
    expect(trustedFolder(join(cacheDir, "missing"))).toBeNull();
    // A symbolic link of this user's to a private folder resolves to it (later uses take the real path).
    const real = join(tempDir("kt-mc-"), "real");
    mkdirSync(real, { mode: 0o700 });
    const link = join(tempDir("kt-mc-"), "link");
    symlinkSync(real, link);
    expect(trustedFolder(link)).toBe(real);
    expect(trustedFolder(real)).toBe(real);
  });

  it("a missing model file is reported by the loader, not hidden by the cache", () => {
    const cacheDir = join(tempDir("kt-mc-"), "cache");
    expect(() => cachedPreparedModel("/no/such/model.json", cacheDir, "b", () => prepareModel(readModel("/no/such/model.json")))).toThrow(/cannot read model/);
  });
});

describe("model cache: the bundle", () => {
  const args = ["classify", "examples/CLAUDE.md", "--json"];
  const run = (env: Record<string, string>) => triage(args, { env: { TRIAGE_CACHE_DEBUG: "1", ...env } });
  const status = (stderr: string): string => /^model cache: (\w+)/m.exec(stderr)?.[1] ?? "none";
  const modelCaches = (dir: string): string[] => readdirSync(dir).filter((n) => n.endsWith(".ktmodel"));

  it("first run stores the tables, later runs use them; output identical to a run without caches", () => {
    const dir = join(tempDir("kt-mc-"), "cache");
    const off = run({ TRIAGE_CACHE: "0" });
    expect(off.code, off.stderr).toBe(0);
    expect(status(off.stderr)).toBe("off");
    const first = run({ TRIAGE_CACHE_DIR: dir });
    expect(status(first.stderr)).toBe("miss");
    expect(modelCaches(dir)).toHaveLength(1);
    const second = run({ TRIAGE_CACHE_DIR: dir });
    expect(status(second.stderr)).toBe("hit");
    expect(second.stdout).toBe(off.stdout);
    expect(first.stdout).toBe(off.stdout);
    // Switched off alone: no model cache read or written, the code cache still works.
    const alone = join(tempDir("kt-mc-"), "cache");
    const noModel = run({ TRIAGE_CACHE_DIR: alone, TRIAGE_MODEL_CACHE: "off" });
    expect(status(noModel.stderr)).toBe("off");
    expect(noModel.stderr).toMatch(/^code cache: miss/m);
    expect(modelCaches(alone)).toEqual([]);
  });

  it("a damaged, emptied or device cache file is ignored (same output) and replaced", () => {
    const dir = join(tempDir("kt-mc-"), "cache");
    const ref = run({ TRIAGE_CACHE_DIR: dir });
    const file = join(dir, modelCaches(dir)[0] as string);
    const good = readFileSync(file);
    writeFileSync(file, good.subarray(0, good.length - 7));
    const torn = run({ TRIAGE_CACHE_DIR: dir });
    expect(status(torn.stderr)).toBe("rejected");
    expect(torn.stdout).toBe(ref.stdout);
    expect(readFileSync(file).equals(good)).toBe(true);
    writeFileSync(file, "");
    expect(run({ TRIAGE_CACHE_DIR: dir }).stdout).toBe(ref.stdout);
    unlinkSync(file);
    symlinkSync("/dev/zero", file);
    const dev = run({ TRIAGE_CACHE_DIR: dir });
    expect(dev.code, dev.stderr).toBe(0);
    expect(status(dev.stderr)).toBe("miss");
    expect(dev.stdout).toBe(ref.stdout);
    // A FIFO with no writer: neither the fast path's read-ahead nor the read in place waits on it.
    unlinkSync(file);
    execFileSync("mkfifo", [file]);
    const fifo = run({ TRIAGE_CACHE_DIR: dir });
    expect(fifo.code, fifo.stderr).toBe(0);
    expect(fifo.stdout).toBe(ref.stdout);
  });

  it("another model file gets its own cache and its own scores, stored only once the file is 2 s old; --model /dev/null uses none", async () => {
    const dir = join(tempDir("kt-mc-"), "cache");
    const other = join(tempDir("kt-mc-"), "model.json");
    const m = JSON.parse(readFileSync(bundledModel, "latin1"));
    m.bias = (m.bias as number[]).map((b, k) => (k === 2 ? b + 5 : b)); // leans every unit to belief
    writeFileSync(other, JSON.stringify(m));
    const base = run({ TRIAGE_CACHE_DIR: dir });
    expect(modelCaches(dir)).toHaveLength(1);
    // Just written: on a file system with 1 s timestamps a same-size rewrite could keep the whole
    // key, so no cache is stored yet (isRacilyNew); the output is the model's all the same.
    const racy = triage([...args, "--model", other], { env: { TRIAGE_CACHE_DIR: dir, TRIAGE_CACHE_DEBUG: "1" } });
    expect(status(racy.stderr)).toBe("miss");
    expect(modelCaches(dir)).toHaveLength(1);
    await new Promise((r) => setTimeout(r, 2_100));
    const withOther = triage([...args, "--model", other], { env: { TRIAGE_CACHE_DIR: dir } });
    expect(withOther.code, withOther.stderr).toBe(0);
    expect(withOther.stdout).toBe(racy.stdout);
    expect(modelCaches(dir)).toHaveLength(2);
    const again = triage([...args, "--model", other], { env: { TRIAGE_CACHE_DIR: dir, TRIAGE_CACHE_DEBUG: "1" } });
    expect(status(again.stderr)).toBe("hit");
    expect(again.stdout).toBe(withOther.stdout);
    expect(again.stdout).not.toBe(base.stdout);
    const types = (out: string) => (JSON.parse(out) as Array<{ type: string }>).filter((r) => r.type === "belief").length;
    expect(types(again.stdout)).toBeGreaterThan(types(base.stdout));
    const regex = triage([...args, "--model", "/dev/null"], { env: { TRIAGE_CACHE_DIR: dir, TRIAGE_CACHE_DEBUG: "1" } });
    expect(status(regex.stderr)).toBe("none");
    expect(modelCaches(dir)).toHaveLength(2);
  });
});
