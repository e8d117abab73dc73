/**
 * The README's sample output is the bundle's real output: the `classify examples/AGENTS.md` table and
 * the `compact examples/AGENTS.md --ratio 0.5` text are run and compared byte for byte, so a model or
 * operator change that alters them fails here instead of leaving the README stale.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { ensureBundle, repo, triage } from "./helpers.js";

const readme = readFileSync(join(repo, "README.md"), "utf8");

/** The first ```text block after the line that introduces `command` in backticks. */
function sample(command: string): string {
  const at = readme.indexOf(`\`${command}\``);
  expect(at, `README shows \`${command}\``).toBeGreaterThan(-1);
  const m = /```text\n([\s\S]*?)```/.exec(readme.slice(at));
  expect(m, `a text block after \`${command}\``).not.toBeNull();
  return m?.[1] ?? "";
}

function run(args: string[]): string {
  const r = triage(args);
  expect(r.code, r.stderr).toBe(0);
  return r.stdout;
}

describe("README examples", () => {
  beforeAll(() => ensureBundle());
  it("classify examples/AGENTS.md", () => {
    expect(run(["classify", "examples/AGENTS.md"])).toBe(sample("triage classify examples/AGENTS.md"));
  });
  it("compact examples/AGENTS.md --ratio 0.5", () => {
    expect(run(["compact", "examples/AGENTS.md", "--ratio", "0.5"])).toBe(sample("triage compact examples/AGENTS.md --ratio 0.5"));
  });
});
