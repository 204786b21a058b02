import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { hasReadableText, renderDocument } from "../../../../shared/content/render";
import { WebgateError } from "../../../../shared/errors";

const URL_ = "https://example.com/a/page.html";
const utf8 = (s: string) => new TextEncoder().encode(s);

const TAGS = [
  "div", "p", "span", "a", "img", "h1", "h2", "h4", "ul", "ol", "li", "table", "thead", "tbody", "tr", "td", "th",
  "pre", "code", "em", "strong", "br", "form", "input", "button", "blockquote", "section", "article", "nav",
  "header", "footer", "main", "hr", "dl", "dt", "dd", "figure", "figcaption", "noscript", "script", "label", "sup",
];

// Text never holds brackets, so any `](` or `![` in the output would be syntax the converter wrote.
const word = fc.stringMatching(/^[A-Za-z0-9äß\u4e2d*_#>+.!-]{1,8}$/);
const text = fc.array(word, { minLength: 1, maxLength: 4 }).map((w) => w.join(" "));

/** Random HTML trees of the tags above, with links and images whose targets are recognisable. */
const htmlTree: fc.Arbitrary<string> = fc.letrec<{ node: string }>((tie) => ({
  node: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    text,
    fc
      .tuple(fc.constantFrom(...TAGS), fc.array(tie("node"), { maxLength: 4 }), fc.nat(99))
      .map(([tag, children, n]) => {
        const attrs = tag === "a" ? ` href="/target-${n}"` : tag === "img" ? ` src="/image-${n}.png" alt="alt${n}"` : "";
        return `<${tag}${attrs}>${children.join("")}</${tag}>`;
      }),
  ),
})).node;

function render(html: string, mainContent: boolean, format: "markdown" | "text"): string | WebgateError {
  try {
    return renderDocument({ body: utf8(html), contentType: "text/html", finalUrl: URL_, mainContent, format }).content;
  } catch (error) {
    if (error instanceof WebgateError) return error;
    throw error;
  }
}

describe("the content pipeline on arbitrary HTML (fast-check)", () => {
  it('format "text" never contains Markdown link or image syntax, nor a link or image target', () => {
    fc.assert(
      fc.property(fc.array(htmlTree, { minLength: 1, maxLength: 5 }), fc.boolean(), (nodes, mainContent) => {
        const out = render(nodes.join(""), mainContent, "text");
        if (out instanceof WebgateError) return;
        expect(out).not.toMatch(/\]\(|!\[|\[[^\]]*\]\(/);
        expect(out).not.toMatch(/target-\d|image-\d|https?:/);
      }),
      { numRuns: 300 },
    );
  });

  it("never throws anything but no_readable_content (or decode_failed for garbage bytes), and never answers empty content for HTML", () => {
    const anyHtml = fc.oneof(fc.array(htmlTree, { maxLength: 5 }).map((n) => n.join("")), fc.string({ maxLength: 200 }), fc.string({ unit: "binary", maxLength: 200 }));
    fc.assert(
      fc.property(anyHtml, fc.boolean(), fc.constantFrom("markdown" as const, "text" as const), (html, mainContent, format) => {
        const out = render(html, mainContent, format);
        if (out instanceof WebgateError && out.code === "decode_failed") {
          // decodeBody refuses a body that is mostly control characters or U+FFFD, before any conversion.
          expect([...html].some((c) => (c < " " && !"\t\n\f\r".includes(c)) || c === "\ufffd" || /\p{Cs}/u.test(c))).toBe(true);
        } else if (out instanceof WebgateError) {
          expect(out.code).toBe("no_readable_content");
          expect(["empty_body", "no_text", "js_required"]).toContain(out.details.reason);
        } else {
          expect(hasReadableText(out)).toBe(true);
        }
      }),
      { numRuns: 400 },
    );
  });
});
