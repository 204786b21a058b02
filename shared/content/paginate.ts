import { WebgateError } from "../errors";

/** One page of a snapshot's content. */
export interface Page {
  /** Offset (UTF-16 code units) of the page's first character. */
  start: number;
  /** Offset just past the page's last character. */
  end: number;
  /** `end` while content remains after this page, null on the last page. */
  nextStart: number | null;
  content: string;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/**
 * The range to read from a stored content for the page at `start` of at most `maxChars`: one code
 * unit either side of it, so that {@link paginateWindow} can see whether the page would start or
 * end inside a surrogate pair without the whole content in memory.
 */
export function pageWindow(start: number, maxChars: number): { start: number; end: number } {
  return { start: Math.max(0, start - 1), end: start + maxChars + 1 };
}

/**
 * Cuts the page `[start, end)` out of `content`, offsets in UTF-16 code units (JavaScript string
 * indices), never splitting a surrogate pair:
 * - `end = min(start + maxChars, total)`, moved back by one when it would fall between the two
 *   halves of a pair. Should that leave the page empty (`maxChars` 1 on an astral character), the
 *   page takes the whole pair instead, so paging always advances.
 * - A `start` that points at the low half of a pair is moved back by one, so the page begins with
 *   the whole character; the returned `start` is the one used.
 * - `start === total` gives an empty last page.
 * Pages read from 0 by following `nextStart` concatenate to exactly `content`.
 *
 * @throws WebgateError `invalid_request` (details `{ field: "start", total_chars }`) when
 *   `start > total`; (`{ field: "start" }`) when `start` is not an integer >= 0;
 *   (`{ field: "max_chars" }`) when `maxChars` is not an integer >= 1.
 */
export function paginate(content: string, start: number, maxChars: number): Page {
  return paginateWindow({ text: content, offset: 0, totalChars: content.length }, start, maxChars);
}

/**
 * {@link paginate} over a window of the content: `text` is the content from `offset` on, and the
 * whole content is `totalChars` long. Offsets in and out are offsets in the whole content. The
 * window must cover {@link pageWindow}`(start, maxChars)` clamped to the content (the surrounding
 * code units are what keeps a surrogate pair whole at either edge).
 *
 * @throws WebgateError as {@link paginate}.
 */
export function paginateWindow(window: { text: string; offset: number; totalChars: number }, start: number, maxChars: number): Page {
  const { text, offset, totalChars: total } = window;
  // The request schema bounds both; checked here too so that no caller can make paging stall.
  if (!Number.isSafeInteger(start) || start < 0) {
    throw new WebgateError("invalid_request", `start (${start}) must be an integer >= 0`, { details: { field: "start" } });
  }
  if (!Number.isSafeInteger(maxChars) || maxChars < 1) {
    throw new WebgateError("invalid_request", `max_chars (${maxChars}) must be an integer >= 1`, { details: { field: "max_chars" } });
  }
  if (start > total) {
    throw new WebgateError("invalid_request", `Field "start": ${start} is beyond the end of the content (total_chars ${total}).`, {
      details: { field: "start", total_chars: total },
    });
  }
  // Code unit `i` of the whole content, read from the window.
  const at = (i: number) => text.charCodeAt(i - offset);
  let from = start;
  if (from > 0 && from < total && isLowSurrogate(at(from)) && isHighSurrogate(at(from - 1))) from -= 1;

  let end = Math.min(from + maxChars, total);
  if (end < total && end > from && isLowSurrogate(at(end)) && isHighSurrogate(at(end - 1))) {
    end = end - 1 > from ? end - 1 : end + 1;
  }
  return { start: from, end, nextStart: end < total ? end : null, content: text.slice(from - offset, end - offset) };
}
