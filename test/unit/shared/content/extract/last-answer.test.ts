import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { rememberLastAnswer } from "../../../../../shared/content/extract/last-answer";
import { COMMENT_HEADING, LINK_LIST_HEADING } from "../../../../../shared/content/extract/patterns";

describe("rememberLastAnswer", () => {
  it("answers as the pattern for every text of any sequence, repeats and alternations included", () => {
    const texts = fc.constantFrom("x", "X", "Related", "related", "3 Comments", "Leave a Reply", "", " ", "Related stories", "Relate");
    fc.assert(
      fc.property(fc.array(texts, { maxLength: 40 }), (sequence) => {
        const linkList = rememberLastAnswer(LINK_LIST_HEADING);
        const comment = rememberLastAnswer(COMMENT_HEADING);
        expect(sequence.map((t) => [linkList(t), comment(t)])).toEqual(sequence.map((t) => [LINK_LIST_HEADING.test(t), COMMENT_HEADING.test(t)]));
      }),
      { numRuns: 300 },
    );
  });

  it("asks the pattern again when the text changes, and not when it repeats", () => {
    const pattern = /^a/;
    let asked = 0;
    const test = pattern.test.bind(pattern);
    pattern.test = (text: string) => (asked++, test(text));
    const remembered = rememberLastAnswer(pattern);
    expect(["a", "a", "b", "b", "a"].map(remembered)).toEqual([true, true, false, false, true]);
    expect(asked).toBe(3);
  });

  it.each([/a/g, /a/y])("refuses %s, whose lastIndex moves between tests", (pattern) => {
    expect(() => rememberLastAnswer(pattern)).toThrow(/keeps state/);
  });
});
