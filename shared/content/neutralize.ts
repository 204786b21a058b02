/**
 * The character that replaces the `<` of a faked boundary marker: U+2039 SINGLE LEFT-POINTING
 * ANGLE QUOTATION MARK. It reads like `<` to a person, but no Markdown or HTML renderer turns it
 * back into `<`, and it cannot start a tag.
 */
export const MARKER_REPLACEMENT = "\u2039";

// Each letter of "web_result" in ASCII (either case) or its fullwidth form (U+FF01..U+FF5E).
function letterClass(ch: string): string {
  const lower = ch.toLowerCase();
  const upper = ch.toUpperCase();
  const wide = (c: string) => String.fromCharCode(c.charCodeAt(0) + 0xfee0);
  return `[${lower}${upper}${wide(lower)}${wide(upper)}]`;
}

const WEB = [..."web"].map(letterClass).join("");
const RESULT = [..."result"].map(letterClass).join("");
const NAME = WEB + "\\\\?[_\uFF3F]" + RESULT;

/**
 * An opening angle bracket in any form an agent might read as `<`: ASCII, fullwidth `＜`, small
 * `﹤`, or an HTML character reference (`&lt;`, `&#60;`, `&#x3c;`, with or without `;`), followed
 * by optional whitespace, an optional `/` (ASCII or fullwidth), optional whitespace and the name.
 * The Markdown escape turndown puts before `_` (`web\_result`) is tolerated too.
 */
const MARKER = new RegExp(`(?:<|\uFF1C|\uFE64|&lt;?|&#0*60;?|&#x0*3c;?)(?=\\s*[/\uFF0F]?\\s*${NAME})`, "giu");

/**
 * Makes it impossible for page text to fake an agent's `<web_result …>` / `</web_result>` frame:
 * the opening bracket of every such marker (in any case, with whitespace, fullwidth or
 * entity-encoded look-alikes) becomes {@link MARKER_REPLACEMENT}; everything else is unchanged,
 * so the text stays readable. Idempotent. Used for page content, titles and search results.
 */
export function neutralizeBoundaryMarkers(text: string): string {
  return text.replace(MARKER, MARKER_REPLACEMENT);
}

/**
 * A neutralized marker with a Markdown escape before its `_` (`‹/web\_result`) or before a `>`
 * right after the name (turndown escapes a `>` that starts a text node, as split text nodes do).
 */
const ESCAPED_NEUTRALIZED = new RegExp(`(${MARKER_REPLACEMENT}\\s*[/\uFF0F]?\\s*${WEB})\\\\?([_\uFF3F]${RESULT})(?:\\\\(?=>))?`, "gu");

/**
 * Removes the Markdown escape turndown puts before the `_` of a marker that
 * {@link neutralizeBoundaryMarkers} has already defused, so HTML pages read `‹/web_result>` as
 * the README promises. Only Markdown output goes through it: the `_` sits between letters, where
 * CommonMark never reads it as emphasis, so the escape is not needed there.
 */
export function unescapeNeutralizedMarkers(markdown: string): string {
  // Every match starts with the replacement character, which most pages never hold.
  return markdown.includes(MARKER_REPLACEMENT) ? markdown.replace(ESCAPED_NEUTRALIZED, "$1$2") : markdown;
}
