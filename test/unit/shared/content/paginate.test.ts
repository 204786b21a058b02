import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { pageWindow, paginate, paginateWindow } from "../../../../shared/content/paginate";
import { WebgateError } from "../../../../shared/errors";

function allPages(content: string, maxChars: number): string[] {
  const pages: string[] = [];
  let start: number | null = 0;
  while (start !== null) {
    const page = paginate(content, start, maxChars);
    pages.push(page.content);
    start = page.nextStart;
  }
  return pages;
}

describe("paginate", () => {
  it("cuts [start, min(start+max, total))", () => {
    expect(paginate("abcdefghij", 0, 4)).toEqual({ start: 0, end: 4, nextStart: 4, content: "abcd" });
    expect(paginate("abcdefghij", 4, 4)).toEqual({ start: 4, end: 8, nextStart: 8, content: "efgh" });
    expect(paginate("abcdefghij", 8, 4)).toEqual({ start: 8, end: 10, nextStart: null, content: "ij" });
    expect(paginate("abcdefghij", 6, 4)).toEqual({ start: 6, end: 10, nextStart: null, content: "ghij" });
  });

  it("start === total gives an empty last page", () => {
    expect(paginate("abc", 3, 10)).toEqual({ start: 3, end: 3, nextStart: null, content: "" });
    expect(paginate("", 0, 10)).toEqual({ start: 0, end: 0, nextStart: null, content: "" });
  });

  it("start beyond total is invalid_request on field start", () => {
    try {
      paginate("abc", 4, 10);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(WebgateError);
      const err = e as WebgateError;
      expect(err.code).toBe("invalid_request");
      expect(err.message).toBe('Field "start": 4 is beyond the end of the content (total_chars 3).');
      expect(err.details).toEqual({ field: "start", total_chars: 3 });
    }
  });

  it.each([
    [-1, 10, "start"],
    [1.5, 10, "start"],
    [Number.NaN, 10, "start"],
    [0, 0, "max_chars"],
    [0, -5, "max_chars"],
    [0, 2.5, "max_chars"],
  ])("start %s, maxChars %s is invalid_request on %s", (start, max, field) => {
    try {
      paginate("abc", start, max);
      expect.unreachable();
    } catch (e) {
      expect((e as WebgateError).code).toBe("invalid_request");
      expect((e as WebgateError).details).toEqual({ field });
    }
  });

  it("never splits a surrogate pair at the end", () => {
    const s = "ab😀cd"; // 😀 occupies indices 2 and 3
    expect(paginate(s, 0, 3)).toEqual({ start: 0, end: 2, nextStart: 2, content: "ab" });
    expect(paginate(s, 0, 4)).toEqual({ start: 0, end: 4, nextStart: 4, content: "ab😀" });
  });

  it("takes the whole pair when a one-char page would otherwise be empty", () => {
    expect(paginate("😀x", 0, 1)).toEqual({ start: 0, end: 2, nextStart: 2, content: "😀" });
  });

  it("moves a start on a low surrogate back by one", () => {
    expect(paginate("ab😀cd", 3, 3)).toEqual({ start: 2, end: 5, nextStart: 5, content: "😀c" });
  });

  it("a lone surrogate is just a code unit", () => {
    expect(paginate("a\udc00b", 1, 1)).toEqual({ start: 1, end: 2, nextStart: 2, content: "\udc00" });
  });

  it("pages concatenate to the content exactly (property)", () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.oneof(fc.constantFrom("a", "😀", "𝄞", "\ud800", "\udfff"), fc.constant("é")), maxLength: 200 }), fc.integer({ min: 1, max: 50 }), (content, max) => {
        const pages = allPages(content, max);
        expect(pages.join("")).toBe(content);
        for (const page of pages.slice(0, -1)) expect(page.length).toBeGreaterThan(0);
      }),
      { numRuns: 500 },
    );
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 300 }), fc.integer({ min: 1, max: 64 }), (content, max) => {
        expect(allPages(content, max).join("")).toBe(content);
        for (const page of allPages(content, max)) expect(page.length).toBeLessThanOrEqual(Math.max(max, 2));
      }),
      { numRuns: 500 },
    );
  });

  it("reads only the window around the page: one code unit either side", () => {
    expect(pageWindow(0, 10)).toEqual({ start: 0, end: 11 });
    expect(pageWindow(5, 10)).toEqual({ start: 4, end: 16 });
  });

  it("a page cut from its window is the page cut from the whole content (property)", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.oneof(fc.constantFrom("a", "😀", "𝄞", "\ud800", "\udfff")), maxLength: 120 }),
        fc.nat(130),
        fc.integer({ min: 1, max: 40 }),
        (content, rawStart, max) => {
          const start = Math.min(rawStart, content.length);
          const range = pageWindow(start, max);
          // What a store read of [range.start, range.end) returns: clamped to the content.
          const offset = Math.min(range.start, content.length);
          const text = content.slice(offset, Math.min(range.end, content.length));
          expect(paginateWindow({ text, offset, totalChars: content.length }, start, max)).toEqual(paginate(content, start, max));
        },
      ),
      { numRuns: 500 },
    );
  });

  it("a start beyond a window's content is refused with the whole content's length", () => {
    expect(() => paginateWindow({ text: "", offset: 9, totalChars: 9 }, 10, 1000)).toThrow(
      expect.objectContaining({ code: "invalid_request", details: { field: "start", total_chars: 9 } }),
    );
  });
});
