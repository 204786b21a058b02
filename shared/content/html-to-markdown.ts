import type TurndownService from "turndown";
import { collapseWhitespace, collapseWhitespaceAndMarkProseFacts } from "./collapse-whitespace";
import { type ConversionDeadline, WorkMeter } from "./conversion-deadline";
import { MAIN_CONTENT_PRUNED, extractMainContent } from "./extract/main-content";
import { preferStructuredBody } from "./extract/structured-body";
import { type LightDocument, type LightElement, MAX_DEPTH, parseLightDocument } from "./light-dom";
import { neutralizeBoundaryMarkers, unescapeNeutralizedMarkers } from "./neutralize";
import { lightTreeToText } from "./plain-text";
import { conversionService, treeWalkOf } from "./turndown-setup";
import type { Extractor, OutputFormat } from "../snapshot/snapshot-meta";

/** The output formats of /fetch for HTML: Markdown, or plain text without any Markdown syntax. */
export type { OutputFormat };

/** Result of converting one HTML document. */
export interface MarkdownResult {
  /** The converted content: Markdown, or plain text when `format` is "text". */
  markdown: string;
  /** The `<title>` text, entities decoded, whitespace collapsed, boundary markers neutralized. */
  title: string;
  /** "readability" when an article was extracted (the name predates webgate's own extractor), "full" for the whole page. */
  extractor: Extract<Extractor, "readability" | "full">;
  /**
   * True when the depth limit changed what was converted: elements nested deeper than
   * {@link MAX_DEPTH} were flattened into their ancestor at that depth (their text kept, their
   * structure lost). The caller reports it as `truncated`.
   */
  flattened: boolean;
}

export interface HtmlToMarkdownOptions {
  /** The final URL of the response, against which relative links resolve (with `<base href>`). */
  baseUrl: string;
  /** Extract the main content (falls back to the whole page, see below). */
  mainContent: boolean;
  /** "markdown" (the default) or "text" (see lightTreeToText). */
  format?: OutputFormat;
  /**
   * The conversion's time budget: checked between the parse, the extraction and the
   * serialization, and at checkpoints in their loops (conversion-deadline.ts).
   */
  deadline?: ConversionDeadline;
}

/**
 * Converts an HTML document to Markdown.
 *
 * - `mainContent: false`: one htmlparser2 pass builds a pruned light tree (see light-dom.ts) that
 *   turndown walks directly.
 * - `mainContent: true`: the same parse keeps page furniture for extractMainContent to judge,
 *   which returns the article (or, when no article has enough text, the page cleaned of
 *   boilerplate, `extractor: "full"`); turndown converts it. A page without text the extractor
 *   keeps falls back to the whole-page conversion.
 *
 * Links and images resolve against `<base href>` (itself resolved against `baseUrl`; a base that
 * does not parse or is not http(s) is ignored) or else `baseUrl`. Markdown and title pass through
 * {@link neutralizeBoundaryMarkers}.
 *
 * @throws WebgateError `content_too_complex` (`reason: "conversion_time_limit"`) when
 *   `options.deadline` passes before the conversion is done.
 */
export function htmlToMarkdown(html: string, options: HtmlToMarkdownOptions): MarkdownResult {
  const format = options.format ?? "markdown";
  const meter = new WorkMeter(options.deadline);
  if (options.mainContent) {
    const article = convertMainContent(html, options.baseUrl, format, meter);
    if (article !== null) return article;
  }
  return convertFullPage(html, options.baseUrl, format, meter);
}

/** The whole-page conversion. */
function convertFullPage(html: string, baseUrl: string, format: OutputFormat, meter: WorkMeter): MarkdownResult {
  meter.check();
  // Markdown is written by the prose walk and the table rules, which read packed tables (light-dom.ts).
  const doc = parseLightDocument(html, { meter, packTables: format === "markdown" });
  meter.check();
  const markdown = serialize(doc.body, effectiveBase(baseUrl, doc.baseHref), format, meter);
  meter.check();
  return { markdown, title: cleanTitle(doc.title), extractor: "full", flattened: flattenedWithin(doc, doc.body) };
}

/**
 * Whether content flattened by the depth limit is part of `root` (the body, or the extracted
 * article). Each host is at depth {@link MAX_DEPTH}, so each walk up is at most that long.
 */
function flattenedWithin(doc: LightDocument, root: LightElement): boolean {
  return doc.flattenedInto.some((host) => {
    for (let n: LightElement | null = host; n !== null; n = n.parentNode) if (n === root) return true;
    return false;
  });
}

/** The note that ends content cut or flattened by a limit, as PDFs end theirs (pdf-layout.ts). */
export function truncationNote(format: OutputFormat): string {
  const note = `elements nested deeper than ${MAX_DEPTH} levels were flattened; their text is kept, their structure is not`;
  return format === "markdown" ? `<!-- truncated: ${note} -->` : `[truncated: ${note}]`;
}

/**
 * Writes a light tree in the requested format: turndown with webgate's rules for Markdown, or
 * {@link lightTreeToText}. Boundary markers are neutralized in both.
 */
function serialize(root: LightElement, base: string | null, format: OutputFormat, meter: WorkMeter): string {
  if (format === "text") return neutralizeBoundaryMarkers(lightTreeToText(root, meter));
  return finish(turndownSingleUse(conversionService(base, meter), root));
}

/**
 * The main-content conversion, or null when the page has no text the extractor keeps (the caller
 * then converts the whole page). One htmlparser2 pass builds the light tree, keeping page
 * furniture (`nav`, `aside`, `footer`) for the extractor to judge; extractMainContent picks and
 * cleans the article (docs/content.md, "Main content"); turndown converts it.
 */
function convertMainContent(html: string, baseUrl: string, format: OutputFormat, meter: WorkMeter): MarkdownResult | null {
  meter.check();
  // Plain tables stay packed through the extraction, which measures them as leaves and builds
  // them only where it judges their rows and cells (extract/table-judge.ts); the Markdown writer reads them.
  const doc = parseLightDocument(html, { pruned: MAIN_CONTENT_PRUNED, meter, structuredData: true, packTables: format === "markdown" });
  const title = cleanTitle(doc.title);
  meter.check();
  const extracted = extractMainContent(doc.body, { title, meter, elements: doc.elements });
  meter.check();
  // A page whose HTML lacks the article it publishes as JSON-LD (structured-body.ts).
  const element = preferStructuredBody(extracted.element, doc.structuredData, title, meter);
  const reason = element === extracted.element ? extracted.reason : "article";
  if (element === null) return null;
  const markdown = serialize(element, effectiveBase(baseUrl, doc.baseHref), format, meter);
  meter.check();
  return { markdown, title, extractor: reason === "page_cleaned" ? "full" : "readability", flattened: flattenedWithin(doc, element) };
}

/**
 * `service.turndown(root)` for a tree built for this one conversion and dropped afterwards.
 * turndown deep-copies the node it is given, collapses the copy's whitespace and walks it; here
 * the whitespace is collapsed in place by collapse-whitespace.ts (the same changes to the tree,
 * faster) and, for a service built by turndown-setup.ts, the tree is converted by prose-walk.ts's
 * walk (turndown's walk with cheaper bookkeeping). For any other service turndown's own walk runs,
 * without the copy: turndown's own collapsing returns at once on a root that reports no first
 * child, which the root does for that one look.
 * Speed-only changes: tests compare the Markdown with `service.turndown(root)`, which copies and
 * collapses as turndown does.
 */
export function turndownSingleUse(service: TurndownService, root: LightElement): string {
  const ownCollapse = !service.options.preformattedCode;
  const walk = treeWalkOf(service);
  if (walk !== null) {
    // The facts are marked in the same walk, after which the tree does not change: the walk trusts them (prose-walk.ts).
    collapseWhitespaceAndMarkProseFacts(root);
    return walk(root);
  }
  Object.defineProperty(root, "cloneNode", {
    configurable: true,
    value: () => {
      if (ownCollapse) {
        collapseWhitespace(root);
        hideFirstChildOnce(root);
      }
      return root;
    },
  });
  return service.turndown(root);
}

/**
 * Makes the next read of `root.firstChild` answer null (turndown's collapseWhitespace starts with
 * `if (!element.firstChild …) return`), and every read after it the real first child again: the
 * own property that hides it deletes itself, so later reads go to LightElement's getter, which
 * follows the element's children as they are then (a copy of the first child taken here would
 * not). Nothing reads it between turndown's copy and that check.
 */
function hideFirstChildOnce(root: LightElement): void {
  Object.defineProperty(root, "firstChild", {
    configurable: true,
    enumerable: false,
    get: () => {
      delete (root as { firstChild?: unknown }).firstChild;
      return null;
    },
  });
}

/** `<base href>` resolved against the final URL when it parses to http(s); else the final URL. */
export function effectiveBase(baseUrl: string, baseHref: string | null): string | null {
  let fallback: string | null = null;
  try {
    fallback = new URL(baseUrl).href;
  } catch {
    fallback = null;
  }
  if (baseHref === null || baseHref.trim() === "") return fallback;
  try {
    const resolved = fallback === null ? new URL(baseHref.trim()) : new URL(baseHref.trim(), fallback);
    return resolved.protocol === "http:" || resolved.protocol === "https:" ? resolved.href : fallback;
  } catch {
    return fallback;
  }
}


function cleanTitle(raw: string): string {
  return neutralizeBoundaryMarkers(raw.replace(/\s+/g, " ").trim());
}

/** Neutralizes boundary markers in Markdown, then drops turndown's `\\_` inside them (`‹/web_result>`). */
function finish(markdown: string): string {
  return unescapeNeutralizedMarkers(neutralizeBoundaryMarkers(markdown));
}
