/**
 * Where a limit changes the content, the answer says so: HTML nested deeper than MAX_DEPTH is
 * flattened below that depth (its text kept), reported as `truncated` with a closing note, in
 * both formats and both main_content modes; a page within the limit is not.
 */
import { describe, expect, it } from "vitest";
import { MAX_DEPTH } from "../../../../shared/content/light-dom";
import { renderDocument } from "../../../../shared/content/render";

const utf8 = (s: string) => new TextEncoder().encode(s);
const URL_ = "https://example.com/deep.html";

/** `depth` nested elements of `tag` around a paragraph, inside an article with enough text to be the main content. */
function nestedPage(depth: number, tag = "div"): string {
  const intro = "<p>The introduction of the article, long enough to be read as its main content by any extractor at all.</p>".repeat(4);
  return `<html><head><title>Deep</title></head><body><nav><a href="/">Home</a></nav><article><h1>Deep</h1>${intro}${`<${tag}>`.repeat(depth)}<p>The deepest sentence of the article, which is a long paragraph of real prose that any extractor keeps as content.</p>${`</${tag}>`.repeat(depth)}<p>After the nesting.</p></article></body></html>`;
}

describe("truncated: the depth limit", () => {
  it.each([
    ["markdown", "<!-- truncated: elements nested deeper than 400 levels were flattened; their text is kept, their structure is not -->"],
    ["text", "[truncated: elements nested deeper than 400 levels were flattened; their text is kept, their structure is not]"],
  ] as const)("nesting past the limit is flattened, its text kept, and %s says so at its end", (format, note) => {
    for (const mainContent of [true, false]) {
      const out = renderDocument({ body: utf8(nestedPage(MAX_DEPTH + 100)), contentType: "text/html", finalUrl: URL_, mainContent, format });
      expect(out.truncated).toBe(true);
      expect(out.content).toContain("The deepest sentence of the article");
      expect(out.content).toContain("After the nesting.");
      expect(out.content.endsWith(`\n\n${note}\n`)).toBe(true);
    }
  });

  it("nesting within the limit is not truncated", () => {
    for (const mainContent of [true, false]) {
      const out = renderDocument({ body: utf8(nestedPage(MAX_DEPTH - 20)), contentType: "text/html", finalUrl: URL_, mainContent });
      expect(out.truncated ?? false).toBe(false);
      expect(out.content).not.toContain("truncated");
      expect(out.content).toContain("The deepest sentence of the article");
    }
  });

  it("deep nesting outside the extracted article does not mark the article truncated", () => {
    const deepAside = `<div class="comments">${"<div>".repeat(MAX_DEPTH + 50)}comment${"</div>".repeat(MAX_DEPTH + 50)}</div>`;
    const page = nestedPage(3).replace("</article>", `</article>${deepAside}`);
    const main = renderDocument({ body: utf8(page), contentType: "text/html", finalUrl: URL_, mainContent: true });
    expect(main.extractor).toBe("readability");
    expect(main.content).not.toContain("comment");
    expect(main.truncated ?? false).toBe(false);
    const full = renderDocument({ body: utf8(page), contentType: "text/html", finalUrl: URL_, mainContent: false });
    expect(full.truncated).toBe(true);
  });

  it("non-HTML content is never truncated by it", () => {
    const out = renderDocument({ body: utf8("<div>".repeat(1000)), contentType: "text/plain", finalUrl: URL_, mainContent: true });
    expect(out.truncated ?? false).toBe(false);
  });
});
