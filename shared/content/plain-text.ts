import type { WorkMeter } from "./conversion-deadline";
import type { LightElement, LightNode } from "./light-dom";

/**
 * Elements that start and end a paragraph-level block: a blank line separates them from what is
 * around them in plain text.
 */
const PARAGRAPH_BLOCKS = new Set([
  "ADDRESS", "ARTICLE", "ASIDE", "BLOCKQUOTE", "BODY", "CAPTION", "CENTER", "DETAILS", "DIALOG", "DIV", "DL",
  "FIELDSET", "FIGCAPTION", "FIGURE", "FOOTER", "FORM", "H1", "H2", "H3", "H4", "H5", "H6", "HEADER",
  "HGROUP", "HR", "LEGEND", "MAIN", "MENU", "NAV", "OL", "P", "PRE", "SECTION", "SUMMARY", "TABLE", "UL",
]);

/** Elements written on a line of their own, without a blank line: list items, rows and cells. */
const LINE_BLOCKS = new Set(["LI", "DT", "DD", "TR", "TD", "TH", "THEAD", "TBODY", "TFOOT", "OPTION"]);

const LISTS = new Set(["UL", "OL", "DL", "MENU"]);

/** Elements whose text is not read as prose: images have no text, and their `alt` is dropped. */
const SKIPPED = new Set(["IMG", "PICTURE", "VIDEO", "AUDIO", "SOURCE", "TRACK", "MAP", "AREA", "HEAD"]);

/** HTML's ASCII whitespace plus U+00A0, which pages use for spacing rather than as a glyph. */
const SPACE_RUN = /[\t\n\f\r \u00a0]+/g;

/**
 * Writes a light tree as plain text: no Markdown syntax at all. Link text is kept and link
 * targets dropped, images dropped, list items, table rows and table cells each on a line of their
 * own, paragraphs and other blocks separated by one blank line, `<br>` a line break, `<pre>` text
 * kept verbatim. Whitespace elsewhere collapses as a browser would render it.
 *
 * One iterative pass over the tree (no recursion, so any depth is safe), output built from an
 * array of pieces: linear in the size of the tree and its text. `meter` counts one unit per node
 * (the conversion's deadline checkpoints).
 */
export function lightTreeToText(root: LightElement, meter?: WorkMeter): string {
  const out: string[] = [];
  /** 0: nothing pending; 1: a line break; 2: a blank line, before the next text. */
  let pendingBreak = 0;
  let pendingSpace = false;
  let wroteAny = false;
  let preDepth = 0;
  // A list inside a list item continues the item's lines, without a blank line around it.
  let listDepth = 0;

  const requestBreak = (strength: number) => {
    if (strength > pendingBreak) pendingBreak = strength;
    pendingSpace = false;
  };
  const write = (text: string) => {
    if (wroteAny && pendingBreak > 0) out.push(pendingBreak === 2 ? "\n\n" : "\n");
    else if (wroteAny && pendingSpace) out.push(" ");
    out.push(text);
    wroteAny = true;
    pendingBreak = 0;
    pendingSpace = false;
  };
  const writeInline = (raw: string) => {
    const parts = raw.split(SPACE_RUN);
    // A leading empty part means the text started with whitespace; a trailing one, ended with it.
    for (let i = 0; i < parts.length; i++) {
      const part = parts[i]!;
      if (i > 0 && pendingBreak === 0) pendingSpace = true;
      if (part !== "") write(part);
    }
  };
  const writePre = (raw: string) => {
    const lines = raw.split(/\r\n?|\n/);
    for (let i = 0; i < lines.length; i++) {
      // A line end inside <pre> right after a block break adds nothing: the break already ends the line.
      if (i > 0 && pendingBreak === 0 && wroteAny) out.push("\n");
      const line = lines[i]!;
      if (line !== "") {
        if (wroteAny && pendingBreak > 0) out.push(pendingBreak === 2 ? "\n\n" : "\n");
        out.push(line);
        wroteAny = true;
        pendingBreak = 0;
        pendingSpace = false;
      }
    }
  };

  // Explicit stack of [node, entered]: a node is pushed once to enter and once to leave.
  const stack: [LightNode, boolean][] = [];
  for (let n = root.lastChild; n !== null; n = n.previousSibling) stack.push([n, false]);
  while (stack.length > 0) {
    const [node, leaving] = stack.pop()!;
    meter?.tick();
    if (node.nodeType === 3) {
      if (preDepth > 0) writePre(node.data);
      else writeInline(node.data);
      continue;
    }
    const name = node.nodeName;
    const isList = LISTS.has(name);
    if (leaving && isList) listDepth--;
    const strength = isList && listDepth > 0 ? 1 : PARAGRAPH_BLOCKS.has(name) ? 2 : LINE_BLOCKS.has(name) ? 1 : 0;
    if (leaving) {
      if (name === "PRE") preDepth--;
      if (strength > 0) requestBreak(strength);
      continue;
    }
    if (SKIPPED.has(name)) continue;
    if (name === "BR") {
      requestBreak(1);
      continue;
    }
    if (strength > 0) requestBreak(strength);
    if (name === "PRE") preDepth++;
    if (isList) listDepth++;
    stack.push([node, true]);
    for (let n = node.lastChild; n !== null; n = n.previousSibling) stack.push([n, false]);
  }
  return out.join("");
}
