import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { NEGATIVE, UNLIKELY_CANDIDATE, hasClassWord } from "../../../../../shared/content/extract/patterns";

describe("hasClassWord: furniture words in class and id values", () => {
  it.each([
    // Substrings count, as in Readability: a word inside a longer lowercase token.
    [UNLIKELY_CANDIDATE, "leftsidebar", true],
    [UNLIKELY_CANDIDATE, "mainmenu-wrap", true],
    [UNLIKELY_CANDIDATE, "SideBar", true],
    [UNLIKELY_CANDIDATE, "siteFooter", true],
    [UNLIKELY_CANDIDATE, "nocomments", true],
    [UNLIKELY_CANDIDATE, "no-comments", false],
    // A word assembled across a camelCase boundary is not the word.
    [UNLIKELY_CANDIDATE, "APageRoot__Wrapper", false],
    [UNLIKELY_CANDIDATE, "APageRoot pagination", true],
    [NEGATIVE, "tagStyle_z4kq", false],
    [NEGATIVE, "post-tags", true],
    // A negated word is not the word.
    [UNLIKELY_CANDIDATE, "row non-paywall", false],
    [UNLIKELY_CANDIDATE, "site__main--no-sidebar", false],
    [UNLIKELY_CANDIDATE, "layout without_sidebar", false],
    [UNLIKELY_CANDIDATE, "row non-paywall paywall-box", true],
    [UNLIKELY_CANDIDATE, "intro has-sharing", false],
    [UNLIKELY_CANDIDATE, "layout with-sidebar", false],
    [UNLIKELY_CANDIDATE, "sharing-bar", true],
    [UNLIKELY_CANDIDATE, "", false],
  ])("%s on %j is %s", (pattern, value, expected) => {
    expect(hasClassWord(pattern, value)).toBe(expected);
  });

  it("never matches what the plain pattern does not match", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 60 }), (value) => {
        if (!UNLIKELY_CANDIDATE.test(value)) expect(hasClassWord(UNLIKELY_CANDIDATE, value)).toBe(false);
      }),
    );
  });
});
