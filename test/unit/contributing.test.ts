import { existsSync, readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const REPO_ROOT = path.resolve(__dirname, "../..");
const UNIT = path.join(REPO_ROOT, "test/unit");

/** Every `*.test.ts` below `dir`, as paths relative to test/unit with "/" separators. */
function unitTests(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return unitTests(full);
    return entry.name.endsWith(".test.ts") ? [path.relative(UNIT, full).split(path.sep).join("/")] : [];
  });
}

/**
 * The source a unit test mirrors (CONTRIBUTING.md, "Tests"): `test/unit/<dir>/<name>[.<aspect>].test.ts`
 * tests `<dir>/<name>.ts` (or `.mjs`); a test at the top of test/unit tests the document of its
 * name (`readme.test.ts` → README.md). Undefined when no such source exists.
 */
function mirroredSource(test: string): string | undefined {
  const stem = test.slice(0, -".test.ts".length);
  const dir = path.posix.dirname(stem);
  const name = path.posix.basename(stem);
  const names = name.includes(".") ? [name, name.slice(0, name.indexOf("."))] : [name];
  for (const candidate of names) {
    if (dir === ".") {
      const document = `${candidate.toUpperCase()}.md`;
      if (existsSync(path.join(REPO_ROOT, document))) return document;
      continue;
    }
    for (const ext of [".ts", ".mjs"]) {
      const source = `${dir}/${candidate}${ext}`;
      if (existsSync(path.join(REPO_ROOT, source))) return source;
    }
  }
  return undefined;
}

describe("the test layout CONTRIBUTING.md describes", () => {
  it("every unit test sits at the mirror of the source it tests", () => {
    const strays = unitTests(UNIT).filter((test) => mirroredSource(test) === undefined);
    expect(strays, "move these to test/unit/<path of their source> (see CONTRIBUTING.md)").toEqual([]);
  });

  it.each([
    ["shared/guard/url-policy.test.ts", "shared/guard/url-policy.ts"],
    ["shared/guard/url-policy.property.test.ts", "shared/guard/url-policy.ts"],
    ["functions/fetch/handler.test.ts", "functions/fetch/handler.ts"],
    ["readme.test.ts", "README.md"],
    ["guard/url-policy.test.ts", undefined],
    ["shared/content/pipeline.test.ts", undefined],
  ])("%s mirrors %s", (test, source) => {
    expect(mirroredSource(test)).toBe(source);
  });

  it("CONTRIBUTING.md states the convention this test enforces", () => {
    expect(readFileSync(path.join(REPO_ROOT, "CONTRIBUTING.md"), "utf8")).toContain("test/unit/<path of the source>");
  });
});
