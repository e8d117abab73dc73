/**
 * Shared end-of-suite handling for the end-to-end tests: close the mock API, then keep the artifacts
 * folder (request log, HOME, project) when a test failed or KNOWLEDGE_TRIAGE_E2E_OUT names it, else delete it.
 */
import { rmSync } from "node:fs";
import { afterAll, beforeEach } from "vitest";

/** Register the hooks; `close` returns the mock API's close (undefined when it never started). */
export function keepArtifactsOnFailure(out: string, close: () => (() => Promise<void>) | undefined): void {
  let failed = false;
  beforeEach((ctx) => {
    ctx.onTestFailed(() => {
      failed = true;
    });
  });
  afterAll(async () => {
    await close()?.();
    if (failed || process.env.KNOWLEDGE_TRIAGE_E2E_OUT) console.log(`e2e artifacts: ${out}`);
    else rmSync(out, { recursive: true, force: true });
  });
}
