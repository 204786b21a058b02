import { Parser } from "htmlparser2";
import { decodeBody } from "./decode";
import { htmlToMarkdown } from "./html-to-markdown";
import { neutralizeBoundaryMarkers } from "./neutralize";
import { looksLikeHtmlDocument, markdownTitle } from "./origin-markdown";

export interface RenderInput {
  body: Uint8Array;
  /** The response's Content-Type header, if any. */
  contentType: string | undefined;
  /** The URL the body came from after redirects: base for relative links. */
  finalUrl: string;
  /** Extract the main content of HTML pages (see htmlToMarkdown). */
  mainContent: boolean;
}

/** What /fetch stores as a snapshot. */
export interface RenderedDocument {
  /** Markdown for HTML; the decoded text for other kinds. Boundary markers neutralized. */
  content: string;
  /** `<title>` of an HTML page, the first `<title>` of an XML document (RSS/Atom), else "". */
  title: string;
  /** WHATWG name of the encoding used. */
  charset: string;
  /** The media type used (sniffed when the response gave none). */
  contentType: string;
  /** Which HTML extractor ran, `origin-markdown` for Markdown the site served, `pdf`; null for other bodies. */
  extractor: "readability" | "full" | "pdf" | "origin-markdown" | null;
}

/**
 * The content pipeline of /fetch: decode the body (decodeBody), convert HTML to Markdown
 * (htmlToMarkdown), pass other text kinds through. Pure: no I/O.
 *
 * @throws WebgateError `unsupported_content_type`, `decode_failed` (from decodeBody).
 */
export function renderDocument(input: RenderInput): RenderedDocument {
  const decoded = decodeBody(input.body, input.contentType);
  // A body labelled Markdown that is an HTML document is converted as the HTML it is.
  const disguisedHtml = decoded.mediaType === "text/markdown" && looksLikeHtmlDocument(decoded.text);
  if (decoded.kind === "html" || disguisedHtml) {
    const html = htmlToMarkdown(decoded.text, { baseUrl: input.finalUrl, mainContent: input.mainContent });
    return { content: html.markdown, title: html.title, charset: decoded.charset, contentType: disguisedHtml ? "text/html" : decoded.mediaType, extractor: html.extractor };
  }
  if (decoded.mediaType === "text/markdown") {
    // The site's own Markdown is the content as served; only boundary markers are neutralized.
    return {
      content: neutralizeBoundaryMarkers(decoded.text),
      title: neutralizeBoundaryMarkers(markdownTitle(decoded.text)),
      charset: decoded.charset,
      contentType: decoded.mediaType,
      extractor: "origin-markdown",
    };
  }
  return {
    content: neutralizeBoundaryMarkers(decoded.text),
    title: decoded.kind === "xml" ? neutralizeBoundaryMarkers(firstXmlTitle(decoded.text)) : "",
    charset: decoded.charset,
    contentType: decoded.mediaType,
    extractor: null,
  };
}

/** Text of the first `<title>` element (any namespace prefix) of an XML document, collapsed. */
function firstXmlTitle(xml: string): string {
  let depth = 0;
  let text = "";
  let done = false;
  const parser = new Parser(
    {
      onopentag(name) {
        if (done) return;
        if (depth > 0) depth++;
        else if (name === "title" || name.endsWith(":title")) depth = 1;
      },
      ontext(chunk) {
        if (depth > 0 && !done) text += chunk;
      },
      onclosetag() {
        if (depth > 0 && --depth === 0) {
          done = true;
          parser.pause();
        }
      },
    },
    // CDATA text arrives through ontext, literally, in xmlMode.
    { xmlMode: true, decodeEntities: true, recognizeCDATA: true },
  );
  parser.end(xml);
  return text.replace(/\s+/g, " ").trim();
}
