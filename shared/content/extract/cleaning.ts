import type { LightElement, LightNode } from "../light-dom";
import { classWeight } from "./class-signals";
import { countText, emptyStats, type Figures, type FiguresTable, FiguresView, HEADINGS, INLINE, measure, measureSubtree, textChars } from "./figures";
import { BYLINE_MAX_CHARS, CONDITIONAL, FURNITURE_START_CHARS, isFurnitureBlock, META_MAX_CHARS, sentenceGoesOn, SIDE_BOX_MAX_CHARS, standsAlone, TABLE_PARTS, textStart } from "./furniture";
import { rememberLastAnswer } from "./last-answer";
import { expandTable } from "./packed-tables";
import { AUTHOR_BOX_LABEL, BACK_LINK, BYLINE_LINE, COMMENT_HEADING, CONTACT_HEADING, LINK_LIST_HEADING, MEDIA_LINK_LABEL, READ_MORE_LINK, READER_ADDRESS, READER_PROMPT, WRITTEN_ADDRESS } from "./patterns";
import { run } from "./run-state";
import { judgeTable } from "./table-judge";
import { firstElement, lastKept, postOrder, previousElement, previousKept } from "./tree-walk";

/**
 * The cleaning of the chosen article (docs/content.md, "Main content"): one post-order walk per
 * subtree ({@link cleanSubtree}) that removes what sits inside articles but is not article text:
 * teaser cards and embedded stories, comment areas and contact blocks, link lists and their
 * headings, and Readability's conditional cleaning of furniture-like blocks ({@link shouldRemove}).
 */

/**
 * Whether `el` introduces a link list: a heading, or a short label block (`<p><strong>Read
 * also</strong></p>`), whose text is a link-list phrase ("head"); or a short teaser line that
 * starts with such a label (in bold, in italics or plain) and is mostly link ("teaser").
 */
function isLinkListHead(el: LightElement, s: Figures): "head" | "teaser" | "no" {
  const name = el.nodeName;
  const label = HEADINGS.has(name) ? s.chars < 80 : (name === "P" || name === "DIV") && s.chars < 50 && s.linkChars === 0;
  if (label && isLinkListHeading(textStart(el))) return "head";
  if (!TEASER_LINE_TAGS.has(name) || s.chars === 0 || s.chars >= 300 || s.linkChars < 0.3 * s.chars) return "no";
  // The line opens with the label, in bold, italics or plain, before its link ("Le puede
  // interesar: <link>"); a link inside the phrase ("Read <a>more</a>.") is not such a label.
  const opening = textStart(el, 80, true);
  return isLinkListHeading(opening) || isMediaLinkLabel(opening) ? "teaser" : "no";
}

// The label patterns asked about every small block, each remembering its last answer (last-answer.ts).
const isLinkListHeading = rememberLastAnswer(LINK_LIST_HEADING);
const isMediaLinkLabel = rememberLastAnswer(MEDIA_LINK_LABEL);
const isCommentHeading = rememberLastAnswer(COMMENT_HEADING);
const isContactHeading = rememberLastAnswer(CONTACT_HEADING);
const isAuthorBoxLabel = rememberLastAnswer(AUTHOR_BOX_LABEL);

/**
 * Blocks that can be a "read also" line: a paragraph, and a quote or a div, which CMSs use to set
 * such a line apart from the text (`<blockquote><b>PUEDES VER:</b> <a>…</a></blockquote>`).
 */
const TEASER_LINE_TAGS = new Set(["P", "BLOCKQUOTE", "DIV"]);

/** At most this many leading children of a card are looked at for its headline. */
const CARD_HEAD_LOOKAHEAD = 4;

/** A box of other stories inside an article holds a few cards; a run of this many in the article's best block is a list page. */
const LIST_PAGE_CARDS = 8;

/** A teaser's excerpt is a few lines: a longer text under a linked headline is a section of the article. */
const TEASER_MAX_CHARS = 600;

/**
 * The teaser cards among `el`'s children: blocks that open (after any text-less elements such as
 * a linked image) with a headline that is all link, followed by at most a short excerpt; null
 * unless two or more of one element name are there. Figures come from this walk's table (the
 * headline may have been removed already, as an all-link heading is). Each child is looked at
 * once, and at most {@link CARD_HEAD_LOOKAHEAD} of its children: linear.
 */
function teaserCards(el: LightElement, t: FiguresTable, removed: Set<LightElement>): CardScan {
  let cards: LightElement[] | null = null;
  let chars = 0;
  let openers = 0;
  let first: { card: LightElement; head: LightElement } | null = null;
  for (let c = el.firstChild; c !== null; c = c.nextSibling) {
    if (c.nodeType !== 1 || removed.has(c) || INLINE.has(c.nodeName) || !t.holds(c.walkIndex)) continue;
    const head = cardHead(c, t) ?? (READ_MORE_CARDS.has(c.nodeName) ? readMoreTail(c, t) : null);
    if (head === null) continue;
    openers++;
    first ??= { card: c, head };
    const headChars = t.chars[head.walkIndex]!;
    const cardChars = t.chars[c.walkIndex]! + (removed.has(head) ? headChars : 0);
    if (cardChars - headChars > TEASER_MAX_CHARS) continue;
    if (cards !== null && cards[0]!.nodeName !== c.nodeName) continue;
    (cards ??= []).push(c);
    chars += t.chars[c.walkIndex]!;
  }
  return { run: cards !== null && cards.length >= 2 ? { cards, chars } : null, only: openers === 1 ? first : null };
}

/** What {@link teaserCards} found among an element's children. */
interface CardScan {
  /** Two or more cards of one element name: a run of teasers (or a list page's items). */
  run: { cards: LightElement[]; chars: number } | null;
  /** The one child that opens like a card, when exactly one does (with its headline). */
  only: { card: LightElement; head: LightElement } | null;
}

/**
 * Boxes that a read-more link can end as a teaser card: a paragraph that ends with one ("… the
 * study says. <a>Read more</a>") is the article's text pointing to its source.
 */
const READ_MORE_CARDS = new Set(["DIV", "SECTION", "ASIDE", "ARTICLE", "LI"]);

/** At most this many levels down a card's last children are looked at for its read-more link. */
const READ_MORE_LEVELS = 4;

/**
 * The link that ends a teaser card `c` whose headline is not a link (or was taken already): its
 * last child with text, down its last children ({@link READ_MORE_LEVELS} levels at most, each
 * looking back past at most {@link CARD_HEAD_LOOKAHEAD} text-less elements), when that is a
 * short link to another page that reads "read more" ({@link READ_MORE_LINK}). Figures from this
 * walk's table.
 */
function readMoreTail(c: LightElement, t: FiguresTable): LightElement | null {
  let cur: LightElement = c;
  for (let level = 0; level < READ_MORE_LEVELS; level++) {
    let last: LightElement | null = null;
    let looked = 0;
    for (let g = cur.lastChild; g !== null && last === null && looked < CARD_HEAD_LOOKAHEAD; g = g.previousSibling) {
      if (g.nodeType === 3) {
        if (g.data.trim() !== "") return null;
        continue;
      }
      if (g.nodeType !== 1 || !t.holds(g.walkIndex)) continue;
      looked++;
      if (t.chars[g.walkIndex]! > 0) last = g;
    }
    if (last === null) return null;
    if (last.nodeName === "A") {
      const href = last.attributes.href?.trim() ?? "";
      return t.chars[last.walkIndex]! < 40 && href !== "" && !href.startsWith("#") && READ_MORE_LINK.test(textStart(last, 60)) ? last : null;
    }
    cur = last;
  }
  return null;
}

/**
 * The linked headline that opens a teaser card `c`: its first child with text (after at most
 * {@link CARD_HEAD_LOOKAHEAD} text-less elements, such as a linked image), when that is a heading
 * or a link of at least 15 characters, all link. Figures from this walk's table (the headline may
 * have been removed already, as an all-link heading is).
 */
function cardHead(c: LightElement, t: FiguresTable): LightElement | null {
  let looked = 0;
  for (let g = c.firstChild; g !== null && looked < CARD_HEAD_LOOKAHEAD; g = g.nextSibling) {
    if (g.nodeType === 3 && g.data.trim() !== "") return null;
    if (g.nodeType !== 1 || !t.holds(g.walkIndex)) continue;
    looked++;
    const h = g.walkIndex;
    const headChars = t.chars[h]!;
    if (headChars === 0) continue;
    if (!(HEADINGS.has(g.nodeName) || g.nodeName === "A") || headChars < 15 || t.linkChars[h]! < 0.9 * headChars) return null;
    return g;
  }
  return null;
}

/** Blocks that hold another story's teaser embedded in an article (a box with a linked headline and its excerpt). */
const EMBED_TAGS = new Set(["DIV", "SECTION", "ASIDE", "FIGURE", "ARTICLE", "BLOCKQUOTE"]);

/** An embedded teaser's excerpt is a sentence or two. */
const EMBED_EXCERPT_CHARS = 400;

/** An embedded teaser is a small part of the article it sits in. */
const EMBED_SHARE = 0.25;

/**
 * The one other story's teaser embedded among `el`'s blocks (a "read this too" box between
 * paragraphs, with no label to say so), or null: a block that opens with a headline set as a
 * heading and all link, to another page (not an anchor of this one), followed by a short excerpt,
 * and that is a small part of the article (`rootChars`). When two or more of `el`'s children open
 * like cards, they are a run of cards ({@link teaserCards}' case, or a list page's items), and
 * none is taken alone ({@link teaserCards} says which child, if any, is the only one). A section
 * whose heading links to itself (`#anchor`), a paragraph that opens with a link, and a list item
 * are not such a box.
 */
function embeddedTeaser(only: CardScan["only"], t: FiguresTable, removed: ReadonlySet<LightElement>, rootChars: number): LightElement | null {
  if (only === null || !EMBED_TAGS.has(only.card.nodeName)) return null;
  const { card, head } = only;
  const h = head.walkIndex;
  const headChars = t.chars[h]!;
  // The headline is a heading, or a link around one (`<a><h3>…</h3></a>`); or the box ends with a
  // link that reads "read more" ({@link readMoreTail}).
  const readMore = head.nodeName === "A" && READ_MORE_LINK.test(textStart(head, 60));
  if (!readMore && !HEADINGS.has(head.nodeName) && t.headingChars[h]! < 0.5 * headChars) return null;
  const excerpt = t.chars[card.walkIndex]! - (removed.has(head) ? 0 : headChars);
  if (excerpt > EMBED_EXCERPT_CHARS || excerpt + headChars > EMBED_SHARE * rootChars) return null;
  const link = head.nodeName === "A" ? head : firstLink(head);
  const href = link?.attributes.href?.trim() ?? "";
  return href !== "" && !href.startsWith("#") ? card : null;
}

/**
 * Whether `el` is a box whose only text left is a heading, and which lost a block of pictures or
 * text to cleaning (a child with two or more images or 100 characters, removed in this walk): the
 * heading titled what went ("Business news in pictures" over a gallery). A heading that a CMS
 * wraps in a `<div>` of its own, beside icons or nothing, is not such a title and stays.
 * Looks at `el`'s children once: linear.
 */
function isOrphanedTitle(el: LightElement, s: Figures, t: FiguresTable, removed: ReadonlySet<LightElement>): boolean {
  if (!EMBED_TAGS.has(el.nodeName) || s.chars === 0 || s.headingChars < s.chars) return false;
  for (let c = el.firstChild; c !== null; c = c.nextSibling) {
    if (c.nodeType !== 1 || !removed.has(c) || !t.holds(c.walkIndex)) continue;
    const i = c.walkIndex;
    if (t.images[i]! + (c.nodeName === "IMG" ? 1 : 0) >= 2 || t.chars[i]! >= 100) return true;
  }
  return false;
}

/** An embedded story is a box beside the article's text: at most this share of it. */
const EMBEDDED_STORY_SHARE = 0.5;

/**
 * Whether `el` is another story boxed inside the article (a fact box that reprints a related
 * report): a block that opens with a headline (a heading, not the page's `<h1>`) followed by a
 * byline line ("By Ann Example for Example Online") and then text, and that is at most
 * {@link EMBEDDED_STORY_SHARE} of the article (`rootChars`). An article's own header (its `<h1>`
 * and byline) is not such a box, and a section of the article has no byline under its heading.
 * Looks at most at {@link CARD_HEAD_LOOKAHEAD} children: linear.
 */
function isEmbeddedStory(el: LightElement, s: Figures, t: FiguresTable, rootChars: number): boolean {
  if (!EMBED_TAGS.has(el.nodeName) || s.chars > EMBEDDED_STORY_SHARE * rootChars) return false;
  let heading: LightElement | null = null;
  let looked = 0;
  for (let c = el.firstChild; c !== null && looked < CARD_HEAD_LOOKAHEAD; c = c.nextSibling) {
    if (c.nodeType === 3) {
      if (c.data.trim() !== "") return false;
      continue;
    }
    if (!t.holds(c.walkIndex)) continue;
    looked++;
    const chars = t.chars[c.walkIndex]!;
    if (chars === 0) continue;
    if (heading === null) {
      if (!HEADINGS.has(c.nodeName) || c.nodeName === "H1" || chars > 200) return false;
      heading = c;
      continue;
    }
    // The line under the headline (or the first line of the box's body): a byline, then the
    // story's own text.
    if (s.chars - t.chars[heading.walkIndex]! < 100) return false;
    return opensWithByline(c, t);
  }
  return false;
}

/** Whether `el` is a byline line, or its first line (down its first elements, three levels at most) is one. */
function opensWithByline(el: LightElement, t: FiguresTable): boolean {
  let cur: LightElement | null = el;
  for (let level = 0; level < 3 && cur !== null; level++) {
    const chars = t.chars[cur.walkIndex]!;
    if (chars < BYLINE_MAX_CHARS) return BYLINE_LINE.test(textStart(cur, 160));
    let next: LightElement | null = null;
    for (let c: LightNode | null = cur.firstChild; c !== null && next === null; c = c.nextSibling) {
      if (c.nodeType === 3 && c.data.trim() !== "") return false;
      if (c.nodeType === 1 && t.holds(c.walkIndex) && t.chars[c.walkIndex]! > 0) next = c;
    }
    cur = next;
  }
  return false;
}

/** The first `<a>` down the first element children of `el` (at most three levels). */
function firstLink(el: LightElement): LightElement | null {
  let cur: LightElement | null = el;
  for (let level = 0; level < 3 && cur !== null; level++) {
    cur = firstElement(cur);
    if (cur?.nodeName === "A") return cur;
  }
  return null;
}

/** Whether `el` is the title of a comment area: a short heading or label line such as "3 Comments" or "Leave a Reply". */
export function isCommentHead(el: LightElement, s: Figures): boolean {
  const name = el.nodeName;
  const label = HEADINGS.has(name) ? s.chars < 100 : (name === "P" || name === "DIV" || name === "SPAN" || name === "STRONG") && s.chars < 60;
  return label && s.chars > 0 && isCommentHeading(textStart(el, 120));
}

/** The most text that a contact block after its label holds (names, addresses, phone numbers, a line or two about the sender). */
const CONTACT_BLOCK_CHARS = 1500;

/** At most this many siblings after a contact label are looked at. */
const CONTACT_LOOKAHEAD = 40;

/**
 * Whether `el` is the label of a contact block near the article's end ("Pressekontakt:",
 * "Kontakt", "Media contact"): a heading or a short line that is only the label, whose siblings
 * after it hold less text than those before it and at most {@link CONTACT_BLOCK_CHARS}
 * characters (a label in a page's top matter, with the article after it, is not one). The label
 * and the siblings after it go: whom to call about the text is not the text.
 */
function isContactHead(el: LightElement, s: Figures, t: FiguresTable): boolean {
  if (!isLabelLine(el, s, 60) || !isContactHeading(textStart(el, 100))) return false;
  const { before, after } = labelledTail(el, run.figures?.raw ?? t);
  return after >= 0 && before > after;
}

/** A heading (under 80 characters) or a short line (under `lineChars`) that can be a block's label. */
function isLabelLine(el: LightElement, s: Figures, lineChars: number): boolean {
  const name = el.nodeName;
  const label = HEADINGS.has(name) ? s.chars < 80 : (name === "P" || name === "DIV" || name === "SPAN" || name === "STRONG" || name === "B" || name === "DT") && s.chars < lineChars;
  return label && s.chars > 0;
}

/**
 * The text (`raw` figures) of the siblings after a label, or -1 when they hold more than
 * {@link CONTACT_BLOCK_CHARS} or are more than {@link CONTACT_LOOKAHEAD}; and of those before it,
 * counted only until they outweigh the siblings after it. Bounded: at most 2 x 40 siblings.
 */
function labelledTail(el: LightElement, raw: FiguresTable): { before: number; after: number } {
  let after = 0;
  let seen = 0;
  for (let n = el.nextSibling; n !== null; n = n.nextSibling) {
    if (n.nodeType !== 1) continue;
    if (++seen > CONTACT_LOOKAHEAD) return { before: 0, after: -1 };
    after += raw.get(n)?.chars ?? 0;
    if (after > CONTACT_BLOCK_CHARS) return { before: 0, after: -1 };
  }
  let before = 0;
  seen = 0;
  for (let n = el.previousSibling; n !== null && before <= after && seen < CONTACT_LOOKAHEAD; n = n.previousSibling) {
    if (n.nodeType !== 1) continue;
    seen++;
    before += raw.get(n)?.chars ?? 0;
  }
  return { before, after };
}

/**
 * Whether `el` is the label of an author box ("About the author", "Über den Autor", "AUTOR"), a
 * heading or a short line that is only the label, with the bio after it: either at the top of a
 * box that holds at most {@link SIDE_BOX_MAX_CHARS} characters and under half the article
 * (`rootChars`), or among the article's last blocks as a contact label is ({@link isContactHead}).
 * The label and what follows it go, as an author box that its class names does.
 */
function isAuthorHead(el: LightElement, s: Figures, t: FiguresTable, rootChars: number): boolean {
  if (!isLabelLine(el, s, 40) || !isAuthorBoxLabel(textStart(el, 60))) return false;
  const raw = run.figures?.raw ?? t;
  const { before, after } = labelledTail(el, raw);
  if (after <= 0) return false;
  if (before > after) return true;
  const box = el.parentNode;
  if (before > 0 || box === null) return false;
  const boxChars = raw.get(box)?.chars ?? Infinity;
  return boxChars < SIDE_BOX_MAX_CHARS && 2 * boxChars < rootChars;
}

/**
 * Whether `el` comes after a comment area's title among its siblings, with only removed elements
 * between (the thread's container is often furniture by its class, "fb-comments", and was set
 * aside before cleaning). At most 50 removed siblings are passed over.
 */
function followsCommentHead(el: LightElement, removed: ReadonlySet<LightElement>, commentHeads: ReadonlySet<LightElement>): boolean {
  let passed = 0;
  for (let n = el.previousSibling; n !== null && passed < 50; n = n.previousSibling) {
    if (n.nodeType !== 1) continue;
    if (commentHeads.has(n)) return true;
    if (!removed.has(n)) return false;
    passed++;
  }
  return false;
}

/** A table that holds data rather than layout (Readability's rule, simplified). */
function isDataTable(el: LightElement, s: Figures): boolean {
  if (el.attributes.role === "presentation") return false;
  // A table judged to stay whole stays packed (see partsStayInCleaning): its parts from its arrays.
  const packed = el.firstChild === null ? el.packedTable : null;
  if (packed !== null) {
    const rows = packed.rowCount;
    const cells = packed.cellTexts.length;
    let marked = packed.groups.some((g) => g.name === "thead");
    for (let c = 0; !marked && c < cells; c++) {
      run.meter?.tick();
      marked = packed.isHeaderCell(c);
    }
    return marked || rows >= 10 || cells > 10 || (rows > 1 && s.linkChars < 0.5 * s.chars);
  }
  const shape = tableShape(el);
  if (shape.nested) return false;
  return shape.marked || shape.rows >= 10 || shape.cells > 10 || (shape.rows > 1 && s.linkChars < 0.5 * s.chars);
}

/** A table's rows and cells, whether a header marks it, and whether it holds another table. One walk of the table. */
function tableShape(el: LightElement): { rows: number; cells: number; marked: boolean; nested: boolean } {
  let rows = 0;
  let cells = 0;
  let marked = false;
  let nested = false;
  const skipNested = (c: LightElement) => {
    if (c.nodeName !== "TABLE") return false;
    nested = true;
    return true;
  };
  postOrder(el, skipNested, (c) => {
    const name = c.nodeName;
    if (name === "TR") rows++;
    else if (name === "TD" || name === "TH") cells++;
    if (name === "TH" || name === "CAPTION" || name === "THEAD") marked = true;
  });
  return { rows, cells, marked, nested };
}

/** Each table's answer of {@link inDataTable}, so that its cells do not walk it again (the trees live for one conversion). */
const DATA_TABLES = new WeakMap<LightElement, boolean>();

/**
 * Whether a cell sits in a data table by its shape: a header row or cell, or ten rows or more, and
 * no table inside it (a layout table's cells hold the page's menus, whose links go). The table is
 * at most three levels up (TD, TR, TBODY); its shape is read once, whatever its number of cells.
 */
function inDataTable(td: LightElement): boolean {
  let table = td.parentNode;
  for (let level = 0; table !== null && table.nodeName !== "TABLE" && level < 2; level++) table = table.parentNode;
  if (table === null || table.nodeName !== "TABLE" || table.attributes.role === "presentation") return false;
  let data = DATA_TABLES.get(table);
  if (data === undefined) {
    const shape = tableShape(table);
    data = !shape.nested && (shape.marked || shape.rows >= 10);
    DATA_TABLES.set(table, data);
  }
  return data;
}

/**
 * Cleans one subtree of the article in a post-order walk, adding what goes to `removed`, and
 * returns the subtree's figures after cleaning. Linear: each element is measured once, from its
 * already-cleaned children.
 */
export function cleanSubtree(
  root: LightElement,
  removed: Set<LightElement>,
  unlikely: Set<LightElement>,
  relaxed: boolean,
  scores: Map<LightElement, number>,
  stats: FiguresTable,
  rootChars = Infinity,
  listCards?: Array<{ cards: LightElement[]; chars: number }>,
): { chars: number; sentences: number } {
  // Teaser cards that are most of the article's best block (`rootChars`, its size before
  // cleaning) may be a list page's content: they are left in place and handed to the caller
  // (in `listCards`), which knows whether the page has an article beside them.
  const isTop = listCards !== undefined;
  stats.reset();
  const kept = (el: LightElement) => !removed.has(el);
  // Headings that introduce link lists ("Related", "Lesen Sie auch"), at any depth.
  const listHeads = new Set<LightElement>();
  // Headings that open a comment area ("3 Comments", "Leave a Reply"), and the siblings after them.
  const commentHeads = new Set<LightElement>();
  // Labels of a contact block at the article's end ("Pressekontakt:"), and the siblings after them.
  const contactHeads = new Set<LightElement>();
  // Labels of an author box ("About the author"), and the siblings after them.
  const authorHeads = new Set<LightElement>();
  // The headings among the root's children, in order, for dropLinkListTails (no second loop over a flat body).
  const topHeadings: LightElement[] = [];
  // The cleaning judges a table's rows and cells one by one: a packed table is built first, unless
  // it is judged to stay whole (partsStayInCleaning): then it stays packed, a leaf of the walk.
  if (!judgeTable(root)) expandTable(root);
  const skip = (el: LightElement) => {
    if (removed.has(el)) return true;
    if (!judgeTable(el)) expandTable(el);
    return false;
  };
  measureSubtree(root, stats, skip, (el, i) => {
    let s = new FiguresView(stats, i);
    // Teaser cards (a linked headline and an excerpt, two or more alike): other stories.
    // On a list page (the article's best block is mostly such cards, or holds a long run of them)
    // they are the content.
    const scan = teaserCards(el, stats, removed);
    const teasers = scan.run;
    if (teasers !== null && isTop && (teasers.chars >= 0.5 * rootChars || teasers.cards.length >= LIST_PAGE_CARDS)) listCards?.push(teasers);
    else if (teasers !== null) {
      if (teasers.chars >= 0.5 * s.chars && (el !== root || !isTop)) {
        removed.add(el);
        return;
      }
      for (const c of teasers.cards) removed.add(c);
      s = new FiguresView(stats, measure(el, stats, kept));
    }
    // One other story's teaser among the element's blocks (its linked headline and excerpt).
    if (teasers === null) {
      const embed = embeddedTeaser(scan.only, stats, removed, rootChars);
      if (embed !== null) {
        removed.add(embed);
        s = new FiguresView(stats, measure(el, stats, kept));
      }
    }
    if (el === root) return;
    if (el.parentNode === root && HEADINGS.has(el.nodeName)) topHeadings.push(el);
    // A widget's title left alone when cleaning took what it titled (a gallery's pictures, a box
    // of teasers): "Business news in pictures" with nothing under it.
    if (isOrphanedTitle(el, s, stats, removed)) {
      removed.add(el);
      return;
    }
    // Another story inside the article, with a headline and a byline of its own.
    if (isEmbeddedStory(el, s, stats, rootChars)) {
      removed.add(el);
      return;
    }
    // A comment area that its markup does not name: its title, what follows the title among its
    // siblings (the thread, the reply form), and the block that the title opens.
    const prev = previousElement(el);
    const first = firstElement(el);
    if ((prev !== null && followsCommentHead(el, removed, commentHeads)) || isCommentHead(el, s)) {
      removed.add(el);
      commentHeads.add(el);
      return;
    }
    if (first !== null && commentHeads.has(first)) {
      removed.add(el);
      return;
    }
    // A contact block at the article's end: its label and the lines after it among its siblings.
    if ((prev !== null && followsCommentHead(el, removed, contactHeads)) || isContactHead(el, s, stats)) {
      removed.add(el);
      contactHeads.add(el);
      return;
    }
    // An author box that its label opens ("About the author"): the label and the bio after it.
    if ((prev !== null && followsCommentHead(el, removed, authorHeads)) || isAuthorHead(el, s, stats, rootChars)) {
      removed.add(el);
      authorHeads.add(el);
      return;
    }
    const head = isLinkListHead(el, s);
    if (head !== "no") {
      removed.add(el);
      if (head === "head") listHeads.add(el);
      return;
    }
    // The block after such a heading when it is link-heavy, and a small box that such a heading
    // opens (a "read also" teaser inside the article).
    if (prev !== null && listHeads.has(prev) && s.chars > 0 && s.linkChars > 0.3 * s.chars) {
      removed.add(el);
      return;
    }
    if (first !== null && listHeads.has(first) && s.chars < 600 && (s.chars < 300 || s.linkChars > 0.3 * s.chars)) {
      removed.add(el);
      return;
    }
    if ((relaxed && unlikely.has(el) && s.chars < 4 * META_MAX_CHARS) || shouldRemove(el, s, scores.get(el) ?? 0, stats, removed)) removed.add(el);
  }, { removed });
  const s = stats.get(root) ?? emptyStats();
  const figures = { chars: s.chars, sentences: s.sentences };
  dropLinkListTails(root, topHeadings, removed, stats);
  return figures;
}

/**
 * Whether a `<figcaption>` is the text of a slide rather than a photo's caption: a listicle or
 * gallery article ("84. Alex from A Clockwork Orange", then what you need and how) writes its
 * text under each picture, in paragraphs of sentences. A caption is a line or two about the
 * picture, with its credit.
 */
function isSlideText(s: Figures): boolean {
  return s.paragraphs >= 2 && s.sentences >= 2 && s.chars >= SLIDE_TEXT_CHARS && s.linkChars < 0.3 * s.chars;
}

const SLIDE_TEXT_CHARS = 150;

function shouldRemove(el: LightElement, s: Figures, contentScore: number, stats: FiguresTable, removed: ReadonlySet<LightElement>): boolean {
  const name = el.nodeName;
  if (name === "INPUT" || name === "TEXTAREA" || name === "LABEL") return true;
  // Whatever its class says ("slide-caption"): the slide's text is the article's.
  if (name === "FIGCAPTION") return !isSlideText(s);
  // A link back to the listing on a line of its own ("zurück zur Listenansicht", "Back to news"),
  // or a link line to the reader that points on ("Hier geht es zur Anmeldung", "Subscribe now").
  if (name === "A" && s.chars < 60 && standsAlone(el)) {
    const start = textStart(el);
    if (BACK_LINK.test(start) || (READER_PROMPT.test(start) && isOwnLine(el))) return true;
  }
  // A dateline or a name that opens a sentence of the text is the text's, whatever its class says.
  if (INLINE.has(name) && s.chars < META_MAX_CHARS && s.linkChars === 0 && sentenceGoesOn(el)) return false;
  if (isFurnitureBlock(el, s)) return true;
  const weight = classWeight(el);
  // A heading that is all link is a teaser's headline (a list of other stories), not a section title.
  if (HEADINGS.has(name)) return (weight < 0 && s.chars < META_MAX_CHARS) || (s.chars > 0 && s.linkChars >= 0.9 * s.chars);
  if (!CONDITIONAL.has(name)) return false;
  if (name === "TABLE" && isDataTable(el, s)) return false;
  if (s.hasCode && (name === "PRE" || name === "CODE")) return false;
  // Furniture words weigh against an element, unless it holds article-like text in quantity
  // (generic builder classes such as "…-widget-container" wrap article text too).
  // A paragraph of sentences is text whatever its class says (generated class names read as words).
  const prose = name === "P" && s.sentences > 0 && s.chars >= 100 && s.linkChars < 0.2 * s.chars;
  if (!prose && weight + Math.max(0, contentScore) < 0 && (s.commas < 10 || s.sentences < 5)) return true;
  if (s.chars === 0) return s.images === 0 && s.embeds === 0 && name !== "TD";
  if (s.commas >= 10) return false;
  const density = s.linkChars / s.chars;
  const isList = name === "UL" || name === "OL" || name === "DL";
  if (s.images > 1 && s.paragraphs / s.images < 0.5 && s.chars < 200) return true;
  if (!isList && s.listItems - 100 > s.paragraphs) return true;
  if (s.inputs > Math.floor(s.paragraphs / 3)) return true;
  if (!isList && s.headingChars / s.chars < 0.9 && s.chars < 25 && (s.images === 0 || s.images > 2) && name !== "P" && name !== "TD" && name !== "SPAN" && !(s.hasCode && wrapsCodeBlock(el))) return true;
  // A linked cell of a data table (a product's name, a download's platform) is the table's data.
  if (name === "TD" && inDataTable(el)) return false;
  if (name === "P" && density >= 0.95 && s.chars < LINK_LINES_MAX_CHARS && isLinkLines(el)) return true;
  if (name === "P" || name === "SPAN" || name === "TD") return density > 0.8 && s.sentences === 0 && s.chars < 300 && !(s.chars <= ADDRESS_MAX_CHARS && WRITTEN_ADDRESS.test(textStart(el, ADDRESS_MAX_CHARS)));
  if (!isList && weight < 25 && density > 0.2 && s.sentences < 3) return !holdsOnlyDataTable(el, stats, removed);
  if (isList && density > 0.5 && s.sentences < 2) return true;
  if (isList && density >= 0.95 && s.chars < LINK_LIST_MAX_CHARS && linksElsewhere(el)) return true;
  if (weight >= 25 && density > 0.5) return true;
  // A box of a picture or a player and a short line of text is a captioned medium (the caption
  // policy), unless the line is written in the box itself: see writesOwnLine.
  if ((s.embeds === 1 && s.chars < 75) || s.embeds > 1) return s.chars < 75 && !writesOwnLine(el, stats, removed);
  return false;
}

/** At most this many children of a box are looked at for the text written in it directly. */
const OWN_TEXT_CHILDREN = 16;

/**
 * A line of this many characters written in a box (its text nodes and inline elements beside its
 * blocks), at least {@link OWN_TEXT_MIN_CHARS} of them in its own text nodes, is the box's own.
 */
const OWN_LINE_CHARS = 30;

const OWN_TEXT_MIN_CHARS = 10;

/** At most this many characters of a text node are looked at for where its line starts. */
const OWN_TEXT_LOOK = 512;

/** The boxes that {@link writesOwnLine} kept, for the boxes around them (the trees live for one conversion). */
const OWN_LINE_BOXES = new WeakSet<LightElement>();

/**
 * Whether a box holds a line of text written in it directly (its own text nodes, with the inline
 * elements among them, beside its blocks), or holds such a box: a step of instructions beside its
 * picture ("Verrühre alle Zutaten mit <span>den Rührstäben</span> …" then the photo of it, with a
 * counter or a show/hide control that cleaning took). A caption sits in an element of its own
 * (`<figcaption>`, a captioned `<p>`). Looks at most at {@link OWN_TEXT_CHILDREN} children, at
 * most {@link OWN_TEXT_LOOK} + 2 × {@link OWN_LINE_CHARS} characters of each text node, and the
 * inline children's figures from this walk's table: bounded per box.
 */
function writesOwnLine(el: LightElement, stats: FiguresTable, removed: ReadonlySet<LightElement>): boolean {
  let own = 0;
  let inline = 0;
  let n = 0;
  for (let c = el.firstChild; c !== null && n < OWN_TEXT_CHILDREN; c = c.nextSibling, n++) {
    if (c.nodeType === 1) {
      if (removed.has(c)) continue;
      if (OWN_LINE_BOXES.has(c)) return markOwnLine(el);
      if (INLINE.has(c.nodeName) && stats.holds(c.walkIndex)) inline += stats.chars[c.walkIndex]!;
      continue;
    }
    // The source's indentation before the line is no part of it; a line after more blank space
    // than a bounded look reaches counts as none.
    const from = (c.data.length > OWN_TEXT_LOOK ? c.data.slice(0, OWN_TEXT_LOOK) : c.data).search(/\S/);
    if (from < 0) continue;
    countText(c.data.slice(from, from + 2 * OWN_LINE_CHARS));
    own += textChars;
  }
  return own >= OWN_TEXT_MIN_CHARS && own + inline >= OWN_LINE_CHARS && markOwnLine(el);
}

function markOwnLine(el: LightElement): true {
  OWN_LINE_BOXES.add(el);
  return true;
}

/**
 * Whether an inline element is a line of its own: nothing but whitespace, a line break or a block
 * beside it on either side. A link set in bold between bold words ("<b>…</b><a><b>Follow us</b></a><b>
 * to stay …</b>") is in a sentence. Looks at one sibling each way, past whitespace.
 */
function isOwnLine(el: LightElement): boolean {
  const endsLine = (n: LightNode | null) => n === null || n.nodeName === "BR" || (n.nodeType === 1 && !INLINE.has(n.nodeName));
  // The link's inline wrappers that hold nothing else (`<strong><a>…</a></strong>.`) are the line's
  // element: their siblings say whether it stands alone.
  let line: LightElement = el;
  for (let level = 0; level < INLINE_WRAPPER_LEVELS; level++) {
    const prev = pastBlankText(line.previousSibling, (n) => n.previousSibling);
    const next = pastBlankText(line.nextSibling, (n) => n.nextSibling);
    const parent = line.parentNode;
    if (prev !== null || next !== null || parent === null || !INLINE.has(parent.nodeName)) return endsLine(prev) && endsLine(next);
    line = parent;
  }
  return false;
}

/** At most this many inline wrappers around a link are climbed (`<p><em><strong><a>`). */
const INLINE_WRAPPER_LEVELS = 4;

/** `n`, or the first sibling from it on (by `step`) that is not whitespace-only text. */
function pastBlankText(n: LightNode | null, step: (n: LightNode) => LightNode | null): LightNode | null {
  while (n !== null && n.nodeType === 3 && n.data.trim() === "") n = step(n);
  return n;
}

/** A paragraph of links one per line is a box of a few headlines. */
const LINK_LINES_MAX_CHARS = 600;

/** At most this many children of such a paragraph are looked at. */
const LINK_LINES_CHILDREN = 40;

/**
 * Whether a paragraph is links alone, two or more, each on a line of its own (`<a>…</a><br><a>…</a>`):
 * a list of other pages written without a list, such as the headlines of a related-stories box. Its
 * headlines may end with "?" or "!", which the link-density rule reads as sentences. Links whose
 * text is their own address (sources written out) are not such a list.
 */
function isLinkLines(el: LightElement): boolean {
  let links = 0;
  let lineOpen = false;
  let n = 0;
  for (let c = el.firstChild; c !== null; c = c.nextSibling) {
    if (++n > LINK_LINES_CHILDREN) return false;
    if (c.nodeType === 3) {
      if (c.data.trim() !== "") return false;
      continue;
    }
    if (c.nodeType !== 1) continue;
    if (c.nodeName === "BR") {
      lineOpen = false;
      continue;
    }
    if (c.nodeName !== "A" || lineOpen || WRITTEN_ADDRESS.test(textStart(c, ADDRESS_MAX_CHARS))) return false;
    links++;
    lineOpen = true;
  }
  return links >= 2;
}

/** A list of other pages' headlines is a box; a longer list of links is an index, judged by the rules before. */
const LINK_LIST_MAX_CHARS = 1500;

/** At most this many nodes of such a list are walked for its links. */
const LINK_LIST_NODES = 400;

/**
 * Whether a list that is all link holds two or more links and none to a place on a page (`#…`): a
 * table of contents links to the article's own sections, and is kept by the rules above; headlines
 * of other stories link to other pages. Their headlines may end with "?" or "!", which the list
 * rule before reads as sentences.
 */
function linksElsewhere(el: LightElement): boolean {
  let links = 0;
  let steps = 0;
  const stack: LightNode[] = [];
  for (let c = el.lastChild; c !== null; c = c.previousSibling) stack.push(c);
  while (stack.length > 0) {
    if (++steps > LINK_LIST_NODES) return false;
    const n = stack.pop()!;
    if (n.nodeType !== 1) continue;
    if (n.nodeName === "A") {
      if ((n.attributes.href ?? "").includes("#")) return false;
      links++;
      continue;
    }
    for (let c = n.lastChild; c !== null; c = c.previousSibling) stack.push(c);
  }
  return links >= 2;
}

/** At most this many children of a block are looked at for the data table it holds. */
const TABLE_WRAPPER_CHILDREN = 8;

/**
 * Whether a block's kept text is all in one data table (a match's facts with linked names, a
 * product table): its link density is the table's, whose linked cells are data (see
 * {@link inDataTable}), not a link list's.
 */
function holdsOnlyDataTable(el: LightElement, stats: FiguresTable, removed: ReadonlySet<LightElement>): boolean {
  let table: LightElement | null = null;
  let n = 0;
  for (let c = el.firstChild; c !== null; c = c.nextSibling) {
    if (c.nodeType === 3) {
      if (c.data.trim() !== "") return false;
      continue;
    }
    if (c.nodeType !== 1 || removed.has(c)) continue;
    if (++n > TABLE_WRAPPER_CHILDREN) return false;
    if ((stats.get(c)?.chars ?? 0) === 0) continue;
    if (table !== null || c.nodeName !== "TABLE") return false;
    table = c;
  }
  const ts = table === null ? undefined : stats.get(table);
  return table !== null && ts !== undefined && isDataTable(table, ts);
}

/** A web or e-mail address written out is a line or so. */
const ADDRESS_MAX_CHARS = 120;

/** At most this many children of a short block are looked at for the code block it wraps. */
const CODE_WRAPPER_CHILDREN = 8;

/**
 * Whether a block holds a code block (`<pre>`) among its first children: the wrapper a site's
 * highlighter or copy button puts around a one-line command ("pip install example", "npm test"),
 * which is as short as a widget's leftover text but is the article's code.
 */
function wrapsCodeBlock(el: LightElement): boolean {
  let n = 0;
  for (let c = el.firstChild; c !== null && n < CODE_WRAPPER_CHILDREN; c = c.nextSibling, n++) if (c.nodeType === 1 && c.nodeName === "PRE") return true;
  return false;
}

/**
 * A heading that introduces a link list ("Related", "More from …") at the top level of the
 * article goes with the link-heavy block after it; trailing headings with nothing after them go.
 */
function dropLinkListTails(root: LightElement, headings: readonly LightElement[], removed: Set<LightElement>, stats: FiguresTable): void {
  const articleChars = stats.get(root)?.chars ?? 0;
  // `headings`: the headings among root's children, in order (the cleaning's walk gathered them).
  for (const n of headings) {
    if (!removed.has(n) && isLinkListHeading(textStart(n))) {
      removed.add(n);
      let next = n.nextSibling;
      while (next !== null && (next.nodeType !== 1 || removed.has(next))) next = next.nextSibling;
      if (next !== null && next.nodeType === 1) {
        const s = stats.get(next);
        if (s !== undefined && s.chars > 0 && s.linkChars / s.chars > 0.3) removed.add(next);
      }
    }
  }
  // The last element the loop kept: it removes only the headings it takes and the blocks after them.
  let last: LightElement | null = null;
  for (let n = root.lastChild; n !== null && last === null; n = n.previousSibling) if (n.nodeType === 1 && !removed.has(n)) last = n;
  // Trailing headings with no text after them: section titles left over from what cleaning took.
  // A pull quote or a summary line set as a heading is a sentence of the article, and stays.
  // An appeal to the reader at the article's end goes too, at any length up to a box's.
  last = pastBlanks(last, removed, stats);
  // So does a label line that ends with a colon ("Teilnehmende Blogs:"): what it introduced (a
  // list of links, a map, a widget) was taken, or never was text.
  while (last !== null && ((HEADINGS.has(last.nodeName) && !isSentenceHeading(last, stats.get(last))) || isOrphanedLabel(last, stats.get(last)) || isTrailingAppeal(last, stats.get(last), articleChars))) {
    removed.add(last);
    last = pastBlanks(previousKept(last, removed), removed, stats);
  }
  // The appeal may close the article's last container (the post's body inside its wrapper), and
  // a short line or two may follow it (a credit, a separator).
  let box = last;
  for (let depth = 0; box !== null && depth < APPEAL_DEPTH && APPEAL_CONTAINERS.has(box.nodeName); depth++) {
    let tail = pastBlanks(lastKept(box, removed), removed, stats);
    let passed = 0;
    while (tail !== null) {
      const s = stats.get(tail);
      if (isTrailingAppeal(tail, s, articleChars)) {
        removed.add(tail);
      } else if (passed < APPEAL_PASSED_LINES && s !== undefined && s.chars < APPEAL_PASSED_CHARS && !APPEAL_CONTAINERS.has(tail.nodeName)) {
        passed++;
      } else break;
      tail = pastBlanks(previousKept(tail, removed), removed, stats);
    }
    if (tail !== null && passed > 0) break;
    box = tail;
  }
}

/**
 * `el`, or the first kept element before it, past the blanks at the end of a run of siblings: a
 * line break, a rule, or an empty paragraph (`<br>` or `<p>&nbsp;</p>` after a box at the
 * article's end). They end no block of their own, so the article's last block is the one before
 * them. An empty element of another kind may be a picture's or a player's place, and stops.
 */
function pastBlanks(el: LightElement | null, removed: ReadonlySet<LightElement>, stats: FiguresTable): LightElement | null {
  for (let n = el; n !== null; n = previousKept(n, removed)) {
    if (n.nodeName === "BR" || n.nodeName === "HR") continue;
    const s = stats.get(n);
    if (n.nodeName !== "P" || s === undefined || s.chars > 0 || s.images > 0 || s.embeds > 0 || s.inputs > 0) return n;
  }
  return null;
}

/** A label line ("Teilnehmende Blogs:", "Die Karte zum Abspeichern:") is a few words. */
const LABEL_LINE_CHARS = 60;

/**
 * Whether a block is a label line with nothing after it: a paragraph or a short line of at most
 * {@link LABEL_LINE_CHARS} characters, no link, that ends with a colon. Asked only of the
 * article's last blocks ({@link dropLinkListTails}).
 */
function isOrphanedLabel(el: LightElement, s: Figures | undefined): boolean {
  if (s === undefined || s.chars === 0 || s.chars > LABEL_LINE_CHARS || s.linkChars > 0 || !LABEL_TAGS.has(el.nodeName)) return false;
  return /[:：]$/.test(textStart(el, 2 * LABEL_LINE_CHARS));
}

/** Blocks that hold a label line of their own. */
const LABEL_TAGS = new Set(["P", "DIV", "SPAN", "STRONG", "B", "DT"]);

/** A box that asks the reader for support or a subscription is a few short paragraphs. */
const APPEAL_MAX_CHARS = 1000;

/** How many containers deep the end of the article is looked at for an appeal. */
const APPEAL_DEPTH = 8;

/** At most this many short lines (under this many characters) after an appeal are passed over, and kept. */
const APPEAL_PASSED_LINES = 2;

const APPEAL_PASSED_CHARS = 150;

/** Containers whose last block is the article's last block. */
const APPEAL_CONTAINERS = new Set(["DIV", "SECTION", "ARTICLE", "MAIN"]);

/**
 * Whether a block at the end of the article is a line or a box to the reader about the site that
 * is longer than a prompt line ({@link PROMPT_MAX_CHARS}): "Enjoy our magazine? We chose not to put
 * up a paywall … please support us", "Hat dir dieser Artikel gefallen? Dann unterstütze uns …". It
 * opens as a reader prompt ({@link READER_PROMPT}) and speaks to the reader or for the site in its
 * first lines ({@link READER_ADDRESS}: "you", "we", "dir", "uns"); in the middle of the article a
 * paragraph that opens so may be the story's, at its end such a block is the site's appeal, but a
 * last paragraph that only starts with such words ("Sign up numbers for the regatta were …")
 * stays. Text outside an element (a line in the container itself) ends the search: that text is
 * the article's last line.
 */
function isTrailingAppeal(el: LightElement, s: Figures | undefined, articleChars: number): boolean {
  // Under half the article: a short article's own container may open with a label ("- Advertisement -").
  if (s === undefined || s.chars === 0 || s.chars >= APPEAL_MAX_CHARS || 2 * s.chars >= articleChars || INLINE.has(el.nodeName) || TABLE_PARTS.has(el.nodeName)) return false;
  const start = textStart(el, FURNITURE_START_CHARS);
  if (!READER_PROMPT.test(start)) return false;
  // A start cut at the limit may end in part of a word ("Te" of "Territory"): that part is no word.
  return READER_ADDRESS.test(start.length < FURNITURE_START_CHARS ? start : start.slice(0, start.lastIndexOf(" ")));
}

/** A heading of at least this many words that ends a sentence is text set large, not a section's title. */
const SENTENCE_HEADING_WORDS = 8;

/** Opening quotation marks (a pull quote): “ " „ « » ‹ › ‘ ' 「 『. */
const OPENING_QUOTE = /^["\u201C\u201E\u00AB\u00BB\u2039\u203A\u2018'\u300C\u300E]/;

/**
 * Whether a heading reads as a sentence of the article rather than a section's title: a pull
 * quote ("“We will rebuild the bridge,” the mayor said") or a summary line set in a heading's
 * type ("The tale is awful. One could say it is perfectly awful."). Section titles are short and
 * end without a full stop; link-list and comment titles are caught before this is asked.
 */
function isSentenceHeading(el: LightElement, s: Figures | undefined): boolean {
  if (s === undefined || s.chars < 30 || s.linkChars > 0) return false;
  const text = textStart(el, 400);
  if (OPENING_QUOTE.test(text)) return true;
  // A statement: a question or an exclamation at the end is more often a prompt to the reader.
  return /[.…]["\u201D\u00BB\u2019']?$/.test(text) && text.split(" ").length >= SENTENCE_HEADING_WORDS;
}
