import { LinearParser } from "./linear-parser";
import { WebgateError } from "../errors";
import type { ConversionDeadline } from "./conversion-deadline";
import { classifyUnreadableHtml, type UnreadableReason } from "./app-shell";
import { decodeBody } from "./decode";
import { htmlToMarkdown, truncationNote, type MarkdownResult, type OutputFormat } from "./html-to-markdown";
import { neutralizeBoundaryMarkers } from "./neutralize";
import { markdownToText } from "./markdown-text";
import { looksLikeHtmlDocument, markdownTitle } from "./origin-markdown";
import type { Extractor } from "../snapshot/snapshot-meta";

export interface RenderInput {
  body: Uint8Array;
  /** The response's Content-Type header, if any. */
  contentType: string | undefined;
  /** The URL the body came from after redirects: base for relative links. */
  finalUrl: string;
  /** Extract the main content of HTML pages (see htmlToMarkdown). */
  mainContent: boolean;
  /** "markdown" (the default) or "text": how HTML is written (other kinds pass through as they are). */
  format?: OutputFormat;
  /** The conversion's time budget (the request's deadline less what the store write needs). */
  deadline?: ConversionDeadline;
}

/** What /fetch stores as a snapshot. */
export interface RenderedDocument {
  /** Markdown or plain text for HTML; the decoded text for other kinds. Boundary markers neutralized. */
  content: string;
  /** `<title>` of an HTML page, the first `<title>` of an XML document (RSS/Atom), else "". */
  title: string;
  /** WHATWG name of the encoding used. */
  charset: string;
  /** The media type used (sniffed when the response gave none). */
  contentType: string;
  /** Which HTML extractor ran, `origin-markdown` for Markdown the site served, `pdf`; null for other bodies. */
  extractor: Extractor | null;
  /** A limit cut or flattened the content (HTML: the depth limit; the content ends with a note saying so). */
  truncated?: boolean;
}

/**
 * The content pipeline of /fetch: decode the body (decodeBody), convert HTML to Markdown or plain
 * text (htmlToMarkdown), pass other text kinds through as they are (an empty text file stays
 * empty). Pure: no I/O.
 *
 * HTML never converts to an empty success: when the requested main-content mode yields no
 * readable text, the other mode is tried; when neither does, `no_readable_content`.
 *
 * @throws WebgateError `unsupported_content_type`, `decode_failed` (from decodeBody),
 *   `no_readable_content` (details.reason: see {@link UnreadableReason}), `content_too_complex`
 *   (`reason: "conversion_time_limit"`: `input.deadline` passed during the conversion).
 */
export function renderDocument(input: RenderInput): RenderedDocument {
  const decoded = decodeBody(input.body, input.contentType);
  const format = input.format ?? "markdown";
  // A body labelled Markdown that is an HTML document is converted as the HTML it is.
  const disguisedHtml = decoded.mediaType === "text/markdown" && looksLikeHtmlDocument(decoded.text);
  if (decoded.kind === "html" || disguisedHtml) {
    const html = convertReadableHtml(decoded.text, input.finalUrl, input.mainContent, format, input.deadline);
    return {
      // A limit that changed the content says so at its end, as a PDF's page limit does.
      content: html.flattened ? `${html.markdown}\n\n${truncationNote(format)}\n` : html.markdown,
      title: html.title,
      charset: decoded.charset,
      contentType: disguisedHtml ? "text/html" : decoded.mediaType,
      extractor: html.extractor,
      ...(html.flattened ? { truncated: true } : {}),
    };
  }
  if (decoded.mediaType === "text/markdown") {
    // The site's own Markdown is the content as served (format "text" takes its syntax off);
    // only boundary markers are neutralized.
    return {
      content: neutralizeBoundaryMarkers(format === "text" ? markdownToText(decoded.text) : decoded.text),
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

/** Readable text: at least one letter or digit (markup and punctuation alone are not). */
const READABLE = /[\p{L}\p{N}]/u;

export function hasReadableText(content: string): boolean {
  return READABLE.test(content);
}

function convertReadableHtml(html: string, baseUrl: string, mainContent: boolean, format: OutputFormat, deadline: ConversionDeadline | undefined): MarkdownResult {
  const first = htmlToMarkdown(html, { baseUrl, mainContent, format, deadline });
  if (hasReadableText(first.markdown)) return first;
  const other = htmlToMarkdown(html, { baseUrl, mainContent: !mainContent, format, deadline });
  if (hasReadableText(other.markdown)) return other;
  const reason = classifyUnreadableHtml(html);
  const hint = reason === "no_text" && format === "text" ? ' Format "markdown" keeps image links, if the page has images.' : "";
  throw new WebgateError("no_readable_content", UNREADABLE_MESSAGES[reason] + hint, { details: { reason } });
}

/** What the agent is told, per reason: what happened and what it can do instead. */
const UNREADABLE_MESSAGES: Record<UnreadableReason, string> = {
  empty_body:
    "The page is an empty HTML document: there is nothing to read. Try again later, or look for the same content at another URL (a search for its title, a feed, an archived copy).",
  js_required:
    "The page is an application shell: its content is written by JavaScript, which /fetch does not run. Look for the same content at a URL that serves it as HTML or data (an article permalink, an RSS/Atom feed, a public JSON API, a print or AMP version), or search for it.",
  no_text:
    "The page has no readable text (in either main_content mode): it holds only markup such as images, media or form controls. Look for the same content at another URL, or search for it.",
};

/** Text of the first `<title>` element (any namespace prefix) of an XML document, collapsed. */
function firstXmlTitle(xml: string): string {
  let depth = 0;
  let text = "";
  let done = false;
  const parser = new LinearParser(
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
