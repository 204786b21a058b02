/**
 * The text a model reads from the MCP tools (pure core). `structuredContent` carries the /fetch
 * and /search bodies unchanged; the text content frames them so that nothing a page controls can
 * pass itself off as the tool's own frame or instructions:
 *
 * - page content, titles and snippets have their `<web_result` / `</web_result` markers
 *   neutralized (shared/content/neutralize.ts) — already at conversion time, again here, as the
 *   neutralizer is idempotent;
 * - values inside the frame's attributes (url, title, type, snapshot) are cleaned first: control
 *   and line-break characters become spaces (a title cannot start a new line of frame), then the
 *   markers are neutralized, then `&`, `"`, `<` and `>` are escaped so a value cannot close its
 *   attribute or the tag;
 * - search titles, URLs and snippets are one line each (a snippet cannot fake a new result or the
 *   closing advice line).
 */
import { neutralizeBoundaryMarkers } from "../content/neutralize";
import type { ErrorCode } from "../errors";
import type { FetchResponse } from "../fetch/schema";
import type { SearchResponse } from "../search/schema";

/** The closing line of every web_search answer. */
export const SEARCH_ADVICE = "Read a page with web_fetch before you rely on it.";

// C0 and C1 controls, DEL, and the Unicode line/paragraph separators and bidi overrides (which can
// make a value display as something else).
// eslint-disable-next-line no-control-regex
const UNSAFE_CHARS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** One line of plain text: unsafe characters become spaces, runs of whitespace one space. */
export function toOneLine(text: string): string {
  return neutralizeBoundaryMarkers(text.replace(UNSAFE_CHARS, " ").replace(/\s+/g, " ").trim());
}

/** A value that is safe between the double quotes of a frame attribute. */
export function attributeValue(text: string): string {
  return toOneLine(text).replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/**
 * The framed page:
 * ```
 * <web_result url="…" title="…" type="text/html" snapshot="…">
 * [characters 0–30000 of 48211]
 * …content…
 * [More: call web_fetch again with start=30000 and snapshot_id="…"]
 * </web_result>
 * ```
 * The "More" line is there only while `next_start` is not null. `url` is the URL as requested
 * (normalized): paging with the snapshot id works with that URL.
 */
export function frameFetchResult(body: FetchResponse): string {
  const open =
    `<web_result url="${attributeValue(body.url)}" title="${attributeValue(body.title)}" ` +
    `type="${attributeValue(body.content_type)}" snapshot="${attributeValue(body.snapshot.id)}">`;
  const lines = [open, `[characters ${body.start}\u2013${body.end} of ${body.total_chars}]`, neutralizeBoundaryMarkers(body.content)];
  if (body.next_start !== null) {
    lines.push(`[More: call web_fetch again with start=${body.next_start} and snapshot_id="${attributeValue(body.snapshot.id)}"]`);
  }
  lines.push("</web_result>");
  return lines.join("\n");
}

/** One block per result (number, title, URL, age when known, snippet), then {@link SEARCH_ADVICE}. */
export function searchResultText(body: SearchResponse): string {
  const blocks = body.results.map((result, index) => {
    const lines = [`${index + 1}. ${toOneLine(result.title) || "(no title)"}`, `   URL: ${toOneLine(result.url)}`];
    if (result.age !== undefined && result.age.trim() !== "") lines.push(`   Age: ${toOneLine(result.age)}`);
    const snippet = toOneLine(result.snippet);
    if (snippet !== "") lines.push(`   ${snippet}`);
    return lines.join("\n");
  });
  const head = blocks.length === 0 ? `No results for "${toOneLine(body.query)}" (provider ${body.provider}).` : `Results from ${body.provider}:`;
  return [head, ...blocks, SEARCH_ADVICE].join("\n\n");
}

const POLICY_REFUSALS = new Set<ErrorCode>([
  "url_not_allowed",
  "host_not_allowed",
  "address_not_allowed",
  "url_looks_like_secret",
  "robots_disallowed",
  "query_looks_like_secret",
]);

/** What a model can do about an error, by code and retry hint. */
export function errorAdvice(code: ErrorCode, retryable: boolean): string {
  if (POLICY_REFUSALS.has(code)) return "This is a refusal by webgate's policy: retrying will not help; use another source.";
  if (code === "invalid_request") return "Fix the argument the message names and call again.";
  if (code === "snapshot_expired") return "Call web_fetch again without snapshot_id, from start=0, to read a new snapshot.";
  if (retryable) return "This may be temporary: retrying later can help.";
  return "Retrying the same call will not help.";
}

/** The text of a failed tool call: the code, the message and what to do. */
export function errorText(error: { code: ErrorCode; message: string; retryable: boolean }): string {
  return `Error ${error.code}: ${error.message} ${errorAdvice(error.code, error.retryable)}`;
}
