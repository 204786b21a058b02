/**
 * Normalization of provider results into the /search schema (pure core): plain text, http(s)
 * URLs only, bounded lengths, boundary markers neutralized, deduplicated, at most N.
 */
import { Parser } from "htmlparser2";
import { neutralizeBoundaryMarkers } from "../content/neutralize";
import { passesDomainFilter, type DomainFilter } from "./domain-filter";
import type { RawResult } from "./provider";
import type { SearchResult } from "./schema";

export const SNIPPET_MAX_CHARS = 500;
export const TITLE_MAX_CHARS = 300;
export const AGE_MAX_CHARS = 100;

// Tags that sit inside a word ("<strong>Rust</strong>'s") must not become a space; every other
// tag (br, p, li, div…) separates words.
const INLINE_TAGS = new Set(["a", "abbr", "b", "bdi", "bdo", "cite", "code", "em", "i", "kbd", "mark", "q", "s", "small", "span", "strong", "sub", "sup", "u", "wbr"]);
const HIDDEN_TAGS = new Set(["script", "style", "template", "noscript"]);

/**
 * Strips HTML tags and decodes entities (htmlparser2's decoder, the WHATWG entity table), drops
 * script/style content, collapses whitespace.
 */
export function htmlToPlainText(html: string): string {
  const parts: string[] = [];
  let hidden = 0;
  const parser = new Parser(
    {
      onopentag(name) {
        if (HIDDEN_TAGS.has(name)) hidden += 1;
        if (!INLINE_TAGS.has(name)) parts.push(" ");
      },
      onclosetag(name) {
        if (HIDDEN_TAGS.has(name) && hidden > 0) hidden -= 1;
        if (!INLINE_TAGS.has(name)) parts.push(" ");
      },
      ontext(text) {
        if (hidden === 0) parts.push(text);
      },
    },
    { decodeEntities: true },
  );
  parser.write(html);
  parser.end();
  return parts.join("").replace(/\s+/gu, " ").trim();
}

/**
 * Cuts `text` to at most `max` UTF-16 units on a code-point boundary (never half a surrogate
 * pair), ending with "…" when cut.
 */
export function truncateText(text: string, max: number): string {
  if (text.length <= max) return text;
  let out = "";
  for (const codePoint of text) {
    if (out.length + codePoint.length > max - 1) break;
    out += codePoint;
  }
  return `${out.trimEnd()}…`;
}

/**
 * The key two URLs share when they name the same result: scheme, lower-case host, port only
 * when not the default (the WHATWG parser does both), path without trailing slashes, query; no
 * fragment.
 */
export function dedupeKey(url: URL): string {
  const path = url.pathname.replace(/\/+$/u, "");
  return `${url.protocol}//${url.host}${path}${url.search}`;
}

function parseHttpUrl(raw: string): URL | undefined {
  try {
    const url = new URL(raw.trim());
    return url.protocol === "http:" || url.protocol === "https:" ? url : undefined;
  } catch {
    return undefined;
  }
}

function cleanField(raw: string, max: number): string {
  // Neutralize after decoding (an encoded "&lt;web_result" becomes a marker only once decoded)
  // and before cutting (the neutralized form may be longer than the original).
  return truncateText(neutralizeBoundaryMarkers(htmlToPlainText(raw)), max);
}

/**
 * Turns raw provider results into at most `maxResults` {@link SearchResult}s, in the
 * provider's order: non-http(s) and unparsable URLs dropped, duplicates (by {@link dedupeKey})
 * dropped after their first occurrence, and results on hosts that `filter` refuses dropped
 * (whatever the provider did with the filter, none passes through here).
 */
export function normalizeResults(raw: readonly RawResult[], maxResults: number, filter?: DomainFilter): SearchResult[] {
  const seen = new Set<string>();
  const results: SearchResult[] = [];
  for (const item of raw) {
    if (results.length >= maxResults) break;
    const url = parseHttpUrl(item.url);
    if (url === undefined) continue;
    if (!passesDomainFilter(url.hostname, filter)) continue;
    const key = dedupeKey(url);
    if (seen.has(key)) continue;
    seen.add(key);
    const title = cleanField(item.title, TITLE_MAX_CHARS);
    const age = item.age === undefined ? "" : cleanField(item.age, AGE_MAX_CHARS);
    results.push({
      title: title === "" ? url.href : title,
      url: url.href,
      snippet: cleanField(item.snippet, SNIPPET_MAX_CHARS),
      ...(age === "" ? {} : { age }),
    });
  }
  return results;
}
