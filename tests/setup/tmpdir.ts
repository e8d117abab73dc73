/**
 * vitest global setup: every temp folder the suite makes (os.tmpdir() honours TMPDIR) goes under
 * one fresh folder, removed when the run ends, so test runs leave nothing behind in /tmp.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export default function setup(): () => void {
  const root = mkdtempSync(join(tmpdir(), "kt-tests-"));
  process.env.TMPDIR = root;
  return () => {
    rmSync(root, { recursive: true, force: true });
  };
}
