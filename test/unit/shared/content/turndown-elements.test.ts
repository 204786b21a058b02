import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { TURNDOWN_BLOCK, TURNDOWN_MEANINGFUL_WHEN_BLANK, TURNDOWN_VOID } from "../../../../shared/content/turndown-elements";

/** The array literal `var <name> = [...]` in the installed turndown's CommonJS build. */
function turndownList(name: string): string[] {
  const source = readFileSync(createRequire(import.meta.url).resolve("turndown"), "utf8");
  const match = new RegExp(`var ${name} = \\[([^\\]]*)\\]`).exec(source);
  if (match === null) throw new Error(`turndown's build has no ${name} array`);
  return [...match[1]!.matchAll(/'([A-Z0-9]+)'/g)].map((m) => m[1]!);
}

describe("turndown's element lists, as the walks that reproduce turndown use them", () => {
  it("are the installed turndown's own, element for element", () => {
    expect([...TURNDOWN_BLOCK]).toEqual(turndownList("blockElements"));
    expect([...TURNDOWN_VOID]).toEqual(turndownList("voidElements"));
    expect([...TURNDOWN_MEANINGFUL_WHEN_BLANK]).toEqual(turndownList("meaningfulWhenBlankElements"));
  });
});
