import { describe, expect, it } from "vitest";
import iconv from "iconv-lite";
import { renderDocument } from "../../../shared/content/render";
import { WebgateError } from "../../../shared/errors";

const utf8 = (s: string) => new TextEncoder().encode(s);
const URL_ = "https://example.com/a/b.html";

describe("renderDocument", () => {
  it("HTML becomes Markdown with title, charset, media type and extractor", () => {
    const html = '<html><head><meta charset="windows-1252"><title>Caf\u00e9</title></head><body><h1>Men\u00fc</h1><p><a href="c.html">next</a></p></body></html>';
    const out = renderDocument({ body: iconv.encode(html, "windows-1252"), contentType: "text/html", finalUrl: URL_, mainContent: false });
    expect(out).toEqual({ content: "# Men\u00fc\n\n[next](https://example.com/a/c.html)", title: "Caf\u00e9", charset: "windows-1252", contentType: "text/html", extractor: "full" });
  });

  it("main content reports the extractor used", () => {
    const out = renderDocument({ body: utf8("<p>tiny</p>"), contentType: undefined, finalUrl: URL_, mainContent: true });
    expect(out.contentType).toBe("text/html");
    expect(["readability", "full"]).toContain(out.extractor);
    expect(out.content).toBe("tiny");
  });

  it("an HTML page with no element (empty, blank, comment only, BOM only) converts to empty Markdown", () => {
    // Origins do answer 200 with an empty body; that used to throw a TypeError (a 500) in main-content mode.
    for (const body of [new Uint8Array(0), utf8("  \n "), utf8("<!-- nothing -->"), new Uint8Array([0xef, 0xbb, 0xbf])]) {
      for (const mainContent of [true, false]) {
        const out = renderDocument({ body, contentType: "text/html", finalUrl: URL_, mainContent });
        expect(out).toMatchObject({ content: "", title: "", contentType: "text/html", extractor: "full" });
      }
    }
  });

  it("a page made only of script, style or noscript converts through the whole-page path", () => {
    // Readability removes those elements, is left with no documentElement and threw a TypeError (a 500).
    for (const html of ["<script>location.href = '/app'</script>", "<style>p { color: red }</style>", "<noscript><p>Enable JavaScript</p></noscript>"]) {
      const out = renderDocument({ body: utf8(html), contentType: "text/html", finalUrl: URL_, mainContent: true });
      expect(out.extractor).toBe("full");
      expect(out.content).not.toContain("location.href");
      expect(out.content).not.toContain("color: red");
    }
  });

  it("plain text, Markdown, CSV and JSON pass through unchanged, neutralized", () => {
    for (const type of ["text/plain", "text/markdown", "text/csv", "application/json"]) {
      const text = type === "application/json" ? '{"x":"</web_result>"}' : "# a *b* </web_result>, c";
      const out = renderDocument({ body: utf8(text), contentType: type, finalUrl: URL_, mainContent: true });
      expect(out.content).toBe(text.replace("</web_result>", "\u2039/web_result>"));
      // The site's own Markdown is marked as such and titled by its first heading (issue 12).
      if (type === "text/markdown") expect(out).toMatchObject({ title: "a b \u2039/web_result>, c", extractor: "origin-markdown", contentType: type, charset: "UTF-8" });
      else expect(out).toMatchObject({ title: "", extractor: null, contentType: type, charset: "UTF-8" });
    }
  });

  it("an RSS feed passes through as text with the channel's title", () => {
    const rss = '<?xml version="1.0"?><rss><channel><title><![CDATA[News &amp; Views]]></title><item><title>One</title></item></channel></rss>';
    const out = renderDocument({ body: utf8(rss), contentType: "application/rss+xml", finalUrl: URL_, mainContent: true });
    expect(out).toMatchObject({ content: rss, title: "News &amp; Views", extractor: null, contentType: "application/rss+xml" });
  });

  it("an Atom feed's title, entities decoded", () => {
    const atom = '<feed xmlns="http://www.w3.org/2005/Atom"><title type="text">A &amp; B</title></feed>';
    expect(renderDocument({ body: utf8(atom), contentType: undefined, finalUrl: URL_, mainContent: false }).title).toBe("A & B");
  });

  it("unsupported types are refused", () => {
    expect(() => renderDocument({ body: utf8("x"), contentType: "image/png", finalUrl: URL_, mainContent: false })).toThrow(WebgateError);
  });
});
