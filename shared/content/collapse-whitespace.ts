import type { LightElement, LightNode, PackedTable } from "./light-dom";
import { foldProseFacts, markProseFacts, noteProseText } from "./prose-walk";
import { TURNDOWN_BLOCK, TURNDOWN_VOID } from "./turndown-elements";

/**
 * turndown 7.2.5's whitespace collapsing (its `collapseWhitespace`, which it runs on the whole
 * tree before converting, with `preformattedCode` off), step for step on the light tree: the same
 * walk, the same decisions, the same nodes changed and removed. It is faster only in how it asks:
 * tag sets instead of scanning arrays of tag names for every node, text rewritten only when it
 * has something to collapse. turndown's version cost a fifth of the conversion of an ordinary
 * page. A test runs both on random trees and on the corpus and compares the trees.
 *
 * Within text, runs of space, tab, CR and LF become one space; a space at the start of a text is
 * dropped after a space or a block boundary (unless a void or `<pre>` element came just before);
 * a space at the end of the text before a block or `<br>` is dropped; text that ends up empty is
 * removed. `<pre>` subtrees are left alone.
 */

const BLOCK = TURNDOWN_BLOCK;
const VOID = TURNDOWN_VOID;

/** A run turndown's `/[ \r\n\t]+/g` would replace: a tab, CR or LF, or two spaces in a row. */
const COLLAPSIBLE = /[\r\n\t]| {2}/;

/** Whether `text` is all space, tab, CR and LF (most text between tags is: a newline and indentation). */
function isCollapsibleSpace(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== 32 && c !== 10 && c !== 9 && c !== 13) return false;
  }
  return true;
}

/**
 * The runs turndown's `/[ \r\n\t]+/g` replaces with a space that are not a space already: a run
 * that starts with a tab, CR or LF, or a space followed by more whitespace. Each such run is matched
 * whole (the match is greedy and starts at the run's first character), so replacing these gives
 * turndown's result; a single space between words is no match, where turndown's pattern matched
 * (and rewrote) every one of them.
 */
const COLLAPSIBLE_RUN = /[\r\n\t][ \r\n\t]*| [ \r\n\t]+/g;

function collapseText(text: string): string {
  if (!COLLAPSIBLE.test(text)) return text;
  // The replacement's result for text that is one run of whitespace, without running it.
  return isCollapsibleSpace(text) ? " " : text.replace(COLLAPSIBLE_RUN, " ");
}

function removeNode(node: LightNode): LightNode | LightElement {
  const next = node.nextSibling ?? node.parentNode!;
  node.parentNode!.removeChild(node);
  return next;
}

/**
 * The node after `current` in the walk. An element whose only text has no node (light-dom.ts's
 * `onlyText`) is left at once: the walk reads that text while it is at the element (see collapse).
 */
function nextNode(prev: LightNode | null, current: LightNode | LightElement): LightNode | LightElement {
  if ((prev !== null && prev.parentNode === current) || current.nodeName === "PRE") return current.nextSibling ?? current.parentNode!;
  return (current.nodeType === 1 && current.onlyText === null ? current.firstChild : null) ?? current.nextSibling ?? current.parentNode!;
}

/** What the walk keeps as the text before: a text node, or the only text of an element (see {@link OnlyTextRef}). */
interface PreviousText {
  data: string;
}

/**
 * An element's only text that has no node (light-dom.ts's `onlyText`), as the text before: one
 * object per walk, pointed at the element whose text it is (the walk keeps one text before at a time).
 */
class OnlyTextRef implements PreviousText {
  el: LightElement | null = null;

  get data(): string {
    return this.el!.onlyText!;
  }

  set data(value: string) {
    this.el!.setOnlyText(value);
  }

  remove(): void {
    this.el!.removeOnlyText();
  }
}

function dropTrailingSpace(text: PreviousText): void {
  const data = text.data;
  if (data.charCodeAt(data.length - 1) === 32) text.data = data.slice(0, -1);
}

/** How the walk treats an element: a block (or `<br>`), a void element or `<pre>`, or anything else. */
const BLOCK_STEP = 1;
const VOID_STEP = 2;
const INLINE_STEP = 0;

function stepOf(name: string): number {
  if (BLOCK.has(name) || name === "BR") return BLOCK_STEP;
  if (VOID.has(name) || name === "PRE") return VOID_STEP;
  return INLINE_STEP;
}

/**
 * The walk's steps over a packed table's cells (light-dom.ts's PackedTable: rows, groups and
 * cells, each cell one text or none), on its arrays. The walk meets every element on the way in
 * and on the way out, and cells, rows, groups and tables are blocks: each cell's text is met with
 * no text before it in the walk's state (its leading space goes) and is followed by the cell's
 * end (its trailing space goes), and after the table there is no previous text.
 */
function collapsePackedTable(table: LightElement, packed: PackedTable): void {
  const texts = packed.cellTexts;
  let changed = false;
  for (let i = 0; i < texts.length; i++) {
    const before = texts[i] ?? null;
    if (before === null) continue;
    let text = collapseText(before);
    if (text.charCodeAt(0) === 32) text = text.slice(1);
    if (text.charCodeAt(text.length - 1) === 32) text = text.slice(0, -1);
    if (text !== before) {
      texts[i] = text === "" ? null : text;
      changed = true;
    }
  }
  if (changed) table.invalidateText();
}

/** Collapses whitespace in `element`'s subtree as turndown does (see the file's comment). */
export function collapseWhitespace(element: LightElement): void {
  collapse(element, false);
}

/**
 * {@link collapseWhitespace}, and prose-walk.ts's {@link markProseFacts} over the collapsed
 * subtree in the same walk: one walk over the tree instead of two (on a page of hundreds of
 * thousands of small elements each walk is a cache miss per node). The facts are those of the
 * collapsed tree because collapsing does not change them: it rewrites runs of space, tab, CR and
 * LF, drops a leading or trailing space, and removes only texts it left empty, so a text holds a
 * character outside `\s` after it exactly when it did before, and no element is added, moved or
 * removed. `<pre>` subtrees, which collapsing leaves alone, get their facts from markProseFacts.
 */
export function collapseWhitespaceAndMarkProseFacts(element: LightElement): void {
  collapse(element, true);
}

/**
 * The collapsing walk; with `facts`, marking the prose facts too: an element's facts start at 0
 * when the walk steps onto it from its parent or a sibling, a kept text marks its parent, and an
 * element is folded into its parent when the walk leaves it for its next sibling or its parent
 * (once: every other visit of an element goes down to its first child).
 */
function collapse(element: LightElement, facts: boolean): void {
  if (element.firstChild === null || element.nodeName === "PRE") {
    if (facts) markProseFacts(element);
    return;
  }
  if (facts) element.proseFacts = 0;
  let prevText: PreviousText | null = null;
  const onlyTextRef = new OnlyTextRef();
  let keepLeadingWs = false;
  let prev: LightNode | null = null;
  let node: LightNode | LightElement = nextNode(prev, element);
  if (facts && node.nodeType === 1) node.proseFacts = 0;
  while (node !== element) {
    if (node.nodeType === 3) {
      let text = collapseText(node.data);
      if ((prevText === null || prevText.data.charCodeAt(prevText.data.length - 1) === 32) && !keepLeadingWs && text.charCodeAt(0) === 32) text = text.slice(1);
      if (text === "") {
        const sibling: LightNode | null = node.nextSibling;
        node = removeNode(node);
        if (facts && node === sibling && node.nodeType === 1) node.proseFacts = 0;
        continue;
      }
      if (text !== node.data) node.data = text;
      if (facts) noteProseText(text, node.parentNode!);
      prevText = node;
    } else {
      const name = node.nodeName;
      const step = stepOf(name);
      // The steps turndown's walk takes on the way into an element (and, for one with children, out of it).
      for (let visit = 0; visit < 2; visit++) {
        if (step === BLOCK_STEP) {
          if (prevText !== null) dropTrailingSpace(prevText);
          prevText = null;
          keepLeadingWs = false;
          if (name === "TABLE" && visit === 0) {
            const packed = node.packedTable;
            if (packed !== null) collapsePackedTable(node, packed);
          }
        } else if (step === VOID_STEP) {
          prevText = null;
          keepLeadingWs = true;
        } else if (prevText !== null) {
          keepLeadingWs = false;
        }
        const only = visit === 0 && name !== "PRE" ? node.onlyText : null;
        if (only === null) break;
        // The element's only text, which turndown's walk meets between the element's two visits:
        // the text branch above, on the string.
        let text = collapseText(only);
        if ((prevText === null || prevText.data.charCodeAt(prevText.data.length - 1) === 32) && !keepLeadingWs && text.charCodeAt(0) === 32) text = text.slice(1);
        if (text === "") {
          node.removeOnlyText();
        } else {
          if (text !== only) node.setOnlyText(text);
          if (facts) noteProseText(text, node);
          onlyTextRef.el = node;
          prevText = onlyTextRef;
        }
      }
    }
    const following = nextNode(prev, node);
    if (facts) {
      if (node.nodeType === 1 && (node.onlyText !== null || following !== node.firstChild)) {
        // Leaving `node`: its subtree is done (a <pre>'s is marked here, the walk did not enter it).
        if (node.nodeName === "PRE") markProseFacts(node);
        foldProseFacts(node);
      }
      if (following.nodeType === 1 && following !== node.parentNode) following.proseFacts = 0;
    }
    prev = node;
    node = following;
  }
  if (prevText !== null) {
    dropTrailingSpace(prevText);
    if (prevText.data === "") {
      if (prevText === onlyTextRef) onlyTextRef.remove();
      else removeNode(prevText as LightNode);
    }
  }
}
