import type { LightElement, LightNode, PackedTable } from "../light-dom";
import { INLINE_TAGS } from "./patterns";
import { run } from "./run-state";
import { SERVER_MESSAGE_WORDS } from "./server-messages";

/**
 * The figures of the main-content extraction: per element, its characters, link characters,
 * commas, sentences, paragraphs and the like, gathered in one post-order walk from its children's
 * figures ({@link measure}) into typed arrays indexed by the element's walk number
 * ({@link FiguresTable}).
 */

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

export const HEADINGS = new Set(["H1", "H2", "H3", "H4", "H5", "H6"]);

export const INLINE = new Set([...INLINE_TAGS].map((t) => t.toUpperCase()));

export function emptyStats(): Stats {
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
export class FiguresTable {
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
  /**
   * Whether a text that {@link measure} counted into this table (a text node, or a packed
   * table's cell) holds {@link SERVER_MESSAGE_WORDS}: without one, the page has no server message
   * for removeServerMessages to remove.
   */
  serverMessageWords = false;

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
export type Figures = Readonly<Stats>;

/** One element's figures read from a {@link FiguresTable}: valid until the table's next walk measures the element again. */
export class FiguresView implements Figures {
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
export let textChars = 0;

let textCommas = 0;

let textSentences = 0;

/** Counts a text node's non-space characters, commas and sentence ends (into textChars, textCommas, textSentences). */
export function countText(text: string): void {
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

/** Columns of one open element's running figures in {@link measureSubtree}'s stack (one row of 16 per depth). */
const A_CHARS = 0;
const A_LINK = 1;
const A_INLINE = 2;
const A_INLINE_COMMAS = 3;
const A_COMMAS = 4;
const A_SENTENCES = 5;
const A_PARAGRAPHS = 6;
const A_IMAGES = 7;
const A_LIST_ITEMS = 8;
const A_INPUTS = 9;
const A_EMBEDS = 10;
const A_HEADING = 11;
const A_CODE = 12;
const A_STRIDE = 16;

/**
 * The running figures of the elements open in {@link measureSubtree}, a row per depth; grown by
 * doubling, and shared by the walks (a walk started inside another's visit gets its own).
 */
let openFigures = new Int32Array(64 * A_STRIDE);

let openFiguresInUse = false;

/**
 * A post-order walk of `root`'s element subtree ({@link postOrder}'s order, skip and checkpoints)
 * that measures each element into `t` as it goes, with the figures {@link measure} would gather
 * when the element is visited (with `removed`'s elements not kept): a text child is counted as
 * the walk steps over it, and an element's figures are added to its parent's when the walk leaves
 * it, unless it is in `removed` then. No element's children are read a second time (on a flat
 * page a parent's own measure read hundreds of thousands of children again).
 *
 * `visit` gets each element and its number after its figures are written. It may add the element
 * to `removed` (then its figures are not added to its parent's) or re-measure it with
 * {@link measure} after adding some of its children to `removed` (its parent then adds its new
 * figures); nothing else may change between a child's visit and its parent's, and nothing leaves
 * `removed` during the walk. An element walked is not in `removed` before its visit (`skip` says
 * so), so whether a visit removed it is asked only when `removed` grew. With `number`, each
 * element is numbered in `t` ({@link FiguresTable.number}) when it is visited, as the first walk
 * does.
 */
export function measureSubtree(
  root: LightElement,
  t: FiguresTable,
  skip: (el: LightElement) => boolean,
  visit: (el: LightElement, i: number) => void,
  options: { number?: boolean; removed?: ReadonlySet<LightElement> } = {},
): void {
  const numbering = options.number === true;
  const removed = options.removed;
  const shared = !openFiguresInUse;
  const acc = shared ? openFigures : new Int32Array(64 * A_STRIDE);
  openFiguresInUse = true;
  try {
    walkMeasuring(root, t, skip, visit, numbering, removed, acc, shared);
  } finally {
    if (shared) openFiguresInUse = false;
  }
}

function walkMeasuring(
  root: LightElement,
  t: FiguresTable,
  skip: (el: LightElement) => boolean,
  visit: (el: LightElement, i: number) => void,
  numbering: boolean,
  removed: ReadonlySet<LightElement> | undefined,
  acc: Int32Array,
  shared: boolean,
): void {
  const meter = run.meter;
  for (let k = 0; k <= A_CODE; k++) acc[k] = 0;
  let base = 0;
  let parent = root;
  let n: LightNode | null = root.firstChild;
  meter?.tick();
  for (;;) {
    // Step over `parent`'s children from `n` to the next one to walk, counting its texts.
    let child: LightElement | null = null;
    for (; n !== null; n = n.nextSibling) {
      if (n.nodeType === 3) {
        const data = n.data;
        if (!t.serverMessageWords && data.includes(SERVER_MESSAGE_WORDS)) t.serverMessageWords = true;
        countText(data);
        acc[base + A_CHARS]! += textChars;
        acc[base + A_INLINE]! += textChars;
        acc[base + A_COMMAS]! += textCommas;
        acc[base + A_INLINE_COMMAS]! += textCommas;
        acc[base + A_SENTENCES]! += textSentences;
        continue;
      }
      if (!skip(n)) {
        child = n;
        break;
      }
    }
    if (child !== null) {
      meter?.tick();
      base += A_STRIDE;
      if (base + A_STRIDE > acc.length) {
        const wider = new Int32Array(2 * acc.length);
        wider.set(acc);
        acc = wider;
        if (shared) openFigures = wider;
      }
      for (let k = base; k <= base + A_CODE; k++) acc[k] = 0;
      parent = child;
      n = child.firstChild;
      continue;
    }
    // `parent` has no child left to walk: its figures are complete.
    meter?.tick();
    if (numbering) t.number(parent);
    const i = writeFigures(parent, t, acc, base);
    const removedBefore = removed?.size ?? 0;
    visit(parent, i);
    if (parent === root) return;
    base -= A_STRIDE;
    if (removed === undefined || removed.size === removedBefore || !removed.has(parent)) addChild(parent, i, t, acc, base);
    n = parent.nextSibling;
    parent = parent.parentNode!;
  }
}

/**
 * Counts a packed table's cell texts as {@link countText} counts one text (totals into textChars,
 * textCommas, textSentences), noting a server message's words in `t` as the walks do for texts.
 */
function countCells(packed: PackedTable, t: FiguresTable): void {
  let chars = 0;
  let commas = 0;
  let sentences = 0;
  for (const text of packed.cellTexts) {
    run.meter?.tick();
    if (text === null) continue;
    if (!t.serverMessageWords && text.includes(SERVER_MESSAGE_WORDS)) t.serverMessageWords = true;
    countText(text);
    chars += textChars;
    commas += textCommas;
    sentences += textSentences;
  }
  textChars = chars;
  textCommas = commas;
  textSentences = sentences;
}

/** Writes `el`'s figures, gathered at `acc[base…]` (and a packed table's cells), into `t`; returns its number. */
function writeFigures(el: LightElement, t: FiguresTable, acc: Int32Array, base: number): number {
  let chars = acc[base + A_CHARS]!;
  let commas = acc[base + A_COMMAS]!;
  let sentences = acc[base + A_SENTENCES]!;
  // A packed table is a leaf: its text is its cells' (see measure).
  const packed = el.firstChild === null ? el.packedTable : null;
  if (packed !== null) {
    countCells(packed, t);
    chars += textChars;
    commas += textCommas;
    sentences += textSentences;
  }
  const i = el.walkIndex;
  t.chars[i] = chars;
  t.linkChars[i] = acc[base + A_LINK]!;
  t.inlineChars[i] = acc[base + A_INLINE]!;
  t.inlineCommas[i] = acc[base + A_INLINE_COMMAS]!;
  t.commas[i] = commas;
  t.sentences[i] = sentences;
  t.paragraphs[i] = acc[base + A_PARAGRAPHS]!;
  t.images[i] = acc[base + A_IMAGES]!;
  t.listItems[i] = acc[base + A_LIST_ITEMS]!;
  t.inputs[i] = acc[base + A_INPUTS]!;
  t.embeds[i] = acc[base + A_EMBEDS]!;
  t.headingChars[i] = acc[base + A_HEADING]!;
  t.hasCode[i] = acc[base + A_CODE]!;
  t.stamp[i] = t.generation;
  return i;
}

/** Adds child `c`'s figures (row `j` of `t`) to its parent's running figures at `acc[base…]`, as {@link measure} adds a kept child's. */
function addChild(c: LightElement, j: number, t: FiguresTable, acc: Int32Array, base: number): void {
  const name = c.nodeName;
  const cChars = t.chars[j]!;
  acc[base + A_CHARS]! += cChars;
  acc[base + A_LINK]! += name === "A" ? cChars : t.linkChars[j]!;
  acc[base + A_SENTENCES]! += t.sentences[j]!;
  acc[base + A_COMMAS]! += t.commas[j]!;
  acc[base + A_PARAGRAPHS]! += t.paragraphs[j]! + (name === "P" && cChars > 0 ? 1 : 0);
  acc[base + A_IMAGES]! += t.images[j]! + (name === "IMG" ? 1 : 0);
  acc[base + A_LIST_ITEMS]! += t.listItems[j]! + (name === "LI" ? 1 : 0);
  acc[base + A_INPUTS]! += t.inputs[j]! + (name === "INPUT" || name === "TEXTAREA" ? 1 : 0);
  acc[base + A_EMBEDS]! += t.embeds[j]! + (name === "VIDEO" || name === "AUDIO" || name === "PICTURE" ? 1 : 0);
  acc[base + A_HEADING]! += HEADINGS.has(name) ? cChars : t.headingChars[j]!;
  if (t.hasCode[j] === 1 || name === "PRE" || name === "CODE" || name === "TABLE") acc[base + A_CODE] = 1;
  if (INLINE.has(name)) {
    acc[base + A_INLINE]! += t.inlineChars[j]!;
    acc[base + A_INLINE_COMMAS]! += t.inlineCommas[j]!;
  }
}

/**
 * Gathers `el`'s figures from its text and its kept children's figures (measured before it in
 * this walk of `t`) into `t`, and returns its number there. Without `kept`, every child is kept
 * (the first walk's, with no call per child).
 */
export function measure(el: LightElement, t: FiguresTable, kept?: (child: LightElement) => boolean): number {
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
      if (!t.serverMessageWords && n.data.includes(SERVER_MESSAGE_WORDS)) t.serverMessageWords = true;
      countText(n.data);
      chars += textChars;
      inlineChars += textChars;
      commas += textCommas;
      inlineCommas += textCommas;
      sentences += textSentences;
      continue;
    }
    if (kept !== undefined && !kept(n)) continue;
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
    countCells(packed, t);
    chars += textChars;
    commas += textCommas;
    sentences += textSentences;
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
