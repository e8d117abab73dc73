import { describe, expect, it } from "vitest";
import { frontmatterGlobs, globsOverlap, headingTopic, inferScope, matchesPath, normaliseGlob } from "../../scripts/operators/scope.js";

describe("inferScope", () => {
  it.each([
    // BL-12
    ["- In packages/api, always validate request bodies with zod schemas.", [], "path", ["packages/api/**"]],
    ["- Components under apps/web must use the design-system Button instead of a raw <button>.", [], "path", ["apps/web/**"]],
    ["- Never commit .env files.", [], "global", []],
    // BL-13
    ["- In TypeScript and TSX files, prefer named exports over default exports.", [], "path", ["**/*.ts", "**/*.tsx"]],
    ["- For `*.py` files, format with black.", [], "path", ["**/*.py"]],
    ["- src/legacy/ is frozen: do not edit it.", [], "path", ["src/legacy/**"]],
    ["- 在 packages/api 中必须使用 zod 校验请求。", [], "path", ["packages/api/**"]],
    ["- Always add tests when editing services/billing.", [], "path", ["services/billing/**"]],
    ["- Keep handlers thin.", ["Backend", "apps/api"], "path", ["apps/api/**"]],
    // a path that is the rule's object, not its scope
    ["- Never commit `.env` files or anything under `secrets/`.", [], "global", []],
    ["- Never edit files under vendor/ by hand.", [], "global", []],
    ["- Wait for CI/CD to pass and/or ask the on-call.", [], "global", []],
    ["- See https://example.test/docs/api for the contract.", [], "global", []],
    // topic from the section, generic sections give none
    ["- Never run migrations against prod.", ["Database"], "topic", []],
    ["- Never run migrations against prod.", ["Rules"], "global", []],
    ["When compacting, keep the list of rejected approaches.", ["Compact Instructions"], "topic", []],
  ] as [string, string[], string, string[]][])("%s %j -> %s", (text, headings, kind, globs) => {
    const s = inferScope(text, headings);
    expect(s.kind).toBe(kind);
    expect(s.globs).toEqual(globs);
  });

  it("names the section topic first and then identifiers", () => {
    const s = inferScope("- Call `chargeCard()` only through the retry wrapper.", ["Payments"]);
    expect(s.topics).toEqual(["payments", "chargecard"]);
  });
});

describe("globs", () => {
  it.each([
    ["./src/", "src/**"],
    ["src", "src/**"],
    ["*.ts", "**/*.ts"],
    [".tsx", "**/*.tsx"],
    ["src/a.ts", "src/a.ts"],
    ["`apps/web/`.", "apps/web/**"],
    ["/packages/api", "packages/api/**"],
    ["src\\win\\dir", "src/win/dir/**"],
    ["**/*.{ts,tsx}", "**/*.{ts,tsx}"],
    ["", ""],
  ])("normaliseGlob(%j) = %j", (raw, want) => {
    expect(normaliseGlob(raw)).toBe(want);
  });

  it.each([
    [["packages/api/**"], "packages/api/src/server.ts", true],
    [["packages/api/**"], "packages/api", true],
    [["packages/api/**"], "/home/dev/repo/packages/api/src/server.ts", true],
    [["packages/api/**"], "apps/web/src/x.tsx", false],
    [["**/*.ts", "**/*.tsx"], "apps/web/src/x.tsx", true],
    [["**/*.ts"], "apps/web/src/x.tsx", false],
    [["**/.env"], ".env", true],
    [[], "anything", false],
  ])("matchesPath(%j, %j) = %s", (globs, path, want) => {
    expect(matchesPath(globs, path)).toBe(want);
  });

  it("globsOverlap finds folders and files under a rule's glob, both ways", () => {
    expect(globsOverlap(["packages/api/**"], ["packages/api/**"])).toBe(true);
    expect(globsOverlap(["packages/api/**"], ["packages/api/src/handlers/**"])).toBe(true);
    expect(globsOverlap(["packages/**"], ["packages/api/**"])).toBe(true);
    expect(globsOverlap(["**/*.tsx"], ["apps/web/lib/button.tsx"])).toBe(true);
    expect(globsOverlap(["apps/web/**"], ["packages/api/**"])).toBe(false);
    expect(globsOverlap(["**/*.py"], ["apps/web/**"])).toBe(false);
  });

  it("reads paths: and globs: from frontmatter, and nothing from broken YAML", () => {
    expect(frontmatterGlobs('---\npaths:\n  - "src/**/*.ts"\n  - lib/\n---')).toEqual(["src/**/*.ts", "lib/**"]);
    expect(frontmatterGlobs("---\nglobs: '*.py, docs/'\n---")).toEqual(["**/*.py", "docs/**"]);
    expect(frontmatterGlobs("---\ndescription: x\n---")).toEqual([]);
    expect(frontmatterGlobs("---\npaths: [unclosed\n---")).toEqual([]);
  });

  it("headingTopic ignores generic headings and keeps subjects", () => {
    expect(headingTopic("Rules")).toBe("");
    expect(headingTopic("Project rules:")).toBe("");
    expect(headingTopic("**Database**")).toBe("database");
    expect(headingTopic("2. Deploy")).toBe("deploy");
  });
});
