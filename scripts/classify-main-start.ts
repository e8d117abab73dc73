/**
 * The first module of the classify fast path (scripts/classify-main.ts imports it before anything
 * else, and modules run in import order): starts reading the bundled model's cache file on the
 * thread pool while the rest of the program initialises (scripts/model-cache-read-ahead.ts). Only
 * for the bundled model with the start-up caches on; an explicit --model is read when it is used.
 */
import { startModelCacheReadAhead } from "./model-cache-read-ahead.js";
import { defaultModelPath } from "./paths.js";
import { isOff, loaderInfo } from "./runtime.js";

const info = loaderInfo();
if (info?.cacheDir && !isOff(process.env.TRIAGE_MODEL_CACHE) && !process.argv.slice(3).some((a) => a.startsWith("--model"))) {
  startModelCacheReadAhead(defaultModelPath(), info.cacheDir, info.build);
}
