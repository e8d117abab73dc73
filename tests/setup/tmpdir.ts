/**
 * vitest global setup: every temp folder the suite makes (os.tmpdir() honours TMPDIR) goes under
 * one fresh folder, removed when the run ends, so test runs leave nothing behind in /tmp (nor, for
 * the bundle's code cache, in ~/.cache).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export default function setup(): () => void {
  const root = mkdtempSync(join(tmpdir(), "kt-tests-"));
  process.env.TMPDIR = root;
  // The bundle's V8 code cache (scripts/build.mjs) goes here too, not into the user's ~/.cache.
  process.env.TRIAGE_CACHE_DIR = join(root, "code-cache");
  return () => {
    rmSync(root, { recursive: true, force: true });
  };
}
