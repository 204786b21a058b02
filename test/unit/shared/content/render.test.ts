import { describe, expect, it } from "vitest";
import iconv from "iconv-lite";
import { renderDocument } from "../../../../shared/content/render";
import { WebgateError } from "../../../../shared/errors";

const utf8 = (s: string) => new TextEncoder().encode(s);
const URL_ = "https://example.com/a/b.html";

function unreadable(run: () => unknown): WebgateError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(WebgateError);
    expect((error as WebgateError).code).toBe("no_readable_content");
    return error as WebgateError;
  }
  throw new Error("expected no_readable_content");
}

describe("renderDocument", () => {
  it("HTML becomes Markdown with title, charset, media type and extractor", () => {
    const html = '<html><head><meta charset="windows-1252"><title>Caf\u00e9</title></head><body><h1>Men\u00fc</h1><p><a href="c.html">next</a></p></body></html>';
    const out = renderDocument({ body: iconv.encode(html, "windows-1252"), contentType: "text/html", finalUrl: URL_, mainContent: false });
    expect(out).toEqual({ content: "# Men\u00fc\n\n[next](https://example.com/a/c.html)", title: "Caf\u00e9", charset: "windows-1252", contentType: "text/html", extractor: "full" });
  });

  it("drops soft hyphens (U+00AD, &shy;) from the text, the title and packed table cells, in both modes and formats", () => {
    const sentence = "Im Mit&shy;tel&shy;al&shy;ter war der Wein\u00ADbau hier schon bekannt, und die Winzer schlossen sich zusammen.";
    const rows = Array.from({ length: 4 }, (_, i) => `<tr><td>Lager&shy;zeit ${i}</td><td>${i + 1} Mo&shy;nate</td></tr>`).join("");
    // Literal soft hyphens in plain cells: the parse takes such rows straight from the input (its table fast path), not through its text events.
    const literalRows = Array.from({ length: 4 }, (_, i) => `<tr><td>Fass\u00ADlager ${i}</td><td>\u00AD</td></tr>`).join("");
    const html = `<html><head><title>Wein&shy;bau</title></head><body><article><h1>Wein&shy;bau</h1>${`<p>${sentence} ${sentence}</p>`.repeat(4)}<table>${rows}</table><table>${literalRows}</table></article></body></html>`;
    for (const mainContent of [true, false]) {
      for (const format of ["markdown", "text"] as const) {
        const out = renderDocument({ body: utf8(html), contentType: "text/html", finalUrl: URL_, mainContent, format });
        expect(out.content, `${mainContent} ${format}`).not.toContain("\u00AD");
        expect(out.content).toContain("Im Mittelalter war der Weinbau hier");
        expect(out.content).toContain("Lagerzeit 3");
        expect(out.content).toContain("4 Monate");
        expect(out.content).toContain("Fasslager 3");
        expect(out.title).toBe("Weinbau");
      }
    }
  });

  it("main content reports the extractor used", () => {
    const out = renderDocument({ body: utf8("<p>tiny</p>"), contentType: undefined, finalUrl: URL_, mainContent: true });
    expect(out.contentType).toBe("text/html");
    expect(["readability", "full"]).toContain(out.extractor);
    expect(out.content).toBe("tiny");
  });

  it("an HTML page with an empty body (empty, blank, comment only, BOM only, bare skeleton) is no_readable_content, reason empty_body", () => {
    // Origins do answer 200 with an empty body; that used to be an empty 200 (and before that a 500).
    const skeleton = utf8("<!doctype html><html><head><title></title><style>p{}</style></head><body>\n</body></html>");
    for (const body of [new Uint8Array(0), utf8("  \n "), utf8("<!-- nothing -->"), new Uint8Array([0xef, 0xbb, 0xbf]), skeleton]) {
      for (const mainContent of [true, false]) {
        for (const format of ["markdown", "text"] as const) {
          const error = unreadable(() => renderDocument({ body, contentType: "text/html", finalUrl: URL_, mainContent, format }));
          expect(error.details).toEqual({ reason: "empty_body" });
        }
      }
    }
  });

  it("a page made only of scripts or a <noscript> asking for JavaScript is no_readable_content, reason js_required", () => {
    // Readability removes those elements, is left with no documentElement and threw a TypeError (a 500).
    for (const html of ["<script>location.href = '/app'</script>", "<noscript><p>Enable JavaScript</p></noscript>", '<div id="root"></div><script src="/main.3f9a.js"></script>']) {
      for (const mainContent of [true, false]) {
        const error = unreadable(() => renderDocument({ body: utf8(html), contentType: "text/html", finalUrl: URL_, mainContent }));
        expect(error.details).toEqual({ reason: "js_required" });
        expect(error.message).toContain("JavaScript");
        expect(error.message).not.toContain("location.href");
      }
    }
  });

  it("markup without any text (an empty table, images in text format, a rule) is no_readable_content, reason no_text", () => {
    for (const [html, format] of [["<table><tr><td> </td></tr></table><hr>", "markdown"], ['<p><img src="/a.png" alt="a photo"></p>', "text"]] as const) {
      const error = unreadable(() => renderDocument({ body: utf8(html), contentType: "text/html", finalUrl: URL_, mainContent: true, format }));
      expect(error.details).toEqual({ reason: "no_text" });
      expect(error.status).toBe(422);
      expect(error.retryable).toBe(false);
    }
    // The same images in Markdown are image links: content an agent can use.
    expect(renderDocument({ body: utf8('<p><img src="/a.png" alt="a photo"></p>'), contentType: "text/html", finalUrl: URL_, mainContent: true }).content).toBe(
      "![a photo](https://example.com/a.png)",
    );
  });

  it("tries the other main-content mode before giving up", () => {
    // The article path keeps nothing readable here only if the whole page has nothing either:
    // the whole-page fallback is what answers for a page whose text Readability drops.
    const out = renderDocument({ body: utf8("<div><p>x</p></div>"), contentType: "text/html", finalUrl: URL_, mainContent: true, format: "text" });
    expect(out.content).toBe("x");
  });

  it("an empty text or JSON body stays an empty 200 (only HTML must have readable text)", () => {
    for (const type of ["text/plain", "application/json", "text/markdown"]) {
      expect(renderDocument({ body: new Uint8Array(0), contentType: type, finalUrl: URL_, mainContent: true, format: "text" }).content).toBe("");
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
