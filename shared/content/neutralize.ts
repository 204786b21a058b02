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

const NAME = [..."web"].map(letterClass).join("") + "\\\\?[_\uFF3F]" + [..."result"].map(letterClass).join("");

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
