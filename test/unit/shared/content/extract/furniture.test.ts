import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { textStart } from "../../../../../shared/content/extract/furniture";
import { LightElement, LightText } from "../../../../../shared/content/light-dom";

/** `<p>` holding `text`, and with `tail` an empty `<span>` after it: the same text, read by textStart's walk over several nodes. */
function block(text: string, tail: boolean): LightElement {
  const p = new LightElement("p", {});
  p.appendChild(new LightText(text));
  if (tail) p.appendChild(new LightElement("span", {}));
  return p;
}

// Every character that `\s` matches, and some that it does not.
const CHARS = [" ", "  ", "\t", "\n", "\r", "\v", "\f", "\u00a0", "\u1680", "\u2000", "\u200a", "\u2028", "\u2029", "\u202f", "\u205f", "\u3000", "\ufeff", "\u200b", "\u180e", "a", "Z", "é", "字", "©", ".", ":"];

describe("textStart on a block of one text node", () => {
  it.each([
    ["Related stories", 80, "Related stories"],
    ["  Related \n\t stories  ", 80, "Related stories"],
    ["\u00a0\u3000", 80, ""],
    ["abcdef", 3, "abc"],
    ["ab cdef", 3, "ab"],
    ["By\u00a0Ann Example", 160, "By Ann Example"],
    ["", 80, ""],
  ])("%j with limit %d is %j", (text, limit, expected) => {
    expect(textStart(block(text, false), limit)).toBe(expected);
    expect(textStart(block(text, true), limit)).toBe(expected);
  });

  it("reads what the walk over several nodes reads, at every limit", () => {
    const text = fc.array(fc.constantFrom(...CHARS), { maxLength: 40 }).map((parts) => parts.join(""));
    fc.assert(
      fc.property(text, fc.integer({ min: 1, max: 50 }), fc.boolean(), (t, limit, untilLink) => {
        expect(textStart(block(t, false), limit, untilLink)).toBe(textStart(block(t, true), limit, untilLink));
      }),
      { numRuns: 2000 },
    );
  });
});
