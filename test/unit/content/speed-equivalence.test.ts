import { describe, expect, it } from "vitest";
import fc from "fast-check";
import TurndownService from "turndown";
import { decode as whatwgDecode } from "whatwg-encoding";
import { decodeBody } from "../../../shared/content/decode";
import { createTurndownService } from "../../../shared/content/turndown-setup";

// Speed-only changes must not change output: each fast path is checked against the code it replaces.
describe("speed-only fast paths", () => {
  it("the escape pre-check gives turndown's escaping exactly", () => {
    const ours = createTurndownService(null);
    const theirs = new TurndownService();
    const markdownish = fc.string({ unit: fc.constantFrom("a", " ", "\\", "*", "-", "+", "=", "#", "`", "~", "[", "]", ">", "_", "1", ".", "\n", "é"), maxLength: 30 });
    fc.assert(
      fc.property(fc.oneof(markdownish, fc.string()), (text) => {
        expect(ours.escape(text)).toBe(theirs.escape(text));
      }),
      { numRuns: 3000 },
    );
  });

  it("UTF-8 through TextDecoder equals whatwg-encoding's decode for valid UTF-8", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 100 }), fc.boolean(), (text, bom) => {
        const bytes = new TextEncoder().encode(text);
        const body = bom ? new Uint8Array([0xef, 0xbb, 0xbf, ...bytes]) : bytes;
        expect(decodeBody(body, "text/plain; charset=utf-8").text).toBe(whatwgDecode(body, "UTF-8"));
      }),
      { numRuns: 500 },
    );
  });
});
