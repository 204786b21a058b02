import { describe, expect, it } from "vitest";
import { pageShingleF1, scoreSegmentShingles, scoreShingles, shingleTokens, shingles, tokensEqual, totalShingleScore } from "../../../../scripts/lib/shingle-score";

// The held-back benchmark's method (scrapinghub article-extraction-benchmark, evaluate.py): the
// expected values below are worked by hand from that method.

describe("shingleTokens: Python's Unicode \\w+", () => {
  it.each([
    { text: "Hello, world_x 42!", tokens: ["Hello", "world_x", "42"] },
    { text: "Straße über Øre", tokens: ["Straße", "über", "Øre"] },
    // Case is kept; an apostrophe splits a word.
    { text: "Don't STOP", tokens: ["Don", "t", "STOP"] },
    // A combining mark is not a word character in Python's \w: it splits the word.
    { text: "cafe\u0301 noir", tokens: ["cafe", "noir"] },
    { text: "北京 2024年", tokens: ["北京", "2024年"] },
    { text: " \n—…", tokens: [] },
  ])("$text", ({ text, tokens }) => {
    expect(shingleTokens(text)).toEqual(tokens);
  });
});

describe("shingles", () => {
  it.each([
    { tokens: [], expected: [] },
    { tokens: ["a"], expected: [["a", 1]] },
    { tokens: ["a", "b", "c"], expected: [["a b c", 1]] },
    { tokens: ["a", "b", "c", "d"], expected: [["a b c d", 1]] },
    { tokens: ["a", "b", "c", "d", "e"], expected: [["a b c d", 1], ["b c d e", 1]] },
    { tokens: ["x", "x", "x", "x", "x", "x"], expected: [["x x x x", 3]] },
  ])("$tokens", ({ tokens, expected }) => {
    expect([...shingles(tokens)]).toEqual(expected);
  });
});

describe("scoreShingles: one page, normalized by TP + FP + FN", () => {
  it.each([
    { truth: "a b c d e", predicted: "a b c d e", expected: { tp: 1, fp: 0, fn: 0 } },
    // truth {abcd, bcde}, predicted {abcd}: TP 1, FN 1.
    { truth: "a b c d e", predicted: "a b c d", expected: { tp: 0.5, fp: 0, fn: 0.5 } },
    // predicted {abcd, bcde, cdef}: TP 2, FP 1.
    { truth: "a b c d e", predicted: "a b c d e f", expected: { tp: 2 / 3, fp: 1 / 3, fn: 0 } },
    // Multisets: the truth's shingle twice, predicted once.
    { truth: "a b c d. a b c d", predicted: "a b c d", expected: { tp: 1 / 5, fp: 0, fn: 4 / 5 } },
    { truth: "a b c d", predicted: "", expected: { tp: 0, fp: 0, fn: 1 } },
    { truth: "", predicted: "a b", expected: { tp: 0, fp: 1, fn: 0 } },
    { truth: "", predicted: "", expected: { tp: 0, fp: 0, fn: 0 } },
  ])("$truth | $predicted", ({ truth, predicted, expected }) => {
    const c = scoreShingles(truth, predicted);
    expect(c.tp).toBeCloseTo(expected.tp, 12);
    expect(c.fp).toBeCloseTo(expected.fp, 12);
    expect(c.fn).toBeCloseTo(expected.fn, 12);
  });
});

describe("totalShingleScore: page-averaged precision and recall", () => {
  it("averages precision over pages with output and recall over pages with truth", () => {
    const pages = [
      scoreShingles("a b c d e", "a b c d e"), // P 1, R 1
      scoreShingles("a b c d e", "a b c d"), // P 1, R 0.5
      scoreShingles("a b c d e", ""), // no output: R 0, not in precision
      scoreShingles("", "x y"), // no truth: P 0, not in recall
    ];
    const s = totalShingleScore(pages);
    expect(s.precisionPages).toBe(3);
    expect(s.recallPages).toBe(3);
    expect(s.precision).toBeCloseTo(2 / 3, 12);
    expect(s.recall).toBeCloseTo(1.5 / 3, 12);
    expect(s.f1).toBeCloseTo((2 * (2 / 3) * 0.5) / (2 / 3 + 0.5), 12);
  });

  it("is zero, not NaN, for no pages", () => {
    expect(totalShingleScore([])).toEqual({ precision: 0, recall: 0, f1: 0, precisionPages: 0, recallPages: 0 });
  });
});

describe("scoreSegmentShingles: the proxy over labelled segments", () => {
  const text = "The council met on Monday. It decided to build a new bridge over the river. Comments (3) Log in";
  it("credits with-segments found, short ones among the output's runs of their length", () => {
    // "decided to build" (3 tokens) is found as a 3-token run; "a new bridge over the" gives two shingles.
    const c = scoreSegmentShingles(["decided to build", "a new bridge over the"], [], text);
    expect(c).toEqual({ tp: 1, fp: 0, fn: 0 });
  });

  it("counts missed with-shingles as FN and found without-shingles as FP", () => {
    const c = scoreSegmentShingles(["a new bridge over the", "not in the text at all"], ["Comments (3) Log in", "Impressum"], text);
    // with: 2 found of 2 + 3 missed; without: "Comments 3 Log in" found (1), "Impressum" not.
    expect(c.tp).toBeCloseTo(2 / 6, 12);
    expect(c.fn).toBeCloseTo(3 / 6, 12);
    expect(c.fp).toBeCloseTo(1 / 6, 12);
  });

  it("does not count as FP a without-segment's shingle that a with-segment accounts for", () => {
    expect(scoreSegmentShingles(["the river"], ["the river"], text)).toEqual({ tp: 1, fp: 0, fn: 0 });
  });
});

describe("pageShingleF1 and tokensEqual", () => {
  it.each([
    { c: { tp: 1, fp: 0, fn: 0 }, f1: 1 },
    { c: { tp: 0, fp: 0, fn: 1 }, f1: 0 },
    { c: { tp: 0.5, fp: 0, fn: 0.5 }, f1: 2 / 3 },
    { c: { tp: 0, fp: 0, fn: 0 }, f1: 1 },
  ])("$c", ({ c, f1 }) => {
    expect(pageShingleF1(c).f1).toBeCloseTo(f1, 12);
  });

  it("compares token lists, not spacing or punctuation", () => {
    expect(tokensEqual("A, b\n\nc.", "A b c")).toBe(true);
    expect(tokensEqual("A b c", "a b c")).toBe(false);
  });
});
