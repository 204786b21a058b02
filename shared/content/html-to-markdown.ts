import { Readability } from "@mozilla/readability";
import { parseHTML } from "linkedom";
import type TurndownService from "turndown";
import { LightElement, LightText, MAX_DEPTH, PRUNED_TAGS, parseLightDocument } from "./light-dom";
import { neutralizeBoundaryMarkers, unescapeNeutralizedMarkers } from "./neutralize";
import { lightTreeToText } from "./plain-text";
import { createTurndownService } from "./turndown-setup";

/** The output formats of /fetch for HTML: Markdown, or plain text without any Markdown syntax. */
export type OutputFormat = "markdown" | "text";

/** Result of converting one HTML document. */
export interface MarkdownResult {
  /** The converted content: Markdown, or plain text when `format` is "text". */
  markdown: string;
  /** The `<title>` text, entities decoded, whitespace collapsed, boundary markers neutralized. */
  title: string;
  /** "readability" when the main-content extraction was used, "full" for the whole page. */
  extractor: "readability" | "full";
}

export interface HtmlToMarkdownOptions {
  /** The final URL of the response, against which relative links resolve (with `<base href>`). */
  baseUrl: string;
  /** Extract the main content with Readability (falls back to the whole page, see below). */
  mainContent: boolean;
  /** "markdown" (the default) or "text" (see lightTreeToText). */
  format?: OutputFormat;
}

/**
 * Readability's article must hold at least this share of the page's text (non-space characters,
 * after pruning) to be used; below it, the extraction most likely picked a fragment (a teaser, a
 * caption, one comment) and the whole page is converted instead. News and blog pages with
 * comment threads and link lists commonly keep only 15–25% of their text in the article, so the
 * bar sits well below that.
 */
export const MIN_ARTICLE_SHARE = 0.1;

/** Pruned in the linkedom DOM: all of PRUNED_TAGS but `<title>`/`<base>`, which are read first. */
const DOM_PRUNED = new Set([...PRUNED_TAGS].filter((t) => t !== "title" && t !== "base"));

/**
 * Converts an HTML document to Markdown.
 *
 * - `mainContent: false`: one htmlparser2 pass builds a pruned light tree (see light-dom.ts) that
 *   turndown walks directly.
 * - `mainContent: true`: linkedom builds a DOM once; the pruned elements are removed, Mozilla
 *   Readability extracts the article, and turndown converts the article element itself (no
 *   serialise-and-reparse). No article, or one under {@link MIN_ARTICLE_SHARE} of the page's
 *   text, falls back to the whole page (`extractor: "full"`).
 *
 * Links and images resolve against `<base href>` (itself resolved against `baseUrl`; a base that
 * does not parse or is not http(s) is ignored) or else `baseUrl`. Markdown and title pass through
 * {@link neutralizeBoundaryMarkers}.
 */
export function htmlToMarkdown(html: string, options: HtmlToMarkdownOptions): MarkdownResult {
  const format = options.format ?? "markdown";
  if (options.mainContent) {
    const article = convertMainContent(html, options.baseUrl, false, format);
    if (article !== null) return article;
  }
  return convertFullPage(html, options.baseUrl, false, format);
}

/**
 * The whole-page conversion. `copyTree` makes turndown deep-copy the tree as it does by default
 * (only the test that proves the copy unnecessary sets it).
 */
export function convertFullPage(html: string, baseUrl: string, copyTree = false, format: OutputFormat = "markdown"): MarkdownResult {
  const doc = parseLightDocument(html);
  return { markdown: serialize(doc.body, effectiveBase(baseUrl, doc.baseHref), format, copyTree), title: cleanTitle(doc.title), extractor: "full" };
}

/**
 * Writes a light tree in the requested format: turndown with webgate's rules for Markdown, or
 * {@link lightTreeToText}. Boundary markers are neutralized in both.
 */
function serialize(root: LightElement, base: string | null, format: OutputFormat, copyTree = false): string {
  if (format === "text") return neutralizeBoundaryMarkers(lightTreeToText(root));
  return finish(turndownSingleUse(createTurndownService(base), root, copyTree));
}

/**
 * The part of linkedom's DOM this module reads. The project compiles without the DOM lib, so
 * linkedom's and Readability's DOM types are narrowed to this surface here.
 */
interface DomElement {
  children: ArrayLike<DomElement>;
  firstElementChild: DomElement | null;
  nextElementSibling: DomElement | null;
  parentNode: DomElement | null;
  nodeType: number;
  localName: string;
  childNodes: ArrayLike<DomElement | DomText>;
  attributes: ArrayLike<{ name: string; value: string }>;
  textContent: string | null;
  className: string;
  getAttribute(name: string): string | null;
  getAttributeNode(name: string): unknown;
  hasAttribute(name: string): boolean;
  remove(): void;
}

interface DomText {
  nodeType: number;
  data: string;
}

interface DomDocument {
  title: string | null;
  /** The top-level elements (one `<html>` for a whole page; several for a fragment). */
  children: ArrayLike<DomElement>;
  documentElement: DomElement | null;
  getElementsByTagName(name: string): ArrayLike<DomElement>;
  querySelector(selector: string): DomElement | null;
}

/** Linkedom's parse, typed with {@link DomDocument}. */
function parseDomDocument(html: string): DomDocument {
  return (parseHTML(html) as unknown as { document: DomDocument }).document;
}

/**
 * The Readability conversion, or null when it must fall back to the whole page. The article is
 * copied into a light tree (cached textContent, no event-target machinery) before turndown walks
 * it, and Readability runs with the faster helpers of {@link extractArticle}. `reference` finds
 * `<base href>` with a selector, runs the unmodified Readability and converts the linkedom article
 * directly instead (only the tests that prove both give the same Markdown set it).
 */
export function convertMainContent(html: string, baseUrl: string, reference = false, format: OutputFormat = "markdown"): MarkdownResult | null {
  const document = parseDomDocument(html);
  // An empty, blank or comment-only page has no element at all; linkedom's `title` getter then
  // throws (it destructures documentElement). The whole-page path handles such a page.
  if (document.documentElement === null) return null;
  const title = cleanTitle(document.title ?? "");
  const base = effectiveBase(baseUrl, reference ? (document.querySelector("base[href]")?.getAttribute("href") ?? null) : firstBaseHref(document));
  // Pruning before Readability both speeds it up (a smaller tree to score) and keeps navigation,
  // forms and asides from being chosen as the article. Readability's scoring walks ancestors and
  // is quadratic in nesting depth, and turndown recurses: a pathologically deep page goes to the
  // whole-page path, which flattens deep nesting.
  // Every top-level element: a page without <html> has several, and linkedom's documentElement
  // is only the first of them (e.g. a leading <title>), not the tree Readability will walk.
  const roots = Array.from(document.children);
  if (roots.length === 0 || roots.some((root) => pruneDomOrTooDeep(root, MAX_DEPTH))) return null;

  const pageText = countNonSpace(document.documentElement?.textContent ?? "");
  let content: DomElement | null;
  try {
    content = reference ? (new Readability<DomElement>(document, READABILITY_OPTIONS).parse()?.content ?? null) : extractArticle(document);
  } catch {
    // Readability first removes every script, style and noscript; on a page made only of those
    // it then reads document.body of a document with no element left, and linkedom throws. No
    // article, then: the whole-page path re-parses the HTML and handles such a page.
    return null;
  }
  if (content === null || pageText === 0) return null;
  if (countNonSpace(content.textContent ?? "") < MIN_ARTICLE_SHARE * pageText) return null;
  const markdown = reference ? finish(turndownSingleUse(createTurndownService(base), withTableRows(content))) : serialize(toLightTree(content), base, format);
  return { markdown, title, extractor: "readability" };
}

/**
 * turndown deep-copies the node it is given before collapsing whitespace. Our trees are built for
 * this one conversion and dropped afterwards, so the copy is skipped (a speed-only change: a test
 * checks the Markdown is identical with and without the copy).
 */
export function turndownSingleUse(service: TurndownService, root: LightElement | DomElement, copy = false): string {
  if (!copy) Object.defineProperty(root, "cloneNode", { value: () => root, configurable: true });
  return service.turndown(root);
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

/**
 * `document.querySelector("base[href]")?.getAttribute("href")`, without compiling a selector: the
 * first `<base>` in tree order with an `href` attribute, not inside a `<template>` (linkedom's
 * querySelector does not look into templates).
 */
function firstBaseHref(document: DomDocument): string | null {
  for (const base of Array.from(document.getElementsByTagName("base"))) {
    if (!base.hasAttribute("href")) continue;
    let inTemplate = false;
    for (let p = base.parentNode; p !== null && !inTemplate; p = p.parentNode) inTemplate = p.localName === "template";
    if (!inTemplate) return base.getAttribute("href");
  }
  return null;
}

/**
 * Readability's article element (Readability with the helpers of {@link createReadability}), or
 * null. With logging off, `parse()` still builds the log line "Grabbed: " + the article's
 * `innerHTML`, a serialisation of the whole article that nothing reads: the article's `innerHTML`
 * reads as "" from the moment `_grabArticle` returns it until `parse()` returns (nothing else in
 * between reads it; the fixture and corpus tests compare with the unmodified Readability).
 */
function extractArticle(document: DomDocument): DomElement | null {
  const reader = createReadability(document);
  const internals = reader as unknown as ReadabilityInternals;
  const grabArticle = internals._grabArticle;
  let article: DomElement | null = null;
  internals._grabArticle = function grab(page) {
    article = grabArticle.call(this, page);
    if (article !== null) Object.defineProperty(article, "innerHTML", { configurable: true, get: () => "" });
    return article;
  };
  try {
    return reader.parse()?.content ?? null;
  } finally {
    if (article !== null) delete (article as { innerHTML?: string }).innerHTML;
  }
}

/** Readability hands back the article element itself (turndown converts it without a re-parse). */
const READABILITY_OPTIONS = { serializer: (node: unknown) => node as DomElement };

/** The Readability internals {@link createReadability} replaces (@mozilla/readability 0.6). */
interface ReadabilityInternals {
  REGEXPS: { byline: RegExp };
  _getAllNodesWithTag: (node: DomElement, tagNames: string[]) => ArrayLike<DomElement>;
  _isValidByline: (this: ReadabilityInternals, node: DomElement, matchString: string) => boolean;
  _isProbablyVisible: (this: ReadabilityInternals, node: DomElement) => boolean;
  _grabArticle: (this: ReadabilityInternals, page?: DomElement | null) => DomElement | null;
}

/**
 * Readability over `document`, returning the article element itself. Speed only, same article
 * (the corpus test compares against the unmodified Readability): three helpers of Readability
 * 0.6 are replaced on this instance by code that returns the same values with less work on
 * linkedom.
 * - `_getAllNodesWithTag` runs `querySelectorAll("img,embed,…")` (thousands of calls per page, most
 *   on small subtrees), for which linkedom compiles the selector list with css-select every time;
 *   {@link elementsByTag} returns the same elements in the same order without a selector.
 * - `_isValidByline` reads the node's whole `textContent` for every node it is asked about, while
 *   the length only matters when the rel/itemprop/class test passes (rarely): it is read then.
 * - `_isProbablyVisible` reads `node.style`, for which linkedom builds a CSSStyleDeclaration proxy
 *   on every element; an element without a `style` attribute reads "" for every property, so the
 *   declaration is only built when the attribute exists.
 */
function createReadability(document: DomDocument): Readability<DomElement> {
  const reader = new Readability<DomElement>(document, READABILITY_OPTIONS);
  const internals = reader as unknown as ReadabilityInternals;
  const isProbablyVisible = internals._isProbablyVisible;
  internals._getAllNodesWithTag = elementsByTag;
  internals._isValidByline = function isValidByline(node, matchString) {
    const rel = node.getAttribute("rel");
    const itemprop = node.getAttribute("itemprop");
    if (!(rel === "author" || (itemprop !== null && itemprop.includes("author")) || this.REGEXPS.byline.test(matchString))) return false;
    const bylineLength = (node.textContent ?? "").trim().length;
    return bylineLength > 0 && bylineLength < 100;
  };
  internals._isProbablyVisible = function probablyVisible(node) {
    // linkedom's CSSStyleDeclaration reads the attribute through getAttributeNode("style").
    if (node.getAttributeNode("style") !== null) return isProbablyVisible.call(this, node);
    const className = node.className as unknown;
    return !node.hasAttribute("hidden") && (!node.hasAttribute("aria-hidden") || node.getAttribute("aria-hidden") !== "true" || (typeof className === "string" && className.includes("fallback-image")));
  };
  return reader;
}

/**
 * What linkedom's `root.querySelectorAll(tagNames.join(","))` returns: the descendants of `root`
 * (not `root` itself) whose tag name is one of `tagNames`, ASCII case-insensitively, in tree
 * order, each once, and, as linkedom does, nothing inside a `<template>`. `tagNames` are plain
 * tag names (no "*", no other selector syntax), which is all Readability passes.
 */
export function elementsByTag(root: DomElement, tagNames: string[]): DomElement[] {
  const wanted = new Set(tagNames.map((t) => t.toLowerCase()));
  const out: DomElement[] = [];
  // Pre-order walk along first-child / next-sibling links: tree order, no per-element arrays.
  let el = root.firstElementChild;
  while (el !== null) {
    const name = el.localName;
    if (wanted.has(name) || wanted.has(name.toLowerCase())) out.push(el);
    const child = name === "template" ? null : el.firstElementChild;
    if (child !== null) {
      el = child;
      continue;
    }
    while (el !== null && el !== root) {
      const next: DomElement | null = el.nextElementSibling;
      if (next !== null) {
        el = next;
        break;
      }
      el = el.parentNode;
    }
    if (el === root) break;
  }
  return out;
}

/**
 * Removes the pruned elements in one walk over the element tree (a CSS selector list in linkedom
 * matches every selector against every element, several times slower) and reports whether any
 * element lies deeper than `limit` (the walk then stops: the caller falls back).
 */
function pruneDomOrTooDeep(root: DomElement, limit: number): boolean {
  const stack: [DomElement, number][] = [[root, 0]];
  while (stack.length > 0) {
    const [el, depth] = stack.pop()!;
    if (depth > limit) return true;
    const children = Array.from(el.children);
    for (const child of children) {
      if (DOM_PRUNED.has(child.localName)) child.remove();
      else stack.push([child, depth + 1]);
    }
  }
  return false;
}

/**
 * linkedom has no HTMLTableElement.rows, without which the GFM plugin flattens every table; the
 * light tree has it. The reference path adds it so that the two differ only in speed.
 */
function withTableRows(root: DomElement): DomElement {
  const tables = (root as unknown as { querySelectorAll(s: string): Iterable<DomElement> }).querySelectorAll("table");
  for (const table of tables) {
    Object.defineProperty(table, "rows", {
      configurable: true,
      get: () => Array.from(table.children).flatMap((c) => (c.localName === "tr" ? [c] : ["thead", "tbody", "tfoot"].includes(c.localName) ? Array.from(c.children).filter((r) => r.localName === "tr") : [])),
    });
  }
  return root;
}

/** Copies a linkedom subtree (elements and text; comments dropped) into a light tree. */
function toLightTree(root: DomElement): LightElement {
  const copyAttributes = (el: DomElement) => {
    const attrs: Record<string, string> = {};
    for (let i = 0; i < el.attributes.length; i++) {
      const a = el.attributes[i]!;
      attrs[a.name] = a.value;
    }
    return attrs;
  };
  const top = new LightElement(root.localName, copyAttributes(root));
  const stack: [DomElement, LightElement][] = [[root, top]];
  while (stack.length > 0) {
    const [src, dst] = stack.pop()!;
    const nodes = src.childNodes;
    for (let i = 0; i < nodes.length; i++) {
      const node = nodes[i]!;
      if (node.nodeType === 3) dst.appendChild(new LightText((node as DomText).data));
      else if (node.nodeType === 1) {
        const el = node as DomElement;
        const copy = new LightElement(el.localName, copyAttributes(el));
        dst.appendChild(copy);
        stack.push([el, copy]);
      }
    }
  }
  return top;
}


function cleanTitle(raw: string): string {
  return neutralizeBoundaryMarkers(raw.replace(/\s+/g, " ").trim());
}

/** Neutralizes boundary markers in Markdown, then drops turndown's `\\_` inside them (`‹/web_result>`). */
function finish(markdown: string): string {
  return unescapeNeutralizedMarkers(neutralizeBoundaryMarkers(markdown));
}

function countNonSpace(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c > 0x20 && c !== 0xa0) n++;
  }
  return n;
}
