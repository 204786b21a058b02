import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  chunkSpans,
  expiresAtFor,
  isExpired,
  isSnapshotId,
  newSnapshotId,
  sha256Hex,
  toWellFormed,
} from "../../../../shared/cache/snapshot-layout";

const isHigh = (c: number) => c >= 0xd800 && c <= 0xdbff;

describe("chunkSpans", () => {
  it.each([
    ["", 4, []],
    ["abcd", 4, [{ start: 0, end: 4 }]],
    ["abcde", 4, [{ start: 0, end: 4 }, { start: 4, end: 5 }]],
    // "abc😀": the pair sits at 3-4; a cut at 4 would split it, so the first chunk ends at 3.
    ["abc😀", 4, [{ start: 0, end: 3 }, { start: 3, end: 5 }]],
    ["😀😀", 2, [{ start: 0, end: 2 }, { start: 2, end: 4 }]],
    ["😀😀", 3, [{ start: 0, end: 2 }, { start: 2, end: 4 }]],
  ])("splits %j by %i", (text, size, expected) => {
    expect(chunkSpans(text, size)).toEqual(expected);
  });

  it("refuses a chunk size that could not hold a surrogate pair", () => {
    expect(() => chunkSpans("abc", 1)).toThrow(RangeError);
  });

  it("tiles the text, respects the size, never splits a pair, and each chunk survives UTF-8 alone", () => {
    const units = fc.oneof(
      fc.string({ unit: "grapheme", maxLength: 120 }),
      // Lone high and low surrogates next to real pairs: the cases toWellFormed and the cut rule handle.
      fc.string({ unit: fc.constantFrom("a", "é", "漢", "😀", "𠜎", "\uD800", "\uDBFF", "\uDC00"), maxLength: 120 }),
      fc.string({ unit: "grapheme-composite", maxLength: 120 }),
    );
    fc.assert(
      fc.property(units, fc.integer({ min: 2, max: 40 }), (raw, size) => {
        const text = toWellFormed(raw);
        let at = 0;
        for (const span of chunkSpans(text, size)) {
          const chunk = text.slice(span.start, span.end);
          const ok =
            span.start === at &&
            span.end > span.start &&
            span.end - span.start <= size &&
            (span.end === text.length || !isHigh(text.charCodeAt(span.end - 1))) &&
            Buffer.from(chunk, "utf8").toString("utf8") === chunk;
          if (!ok) return false;
          at = span.end;
        }
        return at === text.length;
      }),
    );
  });
});

describe("toWellFormed", () => {
  it.each([
    ["plain", "plain"],
    ["😀", "😀"],
    ["a\uD800", "a\uFFFD"],
    ["\uDC00a", "\uFFFDa"],
    ["\uDC00\uD800", "\uFFFD\uFFFD"],
    ["\uD800\uD800\uDC00", "\uFFFD\uD800\uDC00"],
  ])("%j → %j", (input, output) => {
    expect(toWellFormed(input)).toBe(output);
    expect(toWellFormed(input)).toHaveLength(input.length);
  });
});

describe("sha256Hex", () => {
  it("hashes the UTF-8 bytes, lowercase hex", () => {
    expect(sha256Hex("")).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    expect(sha256Hex("é😀")).toBe("1184d1f608158eea09d297565575892231550c403aaa913008d867a97cfd5c76"); // UTF-8, not UTF-16
    expect(sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  });
});

describe("snapshot ids", () => {
  it("sort by time as strings and have a checkable shape", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 4e12 }), fc.integer({ min: 0, max: 4e12 }), (a, b) => {
        const ia = newSnapshotId(a);
        const ib = newSnapshotId(b);
        expect(isSnapshotId(ia)).toBe(true);
        if (a < b) expect(ia < ib).toBe(true);
      }),
    );
    expect(newSnapshotId(0, "00000000")).toBe("00000000000000000");
    expect(isSnapshotId("not-an-id")).toBe(false);
    expect(isSnapshotId("ZZZZZZZZZdeadbeef")).toBe(false);
  });
});

describe("expiry", () => {
  it("expires exactly ttl seconds after the fetch second", () => {
    const fetchedAt = 1_700_000_000_900;
    const expiresAt = expiresAtFor(fetchedAt, 60);
    expect(expiresAt).toBe(1_700_000_060);
    expect(isExpired(expiresAt, expiresAt * 1000 - 1)).toBe(false);
    expect(isExpired(expiresAt, expiresAt * 1000)).toBe(true);
  });
});
