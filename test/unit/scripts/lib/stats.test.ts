import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { percentile, summarize } from "../../../../scripts/lib/stats";

describe("percentile", () => {
  it.each([
    { values: [5], p: 50, expected: 5 },
    { values: [5], p: 95, expected: 5 },
    { values: [1, 2, 3, 4], p: 50, expected: 2.5 },
    { values: [4, 1, 3, 2], p: 50, expected: 2.5 },
    { values: [1, 2, 3, 4, 5], p: 50, expected: 3 },
    { values: [1, 2, 3, 4, 5], p: 0, expected: 1 },
    { values: [1, 2, 3, 4, 5], p: 100, expected: 5 },
    { values: [1, 2, 3, 4, 5], p: 25, expected: 2 },
    // rank 0.95 * 19 = 18.05 between the 19th (19) and 20th (20) value.
    { values: Array.from({ length: 20 }, (_, i) => i + 1), p: 95, expected: 19.05 },
    { values: [10, 10, 10, 1000], p: 50, expected: 10 },
  ])("p$p of $values is $expected", ({ values, p, expected }) => {
    expect(percentile(values, p)).toBeCloseTo(expected, 10);
  });

  it("leaves its input unsorted", () => {
    const values = [3, 1, 2];
    percentile(values, 50);
    expect(values).toEqual([3, 1, 2]);
  });

  it("refuses no values and percentiles outside 0-100", () => {
    expect(() => percentile([], 50)).toThrow(RangeError);
    expect(() => percentile([1], -1)).toThrow(RangeError);
    expect(() => percentile([1], 101)).toThrow(RangeError);
    expect(() => percentile([1], Number.NaN)).toThrow(RangeError);
  });

  it("lies between the minimum and the maximum and never decreases with p", () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: -1e6, max: 1e6, noNaN: true }), { minLength: 1, maxLength: 50 }), fc.integer({ min: 0, max: 99 }), (values, p) => {
        const low = percentile(values, p);
        const high = percentile(values, p + 1);
        expect(low).toBeGreaterThanOrEqual(Math.min(...values));
        expect(high).toBeLessThanOrEqual(Math.max(...values));
        expect(high).toBeGreaterThanOrEqual(low);
      }),
    );
  });
});

describe("summarize", () => {
  it("gives count, p50, p95 and max", () => {
    const s = summarize([1, 2, 3, 4, 100]);
    expect(s).toMatchObject({ n: 5, p50: 3, max: 100 });
    // rank 0.95 * 4 = 3.8: 4 + 0.8 * (100 - 4).
    expect(s.p95).toBeCloseTo(80.8, 10);
  });
});
