/**
 * The first module of the classify fast path (scripts/classify-main.ts imports it before anything
 * else, and modules run in import order): makes sure the bundled model's cache file is being read on
 * the thread pool while the rest of the program initialises (scripts/model-cache-read-ahead.ts). The
 * bundle's loader has usually started that read already, before reading the program; this call then
 * does nothing.
 */
import { startClassifyReadAhead } from "./model-cache-read-ahead.js";
import { defaultModelPath } from "./paths.js";
import { loaderInfo } from "./runtime.js";

const info = loaderInfo();
if (info) startClassifyReadAhead(process.argv.slice(3), info.cacheDir, info.build, defaultModelPath());
