import type { WorkMeter } from "../conversion-deadline";
import { LightElement, type LightNode, type PackedTable, PRUNED_TAGS } from "../light-dom";
import {
  ALWAYS_UNLIKELY, AUTHOR_BIO, AUTHOR_BOX_LABEL, BACK_LINK, BYLINE_LINE, CAPTION_CREDIT_END, COMMENT_HEADING, CONTACT_HEADING, CONTENT_HEADER, COPYRIGHT_NOTICE, CREDIT_BY_LINE, CREDIT_LINE, FILING_LINE, INLINE_TAGS, LINK_LIST_HEADING, MAYBE_CANDIDATE, MEDIA_LINK_LABEL, METADATA_LINE, NEGATIVE, POSITIVE, READER_ADDRESS, READER_PROMPT, SERVER_MESSAGE_LEVEL, SERVER_MESSAGE_TEXT, SIDE_BOX, UNLIKELY_CANDIDATE, UNLIKELY_ROLES, hasClassWord,
} from "./patterns";

/**
 * Main-content extraction over the light tree (docs/content.md, "Main content").
 *
 * Scoring follows Mozilla Readability's idea (paragraph text and commas credited to the ancestors
 * that hold the paragraphs, class and id words weighing in, link-heavy candidates discounted,
 * siblings of the winner that look like article text joined to it), computed in linear passes
 * over the tree: every figure an element needs is gathered in one post-order walk from its
 * children's figures, and a paragraph credits at most five ancestors. The chosen subtree is then
 * cleaned of what sits inside articles but is not article text: link-dense blocks (related
 * stories, tag lists, share bars, "more from" lists), hidden elements, bylines, dates and photo
 * credits. Which attempt is kept is decided from the article itself: enough text and sentences.
 */

export interface ExtractOptions {
  /** The page's `<title>` text (whitespace collapsed): a heading repeating it is kept as the article's title. */
  title: string;
  /** The conversion's deadline checkpoints: one unit per element visited by the extraction's walks. */
  meter?: WorkMeter;
}

/** Why the extraction returned what it returned. */
export type ExtractReason =
  /** An article was found with the full boilerplate filters. */
  | "article"
  /** The article needed the relaxed filters (elements with furniture words kept while scoring). */
  | "article_relaxed"
  /** No article with enough text: the whole page, cleaned of boilerplate blocks. */
  | "page_cleaned"
  /** The page has no text that survives cleaning: the caller converts the whole page. */
  | "no_text";

export interface ExtractResult {
  /** A detached element holding the article (or the cleaned page); null with reason "no_text". */
  element: LightElement | null;
  reason: ExtractReason;
}

/**
 * What the parse drops for main-content extraction: {@link PRUNED_TAGS} but the page furniture
 * (`nav`, `aside`, `footer`), which the extractor judges itself. An unclosed `<aside>` must not
 * swallow the article after it, and an article may sit inside one. `<noscript>` is built too:
 * it is set aside like a hidden element unless it holds the only copy of the article (see
 * {@link isNoscriptArticle}).
 */
export const MAIN_CONTENT_PRUNED: ReadonlySet<string> = new Set([...PRUNED_TAGS].filter((t) => t !== "nav" && t !== "aside" && t !== "footer" && t !== "noscript"));

/** Comment threads can be long: their size never makes them a wrapper of the article. */
const COMMENTS = /comment(?!ary)|kommentare|komentarze|disqus|replies/i;

/** Furniture by element name: unlikely as the article, removed from it when small. */
const FURNITURE_TAGS = new Set(["NAV", "ASIDE", "FOOTER"]);

/** An article with at least this many non-space characters is accepted without further attempts. */
export const ENOUGH_CHARS = 500;
/** Below this many characters, or {@link MIN_SENTENCES} sentences, an article is not enough on its own. */
export const MIN_CHARS = 140;
export const MIN_SENTENCES = 2;

/** Figures of one element, gathered from its (kept) children. */
interface Stats {
  /** Non-space characters of the text. */
  chars: number;
  /** Non-space characters inside links. */
  linkChars: number;
  /** Non-space characters not inside a block-level descendant: the element's own paragraph text. */
  inlineChars: number;
  /** Commas in the element's own paragraph text. */
  inlineCommas: number;
  /** Commas in all of the element's text. */
  commas: number;
  /** Sentence ends (., !, ?, and their CJK forms, followed by a space or the end of a text). */
  sentences: number;
  paragraphs: number;
  images: number;
  listItems: number;
  inputs: number;
  embeds: number;
  headingChars: number;
  /** `<table>`, `<pre>` or `<code>` inside (their text is kept as is). */
  hasCode: boolean;
}

/**
 * Commas beyond ASCII's (Readability's set: Arabic, CJK, vertical and small forms, and the
 * medieval and reversed ones), compared by code: a regular expression per character of the page
 * was a tenth of the extraction's time.
 */
function isWideComma(c: number): boolean {
  return c === 0x060c || c === 0xfe50 || c === 0xfe10 || c === 0xfe11 || c === 0x2e41 || c === 0x2e34 || c === 0x2e32 || c === 0xff0c || c === 0x3001;
}
const HEADINGS = new Set(["H1", "H2", "H3", "H4", "H5", "H6"]);
const INLINE = new Set([...INLINE_TAGS].map((t) => t.toUpperCase()));
/** Containers that are removed when their figures look like furniture (Readability's conditional cleaning). */
const CONDITIONAL = new Set(["DIV", "SECTION", "UL", "OL", "DL", "TABLE", "HEADER", "FIELDSET", "SPAN", "P", "CENTER", "TD"]);
/** Scored with all their text, nested blocks included (Readability's tags to score). */
const WHOLE_TEXT_PARAGRAPHS = new Set(["P", "SECTION", "PRE"]);
const TAG_SCORE: Readonly<Record<string, number>> = {
  DIV: 5, ARTICLE: 8, MAIN: 5, SECTION: 3, PRE: 3, TD: 3, BLOCKQUOTE: 3,
  ADDRESS: -3, OL: -3, UL: -3, DL: -3, DD: -3, DT: -3, LI: -3, FORM: -3,
  H1: -5, H2: -5, H3: -5, H4: -5, H5: -5, H6: -5, TH: -5,
};
/** Short elements with these class/id words are page metadata, not article text. */
const META_LIKE = /byline|author|dateline|date|posted|published|credit|copyright|caption|meta|share|social|tags|related|breadcrumb|rating|print|toolbar/i;
const META_MAX_CHARS = 200;
/** A byline names a few people and an outlet: a longer block that starts like one is text. */
const BYLINE_MAX_CHARS = 120;
/** Metadata lines ("Autor: Ann Example", "Veröffentlicht am 12.03.2020, 14:05 Uhr") are shorter than this. */
const METADATA_LINE_MAX_CHARS = 100;
const TABLE_PARTS = new Set(["TABLE", "THEAD", "TBODY", "TFOOT", "TR", "TD", "TH", "CAPTION"]);
/** A reader prompt ("Subscribe now…", "Follow us on…") is a line or two. */
const PROMPT_MAX_CHARS = 300;
/** An author box (a bio, a photo, links) or a disclaimer is a paragraph or two: a longer block so named is more than that. */
const SIDE_BOX_MAX_CHARS = 1500;

function emptyStats(): Stats {
  return { chars: 0, linkChars: 0, inlineChars: 0, inlineCommas: 0, commas: 0, sentences: 0, paragraphs: 0, images: 0, listItems: 0, inputs: 0, embeds: 0, headingChars: 0, hasCode: false };
}

/**
 * The figures of every element one walk measured, in typed arrays indexed by the element's
 * `walkIndex` (numbered once, by the first walk over the page): no map and no object per element,
 * which on a page of hundreds of thousands of elements were most of the extraction's time
 * (lookups, and the garbage collector moving the figures of every walk). An element has figures
 * in the table when its stamp is the table's generation: {@link reset} starts the next walk
 * without clearing anything.
 */
class FiguresTable {
  chars: Int32Array;
  linkChars: Int32Array;
  inlineChars: Int32Array;
  inlineCommas: Int32Array;
  commas: Int32Array;
  sentences: Int32Array;
  paragraphs: Int32Array;
  images: Int32Array;
  listItems: Int32Array;
  inputs: Int32Array;
  embeds: Int32Array;
  headingChars: Int32Array;
  hasCode: Uint8Array;
  stamp: Int32Array;
  generation = 1;
  /** Elements numbered so far (by {@link number}). */
  size = 0;

  constructor(capacity: number) {
    this.chars = new Int32Array(capacity);
    this.linkChars = new Int32Array(capacity);
    this.inlineChars = new Int32Array(capacity);
    this.inlineCommas = new Int32Array(capacity);
    this.commas = new Int32Array(capacity);
    this.sentences = new Int32Array(capacity);
    this.paragraphs = new Int32Array(capacity);
    this.images = new Int32Array(capacity);
    this.listItems = new Int32Array(capacity);
    this.inputs = new Int32Array(capacity);
    this.embeds = new Int32Array(capacity);
    this.headingChars = new Int32Array(capacity);
    this.hasCode = new Uint8Array(capacity);
    this.stamp = new Int32Array(capacity);
  }

  /** Gives `el` the next number, growing the arrays as needed (the first walk, over the whole page). */
  number(el: LightElement): void {
    if (this.size === this.stamp.length) this.grow(Math.max(1024, 2 * this.size));
    el.walkIndex = this.size++;
  }

  private grow(capacity: number): void {
    const wider = <T extends Int32Array | Uint8Array>(a: T): T => {
      const out = new (a.constructor as new (n: number) => T)(capacity);
      out.set(a);
      return out;
    };
    this.chars = wider(this.chars);
    this.linkChars = wider(this.linkChars);
    this.inlineChars = wider(this.inlineChars);
    this.inlineCommas = wider(this.inlineCommas);
    this.commas = wider(this.commas);
    this.sentences = wider(this.sentences);
    this.paragraphs = wider(this.paragraphs);
    this.images = wider(this.images);
    this.listItems = wider(this.listItems);
    this.inputs = wider(this.inputs);
    this.embeds = wider(this.embeds);
    this.headingChars = wider(this.headingChars);
    this.hasCode = wider(this.hasCode);
    this.stamp = wider(this.stamp);
  }

  /** Makes room for elements numbered up to `capacity` (numbered in another table sharing the numbers). */
  fit(capacity: number): void {
    if (capacity > this.stamp.length) this.grow(Math.max(capacity, 2 * this.stamp.length));
  }

  /** Forgets every element's figures: the next walk starts. */
  reset(): void {
    this.generation++;
  }

  /** Whether the element numbered `i` was measured in this walk. */
  holds(i: number): boolean {
    return i >= 0 && i < this.stamp.length && this.stamp[i] === this.generation;
  }

  /** `el`'s figures from this walk, or undefined when this walk did not measure it. */
  get(el: LightElement): Figures | undefined {
    const i = el.walkIndex;
    return this.holds(i) ? new FiguresView(this, i) : undefined;
  }
}

/** Read-only figures of one element. */
type Figures = Readonly<Stats>;

/** One element's figures read from a {@link FiguresTable}: valid until the table's next walk measures the element again. */
class FiguresView implements Figures {
  constructor(
    private readonly table: FiguresTable,
    private readonly i: number,
  ) {}

  get chars(): number {
    return this.table.chars[this.i]!;
  }
  get linkChars(): number {
    return this.table.linkChars[this.i]!;
  }
  get inlineChars(): number {
    return this.table.inlineChars[this.i]!;
  }
  get inlineCommas(): number {
    return this.table.inlineCommas[this.i]!;
  }
  get commas(): number {
    return this.table.commas[this.i]!;
  }
  get sentences(): number {
    return this.table.sentences[this.i]!;
  }
  get paragraphs(): number {
    return this.table.paragraphs[this.i]!;
  }
  get images(): number {
    return this.table.images[this.i]!;
  }
  get listItems(): number {
    return this.table.listItems[this.i]!;
  }
  get inputs(): number {
    return this.table.inputs[this.i]!;
  }
  get embeds(): number {
    return this.table.embeds[this.i]!;
  }
  get headingChars(): number {
    return this.table.headingChars[this.i]!;
  }
  get hasCode(): boolean {
    return this.table.hasCode[this.i] === 1;
  }
}

/** What {@link countText} counted in the last text it was given. */
let textChars = 0;
let textCommas = 0;
let textSentences = 0;

/** Counts a text node's non-space characters, commas and sentence ends (into textChars, textCommas, textSentences). */
function countText(text: string): void {
  let chars = 0;
  let commas = 0;
  let sentences = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c <= 0x20 || c === 0xa0) continue;
    chars++;
    if (c === 0x2e || c === 0x21 || c === 0x3f) {
      const next = i + 1 < text.length ? text.charCodeAt(i + 1) : 0x20;
      if (next <= 0x20 || next === 0xa0) sentences++;
    } else if (c === 0x3002 || c === 0xff01 || c === 0xff1f) sentences++;
    else if (c === 0x2c || (c >= 0x60c && isWideComma(c))) commas++;
  }
  textChars = chars;
  textCommas = commas;
  textSentences = sentences;
}

/** Taxonomy classes that CMSs put on a post ("tag-comments", "category-sidebar-news"): the post's topics, not its role. */
const TAXONOMY_CLASS = /(?:^|\s)(?:tag|category)-\S*/g;

/** The class attribute without taxonomy classes. */
function roleClasses(el: LightElement): string | undefined {
  const cls = el.attributes.class;
  return cls !== undefined && (cls.includes("tag-") || cls.includes("category-")) ? cls.replace(TAXONOMY_CLASS, " ") : cls;
}

function classAndId(el: LightElement): string {
  const cls = roleClasses(el);
  const id = el.attributes.id;
  return cls === undefined ? (id ?? "") : id === undefined ? cls : `${cls} ${id}`;
}

/** Readability's class weight: ±25 for article and furniture words in class and id. */
function classWeight(el: LightElement): number {
  let weight = 0;
  const cls = roleClasses(el);
  const id = el.attributes.id;
  if (cls !== undefined && cls !== "") {
    if (hasClassWord(NEGATIVE, cls)) weight -= 25;
    if (hasClassWord(POSITIVE, cls)) weight += 25;
  }
  if (id !== undefined && id !== "") {
    if (hasClassWord(NEGATIVE, id)) weight -= 25;
    if (hasClassWord(POSITIVE, id)) weight += 25;
  }
  if (el.attributes.itemprop !== undefined && /articlebody|text/i.test(el.attributes.itemprop)) weight += 25;
  return weight;
}

function isHidden(el: LightElement): boolean {
  const a = el.attributes;
  if (a.hidden !== undefined || a["aria-hidden"] === "true") return true;
  const style = a.style;
  return style !== undefined && /(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*hidden)/i.test(style);
}

/** Elements the filters drop before scoring: furniture by class, id or role, and hidden elements. */
function isUnlikely(el: LightElement): boolean {
  const name = el.nodeName;
  if (name === "BODY" || name === "A" || name === "ARTICLE" || name === "MAIN") return false;
  if (FURNITURE_TAGS.has(name)) return true;
  const role = el.attributes.role;
  if (role !== undefined && UNLIKELY_ROLES.has(role.toLowerCase())) return true;
  const match = classAndId(el);
  if (match === "") return false;
  if (hasClassWord(ALWAYS_UNLIKELY, match) && !/article|main|body/i.test(el.attributes.itemprop ?? "")) return true;
  return hasClassWord(UNLIKELY_CANDIDATE, match) && !hasClassWord(MAYBE_CANDIDATE, match) && !hasClassWord(CONTENT_HEADER, match);
}

/**
 * Post-order walk of `root`'s element subtree, children before parents, not descending into
 * elements for which `skip` is true (they are not visited either). `skip` is asked once about each
 * child, before the child's subtree is walked. Iterative over the sibling and parent links: no
 * recursion depth and no stack to grow.
 */
function postOrder(root: LightElement, skip: (el: LightElement) => boolean, visit: (el: LightElement) => void): void {
  let el = deepestFirst(root, skip);
  for (;;) {
    activeMeter?.tick();
    visit(el);
    if (el === root) return;
    const next = nextKept(el.nextSibling, skip);
    el = next === null ? el.parentNode! : deepestFirst(next, skip);
  }
}

/** The first element from `n` on among its siblings for which `skip` is false. */
function nextKept(n: LightNode | null, skip: (el: LightElement) => boolean): LightElement | null {
  for (; n !== null; n = n.nextSibling) if (n.nodeType === 1 && !skip(n)) return n;
  return null;
}

/** Where a post-order walk of `el`'s subtree starts: down the first kept children to one without any. */
function deepestFirst(el: LightElement, skip: (el: LightElement) => boolean): LightElement {
  for (;;) {
    activeMeter?.tick();
    const child = nextKept(el.firstChild, skip);
    if (child === null) return el;
    el = child;
  }
}

/**
 * Gathers `el`'s figures from its text and its kept children's figures (measured before it in
 * this walk of `t`) into `t`, and returns its number there.
 */
function measure(el: LightElement, t: FiguresTable, kept: (child: LightElement) => boolean): number {
  let chars = 0;
  let linkChars = 0;
  let inlineChars = 0;
  let inlineCommas = 0;
  let commas = 0;
  let sentences = 0;
  let paragraphs = 0;
  let images = 0;
  let listItems = 0;
  let inputs = 0;
  let embeds = 0;
  let headingChars = 0;
  let hasCode = false;
  for (let n: LightNode | null = el.firstChild; n !== null; n = n.nextSibling) {
    if (n.nodeType === 3) {
      countText(n.data);
      chars += textChars;
      inlineChars += textChars;
      commas += textCommas;
      inlineCommas += textCommas;
      sentences += textSentences;
      continue;
    }
    if (!kept(n)) continue;
    const j = n.walkIndex;
    if (!t.holds(j)) continue;
    const name = n.nodeName;
    const cChars = t.chars[j]!;
    chars += cChars;
    linkChars += name === "A" ? cChars : t.linkChars[j]!;
    sentences += t.sentences[j]!;
    commas += t.commas[j]!;
    paragraphs += t.paragraphs[j]! + (name === "P" && cChars > 0 ? 1 : 0);
    images += t.images[j]! + (name === "IMG" ? 1 : 0);
    listItems += t.listItems[j]! + (name === "LI" ? 1 : 0);
    inputs += t.inputs[j]! + (name === "INPUT" || name === "TEXTAREA" ? 1 : 0);
    embeds += t.embeds[j]! + (name === "VIDEO" || name === "AUDIO" || name === "PICTURE" ? 1 : 0);
    headingChars += HEADINGS.has(name) ? cChars : t.headingChars[j]!;
    hasCode ||= t.hasCode[j] === 1 || name === "PRE" || name === "CODE" || name === "TABLE";
    if (INLINE.has(name)) {
      inlineChars += t.inlineChars[j]!;
      inlineCommas += t.inlineCommas[j]!;
    }
  }
  // A packed table (a plain one: cells of text only, see light-dom.ts) is measured as a leaf: its
  // text is its cells' texts, all inside block-level cells, with no link, image or other element.
  const packed = el.firstChild === null ? el.packedTable : null;
  if (packed !== null) {
    for (const text of packed.cellTexts) {
      activeMeter?.tick();
      if (text === null) continue;
      countText(text);
      chars += textChars;
      commas += textCommas;
      sentences += textSentences;
    }
  }
  const i = el.walkIndex;
  t.chars[i] = chars;
  t.linkChars[i] = linkChars;
  t.inlineChars[i] = inlineChars;
  t.inlineCommas[i] = inlineCommas;
  t.commas[i] = commas;
  t.sentences[i] = sentences;
  t.paragraphs[i] = paragraphs;
  t.images[i] = images;
  t.listItems[i] = listItems;
  t.inputs[i] = inputs;
  t.embeds[i] = embeds;
  t.headingChars[i] = headingChars;
  t.hasCode[i] = hasCode ? 1 : 0;
  t.stamp[i] = t.generation;
  return i;
}

interface Attempt {
  nodes: LightElement[];
  removed: Set<LightElement>;
  chars: number;
  sentences: number;
  /** What the attempt skipped before scoring (hidden elements, and furniture unless relaxed): all it removes uncleaned. */
  skipped: ReadonlySet<LightElement>;
  /** The nodes' characters before cleaning (skipped elements aside). */
  uncleanedChars: number;
  /** The page's characters with what the attempt skipped left out, before cleaning. */
  pageChars: number;
  /** Candidate scores of the attempt's scoring pass (Readability's content score). */
  scores: Map<LightElement, number>;
  reason: ExtractReason;
}

/**
 * Extracts the main content of a page parsed into a light tree (`body`, as parseLightDocument
 * returns it). The page tree is consumed: the returned element holds nodes moved out of it.
 * Never throws on any tree the parser builds; linear in the number of nodes.
 */
export function extractMainContent(body: LightElement, options: ExtractOptions): ExtractResult {
  activeMeter = options.meter;
  activeJudgedTables = new Map();
  try {
    return extract(body, options);
  } finally {
    activeMeter = undefined;
    activeFigures = undefined;
    activeJudgedTables = undefined;
  }
}

/**
 * The figures tables of the extraction running now (module state, as {@link activeMeter}), for
 * the packed tables built into trees in the middle of it (see {@link expandTable}).
 */
let activeFigures: { raw: FiguresTable; work: FiguresTable | null } | undefined;

/** The most non-space characters of a cell that no scoring pass takes for a paragraph (see tryExtract). */
const UNSCORED_CELL_CHARS = 24;

/**
 * The first walk's look at a packed table (light-dom.ts): kept packed, and measured as a leaf,
 * when no walk before the cleaning could tell its parts apart: none is hidden (markFiltered) and
 * no cell has the text of a paragraph the scoring would credit. Else it is built into the tree
 * here, and the walk numbers its parts as any others. Never skips anything.
 */
function settleTable(el: LightElement): false {
  const packed = el.firstChild === null ? el.packedTable : null;
  if (packed === null) return false;
  let leaf = !packed.partsWithAttributes(el).some(isHidden);
  for (let c = 0; leaf && c < packed.cellTexts.length; c++) {
    activeMeter?.tick();
    const text = packed.cellTexts[c];
    if (text === null || text === undefined) continue;
    countText(text);
    leaf = textChars <= UNSCORED_CELL_CHARS;
  }
  if (!leaf) el.unpack(activeMeter);
  return false;
}

/**
 * Builds a packed table kept by the first walk into the tree, for a stage that tells its parts
 * apart (the cleaning, the first words of a block, the lead's walk), with its parts numbered and
 * measured as the first walk would have. Nothing for any other element. Each table is built at
 * most once: linear.
 */
function expandTable(el: LightElement): void {
  if (el.firstChild !== null || el.packedTable === null) return;
  el.unpack(activeMeter);
  const figures = activeFigures;
  if (figures === undefined) return;
  const { raw, work } = figures;
  postOrder(el, () => false, (part) => {
    if (part === el) return;
    raw.number(part);
    measure(part, raw, () => true);
  });
  work?.fit(raw.size);
}

/**
 * The packed tables the cleaning was about to build, each with whether all its parts stay in any
 * cleaning ({@link partsStayInCleaning}), for the extraction running now (module state, as
 * {@link activeMeter}). Judged once per table, from its arrays, before it is built.
 */
let activeJudgedTables: Map<LightElement, boolean> | undefined;

/**
 * The least text (non-space characters) of a packed table that the cleaning judges from its
 * arrays ({@link partsStayInCleaning}): below it the cleaning's own walk over its parts is cheap.
 */
const JUDGED_TABLE_CHARS = 1500;

/**
 * Whether every part of a packed table (a group, a row, a cell) stays in any cleaning, judged from
 * its arrays before it is built: then {@link cleanSubtree} leaves the table packed, measures it as
 * a leaf and asks its rules about the table alone, and the Markdown writer writes it from its
 * arrays. Building such a table and asking the rules about every part was most of the cost of
 * main-content extraction on a page of data (issue 17's one-cell rows and 1,600 x 300 table).
 *
 * A part is removed by no rule of the cleaning when its attributes name no furniture
 * ({@link attributesMayRemove}) and its words are no furniture line's ({@link opensLikeFurniture},
 * asked with its figures and first words as the cleaning would): every other rule asks for what no
 * part of a packed table has (a link, a heading, an image, an element of a name other than a
 * part's, a content score: its
 * cells have at most {@link UNSCORED_CELL_CHARS} characters, see settleTable), or for what only
 * such elements become (comment and link-list titles). With none removed, each part's figures are
 * its whole text's, as judged here, and the table's are its leaf figures. What reads inside a
 * table from outside it finds nothing that counts in the built table either: a card's headline
 * (cardHead: no heading or link), a byline under a box's heading (opensWithByline: the byline
 * test is one of the furniture tests judged here), the table's data rules (isDataTable reads the
 * arrays); the text readers (textStart, textEnd) build the table, and a PHP message in a cell
 * (removeServerMessages edits texts of the built tree) leaves the table to the rules. Only tables
 * of at least {@link JUDGED_TABLE_CHARS} characters; any doubt (a credit test that needs a text's
 * end) leaves the table to the rules too. Ticks the meter once per cell.
 */
function partsStayInCleaning(table: LightElement, packed: PackedTable): boolean {
  const figures = activeFigures?.raw.get(table);
  if (figures === undefined || figures.chars < JUDGED_TABLE_CHARS) return false;
  const texts = packed.cellTexts;
  // The nodes of row r as textStart walks them: each cell, then its text if it has one.
  const rowNodes = (walk: StartWalk, r: number): boolean => {
    for (let c = packed.cellStart(r); c < packed.cellEnd(r); c++) {
      const text = texts[c] ?? null;
      if (!walk.node(null) || (text !== null && !walk.node(text))) return false;
    }
    return true;
  };
  const rowChars = new Int32Array(packed.rowCount);
  for (let r = 0; r < packed.rowCount; r++) {
    let chars = 0;
    const start = packed.cellStart(r);
    const end = packed.cellEnd(r);
    for (let c = start; c < end; c++) {
      activeMeter?.tick();
      const text = texts[c] ?? null;
      let cellChars = 0;
      if (text !== null) {
        // A PHP message in a cell: removeServerMessages edits it in the built tree only.
        if (text.includes(SERVER_MESSAGE_MARK)) return false;
        countText(text);
        cellChars = textChars;
        if (cellChars > 0 && partLooksLikeFurniture(packed.isHeaderCell(c) ? "TH" : "TD", cellChars, (walk) => walk.node(text))) return false;
      }
      chars += cellChars;
      if (packed.cellHasAttributes(c) && attributesMayRemove(packed.cellNode(table, r, c), cellChars)) return false;
    }
    rowChars[r] = chars;
    if (packed.rowHasAttributes(r) && attributesMayRemove(packed.rowNode(table, r), chars)) return false;
    // A row of one cell opens with its cell's words, judged just now with the same figures.
    if (end - start > 1 && chars > 0 && chars < PROMPT_MAX_CHARS && partLooksLikeFurniture("TR", chars, (walk) => rowNodes(walk, r))) return false;
  }
  for (let g = 0; g < packed.groups.length; g++) {
    const group = packed.groups[g]!;
    let chars = 0;
    for (let r = group.rowStart; r < group.rowEnd; r++) chars += rowChars[r]!;
    if (packed.groupHasAttributes(g) && attributesMayRemove(packed.groupNode(table, g), chars)) return false;
    if (chars === 0 || chars >= PROMPT_MAX_CHARS) continue;
    // Each row, then its cells.
    const rows = (walk: StartWalk): void => {
      let r = group.rowStart;
      while (r < group.rowEnd && walk.node(null) && rowNodes(walk, r)) r++;
    };
    if (partLooksLikeFurniture(group.name.toUpperCase(), chars, rows)) return false;
  }
  return true;
}

/**
 * {@link textStart}(part, FURNITURE_START_CHARS) of a part that is not built: the same steps over
 * the nodes the part would hold, given one by one in the order that walk takes them.
 */
class StartWalk {
  private out = "";
  private steps = 0;
  private stopped = false;

  /** The next node (an element as null, a text as its data); false once textStart has stopped before it. */
  node(text: string | null): boolean {
    if (this.stopped || this.out.length >= FURNITURE_START_CHARS || this.steps++ >= 200) {
      this.stopped = true;
      return false;
    }
    if (text !== null) {
      this.out += text.slice(0, FURNITURE_START_CHARS).replace(/\s+/g, " ");
      if (this.out.trim() === "") this.out = "";
    }
    return true;
  }

  get start(): string {
    return this.out.trim();
  }
}

/**
 * Whether a part of a packed table of `chars` characters (at least one, less
 * than PROMPT_MAX_CHARS), whose nodes `nodes` gives, may be removed as furniture by its words:
 * {@link isFurnitureBlock}'s tests, or a doubt (a credit test that needs the text's end).
 */
function partLooksLikeFurniture(name: string, chars: number, nodes: (walk: StartWalk) => unknown): boolean {
  const walk = new StartWalk();
  nodes(walk);
  let doubt = false;
  const furniture = opensLikeFurniture(name, chars, walk.start, () => {
    doubt = true;
    return { text: "", whole: false };
  });
  return furniture || doubt;
}

/**
 * Whether the attributes of a part of a packed table (`part`, the element it stands for on its own,
 * without children; `chars` its text's characters) may have the cleaning remove it: a metadata or
 * side-box class ({@link isFurnitureBlock} asked about the childless element: its tests of words
 * find no words there, and a doubt only leaves the table to the rules), or a furniture weight on a
 * cell (shouldRemove's weight test, whatever the cell's commas and sentences). A hidden part never
 * gets here: settleTable builds such a table.
 */
function attributesMayRemove(part: LightElement, chars: number): boolean {
  if (isFurnitureBlock(part, { ...emptyStats(), chars })) return true;
  return CONDITIONAL.has(part.nodeName) && classWeight(part) < 0;
}

/**
 * Judges a packed table before the cleaning would build it (once per table; see
 * {@link partsStayInCleaning}): whether it stays packed. False for any other element.
 */
function judgeTable(el: LightElement): boolean {
  const judged = activeJudgedTables;
  if (judged === undefined || el.firstChild !== null) return false;
  const packed = el.packedTable;
  if (packed === null) return false;
  let stays = judged.get(el);
  if (stays === undefined) {
    stays = partsStayInCleaning(el, packed);
    judged.set(el, stays);
  }
  return stays;
}

/**
 * The meter of the extraction running now, for the checkpoints in the walks (postOrder and
 * markFiltered visit every element; the other loops are bounded by what those walks visited).
 * Module state rather than a parameter of every walk: the extraction is synchronous and never
 * re-entered, so at most one runs at a time on a thread.
 */
let activeMeter: WorkMeter | undefined;

function extract(body: LightElement, options: ExtractOptions): ExtractResult {
  const hidden = new Set<LightElement>();
  const unlikely = new Set<LightElement>();
  const raw = new FiguresTable(0);
  // The first headings (h1–h3), gathered by the first walk for the feed rule (articlesTitled).
  const headings: LightElement[] = [];
  activeFigures = { raw, work: null };
  postOrder(body, settleTable, (el) => {
    raw.number(el);
    measure(el, raw, () => true);
    if (headings.length < TITLE_HEADINGS && (el.nodeName === "H1" || el.nodeName === "H2" || el.nodeName === "H3")) headings.push(el);
  });
  markFiltered(body, hidden, unlikely, raw);
  // One table for the attempts' walks and their cleaning, each starting it afresh.
  const work = new FiguresTable(raw.size);
  activeFigures.work = work;
  const titleArticles = articlesTitled(headings, raw, titleMatcher(options.title));

  let best: Attempt | null = null;
  const attempts: Attempt[] = [];
  let firstScores = new Map<LightElement, number>();
  for (const relaxed of [false, true]) {
    // With no furniture found, the relaxed attempt would be the strict one again (the same elements
    // skipped, nothing to weigh down): the same article or none, never a longer one.
    if (relaxed && unlikely.size === 0) break;
    const attempt = tryExtract(body, relaxed ? hidden : new Set([...hidden, ...unlikely]), relaxed, unlikely, raw, work, titleArticles);
    if (attempt === null) continue;
    attempts.push(attempt);
    if (!relaxed) firstScores = attempt.scores;
    if (best === null || attempt.chars > best.chars) best = attempt;
    if (attempt.chars >= ENOUGH_CHARS || (attempt.chars >= MIN_CHARS && attempt.sentences >= MIN_SENTENCES)) break;
  }
  if (best === null || best.chars < MIN_CHARS || best.sentences < MIN_SENTENCES) {
    // No article with enough text and sentences of its own: the page cleaned of furniture, if that
    // has enough text and more than the article.
    const page = cleanPage(body, hidden, unlikely, firstScores, work, raw);
    if (page.chars >= MIN_CHARS && page.chars > (best?.chars ?? 0)) best = page;
  }
  if (best === null || best.chars < MIN_CHARS) best = uncleanedFallback(body, attempts, best);
  if (best === null || best.chars === 0) return { element: null, reason: "no_text" };
  return { element: materialize(best, body, options.title, raw), reason: best.reason };
}

/** A short page: its text without furniture is at most this many characters (a post or two, no portal). */
const SHORT_PAGE_CHARS = 2500;

/**
 * The result when the cleaned article and the cleaned page both hold less than a paragraph: on a
 * small page the cleaning took the article's own blocks for furniture (a short post whose
 * paragraphs link on, a single box of text) and left its headline and byline. Then the page
 * without its furniture and hidden elements, uncleaned, when that is a short page; else the
 * attempt whose nodes say the most uncleaned (the relaxed attempt's nodes hold the text that
 * furniture words marked: a forum's posts in "comment" boxes). Never less than `best`.
 */
function uncleanedFallback(body: LightElement, attempts: readonly Attempt[], best: Attempt | null): Attempt | null {
  const strict = attempts.find((a) => a.reason === "article");
  const floor = best?.chars ?? 0;
  if (strict !== undefined && strict.pageChars >= MIN_CHARS && strict.pageChars <= SHORT_PAGE_CHARS && strict.pageChars > floor) {
    return { ...strict, nodes: [body], removed: new Set(strict.skipped), chars: strict.pageChars, reason: "page_cleaned" };
  }
  const whole = attempts.reduce<Attempt | null>((a, b) => (a === null || b.uncleanedChars > a.uncleanedChars ? b : a), null);
  return whole !== null && whole.uncleanedChars > floor ? { ...whole, removed: new Set(whole.skipped), chars: whole.uncleanedChars } : best;
}

/** Pre-order: hidden elements, and furniture by class/id/role (not inside tables or code). */
function markFiltered(body: LightElement, hidden: Set<LightElement>, unlikely: Set<LightElement>, raw: FiguresTable): void {
  const pageChars = raw.get(body)?.chars ?? 0;
  // Furniture is small beside the page: an element with furniture words that holds a large part of
  // the page's text in sentences is a wrapper ("…share-container" around the article, an unclosed
  // <aside>), not furniture. A list is not a wrapper: a long list of related posts with excerpts
  // is still related posts.
  const tooBigForFurniture = (el: LightElement) => {
    const s = raw.get(el);
    return s !== undefined && s.chars > 0.3 * pageChars && s.sentences >= 5 && el.nodeName !== "UL" && el.nodeName !== "OL" && !hasClassWord(COMMENTS, classAndId(el));
  };
  const visible = lazyVisibleText(body);
  const stack: [LightElement, boolean][] = [[body, false]];
  while (stack.length > 0) {
    activeMeter?.tick();
    const [el, protectedContext] = stack.pop()!;
    for (let n = el.firstChild; n !== null; n = n.nextSibling) {
      if (n.nodeType !== 1) continue;
      if (isHidden(n) || RUBY_ANNOTATIONS.has(n.nodeName) || (n.nodeName === "NOSCRIPT" && !isNoscriptArticle(n, raw, visible))) {
        hidden.add(n);
        continue;
      }
      if (!protectedContext && isUnlikely(n) && !tooBigForFurniture(n)) {
        unlikely.add(n);
        continue;
      }
      const name = n.nodeName;
      stack.push([n, protectedContext || name === "TABLE" || name === "CODE" || name === "PRE"]);
    }
  }
}

/**
 * Ruby annotations (`<rt>` readings, `<rp>` fallback parentheses) are set aside like hidden
 * elements: kept, they interleave every word's pronunciation with the word itself (子こども for
 * 子ども in furigana), and the text is no longer the text a reader reads or quotes.
 */
const RUBY_ANNOTATIONS = new Set(["RT", "RP"]);

/** A `<noscript>` with at least this much text in sentences may be the article's only copy. */
const NOSCRIPT_ARTICLE_CHARS = ENOUGH_CHARS;

/**
 * Whether a `<noscript>` holds the page's article: some pages (blog platforms that render posts
 * from a script template, lazy apps with a crawler copy) show the article only to browsers
 * without scripts, and send nothing else. Such a copy is prose (at least
 * {@link NOSCRIPT_ARTICLE_CHARS} characters, three sentences, little link text) whose opening
 * words the rest of the page does not show; any other `<noscript>` (tracking pixels, lazy images'
 * fallbacks, "please enable JavaScript", a duplicate of text the page shows) is set aside.
 */
function isNoscriptArticle(el: LightElement, raw: FiguresTable, visible: () => string): boolean {
  const s = raw.get(el);
  if (s === undefined || s.chars < NOSCRIPT_ARTICLE_CHARS || s.sentences < 3 || s.linkChars > 0.3 * s.chars) return false;
  // Compared without whitespace: markup splits a text into runs at other places than its copy.
  const start = textStart(el, 120).replace(/\s+/g, "");
  return start.length >= 40 && !visible().includes(start);
}

/**
 * The page's text outside `<noscript>` elements, without whitespace, built on first use: one
 * walk, only on pages with a `<noscript>` long enough to be an article.
 */
function lazyVisibleText(body: LightElement): () => string {
  let text: string | null = null;
  return () => {
    if (text !== null) return text;
    const parts: string[] = [];
    const stack: LightNode[] = [body];
    while (stack.length > 0) {
      const n = stack.pop()!;
      if (n.nodeType === 3) {
        parts.push(n.data);
        continue;
      }
      if (n.nodeName === "NOSCRIPT") continue;
      const packed = n.firstChild === null ? n.packedTable : null;
      if (packed !== null) parts.push(packed.text());
      for (let c = n.lastChild; c !== null; c = c.previousSibling) stack.push(c);
    }
    text = parts.join("").replace(/\s+/g, "");
    return text;
  };
}

function tryExtract(
  body: LightElement,
  skipped: Set<LightElement>,
  relaxed: boolean,
  unlikely: Set<LightElement>,
  raw: FiguresTable,
  work: FiguresTable,
  titleArticles: readonly LightElement[],
): Attempt | null {
  // Nothing skipped: every element's figures are the page's own, measured already.
  const stats = skipped.size === 0 ? raw : work;
  if (stats === work) work.reset();
  const scores = new Map<LightElement, number>();
  const kept = (el: LightElement) => !skipped.has(el);
  const initScore = (el: LightElement) => {
    let s = scores.get(el);
    if (s === undefined) {
      s = (TAG_SCORE[el.nodeName] ?? 0) + classWeight(el) + (relaxed && unlikely.has(el) ? -25 : 0);
      scores.set(el, s);
    }
    return s;
  };
  postOrder(body, (el) => skipped.has(el), (el) => {
    const i = stats === raw ? el.walkIndex : measure(el, stats, kept);
    if (INLINE.has(el.nodeName) || el === body) return;
    // What Readability scores as a paragraph: these elements with all their text, and any other
    // block with its own (inline) text, as Readability turns such a <div> into a <p>.
    const whole = WHOLE_TEXT_PARAGRAPHS.has(el.nodeName);
    const chars = whole ? stats.chars[i]! : stats.inlineChars[i]!;
    const commas = whole ? stats.commas[i]! : stats.inlineCommas[i]!;
    if (chars < 25) return;
    const linkChars = stats.linkChars[i]!;
    if (linkChars > 0 && linkChars > 0.66 * stats.chars[i]! && commas < 2) return;
    const contentScore = 1 + Math.min(commas, 30) + Math.min(Math.floor(chars / 100), 3);
    let level = 0;
    for (let a = el.parentNode; a !== null && level < 5; a = a.parentNode, level++) {
      const divider = level === 0 ? 1 : level === 1 ? 2 : level * 3;
      scores.set(a, initScore(a) + contentScore / divider);
      if (a === body) break;
    }
  });

  // Final scores: discounted by link density.
  const ranked: [LightElement, number][] = [];
  for (const [el, raw] of scores) {
    if (el === body) continue;
    const s = stats.get(el);
    if (s === undefined || s.chars === 0) continue;
    const score = raw * (1 - s.linkChars / s.chars);
    scores.set(el, score);
    ranked.push([el, score]);
  }
  ranked.sort((a, b) => b[1] - a[1]);
  if (ranked.length === 0) return null;

  const settle = (start: LightElement, above: LightElement) => {
    let top = start;
    const topScore = scores.get(top) ?? 0;
    // Several strong candidates under one ancestor: the article is that ancestor (Readability).
    const alternatives = ranked.slice(1, 6).filter(([, s]) => s / topScore >= 0.75).map(([el]) => ancestorsOf(el, body));
    if (alternatives.length >= 3) {
      for (let p = top.parentNode; p !== null && p !== body && p !== above; p = p.parentNode) {
        if (alternatives.filter((set) => set.has(p)).length >= 3) {
          top = p;
          break;
        }
      }
    }
    // Climb while the parent scores better (the article was split into scored parts).
    let lastScore = scores.get(top) ?? 0;
    const threshold = lastScore / 3;
    for (let p = top.parentNode; p !== null && p !== body && p !== above; p = p.parentNode) {
      const ps = scores.get(p);
      if (ps === undefined) continue;
      if (ps < threshold) break;
      if (ps > lastScore) {
        top = p;
        break;
      }
      lastScore = ps;
    }
    // An only child: its parent is the same content with its container's context.
    while (top.parentNode !== null && top.parentNode !== body && top.parentNode !== above && elementChildCount(top.parentNode, kept) === 1) top = top.parentNode;
    return top;
  };
  let top = settle(ranked[0]![0], body);
  // A feed of whole articles (the next stories appended below the page's own): the one the
  // page's title names, not the longest.
  const titled = titledArticle(top, ranked, stats, titleArticles);
  if (titled !== null) top = settle(titled.candidate, titled.article.parentNode ?? body);

  // Siblings joined for their text may be furniture lines themselves (a copyright line after the
  // article body, a subscription prompt): cleaning looks inside each node, so they are checked here.
  let nodes = joinSiblings(top, scores, stats, kept).filter((n) => n === top || !isFurnitureBlock(n, stats.get(n) ?? emptyStats()));
  const removed = new Set<LightElement>(skipped);
  let chars = 0;
  let sentences = 0;
  const nodeChars = nodes.map((n) => stats.get(n)?.chars ?? 0);
  const uncleanedChars = nodeChars.reduce((a, b) => a + b, 0);
  const pageChars = stats.chars[body.walkIndex] ?? 0;
  const listCards: Array<{ cards: LightElement[]; chars: number }> = [];
  let besideTop = 0;
  let besideSentences = 0;
  nodes.forEach((node, k) => {
    const s = cleanSubtree(node, removed, unlikely, relaxed, scores, work, nodeChars[k], node === top ? listCards : undefined);
    chars += s.chars;
    sentences += s.sentences;
    if (node !== top) {
      besideTop += s.chars;
      besideSentences += s.sentences;
    }
  });
  // The best block is a list of teaser cards, and an article of its own sits beside it (the
  // next stories after a short post): the cards go.
  if (listCards.length > 0 && besideTop >= MIN_CHARS && besideSentences >= MIN_SENTENCES) {
    for (const list of listCards) {
      for (const c of list.cards) removed.add(c);
      chars -= list.chars;
    }
  }
  // A joined sibling that cleaning took whole (a list of teaser cards after a short article).
  if (nodes.some((n) => removed.has(n))) nodes = nodes.filter((n) => !removed.has(n));
  return { nodes, removed, chars, sentences, skipped, uncleanedChars, pageChars, scores, reason: relaxed ? "article_relaxed" : "article" };
}

/** At most this many headings are compared with the title, and this many levels climbed to their `<article>`. */
const TITLE_HEADINGS = 200;
const ARTICLE_CLIMB = 50;

/** The nearest `<article>` at or above `el` (at most {@link ARTICLE_CLIMB} levels up), or null. */
function articleOf(el: LightElement): LightElement | null {
  let level = 0;
  for (let p: LightElement | null = el; p !== null && level < ARTICLE_CLIMB; p = p.parentNode, level++) if (p.nodeName === "ARTICLE") return p;
  return null;
}

/** Whether `el` is `ancestor` or inside it (at most {@link ARTICLE_CLIMB} levels down). */
function isWithin(el: LightElement, ancestor: LightElement): boolean {
  let level = 0;
  for (let p: LightElement | null = el; p !== null && level < ARTICLE_CLIMB; p = p.parentNode, level++) if (p === ancestor) return true;
  return false;
}

/**
 * The `<article>` elements that hold a headline repeating the page's `<title>` (an `<h1>`–`<h3>`
 * among `headings`, the first {@link TITLE_HEADINGS} of the page, that repeats the whole title or
 * its headline part): the page's own article, when the page is a feed of several. Only headings
 * of under 300 characters (by the first walk's figures) have their text read.
 */
function articlesTitled(headings: readonly LightElement[], raw: FiguresTable, isTitle: (text: string) => boolean): LightElement[] {
  const out: LightElement[] = [];
  for (const h of headings) {
    if ((raw.get(h)?.chars ?? 0) > 300) continue;
    const text = h.textContent;
    if (!isTitle(normalizeTitle(text))) continue;
    const article = articleOf(h);
    if (article !== null && !out.includes(article)) out.push(article);
  }
  return out;
}

/** A page's own article beside a longer one: at least this share of the chosen article's text. */
const TITLED_SHARE = 0.1;

/**
 * When the chosen candidate sits in an `<article>` that is not the one the page's title names,
 * and the titled one holds an article of its own (at least {@link ENOUGH_CHARS} characters in
 * five sentences, and {@link TITLED_SHARE} of the chosen one's text), that article's best
 * candidate: news sites append the next stories, whole, below the page's own ("infinite
 * scroll"), and the next one may be longer. A short card with the same headline (the page's
 * own story in a "most read" box) is not an article of its own.
 */
function titledArticle(top: LightElement, ranked: readonly [LightElement, number][], stats: FiguresTable, titleArticles: readonly LightElement[]): { candidate: LightElement; article: LightElement } | null {
  if (titleArticles.length === 0) return null;
  const own = articleOf(top);
  if (own === null || titleArticles.includes(own)) return null;
  const topChars = stats.get(top)?.chars ?? 0;
  for (const article of titleArticles) {
    if (isWithin(own, article) || isWithin(article, own)) continue;
    const best = ranked.find(([el]) => isWithin(el, article));
    if (best === undefined) continue;
    const s = stats.get(best[0]);
    if (s !== undefined && s.chars >= ENOUGH_CHARS && s.sentences >= 5 && s.chars >= TITLED_SHARE * topChars) return { candidate: best[0], article };
  }
  return null;
}

/**
 * Whether `el` introduces a link list: a heading, or a short label block (`<p><strong>Read
 * also</strong></p>`), whose text is a link-list phrase ("head"); or a short teaser line that
 * starts with such a label (in bold, in italics or plain) and is mostly link ("teaser").
 */
function isLinkListHead(el: LightElement, s: Figures): "head" | "teaser" | "no" {
  const name = el.nodeName;
  const label = HEADINGS.has(name) ? s.chars < 80 : (name === "P" || name === "DIV") && s.chars < 50 && s.linkChars === 0;
  if (label && LINK_LIST_HEADING.test(textStart(el))) return "head";
  if (!TEASER_LINE_TAGS.has(name) || s.chars >= 300 || s.linkChars < 0.3 * s.chars) return "no";
  // The line opens with the label, in bold, italics or plain, before its link ("Le puede
  // interesar: <link>"); a link inside the phrase ("Read <a>more</a>.") is not such a label.
  const opening = textStart(el, 80, true);
  return LINK_LIST_HEADING.test(opening) || MEDIA_LINK_LABEL.test(opening) ? "teaser" : "no";
}

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
    const head = cardHead(c, t);
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
  // The headline is a heading, or a link around one (`<a><h3>…</h3></a>`).
  if (!HEADINGS.has(head.nodeName) && t.headingChars[h]! < 0.5 * headChars) return null;
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
function isCommentHead(el: LightElement, s: Figures): boolean {
  const name = el.nodeName;
  const label = HEADINGS.has(name) ? s.chars < 100 : (name === "P" || name === "DIV" || name === "SPAN" || name === "STRONG") && s.chars < 60;
  return label && s.chars > 0 && COMMENT_HEADING.test(textStart(el, 120));
}

/**
 * The first characters of `el`'s text, whitespace collapsed and trimmed: enough for the prefix
 * patterns (link-list phrases, credit lines); with `untilLink`, only the text before the first
 * link. Bounded whatever the subtree holds (huge runs of whitespace, many empty elements), so
 * calling it on every element stays linear.
 */
function textStart(el: LightElement, limit = 80, untilLink = false): string {
  let out = "";
  let steps = 0;
  const stack: LightNode[] = [];
  expandTable(el);
  for (let n = el.lastChild; n !== null; n = n.previousSibling) stack.push(n);
  while (stack.length > 0 && out.length < limit && steps++ < 200) {
    const n = stack.pop()!;
    if (untilLink && n.nodeName === "A") break;
    if (n.nodeType === 1) expandTable(n);
    if (n.nodeType === 3) {
      // At most `limit` characters of each text node are looked at.
      out += n.data.slice(0, limit).replace(/\s+/g, " ");
      if (out.trim() === "") out = "";
      continue;
    }
    for (let c = n.lastChild; c !== null; c = c.previousSibling) stack.push(c);
  }
  return out.trim();
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
  if (!isLabelLine(el, s, 60) || !CONTACT_HEADING.test(textStart(el, 100))) return false;
  const { before, after } = labelledTail(el, activeFigures?.raw ?? t);
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
  if (!isLabelLine(el, s, 40) || !AUTHOR_BOX_LABEL.test(textStart(el, 60))) return false;
  const raw = activeFigures?.raw ?? t;
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

function previousElement(el: LightElement): LightElement | null {
  for (let n = el.previousSibling; n !== null; n = n.previousSibling) if (n.nodeType === 1) return n;
  return null;
}

function firstElement(el: LightElement): LightElement | null {
  for (let n = el.firstChild; n !== null; n = n.nextSibling) if (n.nodeType === 1) return n;
  return null;
}

function ancestorsOf(el: LightElement, stop: LightElement): Set<LightElement> {
  const out = new Set<LightElement>();
  for (let p = el.parentNode; p !== null && p !== stop; p = p.parentNode) out.add(p);
  return out;
}

function elementChildCount(el: LightElement, kept: (el: LightElement) => boolean): number {
  let n = 0;
  for (let c = el.firstChild; c !== null; c = c.nextSibling) if (c.nodeType === 1 && kept(c)) n++;
  return n;
}

/** The top candidate and the siblings that look like more of the article (Readability's rule). */
function joinSiblings(top: LightElement, scores: Map<LightElement, number>, stats: FiguresTable, kept: (el: LightElement) => boolean): LightElement[] {
  const parent = top.parentNode;
  if (parent === null) return [top];
  const topScore = scores.get(top) ?? 0;
  const threshold = Math.max(10, topScore * 0.2);
  const topClass = top.attributes.class ?? "";
  const out: LightElement[] = [];
  let afterTop = false;
  for (let n = parent.firstChild; n !== null; n = n.nextSibling) {
    if (n.nodeType !== 1 || !kept(n)) continue;
    if (n === top) {
      out.push(n);
      afterTop = true;
      continue;
    }
    // The comment area's title after the article ("Comments", "3 Kommentare"): what follows it
    // among the siblings is the thread, its form and the site's lines under it, not more text.
    if (afterTop && isCommentHead(n, stats.get(n) ?? emptyStats())) break;
    let bonus = 0;
    if (topClass !== "" && n.attributes.class === topClass) bonus = topScore * 0.2;
    const score = scores.get(n);
    if (score !== undefined && score + bonus >= threshold) {
      out.push(n);
      continue;
    }
    const s = stats.get(n);
    if (s === undefined || s.chars === 0) continue;
    const density = s.linkChars / s.chars;
    if (n.nodeName === "P" || (!INLINE.has(n.nodeName) && s.inlineChars === s.chars)) {
      if ((s.chars > 80 && density < 0.25) || (s.chars <= 80 && density === 0 && s.sentences > 0)) out.push(n);
    }
  }
  return out;
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
      activeMeter?.tick();
      marked = packed.isHeaderCell(c);
    }
    return marked || rows >= 10 || cells > 10 || (rows > 1 && s.linkChars < 0.5 * s.chars);
  }
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
  if (nested) return false;
  return marked || rows >= 10 || cells > 10 || (rows > 1 && s.linkChars < 0.5 * s.chars);
}

/**
 * Cleans one subtree of the article in a post-order walk, adding what goes to `removed`, and
 * returns the subtree's figures after cleaning. Linear: each element is measured once, from its
 * already-cleaned children.
 */
function cleanSubtree(
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
  // The cleaning judges a table's rows and cells one by one: a packed table is built first, unless
  // it is judged to stay whole (partsStayInCleaning): then it stays packed, a leaf of the walk.
  if (!judgeTable(root)) expandTable(root);
  const skip = (el: LightElement) => {
    if (removed.has(el)) return true;
    if (!judgeTable(el)) expandTable(el);
    return false;
  };
  postOrder(root, skip, (el) => {
    let s = new FiguresView(stats, measure(el, stats, kept));
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
    if ((relaxed && unlikely.has(el) && s.chars < 4 * META_MAX_CHARS) || shouldRemove(el, s, scores.get(el) ?? 0)) removed.add(el);
  });
  const s = stats.get(root) ?? emptyStats();
  const figures = { chars: s.chars, sentences: s.sentences };
  dropLinkListTails(root, removed, stats);
  return figures;
}

/**
 * Whether class and id name page metadata (byline, date, tags, share, rating…). A word of article
 * text in another class name keeps the element ("entry-content date-box"); in the same name it
 * only says whose metadata it is ("entry-meta", "post-ratings", "postmetadata").
 */
function isMetaLike(match: string): boolean {
  if (match === "" || !hasClassWord(META_LIKE, match)) return false;
  let meta = false;
  for (const name of match.split(/\s+/)) {
    if (hasClassWord(META_LIKE, name)) meta = true;
    else if (hasClassWord(POSITIVE, name)) return false;
  }
  return meta;
}

/**
 * Furniture that sits among the article's own blocks, named by its class or its first words:
 * page metadata, author boxes and disclaimers, caption/credit/source lines, and lines to the
 * reader about the site. Checked on every block of the article, and on the siblings joined to it.
 */
function isFurnitureBlock(el: LightElement, s: Figures): boolean {
  const name = el.nodeName;
  const match = classAndId(el);
  if (s.chars < META_MAX_CHARS && isMetaLike(match)) return true;
  if (INLINE.has(name)) return false;
  if (s.chars < SIDE_BOX_MAX_CHARS && (hasClassWord(SIDE_BOX, match) || /\bauthor\b/i.test(el.attributes.itemprop ?? ""))) return true;
  if (s.chars === 0 || s.chars >= PROMPT_MAX_CHARS) return false;
  // The first words, gathered once for the tests below (every small block of an article is checked).
  return opensLikeFurniture(name, s.chars, textStart(el, FURNITURE_START_CHARS), () => textEnd(el, CREDIT_TAIL_CHARS));
}

/** How much of a block's first words {@link isFurnitureBlock} looks at. */
const FURNITURE_START_CHARS = 160;

/**
 * {@link isFurnitureBlock}'s tests of a block's first words: `start` is its {@link textStart}, and
 * `tail` gives its {@link textEnd} when `start` is not all of its `chars` characters. Apart from
 * the block's name, they read its text only (a packed table's parts are judged by them without
 * being built: see {@link partsStayInCleaning}).
 */
function opensLikeFurniture(name: string, chars: number, start: string, tail: () => { text: string; whole: boolean }): boolean {
  // A short caption, photo credit, source or copyright line, whatever its markup (class 4's policy).
  if (chars < 150 && (CREDIT_LINE.test(start) || CREDIT_BY_LINE.test(start))) return true;
  // A copyright notice ("© 2022, Example News. This article is the copyrighted property of …")
  // runs longer than a credit line, up to a few reprint terms.
  if (COPYRIGHT_NOTICE.test(start)) return true;
  // A byline on a line of its own ("By Ann Example, Daily Example"), whatever its markup.
  if (chars < BYLINE_MAX_CHARS && BYLINE_LINE.test(start)) return true;
  // A metadata line ("Auteur : Ann Example", "Date 23.05.2011", "Kategorie: News", "Imprimer").
  // Not in tables: a date or a name in a cell is the table's data.
  if (chars < METADATA_LINE_MAX_CHARS && !TABLE_PARTS.has(name) && METADATA_LINE.test(start)) return true;
  // The writer's bio line ("Ann Example is a reporter for …"), in the body's own paragraphs.
  if (AUTHOR_BIO.test(start)) return true;
  // The blog platform's filing line ("This entry was posted in News. Bookmark the permalink.").
  if (FILING_LINE.test(start)) return true;
  // A short caption that ends with its photo's credit ("… | © Agency/Photographer").
  if (chars < CAPTION_MAX_CHARS && endsWithCredit(chars, start, tail)) return true;
  // A short line to the reader about the site (subscribe, follow us, paywall notice, ad disclosure).
  return READER_PROMPT.test(start);
}

/** A caption is a line or two: a longer block that ends with a credit is text that names its source. */
const CAPTION_MAX_CHARS = 250;

/**
 * Whether a short block's text ends with a photo credit ("… | © Agency", "(Foto: Name)").
 * `start` is the block's {@link textStart}: when it holds the whole text (most short blocks),
 * its end is the block's, and the text is not walked again.
 */
function endsWithCredit(chars: number, start: string, tail: () => { text: string; whole: boolean }): boolean {
  if (nonSpaceLength(start) === chars) return hasCreditMark(start) && CAPTION_CREDIT_END.test(start);
  const { text, whole } = tail();
  // A tail cut from a longer text does not start where the text starts: no "^" match there.
  return hasCreditMark(text) && CAPTION_CREDIT_END.test(whole ? text : `x${text}`);
}

/** Whether `text` holds a credit's sign or label colon at all: most blocks do not, and skip the pattern. */
function hasCreditMark(text: string): boolean {
  return text.includes(":") || text.includes("©") || text.includes("(c)") || text.includes("(C)");
}
/** The characters of `text` that are not whitespace (as {@link countText} counts them). */
function nonSpaceLength(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c > 0x20 && c !== 0xa0) n++;
  }
  return n;
}
/** A credit is at most 60 characters after its sign or label: this much of a text's end holds it with what precedes it. */
const CREDIT_TAIL_CHARS = 100;

/**
 * The last characters of `el`'s text (at least `limit` unless the text is shorter), whitespace
 * collapsed and trimmed, and whether that is the whole text. Walks backwards from the end, at
 * most 200 nodes and `limit` characters of each text node: bounded whatever the subtree holds.
 */
function textEnd(el: LightElement, limit: number): { text: string; whole: boolean } {
  const parts: string[] = [];
  let length = 0;
  let steps = 0;
  let cut = false;
  const stack: LightNode[] = [];
  expandTable(el);
  for (let n = el.firstChild; n !== null; n = n.nextSibling) stack.push(n);
  while (stack.length > 0 && length < limit && steps++ < 200) {
    const n = stack.pop()!;
    if (n.nodeType === 1) expandTable(n);
    if (n.nodeType === 3) {
      cut ||= n.data.length > limit;
      const part = cut ? n.data.slice(-limit) : n.data;
      parts.push(part);
      length += part.length;
      continue;
    }
    for (let c = n.firstChild; c !== null; c = c.nextSibling) stack.push(c);
  }
  const whole = stack.length === 0 && !cut;
  return { text: parts.reverse().join("").replace(/\s+/g, " ").trim(), whole };
}

/** Whether no text (other than whitespace) sits right beside `el` among its siblings: it is a line of its own. */
function standsAlone(el: LightElement): boolean {
  const prev = el.previousSibling;
  const next = el.nextSibling;
  return (prev === null || prev.nodeType === 1 || prev.data.trim() === "") && (next === null || next.nodeType === 1 || next.data.trim() === "");
}

/**
 * Whether the text right after an inline element carries on its sentence: a dateline that opens
 * the first paragraph ("<span class=dateline>KOBE –</span> A total of…") is part of the story's
 * text, where a byline or a date on a line of its own is not. Looks at the next sibling only.
 */
function sentenceGoesOn(el: LightElement): boolean {
  const next = el.nextSibling;
  if (next === null || next.nodeType !== 3) return false;
  countText(next.data.slice(0, 200));
  return textChars >= 40;
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

function shouldRemove(el: LightElement, s: Figures, contentScore: number): boolean {
  const name = el.nodeName;
  if (name === "INPUT" || name === "TEXTAREA" || name === "LABEL") return true;
  // Whatever its class says ("slide-caption"): the slide's text is the article's.
  if (name === "FIGCAPTION") return !isSlideText(s);
  // A link back to the listing on a line of its own ("zurück zur Listenansicht", "Back to news").
  if (name === "A" && s.chars < 60 && standsAlone(el) && BACK_LINK.test(textStart(el))) return true;
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
  if (!isList && s.headingChars / s.chars < 0.9 && s.chars < 25 && (s.images === 0 || s.images > 2) && name !== "P" && name !== "TD" && name !== "SPAN") return true;
  if (name === "P" || name === "SPAN" || name === "TD") return density > 0.8 && s.sentences === 0 && s.chars < 300;
  if (!isList && weight < 25 && density > 0.2 && s.sentences < 3) return true;
  if (isList && density > 0.5 && s.sentences < 2) return true;
  if (weight >= 25 && density > 0.5) return true;
  if ((s.embeds === 1 && s.chars < 75) || s.embeds > 1) return s.chars < 75;
  return false;
}

/**
 * A heading that introduces a link list ("Related", "More from …") at the top level of the
 * article goes with the link-heavy block after it; trailing headings with nothing after them go.
 */
function dropLinkListTails(root: LightElement, removed: Set<LightElement>, stats: FiguresTable): void {
  const articleChars = stats.get(root)?.chars ?? 0;
  let last: LightElement | null = null;
  for (let n = root.firstChild; n !== null; n = n.nextSibling) {
    if (n.nodeType !== 1 || removed.has(n)) continue;
    if (HEADINGS.has(n.nodeName) && LINK_LIST_HEADING.test(textStart(n))) {
      removed.add(n);
      let next = n.nextSibling;
      while (next !== null && (next.nodeType !== 1 || removed.has(next))) next = next.nextSibling;
      if (next !== null && next.nodeType === 1) {
        const s = stats.get(next);
        if (s !== undefined && s.chars > 0 && s.linkChars / s.chars > 0.3) removed.add(next);
      }
      continue;
    }
    last = n;
  }
  // Trailing headings with no text after them: section titles left over from what cleaning took.
  // A pull quote or a summary line set as a heading is a sentence of the article, and stays.
  // An appeal to the reader at the article's end goes too, at any length up to a box's.
  while (last !== null && ((HEADINGS.has(last.nodeName) && !isSentenceHeading(last, stats.get(last))) || isTrailingAppeal(last, stats.get(last), articleChars))) {
    removed.add(last);
    last = previousKept(last, removed);
  }
  // The appeal may close the article's last container (the post's body inside its wrapper), and
  // a short line or two may follow it (a credit, a separator).
  let box = last;
  for (let depth = 0; box !== null && depth < APPEAL_DEPTH && APPEAL_CONTAINERS.has(box.nodeName); depth++) {
    let tail = lastKept(box, removed);
    let passed = 0;
    while (tail !== null) {
      const s = stats.get(tail);
      if (isTrailingAppeal(tail, s, articleChars)) {
        removed.add(tail);
      } else if (passed < APPEAL_PASSED_LINES && s !== undefined && s.chars < APPEAL_PASSED_CHARS && !APPEAL_CONTAINERS.has(tail.nodeName)) {
        passed++;
      } else break;
      tail = previousKept(tail, removed);
    }
    if (tail !== null && passed > 0) break;
    box = tail;
  }
}

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

/** The last element child of `el` that cleaning kept, when no text follows it in `el`. */
function lastKept(el: LightElement, removed: ReadonlySet<LightElement>): LightElement | null {
  for (let n = el.lastChild; n !== null; n = n.previousSibling) {
    if (n.nodeType === 3) {
      if (n.data.trim() !== "") return null;
      continue;
    }
    if (!removed.has(n)) return n;
  }
  return null;
}

/** The element before `el` among its siblings that cleaning kept, when no text lies between. */
function previousKept(el: LightElement, removed: ReadonlySet<LightElement>): LightElement | null {
  for (let n = el.previousSibling; n !== null; n = n.previousSibling) {
    if (n.nodeType === 3) {
      if (n.data.trim() !== "") return null;
      continue;
    }
    if (!removed.has(n)) return n;
  }
  return null;
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

/** The whole page, cleaned of furniture and link-dense blocks: the fallback when no article is enough. */
function cleanPage(body: LightElement, hidden: Set<LightElement>, unlikely: Set<LightElement>, scores: Map<LightElement, number>, stats: FiguresTable, raw: FiguresTable): Attempt {
  const removed = new Set<LightElement>([...hidden, ...unlikely]);
  const s = cleanSubtree(body, removed, unlikely, false, scores, stats, raw.get(body)?.chars ?? 0, []);
  return { nodes: [body], removed, chars: s.chars, sentences: s.sentences, skipped: new Set([...hidden, ...unlikely]), uncleanedChars: s.chars, pageChars: s.chars, scores, reason: "page_cleaned" };
}

/** Builds the result element: the attempt's nodes without what cleaning removed, title heading first. */
function materialize(attempt: Attempt, body: LightElement, title: string, raw: FiguresTable): LightElement {
  const isTitle = titleMatcher(title);
  const heading = attempt.reason === "page_cleaned" ? null : titleHeading(body, attempt, isTitle);
  const lead = attempt.reason === "page_cleaned" ? [] : leadBlocks(body, attempt, raw, isTitle);
  for (const el of attempt.removed) el.parentNode?.removeChild(el);
  const out = new LightElement("article", {});
  if (heading !== null) {
    heading.parentNode?.removeChild(heading);
    out.appendChild(heading);
  }
  for (const el of lead) {
    el.parentNode?.removeChild(el);
    out.appendChild(el);
  }
  for (const node of attempt.nodes) {
    if (node === body) {
      while (body.firstChild !== null) out.appendChild(body.removeChild(body.firstChild));
    } else {
      node.parentNode?.removeChild(node);
      out.appendChild(node);
    }
  }
  removeServerMessages(out);
  return out;
}

/** What every text that holds a PHP message holds (see SERVER_MESSAGE_TEXT): most texts do not, and skip the pattern. */
const SERVER_MESSAGE_MARK = " on line ";

/** A PHP message's parts after its level: the text, links in it, the file and the line number (a few siblings). */
const SERVER_MESSAGE_PARTS = 10;

/**
 * Removes the PHP error messages a server printed into the page ("<b>Warning</b>:  Creating
 * default object … in <b>/var/www/…/classes.php</b> on line <b>407</b><br />", or the same as
 * plain text): server output, not the article's text, wherever it sits. One walk over the result;
 * each `<b>` that names a level looks at most {@link SERVER_MESSAGE_PARTS} siblings ahead.
 */
function removeServerMessages(root: LightElement): void {
  const stack: LightElement[] = [root];
  while (stack.length > 0) {
    const el = stack.pop()!;
    for (let n = el.firstChild; n !== null; ) {
      let next = n.nextSibling;
      if (n.nodeType === 1) {
        const end = n.nodeName === "B" ? serverMessageEnd(n) : null;
        if (end === null) {
          stack.push(n);
        } else {
          next = end.nextSibling;
          // The line breaks PHP writes around the message go with it.
          const before = previousNonBlank(n);
          if (before?.nodeName === "BR") el.removeChild(before);
          for (let c: LightNode | null = n; c !== next && c !== null; ) {
            const following: LightNode | null = c.nextSibling;
            el.removeChild(c);
            c = following;
          }
          if (next?.nodeName === "BR") {
            const after: LightNode | null = next.nextSibling;
            el.removeChild(next);
            next = after;
          }
        }
      } else if (n.nodeType === 3 && n.data.includes(SERVER_MESSAGE_MARK)) {
        const text = n.data.replace(SERVER_MESSAGE_TEXT, "");
        if (text !== n.data) n.data = text;
      }
      n = next;
    }
  }
}

/** The last node of the PHP message that `b` opens (its line number's `<b>`), or null when `b` opens none. */
function serverMessageEnd(b: LightElement): LightNode | null {
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

/** Class/id words of media blocks (an image with its description), which are not the lead. */
const MEDIA = /image|img|photo|foto|picture|bild|figure|gallery|video|caption|legend/i;

/** Class/id words of galleries and slideshows, which hold slides' descriptions rather than a lead. */
const GALLERY = /gallery|galerie|slideshow|carousel|slider|lightbox/i;

/** At most this many steps (elements looked at, levels climbed) are walked before the article for its lead. */
const LEAD_WALK = 600;
/** A lead is a paragraph or two: more text than this between title and article is not a header area. */
const LEAD_MAX_CHARS = 1500;

/**
 * The node before `n` in a reverse walk that takes elements whole: its previous sibling, or its
 * nearest ancestor's below `stop`. Each level climbed counts against `budget` (a deep nest).
 */
function previousOf(n: LightNode, stop: LightElement, budget: { steps: number }): LightNode | null {
  for (let c: LightNode | null = n; c !== null && c !== stop && budget.steps-- > 0; c = c.parentNode) if (c.previousSibling !== null) return c.previousSibling;
  return null;
}

/**
 * The article's lead (standfirst, intro, subtitle): paragraph-like blocks between the page's title
 * heading and the article's first node, which templates often keep in the article's header rather
 * than with its body. Walks backwards from the article; only when it reaches the headline (an
 * `<h1>`, or a heading that repeats the `<title>`) within a short walk is what it collected the
 * lead (else it was another part of the page). Link-dense blocks, furniture, media blocks and page
 * metadata (bylines, dates, captions) are passed over. Returns the blocks in document order.
 * Bounded: at most {@link LEAD_WALK} steps, whatever the page's shape.
 */
function leadBlocks(body: LightElement, attempt: Attempt, raw: FiguresTable, isTitle: (text: string) => boolean): LightElement[] {
  const first = attempt.nodes[0];
  if (first === undefined || first === body) return [];
  // The walk starts at the article's first kept text: an article header that cleaning removed
  // (its class says "header") may hold the headline and the lead.
  let start = first;
  for (let level = 0; level < 100 && (raw.get(start)?.inlineChars ?? 0) === 0; level++) {
    expandTable(start);
    let next: LightElement | null = null;
    for (let c = start.firstChild; c !== null && next === null; c = c.nextSibling) if (c.nodeType === 1 && !attempt.removed.has(c) && (raw.get(c)?.chars ?? 0) > 0) next = c;
    if (next === null) break;
    start = next;
  }
  const out: LightElement[] = [];
  let chars = 0;
  const budget = { steps: LEAD_WALK };
  let cur = previousOf(start, body, budget);
  while (cur !== null && budget.steps-- > 0) {
    if (cur.nodeType !== 1) {
      cur = previousOf(cur, body, budget);
      continue;
    }
    const s = raw.get(cur);
    const name = cur.nodeName;
    // A link is passed over whole: the blocks inside one (a teaser card "Up next: …" wrapped in
    // an <a>) are its link text, not the lead.
    // So is an author box or a disclaimer (a bio beside the headline is about the writer, not the story).
    const match = classAndId(cur);
    if (s === undefined || s.chars === 0 || name === "A" || isHidden(cur) || FURNITURE_TAGS.has(name) || name === "FIGURE" || name === "FIGCAPTION" || hasClassWord(ALWAYS_UNLIKELY, match) || hasClassWord(SIDE_BOX, match)) {
      cur = previousOf(cur, body, budget);
      continue;
    }
    // The headline: the page's <h1> (kicker and headline often differ from the <title>), or a
    // lower heading that repeats the <title>.
    if (name === "H1" || (HEADINGS.has(name) && s.chars < 300 && isTitle(normalizeTitle(cur.textContent)))) return out.reverse();
    if (s.chars > LEAD_MAX_CHARS) return [];
    if (isLeadLike(cur, s)) {
      if (!hasClassWord(MEDIA, match)) out.push(cur);
      chars += s.chars;
      if (chars > LEAD_MAX_CHARS) return [];
      cur = previousOf(cur, body, budget);
      continue;
    }
    // A gallery or slideshow is passed over whole: the blurb of a slide inside it is not the lead.
    if (!hasClassWord(GALLERY, match)) expandTable(cur);
    cur = hasClassWord(GALLERY, match) ? previousOf(cur, body, budget) : (cur.lastChild ?? previousOf(cur, body, budget));
  }
  return [];
}

function isLeadLike(el: LightElement, s: Figures): boolean {
  if (INLINE.has(el.nodeName) || s.inlineChars < 0.7 * s.chars || s.linkChars > 0.2 * s.chars) return false;
  // The furniture lines the article's own blocks are cleaned of (metadata, bylines and a byline
  // that goes on with the writer's bio, captions and credits, prompts): not the lead either.
  if (isFurnitureBlock(el, s)) return false;
  if (HEADINGS.has(el.nodeName)) return s.chars >= 25;
  return s.chars >= 40 && (s.sentences > 0 || s.commas > 0 || s.chars >= 80);
}

/** Whether a heading's text (normalized) is the page's title, or the headline part of it ("Headline | Site"). */
function titleMatcher(title: string): (text: string) => boolean {
  const wanted = normalizeTitle(title);
  const parts = title.split(/\s+[|–—·:»/-]\s+/).map(normalizeTitle).filter((p) => p.length >= 3);
  return (text) =>
    text.length >= 3 && (text === wanted || parts.includes(text) || (wanted.includes(text) && text.length >= 0.4 * wanted.length) || (text.includes(wanted) && wanted.length >= 0.4 * text.length));
}

/**
 * The page's title heading when the article does not start with one of its own: the first `<h1>`
 * outside the article whose text repeats the `<title>` (or is contained in it, as in
 * "Headline | Site"), kept so the document's structure reads (issue 17, class 6).
 */
function titleHeading(body: LightElement, attempt: Attempt, isTitle: (text: string) => boolean): LightElement | null {
  const inArticle = new Set(attempt.nodes);
  const isInside = (el: LightElement) => {
    for (let p: LightElement | null = el; p !== null; p = p.parentNode) if (inArticle.has(p)) return true;
    return false;
  };
  // A page has a handful of <h1>; a hostile one with thousands is not walked up for each.
  const h1s = body.getElementsByTagName("h1").slice(0, 20);
  const isKept = (el: LightElement) => {
    let level = 0;
    for (let p: LightElement | null = el; p !== null && level < 50; p = p.parentNode, level++) if (attempt.removed.has(p)) return false;
    return true;
  };
  for (const h of h1s) if (isInside(h) && isKept(h)) return null;
  let best: LightElement | null = null;
  let bestRank = -1;
  for (const h of h1s) {
    if (attempt.removed.has(h)) continue;
    const text = normalizeTitle(h.textContent);
    if (!isTitle(text)) continue;
    // The site's name in a logo <h1> inside the page header is a part of the title too: an <h1>
    // outside the page header ranks first, then the longer text.
    const rank = (inPageHeader(h, attempt) ? 0 : 1_000_000) + text.length;
    if (rank > bestRank) {
      best = h;
      bestRank = rank;
    }
  }
  return best;
}

/** Whether `el` sits in a `<header>` or a furniture element (at most 50 levels up). */
function inPageHeader(el: LightElement, attempt: Attempt): boolean {
  let level = 0;
  for (let p = el.parentNode; p !== null && level < 50; p = p.parentNode, level++) {
    if (p.nodeName === "HEADER" || attempt.removed.has(p)) return true;
  }
  return false;
}

/**
 * A title's words for comparison: lower case, punctuation and spacing folded to single spaces
 * (a headline "Abrechnung : Musik-Stars" repeats the title "Abrechnung: Musik-Stars").
 */
function normalizeTitle(text: string): string {
  return text.replace(/[^\p{L}\p{N}]+/gu, " ").trim().toLowerCase();
}
