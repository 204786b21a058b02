import type { LightElement, LightNode } from "../light-dom";
import { SERVER_MESSAGE_LEVEL, SERVER_MESSAGE_TEXT } from "./patterns";
import { run } from "./run-state";

/**
 * Server error messages printed into a page's HTML ("Warning: … in /var/www/… on line 12"), which
 * the main-content extraction removes from the article.
 */

/** What every text that holds a PHP message holds (see SERVER_MESSAGE_TEXT): most texts do not, and skip the pattern. */
export const SERVER_MESSAGE_MARK = " on line ";

/**
 * What every removal needs a text to hold: the text of a plain message ({@link SERVER_MESSAGE_MARK})
 * and the text before a message's line number (`/\son line\s*$/`) both do. The extraction's
 * first walk notes whether any text of the page does (figures.ts), so that a page without one
 * is not walked again for messages.
 */
export const SERVER_MESSAGE_WORDS = "on line";

/** A PHP message's parts after its level: the text, links in it, the file and the line number (a few siblings). */
const SERVER_MESSAGE_PARTS = 10;

/**
 * Removes the PHP error messages a server printed into the page ("<b>Warning</b>:  Creating
 * default object … in <b>/var/www/…/classes.php</b> on line <b>407</b><br />", or the same as
 * plain text): server output, not the article's text, wherever it sits. One walk over the result
 * (none in an extraction whose page has no text with {@link SERVER_MESSAGE_WORDS}); each `<b>`
 * that names a level looks at most {@link SERVER_MESSAGE_PARTS} siblings ahead.
 *
 * The walk is pre-order over the sibling and parent links (no stack: on a page of a few hundred
 * thousand elements the stack's growth was most of the walk). Each child list is still judged
 * left to right, and a message's nodes and line breaks are siblings that come after the subtrees
 * walked before them, so the removals are those of a walk that judges a whole list first.
 */
export function removeServerMessages(root: LightElement): void {
  // In an extraction, whose first walk counted every text below the page's body (and every cell
  // of its packed tables, whose texts a built table's nodes hold) before the result was cut from it.
  const raw = run.figures?.raw;
  if (raw !== undefined && !raw.serverMessageWords) return;
  let n: LightNode | null = root.firstChild;
  while (n !== null) {
    const parent: LightElement = n.parentNode!;
    let next: LightNode | null = n.nextSibling;
    if (n.nodeType === 1) {
      const end = n.nodeName === "B" ? serverMessageEnd(n) : null;
      if (end === null) {
        if (n.firstChild !== null) {
          n = n.firstChild;
          continue;
        }
      } else {
        next = end.nextSibling;
        // The line breaks PHP writes around the message go with it.
        const before = previousNonBlank(n);
        if (before?.nodeName === "BR") parent.removeChild(before);
        for (let c: LightNode | null = n; c !== next && c !== null; ) {
          const following: LightNode | null = c.nextSibling;
          parent.removeChild(c);
          c = following;
        }
        if (next?.nodeName === "BR") {
          const after: LightNode | null = next.nextSibling;
          parent.removeChild(next);
          next = after;
        }
      }
    } else if (n.data.includes(SERVER_MESSAGE_MARK)) {
      const text = n.data.replace(SERVER_MESSAGE_TEXT, "");
      if (text !== n.data) n.data = text;
    }
    n = next ?? nextAfter(parent, root);
  }
}

/** Where a pre-order walk of `root` goes on after the last child of `parent`: the next sibling of the nearest ancestor that has one. */
function nextAfter(parent: LightElement, root: LightElement): LightNode | null {
  for (let p: LightElement | null = parent; p !== null && p !== root; p = p.parentNode) if (p.nextSibling !== null) return p.nextSibling;
  return null;
}

/** The last node of the PHP message that `b` opens (its line number's `<b>`), or null when `b` opens none. */
export function serverMessageEnd(b: LightElement): LightNode | null {
  const level = b.firstChild;
  if (level === null || level !== b.lastChild || level.nodeType !== 3 || level.data.length > 40 || !SERVER_MESSAGE_LEVEL.test(level.data.trim())) return null;
  const colon = b.nextSibling;
  if (colon === null || colon.nodeType !== 3 || !colon.data.startsWith(":")) return null;
  let n: LightNode | null = colon.nextSibling;
  for (let k = 0; n !== null && k < SERVER_MESSAGE_PARTS; n = n.nextSibling, k++) {
    if (n.nodeType !== 3 || !/\son line\s*$/.test(n.data)) continue;
    const line = n.nextSibling;
    return line !== null && line.nodeName === "B" && /^\s*\d+\s*$/.test(line.textContent) ? line : null;
  }
  return null;
}

/** The sibling before `n`, passing over whitespace-only text. */
function previousNonBlank(n: LightNode): LightNode | null {
  let p = n.previousSibling;
  while (p !== null && p.nodeType === 3 && p.data.trim() === "") p = p.previousSibling;
  return p;
}
