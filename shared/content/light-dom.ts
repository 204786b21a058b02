import type { WorkMeter } from "./conversion-deadline";
import { AttributeList, LinearParser, NO_ATTRIBUTES } from "./linear-parser";

/**
 * A minimal DOM for turndown, built by htmlparser2 in one pass with the pruned elements never
 * created. turndown reads only a small surface (nodeName, nodeType, data/nodeValue, siblings,
 * childNodes, children, getAttribute, getElementsByTagName, textContent, outerHTML, removeChild,
 * cloneNode) and the GFM plugin a little more (rows, style.textAlign, className, querySelector of a
 * caption, type/checked). Parsing this way is several times faster than a spec-compliant DOM
 * (domino) and its tree copy; where htmlparser2's tree differs from the HTML5 tree-construction
 * algorithm, see docs/content.md ("Parser differences").
 */

/**
 * Elements dropped with everything inside them before conversion (issue 3), plus metadata
 * elements. Form controls are dropped, not forms: a `<form>` is a container (ASP.NET and similar
 * sites wrap the whole page in one), unwrapped unless it holds little text (see
 * {@link FORM_MIN_TEXT}).
 */
export const PRUNED_TAGS: ReadonlySet<string> = new Set([
  "script", "style", "noscript", "template", "iframe", "svg", "canvas", "nav", "footer", "aside",
  "button", "select", "textarea", "datalist", "object", "embed",
  // Metadata content never renders as text; `<title>` and `<base href>` are read before dropping.
  "title", "meta", "link", "base",
]);

/**
 * A `<form>` with fewer non-space characters of text than this (its controls already dropped) is
 * a search box, a login or a newsletter sign-up and is removed with its labels; a longer one is
 * content that happens to sit in a form, and only its controls go.
 */
export const FORM_MIN_TEXT = 200;

/** Whether a form's text marks it as a control panel (removed) rather than a content container. */
export function isControlForm(textContent: string): boolean {
  let n = 0;
  for (let i = 0; i < textContent.length && n < FORM_MIN_TEXT; i++) {
    const c = textContent.charCodeAt(i);
    if (c > 0x20 && c !== 0xa0) n++;
  }
  return n < FORM_MIN_TEXT;
}

/**
 * Deeper nesting than this is flattened into the element at this depth: turndown walks the tree
 * recursively, and a hostile page of 100,000 nested tags must not exhaust the stack.
 */
export const MAX_DEPTH = 400;

const VOID_TAGS = new Set(["area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr", "param", "keygen", "command"]);

/** Table structure whose direct text children HTML5 drops (whitespace) or foster-parents. */
const TABLE_STRUCTURE = new Set(["TABLE", "TBODY", "THEAD", "TFOOT", "TR"]);

/** Tags that may appear before the body without starting it. */
const HEAD_PHASE_TAGS = new Set(["html", "head", "title", "meta", "link", "base", "style", "script", "noscript", "template"]);

export type LightNode = LightElement | LightText;

/**
 * Bumped by every change to any light tree's structure. `childNodes`, `children` and `rows`
 * return arrays cached with the epoch they were built at: turndown and the GFM plugin read them
 * inside loops (`for (i < table.rows.length) table.rows[i]`, `row.childNodes[j]` per column),
 * which rebuilt an array per read and made a table of n rows cost O(n²). The trees are only
 * mutated before conversion (whitespace collapsing), so during conversion every read is O(1).
 */
let structureEpoch = 0;

/**
 * A number that changes whenever any light tree's structure changes ({@link structureEpoch}): a
 * cache of positions in a tree is good while it is the same.
 */
export function structureVersion(): number {
  return structureEpoch;
}

/** Upper-case names of the elements HTML defines, as literals: V8 interns (deduplicates) literals. */
const HTML_TAG_NAMES = [
  "A", "ABBR", "ADDRESS", "AREA", "ARTICLE", "ASIDE", "AUDIO", "B", "BASE", "BDI", "BDO", "BLOCKQUOTE", "BODY", "BR", "BUTTON",
  "CANVAS", "CAPTION", "CENTER", "CITE", "CODE", "COL", "COLGROUP", "DATA", "DATALIST", "DD", "DEL", "DETAILS", "DFN", "DIALOG",
  "DIR", "DIV", "DL", "DT", "EM", "EMBED", "FIELDSET", "FIGCAPTION", "FIGURE", "FONT", "FOOTER", "FORM", "H1", "H2", "H3", "H4",
  "H5", "H6", "HEAD", "HEADER", "HGROUP", "HR", "HTML", "I", "IFRAME", "IMG", "INPUT", "INS", "KBD", "LABEL", "LEGEND", "LI",
  "LINK", "MAIN", "MAP", "MARK", "MENU", "META", "METER", "NAV", "NOSCRIPT", "OBJECT", "OL", "OPTGROUP", "OPTION", "OUTPUT", "P",
  "PARAM", "PICTURE", "PRE", "PROGRESS", "Q", "RP", "RT", "RUBY", "S", "SAMP", "SCRIPT", "SEARCH", "SECTION", "SELECT", "SMALL",
  "SOURCE", "SPAN", "STRIKE", "STRONG", "STYLE", "SUB", "SUMMARY", "SUP", "SVG", "TABLE", "TBODY", "TD", "TEMPLATE", "TEXTAREA",
  "TFOOT", "TH", "THEAD", "TIME", "TITLE", "TR", "TRACK", "TT", "U", "UL", "VAR", "VIDEO", "WBR",
];

/** Names seen beyond {@link HTML_TAG_NAMES} are interned too, up to this many (a page may invent any number). */
const MAX_INTERNED_NAMES = 2_000;

const upperNames = new Map<string, string>(HTML_TAG_NAMES.map((name) => [name.toLowerCase(), name]));

/**
 * The upper-case node name of a lower-case tag name, one shared string per name. turndown tests
 * every node's name against arrays of names (`blockElements.indexOf(node.nodeName)` and the
 * like, several times per node): between interned strings each comparison is a pointer check,
 * while a fresh `toUpperCase()` result is compared character by character with each entry.
 */
function upperName(localName: string): string {
  const known = upperNames.get(localName);
  if (known !== undefined) return known;
  // A property key is interned; reading it back gives the interned string.
  const name = Object.keys({ [localName.toUpperCase()]: 0 })[0]!;
  if (upperNames.size < MAX_INTERNED_NAMES) upperNames.set(localName, name);
  return name;
}

abstract class LightBase {
  parentNode: LightElement | null = null;
  previousSibling: LightNode | null = null;
  nextSibling: LightNode | null = null;
}

export class LightText extends LightBase {
  // On the prototype (see the end of the file), not on every node: a text node has no field it does not need.
  declare readonly nodeType: 3;
  declare readonly nodeName: "#text";
  private text: string;

  constructor(text: string) {
    super();
    this.text = text;
  }

  get data(): string {
    return this.text;
  }

  set data(value: string) {
    this.text = value;
    this.parentNode?.invalidateText();
  }

  get nodeValue(): string {
    return this.text;
  }

  set nodeValue(value: string) {
    this.data = value;
  }

  get textContent(): string {
    return this.text;
  }

  cloneNode(): LightText {
    return new LightText(this.text);
  }

  appendData(more: string): void {
    this.text += more;
  }
}

const ESCAPES: Readonly<Record<string, string>> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "\u00a0": "&nbsp;" };

const NO_CHILDREN: LightNode[] = Object.freeze([]) as unknown as LightNode[];
const NO_STYLE: { readonly textAlign: string } = Object.freeze({ textAlign: "" });

/**
 * The arrays an element answers for `childNodes`, `children` and `rows`, each built on first read
 * and kept while {@link structureEpoch} is `epoch`. One object per element that is asked (most
 * are never asked: the prose walk follows sibling links), not four fields on every element.
 */
interface ChildLists {
  epoch: number;
  childNodes: LightNode[] | undefined;
  children: LightElement[] | undefined;
  rows: LightElement[] | undefined;
}

function childNodesOf(el: LightElement): LightNode[] {
  const out: LightNode[] = [];
  for (let n = el.firstChild; n !== null; n = n.nextSibling) out.push(n);
  return out;
}

function childElementsOf(el: LightElement): LightElement[] {
  const out: LightElement[] = [];
  if (el.onlyText !== null) return out;
  for (let n = el.firstChild; n !== null; n = n.nextSibling) if (n.nodeType === 1) out.push(n);
  return out;
}

function rowsOf(el: LightElement, out: LightElement[]): LightElement[] {
  if (el.onlyText !== null) return out;
  for (let n = el.firstChild; n !== null; n = n.nextSibling) {
    if (n.nodeType !== 1) continue;
    if (n.nodeName === "TR") out.push(n);
    else if (n.nodeName === "THEAD" || n.nodeName === "TBODY" || n.nodeName === "TFOOT") rowsOf(n, out);
  }
  return out;
}

/**
 * The key of an attribute name: lower case, as the DOM's getAttribute looks names up on HTML
 * elements. The names turndown and the rules ask for are lower case already, and
 * `toLowerCase()` allocates a new string on every call.
 */
function attributeKey(name: string): string {
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if ((c >= 65 && c <= 90) || c > 127) return name.toLowerCase();
  }
  return name;
}

/**
 * The names an object answers from `Object.prototype` when it has no own property of that name
 * (`constructor`, `toString`, `__proto__`, …): for these, an element's attribute lookup goes
 * through its attribute object, as it always has.
 */
const PROTOTYPE_NAMES: ReadonlySet<string> = new Set(Object.getOwnPropertyNames(Object.prototype));

/** An element's attributes as the parser hands them over: its list, or an object (see LightElement.attributes). */
type AttributeSource = Record<string, string> | AttributeList;

/** `attributes[key]` of an element with these attributes, for a lower-case key that is no `Object.prototype` member's name. */
function ownAttributeIn(source: AttributeSource, key: string): string | undefined {
  // Most elements have no attributes (the table rules read every cell's style).
  if (source === NO_ATTRIBUTES) return undefined;
  return source instanceof AttributeList ? source.get(key) : source[key];
}

/** Whether an element with these attributes has any (the DOM's hasAttributes). */
function hasAnyAttribute(source: AttributeSource): boolean {
  if (source === NO_ATTRIBUTES) return false;
  // A list holds at least one name.
  if (source instanceof AttributeList) return true;
  for (const key in source) if (Object.hasOwn(source, key)) return true;
  return false;
}

/** An element's `style` for its `style` attribute: only `textAlign`, which the GFM column alignment reads. */
function styleOf(style: string | undefined): { readonly textAlign: string } {
  // The table rules read every cell's style: most have none, and share one answer.
  if (style === undefined) return NO_STYLE;
  const match = /(?:^|;)\s*text-align\s*:\s*([a-z]+)/i.exec(style);
  return match === null ? NO_STYLE : { textAlign: match[1]! };
}

/** How many low bits of LightElement's packed field hold proseFacts + 1; isBlock and childNodesHidden sit above. */
const PROSE_FACTS_BITS = 24;
const PROSE_FACTS_MASK = (1 << PROSE_FACTS_BITS) - 1;
const IS_BLOCK_MASK = 3 << PROSE_FACTS_BITS;
const HIDDEN_BIT = 1 << (PROSE_FACTS_BITS + 2);

export class LightElement extends LightBase {
  // On the prototype (see the end of the file).
  declare readonly nodeType: 1;
  /** Upper case, as a browser reports HTML elements. */
  readonly nodeName: string;
  /**
   * The attributes as the parser listed them, until something asks for {@link attributes}; then
   * the object built from them. Read-only: nothing writes to an element's attributes after the parse.
   */
  private attributeSource: Record<string, string> | AttributeList;
  /**
   * The first child; or, while the element's only child is a text that nothing has asked for as a
   * node, that text as a string (see {@link onlyText}): a page of small elements is mostly
   * elements holding one short text each, and a text node (56 bytes) per element was a third of
   * such a tree, which the young generation's collections copy while the parse builds it.
   */
  private head: LightNode | string | null = null;
  /** The last child (null while {@link head} is a string or null). */
  private tail: LightNode | null = null;
  /**
   * Three small facts in one field (an element is most of a large tree's memory, and the young
   * generation's collections copy the tree while it is built): {@link proseFacts} + 1 in the low
   * {@link PROSE_FACTS_BITS} bits, then {@link isBlock} (0 unset, 1 false, 2 true) in two bits,
   * then {@link childNodesHidden}.
   */
  private packed = 0;
  /** Cached textContent; reset up the ancestor chain whenever text below changes. */
  private cachedText: string | undefined;
  /**
   * The child lists `childNodes`, `children` and `rows` answer, built on first read (see
   * {@link ChildLists}); or, for a table whose parts the parse kept out of the tree, those parts
   * (see {@link PackedTable}: the element then has no child nodes until something asks for them).
   */
  private lists: ChildLists | PackedTable | undefined;
  /**
   * The element's number in the main-content extractor's walks (shared/content/extract/figures.ts),
   * which keeps its figures in typed arrays indexed by it rather than in maps and objects per
   * element; -1 until a walk numbers it. Declared here so every element has it from construction.
   */
  walkIndex = -1;

  /**
   * turndown writes four facts on every node it converts (its Node(): isBlock, isCode, isBlank,
   * flankingWhitespace). webgate's services convert the whole tree by the walk of prose-walk.ts
   * instead, which keeps what it needs in local variables and writes on the element only the one
   * a rule reads (turndown's default, blank and keep replacements read `isBlock`): a member of
   * every element, so writing it changes no element's shape. The other three, and all four on
   * text nodes, are added only by turndown's own walk (a service without the tree walk, e.g. one
   * that keeps preformatted code).
   */
  get isBlock(): boolean | undefined {
    const value = (this.packed >>> PROSE_FACTS_BITS) & 3;
    return value === 0 ? undefined : value === 2;
  }

  set isBlock(value: boolean | undefined) {
    this.packed = (this.packed & ~IS_BLOCK_MASK) | ((value === undefined ? 0 : value ? 2 : 1) << PROSE_FACTS_BITS);
  }

  /**
   * What the prose walk (prose-walk.ts) reads about the element's subtree, as bits; -1 until
   * `markProseFacts` has run over it after the tree's last change. An integer from -1 up to
   * 2^{@link PROSE_FACTS_BITS} - 2.
   */
  get proseFacts(): number {
    return (this.packed & PROSE_FACTS_MASK) - 1;
  }

  set proseFacts(value: number) {
    if (!Number.isInteger(value) || value < -1 || value >= PROSE_FACTS_MASK) throw new RangeError(`proseFacts out of range: ${value}`);
    this.packed = (this.packed & ~PROSE_FACTS_MASK) | (value + 1);
  }

  /**
   * While true, `childNodes` answers an empty list: set while turndown's own walk passes over a
   * plain table whose Markdown the plain-table path already wrote (turndown-setup.ts's
   * writePlainTable; the tree walk of prose-walk.ts writes such tables without it).
   */
  get childNodesHidden(): boolean {
    return (this.packed & HIDDEN_BIT) !== 0;
  }

  set childNodesHidden(value: boolean) {
    this.packed = value ? this.packed | HIDDEN_BIT : this.packed & ~HIDDEN_BIT;
  }

  constructor(localName: string, attributes: Record<string, string> | AttributeList) {
    super();
    this.nodeName = upperName(localName);
    this.attributeSource = attributes;
  }

  /** The first child node (the element's only text becomes its node on this read, see {@link onlyText}). */
  get firstChild(): LightNode | null {
    const head = this.head;
    return typeof head === "string" ? this.nodeOfOnlyText(head) : head;
  }

  /** The last child node (as {@link firstChild}). */
  get lastChild(): LightNode | null {
    const head = this.head;
    return typeof head === "string" ? this.nodeOfOnlyText(head) : this.tail;
  }

  /**
   * The element's only child's text while it has no node (the parse keeps an element's only text
   * as a string), else null: then the children are its child nodes. Reading {@link firstChild} or
   * {@link lastChild} (or any child list) makes the node, the same text node the parse built before
   * (its parent this element, no siblings), and it stays; the walks that know this (whitespace
   * collapsing, the prose walk) read the text here instead and never make it.
   */
  get onlyText(): string | null {
    const head = this.head;
    return typeof head === "string" ? head : null;
  }

  /**
   * For a walk that rewrites texts (whitespace collapsing): sets the text {@link onlyText} answers,
   * as writing its node's `data` would ("" too: an empty text stays a child). Only while
   * `onlyText` is not null.
   */
  setOnlyText(text: string): void {
    if (typeof this.head !== "string") throw new TypeError("setOnlyText: the element's only text is a node");
    this.head = text;
    this.invalidateText();
  }

  /** Removes the text {@link onlyText} answers, as `removeChild` of its node would. Only while `onlyText` is not null. */
  removeOnlyText(): void {
    if (typeof this.head !== "string") throw new TypeError("removeOnlyText: the element's only text is a node");
    structureEpoch++;
    this.head = null;
    this.invalidateText();
  }

  /** The text node of the element's only text: made once, then the element's child. */
  private nodeOfOnlyText(text: string): LightText {
    const node = new LightText(text);
    node.parentNode = this;
    this.head = node;
    this.tail = node;
    return node;
  }

  /**
   * Text the parse read, appended as htmlparser2's pieces of one run must be: to the last child
   * when that is a text, else as a new last child (kept as a string while it is the only child,
   * see {@link onlyText}).
   */
  appendParsedText(text: string): void {
    const head = this.head;
    if (typeof head === "string") {
      this.head = head + text;
      this.invalidateText();
      return;
    }
    if (head === null && this.lists === undefined) {
      structureEpoch++;
      this.head = text;
      this.invalidateText();
      return;
    }
    const last = this.tail;
    if (last !== null && last.nodeType === 3) {
      last.appendData(text);
      this.invalidateText();
    } else {
      this.appendChild(new LightText(text));
    }
  }

  /**
   * The attributes, names in lower case: each name's first value, as htmlparser2 builds them.
   * Elements without any share one frozen empty object. Built on first read from the parser's
   * list (most elements' are never read as a whole: single names go through {@link attributeValue}).
   */
  get attributes(): Record<string, string> {
    const source = this.attributeSource;
    if (source instanceof AttributeList) return (this.attributeSource = source.toRecord());
    return source;
  }

  /** `attributes[key]` for a lower-case key, read from the parser's list while there is one. */
  private attributeValue(key: string): string | undefined {
    return PROTOTYPE_NAMES.has(key) ? this.attributes[key] : this.ownAttribute(key);
  }

  /** `attributes[key]` for a lower-case key that is no `Object.prototype` member's name (the getters' literals). */
  private ownAttribute(key: string): string | undefined {
    return ownAttributeIn(this.attributeSource, key);
  }

  /**
   * Whether the element has any attribute (the DOM's hasAttributes): false only when it has none,
   * so that every name's look-up would give null (the table rules ask it before reading a cell's
   * `align`, `style` and `colspan`).
   */
  hasAttributes(): boolean {
    return hasAnyAttribute(this.attributeSource);
  }

  get tagName(): string {
    return this.nodeName;
  }

  get localName(): string {
    return this.nodeName.toLowerCase();
  }

  /**
   * The rows and cells the parse kept out of the tree (a plain table's, see {@link PackedTable}),
   * or null: then the element's children are its child nodes, as for any element.
   */
  get packedTable(): PackedTable | null {
    const lists = this.lists;
    return lists instanceof PackedTable ? lists : null;
  }

  /**
   * Builds the child nodes a packed table stands for (the tree the parse would have built, with
   * the texts as they are now: whitespace collapsing changes them in place), and drops the packed
   * parts. Nothing for any other element. Every reader of the children but the walks that know
   * packed tables (collapse-whitespace.ts, markdown-tables.ts) comes here first. With `meter`,
   * one tick per cell built (a table of data can be most of a page).
   */
  unpack(meter?: WorkMeter): PackedParts | null {
    const packed = this.packedTable;
    if (packed === null) return null;
    this.lists = undefined;
    return packed.build(this, meter);
  }

  /** Makes this (new, childless) table keep its rows and cells packed: the parse records them in the answer. */
  packParts(): PackedTable {
    const packed = new PackedTable();
    this.lists = packed;
    return packed;
  }

  /** The element's child lists, current for the tree's structure as it is now. */
  private freshLists(): ChildLists {
    const lists = this.lists;
    if (lists !== undefined) {
      if (lists instanceof PackedTable) this.unpack();
      else if (lists.epoch === structureEpoch) return lists;
    }
    return (this.lists = { epoch: structureEpoch, childNodes: undefined, children: undefined, rows: undefined });
  }

  /** The child nodes in order. The array is shared between reads: callers must not modify it. */
  get childNodes(): LightNode[] {
    if (this.childNodesHidden) return NO_CHILDREN;
    const lists = this.freshLists();
    return (lists.childNodes ??= childNodesOf(this));
  }

  get children(): LightElement[] {
    const lists = this.freshLists();
    return (lists.children ??= childElementsOf(this));
  }

  get lastElementChild(): LightElement | null {
    this.unpack();
    if (this.onlyText !== null) return null;
    for (let n = this.lastChild; n !== null; n = n.previousSibling) if (n.nodeType === 1) return n;
    return null;
  }

  getAttribute(name: string): string | null {
    const value = this.attributeValue(attributeKey(name));
    return value === undefined ? null : value;
  }

  hasAttribute(name: string): boolean {
    return this.attributeValue(attributeKey(name)) !== undefined;
  }

  get className(): string {
    return this.ownAttribute("class") ?? "";
  }

  get type(): string {
    return (this.ownAttribute("type") ?? "").toLowerCase();
  }

  get checked(): boolean {
    return this.ownAttribute("checked") !== undefined;
  }

  /** Only `textAlign` is read (GFM column alignment); taken from the inline style. */
  get style(): { readonly textAlign: string } {
    return styleOf(this.ownAttribute("style"));
  }

  /** The table's rows in tree order, not counting rows of nested tables (HTMLTableElement.rows). */
  get rows(): LightElement[] {
    const lists = this.freshLists();
    return (lists.rows ??= rowsOf(this, []));
  }

  getElementsByTagName(name: string): LightElement[] {
    const wanted = name.toUpperCase();
    const out: LightElement[] = [];
    // A packed table's parts are row groups, rows and cells only: for any other name the walk
    // passes over them without building them (the main-content extractor asks for `h1`).
    this.walkElements((el) => {
      if (wanted === "*" || el.nodeName === wanted) out.push(el);
    }, wanted === "*" || PACKED_PART_NAMES.has(wanted));
    return out;
  }

  /** Supports a bare tag-name selector, which is all turndown and the GFM plugin ask for. */
  querySelector(selector: string): LightElement | null {
    return this.getElementsByTagName(selector.trim())[0] ?? null;
  }

  get textContent(): string {
    if (this.cachedText !== undefined) return this.cachedText;
    // Cached like any other: invalidateText stops at the first element without a cache.
    const head = this.head;
    if (typeof head === "string") return (this.cachedText = head);
    let text = "";
    for (let n = this.firstChild; n !== null; n = n.nextSibling) text += n.textContent;
    if (this.firstChild === null && this.lists instanceof PackedTable) text = this.lists.text();
    this.cachedText = text;
    return text;
  }

  invalidateText(): void {
    // Every cached ancestor has cached descendants on the path (textContent fills the caches
    // bottom-up), so the walk can stop at the first element without a cache.
    if (this.cachedText === undefined) return;
    this.cachedText = undefined;
    this.parentNode?.invalidateText();
  }

  appendChild(child: LightNode): LightNode {
    if (this.lists !== undefined) this.unpack();
    const last = this.lastChild;
    structureEpoch++;
    child.parentNode = this;
    child.previousSibling = last;
    child.nextSibling = null;
    if (last === null) this.head = child;
    else last.nextSibling = child;
    this.tail = child;
    this.invalidateText();
    return child;
  }

  /** Inserts `child` (not yet in a tree) before `ref`, a child of this element. */
  insertBefore(child: LightNode, ref: LightNode): LightNode {
    this.unpack();
    structureEpoch++;
    child.parentNode = this;
    child.nextSibling = ref;
    child.previousSibling = ref.previousSibling;
    if (ref.previousSibling === null) this.head = child;
    else ref.previousSibling.nextSibling = child;
    ref.previousSibling = child;
    this.invalidateText();
    return child;
  }

  removeChild(child: LightNode): LightNode {
    structureEpoch++;
    if (child.previousSibling === null) this.head = child.nextSibling;
    else child.previousSibling.nextSibling = child.nextSibling;
    if (child.nextSibling === null) this.tail = child.previousSibling;
    else child.nextSibling.previousSibling = child.previousSibling;
    child.parentNode = null;
    child.previousSibling = null;
    child.nextSibling = null;
    this.invalidateText();
    return child;
  }

  remove(): void {
    this.parentNode?.removeChild(this);
  }

  /**
   * Moves all of this element's child nodes to the end of `target`'s, in order: the tree that
   * `while (firstChild) target.appendChild(removeChild(firstChild))` leaves, with one splice of
   * the sibling chain (the children keep their links to each other; only their parent changes).
   * `target` must be neither this element nor inside it.
   */
  moveChildrenTo(target: LightElement): void {
    const first = this.firstChild;
    const last = this.lastChild;
    if (first === null || last === null) return;
    if (target.lists !== undefined) target.unpack();
    const targetLast = target.lastChild;
    structureEpoch++;
    for (let n: LightNode | null = first; n !== null; n = n.nextSibling) n.parentNode = target;
    first.previousSibling = targetLast;
    if (targetLast === null) target.head = first;
    else targetLast.nextSibling = first;
    target.tail = last;
    this.head = null;
    this.tail = null;
    this.invalidateText();
    target.invalidateText();
  }

  /** A real deep copy, as the DOM defines it (html-to-markdown skips it when the tree is single-use). */
  cloneNode(deep = false): LightElement {
    if (deep) this.unpack();
    const copy = new LightElement(this.localName, { ...this.attributes });
    if (deep) for (let n = this.firstChild; n !== null; n = n.nextSibling) copy.appendChild(n.nodeType === 1 ? n.cloneNode(true) : n.cloneNode());
    return copy;
  }

  get outerHTML(): string {
    let attrs = "";
    for (const [k, v] of Object.entries(this.attributes)) attrs += ` ${k}="${v.replace(/[&"\u00a0]/g, (c) => ESCAPES[c]!)}"`;
    const name = this.localName;
    if (VOID_TAGS.has(name)) return `<${name}${attrs}>`;
    return `<${name}${attrs}>${this.innerHTML}</${name}>`;
  }

  get innerHTML(): string {
    this.unpack();
    let html = "";
    for (let n = this.firstChild; n !== null; n = n.nextSibling) html += n.nodeType === 1 ? n.outerHTML : n.data.replace(/[&<>\u00a0]/g, (c) => ESCAPES[c]!);
    return html;
  }

  /** Visits the descendant elements in tree order; packed tables' parts only with `unpackTables` (which builds them). */
  private walkElements(visit: (el: LightElement) => void, unpackTables = true): void {
    if (unpackTables) this.unpack();
    const stack: LightNode[] = [];
    // An element's only text kept as a string holds no element: its node is not made.
    if (this.onlyText === null) for (let n = this.lastChild; n !== null; n = n.previousSibling) stack.push(n);
    while (stack.length > 0) {
      const node = stack.pop()!;
      if (node.nodeType !== 1) continue;
      visit(node);
      if (unpackTables) node.unpack();
      if (node.onlyText !== null) continue;
      for (let n = node.lastChild; n !== null; n = n.previousSibling) stack.push(n);
    }
  }
}

/** U+00AD SOFT HYPHEN: dropped from every text as the parse reads it (see {@link withoutSoftHyphens}). */
const SOFT_HYPHEN = "\u00AD";

/**
 * `text` without its soft hyphens (U+00AD, `&shy;`): hyphenation hints a browser shows only at a
 * line's end; kept, they split every hinted word in two for a reader that searches or quotes the
 * text ("Mit\u00ADtel\u00ADal\u00ADter"). One scan of a text that has none. Every text the parse
 * reads goes through it: htmlparser2's texts (ontext) and the cells the table fast path takes
 * straight from the input (packSimpleCell).
 */
function withoutSoftHyphens(text: string): string {
  return text.includes(SOFT_HYPHEN) ? text.replaceAll(SOFT_HYPHEN, "") : text;
}

/** The element names a packed table's parts can have (see {@link PackedTable}). */
const PACKED_PART_NAMES: ReadonlySet<string> = new Set(["THEAD", "TBODY", "TFOOT", "TR", "TD", "TH"]);

/** A list of 32-bit integers that grows as it is pushed to (a packed table's figures per row and cell). */
class IntList {
  data = new Int32Array(4);
  length = 0;

  push(value: number): void {
    if (this.length === this.data.length) {
      const grown = new Int32Array(this.length * 2);
      grown.set(this.data);
      this.data = grown;
    }
    this.data[this.length++] = value;
  }
}

/** An IntList of `length` copies of `value`. */
function filledIntList(length: number, value: number): IntList {
  const list = new IntList();
  for (let i = 0; i < length; i++) list.push(value);
  return list;
}

/** The elements of a packed table's parts open in the parse, when it builds them (null where none is open). */
export interface PackedParts {
  group: LightElement | null;
  row: LightElement | null;
  cell: LightElement | null;
}

/** A packed table's row group: its tag, its attributes, its place among the table's children and its rows. */
export interface PackedGroup {
  /** "thead", "tbody" or "tfoot". */
  readonly name: string;
  readonly attributes: AttributeSource;
  /** Its index among the table's children. */
  readonly childIndex: number;
  /** Its rows: rowStart up to (not including) rowEnd. */
  readonly rowStart: number;
  rowEnd: number;
}

/**
 * The rows and cells of a plain table, kept out of the tree by the parse (`packTables`, see
 * {@link parseLightDocument}): every child of the table a row or a row group, every child of a
 * group a row, every child of a row a cell (`td`, `th`), every cell holding one text or nothing.
 * A table of data is most of a large page's nodes: here a cell is three array slots beside its
 * text instead of an element and a text node (192 bytes), which the young generation's
 * collections copied while the tree was built, and the walks over the tree (whitespace
 * collapsing, the prose facts, the table writer) read arrays instead of touching every node.
 *
 * The table element has no child nodes while its parts are packed; `LightElement.unpack` builds
 * them (with the texts as they are at that moment) for any reader that asks for its children
 * through a method (`childNodes`, `children`, `rows`, `getElementsByTagName`, `innerHTML`, …),
 * and `textContent` reads the texts. Only readers that know packed tables may follow
 * `firstChild` into one: collapse-whitespace.ts and markdown-tables.ts, which write it without
 * building it.
 */
export class PackedTable {
  /** The table's children in order: a row as its index (0 up), a group as -1 - its index. */
  readonly children: number[] = [];
  readonly groups: PackedGroup[] = [];
  // A page of many small tables has a PackedTable per table, all alive until the Markdown is
  // written: what most tables do not need (groups, `th` cells, attributes) is made only when a
  // part needs it (an Int32Array is three objects, an empty Map a hash table).
  /** Each row's group (its index), or -1 for a row that is a child of the table; null while no row is in a group. */
  private rowGroups: IntList | null = null;
  /** Where each row's cells end: row r's cells are cellEnd(r - 1) (0 for the first) up to cellEnd(r). */
  private readonly rowCellEnds = new IntList();
  /** Each cell's tag: 1 for `th`, 0 for `td`; null while every cell is a `td`. */
  private cellKinds: IntList | null = null;
  /** The attributes of the rows and cells that have any, by index (most have none); null while none has. */
  private rowAttributes: Map<number, AttributeSource> | null = null;
  private cellAttributes: Map<number, AttributeSource> | null = null;
  /** Each cell's text, or null for a cell without a text node. Whitespace collapsing rewrites them. */
  readonly cellTexts: (string | null)[] = [];
  /** The group, row and cell open in the parse (their indexes), or -1. */
  private openGroup = -1;
  private openRow = -1;
  private openCell = -1;
  /** A row closed without a cell: the parse builds such a table as a tree when it ends. */
  rowWithoutCell = false;
  /** The Markdown the table rules wrote for the table, its facts as they count them, and which rules (their tag; markdown-tables.ts). */
  written: { readonly by: object; readonly markdown: string; readonly facts: object } | null = null;

  get rowCount(): number {
    return this.rowCellEnds.length;
  }

  /** Row `r`'s group (its index in {@link groups}), or -1 when the row is a child of the table. */
  groupOf(r: number): number {
    const groups = this.rowGroups;
    return groups === null ? -1 : groups.data[r]!;
  }

  /** The index after row `r`'s last cell. */
  cellEnd(r: number): number {
    return this.rowCellEnds.data[r]!;
  }

  /** Whether cell `cell` is a `th` (else a `td`). */
  isHeaderCell(cell: number): boolean {
    const kinds = this.cellKinds;
    return kinds !== null && kinds.data[cell] === 1;
  }

  /** The index of the first cell of row `r`. */
  cellStart(r: number): number {
    return r === 0 ? 0 : this.rowCellEnds.data[r - 1]!;
  }

  /** Whether a row is open and no cell in it (the parse is between a row's cells). */
  get betweenCells(): boolean {
    return this.openRow !== -1 && this.openCell === -1;
  }

  /** Whether no row is open (the parse is between rows, in the table or a group). */
  get betweenRows(): boolean {
    return this.openRow === -1 && this.openCell === -1;
  }

  /** Whether a part can open here without making the table irregular; then it is recorded. */
  open(name: string, attributes: AttributeSource): boolean {
    if (this.openCell !== -1) return false;
    if (name === "td" || name === "th") {
      if (this.openRow === -1) return false;
      const cell = this.cellTexts.length;
      this.openCell = cell;
      if (name === "th" && this.cellKinds === null) this.cellKinds = filledIntList(cell, 0);
      this.cellKinds?.push(name === "th" ? 1 : 0);
      if (attributes !== NO_ATTRIBUTES) (this.cellAttributes ??= new Map()).set(cell, attributes);
      this.cellTexts.push(null);
      this.rowCellEnds.data[this.openRow] = cell + 1;
      return true;
    }
    if (this.openRow !== -1) return false;
    if (name === "tr") {
      const r = this.rowCellEnds.length;
      this.openRow = r;
      if (this.openGroup === -1) this.children.push(r);
      else this.groups[this.openGroup]!.rowEnd = r + 1;
      if (this.openGroup !== -1 && this.rowGroups === null) this.rowGroups = filledIntList(r, -1);
      this.rowGroups?.push(this.openGroup);
      if (attributes !== NO_ATTRIBUTES) (this.rowAttributes ??= new Map()).set(r, attributes);
      this.rowCellEnds.push(this.cellTexts.length);
      return true;
    }
    if (this.openGroup !== -1 || (name !== "tbody" && name !== "thead" && name !== "tfoot")) return false;
    this.openGroup = this.groups.length;
    this.groups.push({ name, attributes, childIndex: this.children.length, rowStart: this.rowCellEnds.length, rowEnd: this.rowCellEnds.length });
    this.children.push(-1 - this.openGroup);
    return true;
  }

  /** Adds text to the open cell, if one is open (else the caller handles it as text in table structure). */
  appendText(text: string): boolean {
    const cell = this.openCell;
    if (cell === -1) return false;
    const before = this.cellTexts[cell];
    this.cellTexts[cell] = before === null || before === undefined ? text : before + text;
    return true;
  }

  /** The innermost open part closes. */
  close(): void {
    if (this.openCell !== -1) {
      this.openCell = -1;
    } else if (this.openRow !== -1) {
      if (this.cellEnd(this.openRow) === this.cellStart(this.openRow)) this.rowWithoutCell = true;
      this.openRow = -1;
    } else {
      this.openGroup = -1;
    }
  }

  /** Whether the table is one row of at most one cell, which the table rules write as its cell's content (a layout table). */
  get singleCell(): boolean {
    return this.rowCellEnds.length === 1 && this.cellTexts.length <= 1;
  }

  /** The table's textContent: its cells' texts in order. */
  text(): string {
    let out = "";
    for (const t of this.cellTexts) if (t !== null) out += t;
    return out;
  }

  /** A cell's attribute (`getAttribute` of its element) for a lower-case name that is no `Object.prototype` member's. */
  cellAttribute(cell: number, key: string): string | null {
    return ownAttributeIn(this.attributesOfCell(cell), key) ?? null;
  }

  /** Whether a cell has any attribute (its element's hasAttributes). */
  cellHasAttributes(cell: number): boolean {
    // Most tables have no cell with attributes.
    return this.cellAttributes !== null && hasAnyAttribute(this.attributesOfCell(cell));
  }

  /** Whether row `r` has any attribute (its element's hasAttributes). */
  rowHasAttributes(r: number): boolean {
    return this.rowAttributes !== null && hasAnyAttribute(this.attributesOfRow(r));
  }

  /** Whether group `g` has any attribute (its element's hasAttributes). */
  groupHasAttributes(g: number): boolean {
    return hasAnyAttribute(this.groups[g]!.attributes);
  }

  /** A cell's `style.textAlign`, as its element answers it. */
  cellTextAlign(cell: number): string {
    return styleOf(ownAttributeIn(this.attributesOfCell(cell), "style")).textAlign;
  }

  /**
   * The parts that have attributes, each as the element it stands for on its own (see
   * {@link cellNode}): for readers that judge parts by their attributes (the main-content
   * extractor's hidden elements) without building the table. Most tables have none.
   */
  partsWithAttributes(table: LightElement): LightElement[] {
    const out: LightElement[] = [];
    this.groups.forEach((group, g) => {
      if (hasAnyAttribute(group.attributes)) out.push(this.groupNode(table, g));
    });
    const rows = this.rowAttributes;
    const cells = this.cellAttributes;
    if (rows === null && cells === null) return out;
    for (let r = 0; r < this.rowCount; r++) {
      if (rows?.has(r) === true) out.push(this.rowNode(table, r));
      if (cells === null) continue;
      for (let c = this.cellStart(r); c < this.cellEnd(r); c++) if (cells.has(c)) out.push(this.cellNode(table, r, c));
    }
    return out;
  }

  private attributesOfCell(cell: number): AttributeSource {
    return this.cellAttributes?.get(cell) ?? NO_ATTRIBUTES;
  }

  private attributesOfRow(r: number): AttributeSource {
    return this.rowAttributes?.get(r) ?? NO_ATTRIBUTES;
  }

  private cellName(cell: number): string {
    return this.isHeaderCell(cell) ? "th" : "td";
  }

  /**
   * The elements the parts stand for, on their own: a group's parent is `table`, a row's its
   * group's element or `table`, a cell's its row's; none is among its parent's child nodes. For
   * the table rules' check of each tag's rule (markdown-tables.ts), which reads a part's name,
   * attributes and ancestors only.
   */
  groupNode(table: LightElement, g: number): LightElement {
    const group = this.groups[g]!;
    const el = new LightElement(group.name, group.attributes);
    el.parentNode = table;
    return el;
  }

  rowNode(table: LightElement, r: number): LightElement {
    const el = new LightElement("tr", this.attributesOfRow(r));
    const g = this.groupOf(r);
    el.parentNode = g === -1 ? table : this.groupNode(table, g);
    return el;
  }

  cellNode(table: LightElement, r: number, cell: number): LightElement {
    const el = new LightElement(this.cellName(cell), this.attributesOfCell(cell));
    el.parentNode = this.rowNode(table, r);
    return el;
  }

  /**
   * Builds the parts under `table` as the parse would have built them (see LightElement.unpack),
   * and returns the elements of the parts that are open in the parse. Ticks `meter` once per cell.
   */
  build(table: LightElement, meter?: WorkMeter): PackedParts {
    const open: PackedParts = { group: null, row: null, cell: null };
    const buildRow = (parent: LightElement, r: number): void => {
      const tr = new LightElement("tr", this.attributesOfRow(r));
      parent.appendChild(tr);
      if (r === this.openRow) open.row = tr;
      for (let c = this.cellStart(r); c < this.cellEnd(r); c++) {
        meter?.tick();
        const cell = new LightElement(this.cellName(c), this.attributesOfCell(c));
        tr.appendChild(cell);
        const text = this.cellTexts[c] ?? null;
        if (text !== null) cell.appendParsedText(text);
        if (c === this.openCell) open.cell = cell;
      }
    };
    for (const child of this.children) {
      if (child >= 0) {
        buildRow(table, child);
        continue;
      }
      const g = -1 - child;
      const group = this.groups[g]!;
      const el = new LightElement(group.name, group.attributes);
      table.appendChild(el);
      if (g === this.openGroup) open.group = el;
      for (let r = group.rowStart; r < group.rowEnd; r++) buildRow(el, r);
    }
    return open;
  }
}

Object.defineProperty(LightText.prototype, "nodeType", { value: 3 });
Object.defineProperty(LightText.prototype, "nodeName", { value: "#text" });
Object.defineProperty(LightElement.prototype, "nodeType", { value: 1 });

/** The outcome of one parse: a pruned tree plus what was read from the pruned metadata. */
export interface LightDocument {
  /** A `BODY` element holding everything that was not pruned. */
  body: LightElement;
  /**
   * The elements at {@link MAX_DEPTH} that took in the content of deeper elements (their tags
   * dropped, their text and children kept): where the depth limit changed the page's structure.
   */
  flattenedInto: LightElement[];
  /** Text of the first `<title>` outside SVG, raw (not yet whitespace-collapsed); "" when none. */
  title: string;
  /** `href` of the first `<base href>`, or null. */
  baseHref: string | null;
  /**
   * The raw text of each `<script type="application/ld+json">` (structured data: a page's
   * article, its headline, its body), when the parse was asked for it (`structuredData: true`);
   * at most {@link MAX_STRUCTURED_DATA_CHARS} characters in all. Empty otherwise.
   */
  structuredData: string[];
  /**
   * How many elements the parse built into the tree (the parts of packed tables not counted): a
   * size hint for whatever keeps a figure per element (the main-content extractor's tables).
   */
  elements: number;
}

/** An attribute of a tag as the parser reports it with `attributeLists` (a list, or an object). */
function attributeOf(attribs: Record<string, string> | AttributeList, name: "href" | "type"): string | undefined {
  return attribs instanceof AttributeList ? attribs.get(name) : attribs[name];
}

const CH_LT = 0x3c;
const CH_GT = 0x3e;
const CH_SLASH = 0x2f;
const CH_T = 0x74;
const CH_D = 0x64;
const CH_H = 0x68;
const CH_R = 0x72;

/**
 * Whether a buffer holds `&` between two places, asked at places that only move forward: the next
 * `&` is looked for again only once the places pass it, so all the asking is one pass.
 */
class AmpScan {
  private next = -2;

  constructor(readonly buffer: string) {}

  /** Whether `&` is in [from, limit); `from` never less than in the call before. */
  within(from: number, limit: number): boolean {
    if (this.next === -1) return false;
    if (this.next < from) {
      this.next = this.buffer.indexOf("&", from);
      if (this.next === -1) return false;
    }
    return this.next < limit;
  }
}

/**
 * Where the cell at `i` ends, when it is `<td>` or `<th>` exactly (lower case, no attributes),
 * text without `<` or `&` (no markup, no entity to decode), and its own end tag: the index after
 * that end tag; else -1.
 */
function simpleCellEnd(buffer: string, i: number, amps: AmpScan): number {
  if (buffer.charCodeAt(i + 1) !== CH_T || buffer.charCodeAt(i + 3) !== CH_GT) return -1;
  const kind = buffer.charCodeAt(i + 2);
  if (kind !== CH_D && kind !== CH_H) return -1;
  const close = buffer.indexOf("<", i + 4);
  if (close === -1 || amps.within(i + 4, close)) return -1;
  if (buffer.charCodeAt(close + 1) !== CH_SLASH || buffer.charCodeAt(close + 2) !== CH_T || buffer.charCodeAt(close + 3) !== kind || buffer.charCodeAt(close + 4) !== CH_GT) return -1;
  return close + 5;
}

/** Structured data kept from one page, in characters: enough for a long article's JSON-LD. */
export const MAX_STRUCTURED_DATA_CHARS = 2_000_000;

/**
 * Parses HTML with htmlparser2 into a {@link LightElement} tree in one pass. Comments, processing
 * instructions, CDATA and every element in {@link PRUNED_TAGS} (with its content) are never built.
 * `<html>`, `<head>`, `<body>` contribute no element of their own: their children go to the returned body.
 * `options.pruned` replaces {@link PRUNED_TAGS} (the main-content extractor keeps page furniture
 * such as `<nav>` and `<aside>` to judge it itself; `<title>` and `<base>` are always read and dropped).
 * `options.structuredData` keeps the text of JSON-LD scripts (see {@link LightDocument.structuredData}).
 */
export function parseLightDocument(html: string, options: { pruned?: ReadonlySet<string>; meter?: WorkMeter; structuredData?: boolean; packTables?: boolean } = {}): LightDocument {
  const pruned = options.pruned ?? PRUNED_TAGS;
  const packTables = options.packTables === true;
  // The table whose rows and cells are being packed (see PackedTable), or null.
  let packing: { table: LightElement; packed: PackedTable } | null = null;
  // Open tables, `<code>` and `<pre>` elements: a table inside one is not packed (see `packTables`).
  let packBlockers = 0;
  // The tables open in the parse, innermost last (every open element is an ancestor of `current`).
  const openTables: LightElement[] = [];
  const structuredData: string[] = [];
  let structuredChars = 0;
  // The JSON-LD script being read (its text so far), or null.
  let jsonLd: string | null = null;
  const meter = options.meter;
  const flattenedInto: LightElement[] = [];
  let elements = 0;
  const body = new LightElement("body", {});
  // One entry per open tag; null marks a tag that added no element (pruned, flattened, html/body),
  // false a part of the packed table.
  const stack: (LightElement | null | false)[] = [];
  let current = body;
  let depth = 0;
  let pruneDepth = 0;
  let title: string | null = null;
  let inTitle = false;
  let baseHref: string | null = null;
  // HTML5 tree construction keeps whitespace before the body starts out of the body ("before
  // head", "in head", "after head" modes); the body starts at <body>, at the first element that
  // does not belong in <head>, or at the first non-whitespace text.
  let bodyStarted = false;
  const forms: LightElement[] = [];

  /** The packed table is done: kept packed, or built as a tree when it is not plain after all or a single cell. */
  const finishPacking = (): void => {
    const { table, packed } = packing!;
    packing = null;
    parser.tableRun = null;
    if (packed.rowWithoutCell || packed.singleCell) table.unpack();
  };
  /**
   * A tag or text the packed table cannot hold: its parts are built as the tree they stand for,
   * and the open ones take the place of their markers on the stack, innermost last.
   */
  const stopPacking = (): void => {
    const table = packing!.table;
    packing = null;
    parser.tableRun = null;
    const open = table.unpack()!;
    const chain = [open.group, open.row, open.cell].filter((el) => el !== null);
    let next = chain.length - 1;
    for (let i = stack.length - 1; next >= 0; i--) if (stack[i] === false) stack[i] = chain[next--]!;
    current = chain.at(-1) ?? table;
  };

  /** The cell at `start` (see simpleCellEnd), ending at `end`, into the packed table, with the ticks its events would make. */
  const packSimpleCell = (packed: PackedTable, buffer: string, start: number, end: number): void => {
    meter?.tick();
    packed.open(buffer.charCodeAt(start + 2) === CH_H ? "th" : "td", NO_ATTRIBUTES);
    // `<td>` is 4 characters, `</td>` 5.
    if (end - 5 > start + 4) {
      meter?.tick();
      // As ontext would have taken it: without soft hyphens, and nothing when nothing is left.
      const text = withoutSoftHyphens(buffer.slice(start + 4, end - 5));
      if (text !== "") packed.appendText(text);
    }
    packed.close();
  };
  let amps: AmpScan | null = null;
  const cellStarts: number[] = [];
  const cellEnds: number[] = [];
  /**
   * LinearParser's onTableRun for a packed table: the simple cells (see simpleCellEnd) that follow
   * one another from `at` inside a row, or, between rows, the rows of such cells (`<tr>` exactly,
   * its cells with nothing between them, `</tr>`), taken straight from the input into the packed
   * table, as the events of their tags and texts would put them there. htmlparser2 would open
   * and close each of them with nothing implied (a cell's start tag closes only an open cell, a
   * row's only an open row or cell, and there is none). A table's cells are most of its tags, and
   * each tag cost htmlparser2's tokenizer and parser several calls and look-ups.
   */
  const takeTableRun = (buffer: string, at: number, top: string): number => {
    if (packing === null || pruneDepth > 0) return 0;
    const packed = packing.packed;
    const entry = stack[stack.length - 1];
    if (amps === null || amps.buffer !== buffer) amps = new AmpScan(buffer);
    let i = at;
    if (top === "tr") {
      if (entry !== false || !packed.betweenCells) return 0;
      for (let end = simpleCellEnd(buffer, i, amps); end !== -1; end = buffer.charCodeAt(i) === CH_LT ? simpleCellEnd(buffer, i, amps) : -1) {
        packSimpleCell(packed, buffer, i, end);
        i = end;
      }
      return i - at;
    }
    if ((top === "table" ? entry !== packing.table : entry !== false) || !packed.betweenRows) return 0;
    while (buffer.charCodeAt(i) === CH_LT && buffer.charCodeAt(i + 1) === CH_T && buffer.charCodeAt(i + 2) === CH_R && buffer.charCodeAt(i + 3) === CH_GT) {
      cellStarts.length = 0;
      cellEnds.length = 0;
      let j = i + 4;
      for (let end = buffer.charCodeAt(j) === CH_LT ? simpleCellEnd(buffer, j, amps) : -1; end !== -1; end = buffer.charCodeAt(j) === CH_LT ? simpleCellEnd(buffer, j, amps) : -1) {
        cellStarts.push(j);
        cellEnds.push(end);
        j = end;
      }
      // A row is taken whole or not at all: its start tag must not reach htmlparser2 without its end.
      if (cellStarts.length === 0 || buffer.charCodeAt(j) !== CH_LT || buffer.charCodeAt(j + 1) !== CH_SLASH || buffer.charCodeAt(j + 2) !== CH_T || buffer.charCodeAt(j + 3) !== CH_R || buffer.charCodeAt(j + 4) !== CH_GT) break;
      meter?.tick();
      packed.open("tr", NO_ATTRIBUTES);
      for (let c = 0; c < cellStarts.length; c++) packSimpleCell(packed, buffer, cellStarts[c]!, cellEnds[c]!);
      packed.close();
      i = j + 5;
    }
    return i - at;
  };

  const parser = new LinearParser(
    {
      onopentag(name, attribs) {
        meter?.tick();
        if (pruneDepth > 0) {
          pruneDepth++;
          stack.push(null);
          return;
        }
        if (!bodyStarted && !HEAD_PHASE_TAGS.has(name)) bodyStarted = true;
        if (pruned.has(name) || name === "title" || name === "base") {
          pruneDepth = 1;
          stack.push(null);
          if (name === "title" && title === null) {
            title = "";
            inTitle = true;
          } else if (name === "base" && baseHref === null && attributeOf(attribs, "href") !== undefined) {
            baseHref = attributeOf(attribs, "href")!;
          } else if (name === "script" && options.structuredData === true && /^\s*application\/ld\+json\s*$/i.test(attributeOf(attribs, "type") ?? "")) {
            jsonLd = "";
          }
          return;
        }
        // <html>, <head> and <body> are transparent: what htmlparser2 leaves in <head> (it does not
        // close it implicitly as HTML5 does) still reaches the body, as a browser would put it there.
        if (name === "html" || name === "head" || name === "body") {
          stack.push(null);
          return;
        }
        if (packing !== null) {
          if (packing.packed.open(name, attribs)) {
            depth++;
            stack.push(false);
            return;
          }
          stopPacking();
        }
        if (depth >= MAX_DEPTH) {
          // The last element before a flattened one is the host its content goes to.
          if (flattenedInto.at(-1) !== current) flattenedInto.push(current);
          stack.push(null);
          return;
        }
        const el = new LightElement(name, attribs);
        elements++;
        if (name === "form") forms.push(el);
        current.appendChild(el);
        current = el;
        if (name === "table") openTables.push(el);
        if (packTables && (name === "table" || name === "code" || name === "pre")) {
          // Its rows and cells will be the deepest elements: packed, none may reach the depth limit.
          if (name === "table" && packBlockers === 0 && depth + 3 < MAX_DEPTH) {
            packing = { table: el, packed: el.packParts() };
            parser.tableRun = takeTableRun;
          }
          packBlockers++;
        }
        depth++;
        stack.push(el);
      },
      ontext(text) {
        meter?.tick();
        if (text.includes(SOFT_HYPHEN)) {
          text = withoutSoftHyphens(text);
          if (text === "") return;
        }
        if (pruneDepth > 0) {
          if (inTitle) title += text;
          else if (jsonLd !== null && structuredChars + jsonLd.length + text.length <= MAX_STRUCTURED_DATA_CHARS) jsonLd += text;
          return;
        }
        if (!bodyStarted) {
          text = text.replace(/^[\t\n\f\r ]+/, "");
          if (text === "") return;
          bodyStarted = true;
        }
        if (packing !== null && packing.packed.appendText(text)) return;
        // Text directly inside table structure (between rows or cells): HTML5 keeps only the
        // whitespace there and foster-parents the rest before the table (§13.2.6.4.9). A text node
        // among a row's cells crashed the GFM plugin (it reads cells as row.childNodes[i]); the
        // whitespace carries nothing, and the rest is kept as text before the table.
        if (TABLE_STRUCTURE.has(current.nodeName)) {
          if (/^[\t\n\f\r ]*$/.test(text)) return;
          // Before the innermost open table, however deep the structure inside it: htmlparser2
          // nests rows in rows and groups (`<tr><thead><tr>`), and text left inside a row was read as
          // one of its cells (a crash). Outside any table, up to three levels up, as before.
          let table: LightElement = openTables.at(-1) ?? current;
          for (let up = 0; up < 3 && table.nodeName !== "TABLE" && table.parentNode !== null; up++) table = table.parentNode;
          const host = table.parentNode;
          if (host !== null) {
            host.insertBefore(new LightText(text), table);
            return;
          }
        }
        // htmlparser2 may deliver one text run in several pieces (around entities): keep one text.
        current.appendParsedText(text);
      },
      onclosetag() {
        const el = stack.pop();
        if (pruneDepth > 0) {
          pruneDepth--;
          if (pruneDepth === 0) {
            inTitle = false;
            if (jsonLd !== null && jsonLd.trim() !== "") {
              structuredData.push(jsonLd);
              structuredChars += jsonLd.length;
            }
            jsonLd = null;
          }
          return;
        }
        if (el === false) {
          packing!.packed.close();
          depth--;
          return;
        }
        if (el !== null && el !== undefined) {
          if (el === openTables.at(-1)) openTables.pop();
          if (packTables) {
            if (el === packing?.table) finishPacking();
            const n = el.nodeName;
            if (n === "TABLE" || n === "CODE" || n === "PRE") packBlockers--;
          }
          current = el.parentNode ?? body;
          depth--;
        }
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true, recognizeSelfClosing: false },
    { attributeLists: true, headingEndTags: true },
  );
  parser.end(html);
  if (packing !== null) finishPacking();
  for (const form of forms) if (form.parentNode !== null && isControlForm(form.textContent)) form.remove();
  return { body, flattenedInto, title: title ?? "", baseHref, structuredData, elements };
}
