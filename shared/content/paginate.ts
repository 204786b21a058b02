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
 * @throws WebgateError `invalid_request` (details `{ field: "start" }`) when `start > total` or
 *   `start` is not an integer >= 0; (`{ field: "max_chars" }`) when `maxChars` is not an integer >= 1.
 */
export function paginate(content: string, start: number, maxChars: number): Page {
  const total = content.length;
  // The request schema bounds both; checked here too so that no caller can make paging stall.
  if (!Number.isSafeInteger(start) || start < 0) {
    throw new WebgateError("invalid_request", `start (${start}) must be an integer >= 0`, { details: { field: "start" } });
  }
  if (!Number.isSafeInteger(maxChars) || maxChars < 1) {
    throw new WebgateError("invalid_request", `max_chars (${maxChars}) must be an integer >= 1`, { details: { field: "max_chars" } });
  }
  if (start > total) {
    throw new WebgateError("invalid_request", `start (${start}) is beyond total_chars (${total})`, { details: { field: "start" } });
  }
  let from = start;
  if (from > 0 && from < total && isLowSurrogate(content.charCodeAt(from)) && isHighSurrogate(content.charCodeAt(from - 1))) from -= 1;

  let end = Math.min(from + maxChars, total);
  if (end < total && end > from && isLowSurrogate(content.charCodeAt(end)) && isHighSurrogate(content.charCodeAt(end - 1))) {
    end = end - 1 > from ? end - 1 : end + 1;
  }
  return { start: from, end, nextStart: end < total ? end : null, content: content.slice(from, end) };
}
