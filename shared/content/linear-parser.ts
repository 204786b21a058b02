import type { QuoteType } from "htmlparser2";
import { Parser, Tokenizer, type Handler, type ParserOptions } from "htmlparser2";

/**
 * htmlparser2 12's `Parser` keeps its open elements in an array with the current element first:
 * every start tag is an `unshift` and every end tag a `shift`, each moving the whole array, and
 * every `<form>` runs `stack.includes("form")`. On a page of n nested elements that is O(n²):
 * 40,000 nested `<div>` took 1.5 s to parse, 128,000 far longer. This stack keeps the same
 * top-first view (`[0]`, `length`, `unshift`, `shift`, `indexOf`, `includes`) over an array in
 * push order, so each operation is O(1) (`indexOf` is amortized O(1): the distance it scans is
 * the number of elements the caller then pops). The tree htmlparser2 reports is unchanged (a
 * test parses the corpus both ways).
 */
class TopFirstStack<T> {
  private readonly items: T[] = [];
  /** How many times each item is on the stack, in a box per item: one look-up per push and pop, not a get and a set. */
  private readonly counts = new Map<T, { n: number }>();
  /**
   * The top, as an own data property kept current by unshift and shift: htmlparser2 reads
   * `stack[0]` and `foreignContext[0]` on every tag, and an indexed getter on the prototype made
   * each read a slow runtime lookup (a tenth of the parse of a table).
   */
  0: T | undefined = undefined;

  constructor(initial: T[] = []) {
    for (const item of initial) this.unshift(item);
  }

  get length(): number {
    return this.items.length;
  }

  /** htmlparser2's reset() empties the stack with `length = 0`. */
  set length(value: number) {
    while (this.items.length > value) this.shift();
  }

  /** The element at depth `i` from the top (htmlparser2 reads `[0]`; onend reads every index). */
  at(i: number): T | undefined {
    return this.items[this.items.length - 1 - i];
  }

  // A count that drops to zero stays in the map: deleting and re-adding a tag name at every
  // close and open made the map rehash as it went (a few names, millions of times).
  unshift(item: T): number {
    this.items.push(item);
    const count = this.counts.get(item);
    if (count === undefined) this.counts.set(item, { n: 1 });
    else count.n++;
    this[0] = item;
    return this.items.length;
  }

  shift(): T | undefined {
    const item = this.items.pop();
    this[0] = this.items[this.items.length - 1];
    if (item !== undefined) this.counts.get(item)!.n--;
    return item;
  }

  includes(item: T): boolean {
    return (this.counts.get(item)?.n ?? 0) > 0;
  }

  indexOf(item: T): number {
    if (!this.includes(item)) return -1;
    for (let i = this.items.length - 1; i >= 0; i--) if (this.items[i] === item) return this.items.length - 1 - i;
    return -1;
  }
}

/** The private members of htmlparser2's Parser this file replaces or reads (htmlparser2 12.0.0). */
interface ParserInternals {
  stack: TopFirstStack<string>;
  foreignContext: TopFirstStack<number>;
  cbs: Partial<Handler>;
  startIndex: number;
  endIndex: number;
  attribs: Record<string, string> | null;
  attribname: string;
  attribvalue: string;
  buffers: string[];
  bufferOffset: number;
  lowerCaseTagNames: boolean;
  lowerCaseAttributeNames: boolean;
  htmlMode: boolean;
}

/**
 * The attributes of every element that has none: one frozen object instead of a fresh `{}` per
 * tag (most elements of a page have no attributes, and the tree keeps them all). Read-only for
 * every handler.
 */
export const NO_ATTRIBUTES: Readonly<Record<string, string>> = Object.freeze({});

/** The names htmlparser2 hands out as shared strings instead of a new lower-cased copy per tag. */
const KNOWN_TAG_NAMES = [
  "a", "abbr", "address", "area", "article", "aside", "audio", "b", "base", "bdi", "bdo", "blockquote", "body", "br", "button",
  "canvas", "caption", "center", "cite", "code", "col", "colgroup", "data", "datalist", "dd", "del", "details", "dfn", "dialog",
  "dir", "div", "dl", "dt", "em", "embed", "fieldset", "figcaption", "figure", "font", "footer", "form", "h1", "h2", "h3", "h4",
  "h5", "h6", "head", "header", "hgroup", "hr", "html", "i", "iframe", "img", "input", "ins", "kbd", "label", "legend", "li",
  "link", "main", "map", "mark", "menu", "meta", "meter", "nav", "noscript", "object", "ol", "optgroup", "option", "output", "p",
  "param", "picture", "pre", "progress", "q", "rp", "rt", "ruby", "s", "samp", "script", "search", "section", "select", "small",
  "source", "span", "strike", "strong", "style", "sub", "summary", "sup", "svg", "table", "tbody", "td", "template", "textarea",
  "tfoot", "th", "thead", "time", "title", "tr", "track", "tt", "u", "ul", "var", "video", "wbr", "image", "math", "big", "nobr",
];

/**
 * Attribute names common enough to hand out as shared strings (the corpus's most frequent, and
 * the ones webgate's rules and extractor read).
 */
const KNOWN_ATTRIBUTE_NAMES = [
  "class", "href", "id", "style", "src", "title", "rel", "type", "content", "name", "width", "height", "target", "role",
  "alt", "onclick", "value", "viewbox", "property", "xmlns", "fill", "d", "async", "tabindex", "itemprop", "itemscope",
  "itemtype", "dir", "align", "charset", "lang", "sizes", "srcset", "loading", "colspan", "rowspan", "border", "valign",
  "cellpadding", "cellspacing", "bgcolor", "color", "face", "size", "action", "method", "for", "media", "defer",
  "crossorigin", "integrity", "http-equiv", "start", "checked", "disabled", "selected", "placeholder", "label", "datetime",
  "cite", "frameborder", "allowfullscreen", "scope", "headers", "summary", "span", "nowrap", "hidden", "language",
  "aria-label", "aria-hidden", "aria-labelledby", "aria-expanded", "aria-controls", "aria-describedby", "data-src",
  "data-id", "data-type", "data-url", "data-href", "data-original", "fill-rule", "clip-rule", "stroke", "stroke-width",
  "transform", "x", "y", "cx", "cy", "r", "points", "version", "xmlns:xlink", "xlink:href", "onload", "onmouseover",
  "onmouseout", "autocomplete", "maxlength", "enctype", "accept", "download", "referrerpolicy", "decoding", "fetchpriority",
  "usemap", "shape", "coords", "nonce", "translate", "draggable", "contenteditable", "spellcheck", "accesskey",
];

/**
 * Names by a hash of their characters (see {@link nameHash}), the longest name's length beside
 * them; a bucket rarely holds two.
 */
interface NameTable {
  byHash: Map<number, string[]>;
  maxLength: number;
}

function nameTable(names: readonly string[]): NameTable {
  const byHash = new Map<number, string[]>();
  for (const name of names) {
    const h = nameHash(name, 0, name.length);
    byHash.set(h, [...(byHash.get(h) ?? []), name]);
  }
  return { byHash, maxLength: Math.max(...names.map((n) => n.length)) };
}

const TAG_NAMES = nameTable(KNOWN_TAG_NAMES);
const ATTRIBUTE_NAMES = nameTable(KNOWN_ATTRIBUTE_NAMES);

/** A hash of `text[start, end)` with ASCII letters folded to lower case (the same for either case). */
function nameHash(text: string, start: number, end: number): number {
  let h = end - start;
  for (let i = start; i < end; i++) h = (Math.imul(h, 31) + (text.charCodeAt(i) | 0x20)) | 0;
  return h;
}

/**
 * The name of `table` that `text[start, end)` spells in any case of ASCII letters, or null:
 * exactly what `text.slice(start, end).toLowerCase()` gives for these names (all ASCII), without
 * allocating it.
 */
function knownName(table: NameTable, text: string, start: number, end: number): string | null {
  if (end - start > table.maxLength) return null;
  const bucket = table.byHash.get(nameHash(text, start, end));
  if (bucket === undefined) return null;
  outer: for (const name of bucket) {
    if (name.length !== end - start) continue;
    for (let i = 0; i < name.length; i++) {
      const c = text.charCodeAt(start + i);
      const lower = c >= 65 && c <= 90 ? c + 32 : c;
      if (lower !== name.charCodeAt(i)) continue outer;
    }
    return name;
  }
  return null;
}

/**
 * A tag's attributes as htmlparser2 reports them (names lower-cased, values with entities
 * decoded), in source order and with repeated names kept: what a LinearParser built with
 * `attributeLists` hands to `onopentag` instead of an object. Building htmlparser2's object costs
 * a keyed store per attribute into objects of ever-changing shapes (a fifth of the parse of the
 * corpus); most elements' attributes are never read, and reading one name is a short scan.
 */
export class AttributeList {
  /** Names and values, alternating. */
  readonly items: string[];

  constructor(name: string, value: string) {
    this.items = [name, value];
  }

  /**
   * The value of the first attribute called `name` (the one htmlparser2's object keeps), or
   * undefined. The same as `toRecord()[name]` for every name but those of `Object.prototype`'s
   * members (`__proto__`, `constructor`, …), which the object answers from its prototype.
   */
  get(name: string): string | undefined {
    const items = this.items;
    for (let i = 0; i < items.length; i += 2) if (items[i] === name) return items[i + 1];
    return undefined;
  }

  /** The object htmlparser2 builds: each name's first value, assigned in order to a plain object. */
  toRecord(): Record<string, string> {
    const out: Record<string, string> = {};
    const items = this.items;
    for (let i = 0; i < items.length; i += 2) if (!Object.hasOwn(out, items[i]!)) out[items[i]!] = items[i + 1]!;
    return out;
  }
}

/** Options of {@link LinearParser} beyond htmlparser2's. */
export interface LinearParserOptions {
  /**
   * Hand `onopentag` each tag's attributes as an {@link AttributeList} (cast to htmlparser2's
   * type; {@link NO_ATTRIBUTES} for a tag without any, and htmlparser2's own `{}` for the `<br>`
   * it implies from `</br>`), not as an object. The handler must not set `onattribute`.
   */
  attributeLists?: boolean;
  /**
   * HTML's rule for a heading's end tag: `</h3>` closes an open `<h2>` (any of h1–h6 closes the
   * nearest open heading), where htmlparser2 ignores an end tag whose own name is not open, so a
   * page's `<h2>Title</h3>` swallowed the rest of the page into the heading. Looked for among
   * the {@link HEADING_END_REACH} innermost open elements, stopping at a table cell, caption,
   * table or template (the spec's scope): bounded work per end tag. The events then differ from
   * htmlparser2's for such pages, as browsers' trees do.
   */
  headingEndTags?: boolean;
}

/** The heading names, for {@link LinearParserOptions.headingEndTags}. */
const HEADINGS: ReadonlySet<string> = new Set(["h1", "h2", "h3", "h4", "h5", "h6"]);
/** Where a heading's end tag stops looking for an open heading (HTML's scope markers that occur inside a body). */
const HEADING_SCOPE_ENDS: ReadonlySet<string> = new Set(["td", "th", "caption", "table", "template", "html", "marquee", "object", "applet"]);
/**
 * How many open elements a heading's end tag looks through for an open heading: a heading's
 * markup is a few levels deep (`<h2><a><span>`), and a bound keeps each end tag O(1) whatever
 * the nesting (an unbounded look on a page of many mismatched end tags over deep nesting would be
 * quadratic).
 */
export const HEADING_END_REACH = 8;

/** The private members of htmlparser2's Tokenizer that {@link SkippingTokenizer} reads and writes (htmlparser2 12.0.0). */
interface TokenizerInternals {
  buffer: string;
  index: number;
  offset: number;
  decodeEntities: boolean;
  sectionStart: number;
  xmlMode: boolean;
  isSpecial: boolean;
  currentSequence: Uint8Array;
  sequenceIndex: number;
  enterTagBody(): void;
  cbs: {
    ontext(start: number, endIndex: number): void;
    onopentagname(start: number, endIndex: number): void;
    onopentagend(endIndex: number): void;
    onclosetag(start: number, endIndex: number): void;
    isInForeignContext?(): boolean;
  };
}

/** htmlparser2's own (private) Tokenizer methods that SkippingTokenizer wraps. */
const baseTokenizer = Tokenizer.prototype as unknown as {
  stateText(this: Tokenizer, c: number): void;
  handleInAttributeValue(this: Tokenizer, c: number, quote: number): void;
  stateInTagName(this: Tokenizer, c: number): void;
  stateInClosingTagName(this: Tokenizer, c: number): void;
  stateBeforeAttributeName(this: Tokenizer, c: number): void;
  stateInAttributeName(this: Tokenizer, c: number): void;
  stateAfterAttributeName(this: Tokenizer, c: number): void;
  stateBeforeAttributeValue(this: Tokenizer, c: number): void;
  stateInAttributeValueNoQuotes(this: Tokenizer, c: number): void;
};

const LT = 0x3c;
const AMP = 0x26;
const GT = 0x3e;
const SLASH = 0x2f;
const EQ = 0x3d;

/** htmlparser2's isWhitespace: space, LF, TAB, FF, CR. */
function isWhitespace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x09 || c === 0x0c || c === 0x0d;
}

/** htmlparser2's isEndOfTagSection: `/`, `>` or whitespace. */
function isEndOfTagSection(c: number): boolean {
  return c === SLASH || c === GT || isWhitespace(c);
}

/** A set of ASCII characters, as flags by code (every character from 128 up is outside it). */
function asciiSet(accepts: (c: number) => boolean): Uint8Array {
  const set = new Uint8Array(128);
  for (let c = 0; c < 128; c++) set[c] = accepts(c) ? 1 : 0;
  return set;
}

/** The characters that end a tag name: htmlparser2's InTagName and InClosingTagName states. */
const ENDS_TAG_NAME = asciiSet(isEndOfTagSection);
/** The characters that end an attribute name (InAttributeName). */
const ENDS_ATTRIBUTE_NAME = asciiSet((c) => c === EQ || isEndOfTagSection(c));
/** The characters that end the space between attributes (BeforeAttributeName, AfterAttributeName, BeforeAttributeValue). */
const ENDS_SPACE = asciiSet((c) => !isWhitespace(c));
/** The characters that end an unquoted attribute value when entities are decoded (InAttributeValueNq). */
const ENDS_UNQUOTED_VALUE = asciiSet((c) => isWhitespace(c) || c === GT || c === AMP);

/** Whether `stops` holds the character `c` (from 128 up: ENDS_SPACE holds them all, the others none). */
function stopsAt(stops: Uint8Array, c: number): boolean {
  return c < 128 ? stops[c] === 1 : stops === ENDS_SPACE;
}

/**
 * Moves the tokenizer to the character before the first one after the current that `stops`
 * holds (or to the buffer's last character): the state loop then reads that character next.
 * Only for a state in which every character outside `stops` leaves the state as it is and emits
 * nothing, and after the current character did the same.
 */
function skipUntil(self: TokenizerInternals, stops: Uint8Array): void {
  const buffer = self.buffer;
  const offset = self.offset;
  const end = buffer.length;
  let i = self.index - offset + 1;
  while (i < end && !stopsAt(stops, buffer.charCodeAt(i))) i++;
  self.index = i + offset - 1;
}

/**
 * A table run (see {@link TableRun}) at the `<` the tokenizer is at, when the parser has one and
 * the innermost open element is a table, a row group or a row outside foreign content: true when
 * the handler took it (the tokenizer then reads on after it, in text).
 */
function takeTableRun(self: TokenizerInternals): boolean {
  const parser = self.cbs as unknown as ParserInternals;
  const top = parser.stack[0];
  if (!(top === "tr" || top === "tbody" || top === "table" || top === "thead" || top === "tfoot") || parser.foreignContext.length > 1) return false;
  // The text before the `<` first, as htmlparser2's stateText emits it.
  if (self.index > self.sectionStart) self.cbs.ontext(self.sectionStart, self.index);
  self.sectionStart = self.index;
  const taken = (self.cbs as unknown as LinearParser).tableRun!(self.buffer, self.index - self.offset, top);
  if (taken === 0) return false;
  // Text again after what was taken; the state loop advances past its last character.
  self.sectionStart = self.index + taken;
  self.index += taken - 1;
  return true;
}

/** How many characters a skip reads one by one before it looks further with `indexOf` (most runs between tags are shorter). */
const SHORT_RUN = 24;

/**
 * Where the next occurrence of one character is in the tokenizer's buffer, remembered between
 * skips: `indexOf` looks at native speed, but a character that does not come again (an `&` in a
 * page without entities) would make every search read to the end of the buffer. The answer for
 * the last search, `[from, at)` holding no such character, answers every later search that starts
 * in that range; a search that starts before it (the tokenizer steps back a few characters after
 * some entities) reads the characters up to `from` first. Every character is then read once by
 * `indexOf` per buffer, plus the steps back: linear in the input.
 */
class NextOccurrence {
  private buffer = "";
  private from = 0;
  /** The first position at or after `from` holding the character; the buffer's length when none does. */
  private at = 0;

  constructor(private readonly char: string) {}

  /** The first position at or after `start` in `buffer` holding the character, or `buffer.length`. */
  find(buffer: string, start: number): number {
    if (buffer !== this.buffer || start > this.at) {
      const at = buffer.indexOf(this.char, start);
      this.buffer = buffer;
      this.from = start;
      this.at = at < 0 ? buffer.length : at;
      return this.at;
    }
    const code = this.char.charCodeAt(0);
    for (let i = start; i < this.from; i++) if (buffer.charCodeAt(i) === code) return i;
    return this.at;
  }
}

/** The next `<` or `&` after the current character, as {@link SkippingTokenizer}'s text state needs it. */
interface SkipState {
  lt: NextOccurrence;
  amp: NextOccurrence;
  doubleQuote: NextOccurrence;
  singleQuote: NextOccurrence;
}

/**
 * The position of the first character at or after `start` that is `a` or `b`, or `end`: the
 * first {@link SHORT_RUN} characters one by one, then `indexOf` through `nextA` and `nextB`.
 */
function firstOf(buffer: string, start: number, a: number, b: number, nextA: NextOccurrence, nextB: NextOccurrence): number {
  const end = buffer.length;
  const short = Math.min(end, start + SHORT_RUN);
  let i = start;
  for (; i < short; i++) {
    const ch = buffer.charCodeAt(i);
    if (ch === a || ch === b) return i;
  }
  if (i === end) return end;
  return Math.min(nextA.find(buffer, i), nextB.find(buffer, i));
}

/** One-character strings for the codes the tokenizer fast-forwards to (`<`, `>`, `-`, `]`, `?`, quotes). */
const ASCII_CHARS: readonly string[] = Array.from({ length: 128 }, (_, i) => String.fromCharCode(i));

/**
 * htmlparser2's Tokenizer, moving through the characters that cannot change its state in one
 * step instead of one round of its state loop per character (on the corpus, 40% of the parse).
 * In text and in quoted attribute values every character but `<` (text), the closing quote
 * (values) and `&` (both, when entities are decoded) leaves the state as it is and emits nothing:
 * the tokenizer goes on from the character before the next of those, which is what its loop would
 * have reached. Its fast-forward (script and style bodies, comments, the rest of an end tag) finds
 * the character with `indexOf` instead of a loop over `charCodeAt`. Every skip stops at the first
 * character that matters, so the work stays linear in the input; the events are htmlparser2's (a
 * test parses the corpus, the cost shapes and random markup both ways, whole and in pieces).
 */
class SkippingTokenizer extends Tokenizer {
  readonly skips: SkipState = { lt: new NextOccurrence("<"), amp: new NextOccurrence("&"), doubleQuote: new NextOccurrence('"'), singleQuote: new NextOccurrence("'") };
  /** htmlparser2's private `Sequences.Empty`, read from a new tokenizer (it starts with no sequence). */
  readonly emptySequence: Uint8Array;

  constructor(...args: ConstructorParameters<typeof Tokenizer>) {
    super(...args);
    this.emptySequence = (this as unknown as TokenizerInternals).currentSequence;
  }
}

const LOWER_A = 0x61;
const LOWER_Z = 0x7a;

/** The first letters of the tags whose start htmlparser2 matches against its raw-text sequences (its specialStartSequences). */
const SPECIAL_FIRST_LETTERS = asciiSet((c) => "inpstx".includes(String.fromCharCode(c)));
/** The tags that start raw text, RCDATA or plain text in htmlparser2 (a full match of one of those sequences). */
const SPECIAL_TAG_NAMES: ReadonlySet<string> = new Set(["iframe", "noembed", "noframes", "plaintext", "script", "style", "title", "textarea", "xmp"]);

/** Whether `c` is an ASCII letter (htmlparser2's isASCIIAlpha, its start of a tag name in HTML). */
function isAsciiLetter(c: number): boolean {
  const lower = c | 0x20;
  return lower >= LOWER_A && lower <= LOWER_Z;
}

/**
 * A start tag without attributes (`<name>`) or an end tag (`</name>`) whole in the buffer at the
 * `<` the tokenizer is at in text: the events htmlparser2's states would emit for it (the text
 * before it, then the tag), without a round of its state loop per character; true when taken
 * (the tokenizer then reads on after its `>`). Not taken, and left to those states: anything else
 * after the `<` (attributes, a `/` or whitespace after the name, `<!`, `<?`, a tag cut by the
 * buffer's end), XML mode, and a start tag that opens raw text (`<script>`, `<title>`, … in HTML
 * content). Mirrors htmlparser2 12.0.0's Text, BeforeTagName, SpecialStartSequence, InTagName,
 * BeforeAttributeName (at `>`), BeforeClosingTagName, InClosingTagName and AfterClosingTagName
 * states for these characters, in the same order of callbacks (a test compares the events).
 */
function takeSimpleTag(self: TokenizerInternals, emptySequence: Uint8Array): boolean {
  if (self.xmlMode) return false;
  const buffer = self.buffer;
  const offset = self.offset;
  const lt = self.index - offset;
  const end = buffer.length;
  let nameStart = lt + 1;
  const closing = buffer.charCodeAt(nameStart) === SLASH;
  if (closing) nameStart++;
  if (nameStart >= end || !isAsciiLetter(buffer.charCodeAt(nameStart))) return false;
  let i = nameStart + 1;
  while (i < end && !stopsAt(ENDS_TAG_NAME, buffer.charCodeAt(i))) i++;
  if (i >= end || buffer.charCodeAt(i) !== GT) return false;
  const cbs = self.cbs;
  let special = false;
  if (!closing && SPECIAL_FIRST_LETTERS[buffer.charCodeAt(nameStart) | 0x20] === 1 && cbs.isInForeignContext?.() !== true) {
    // htmlparser2 matches such a name against its raw-text sequences: a full match opens raw text
    // (left to its states), any other ends the match as below.
    if (i - nameStart <= 9 && SPECIAL_TAG_NAMES.has(buffer.slice(nameStart, i).toLowerCase())) return false;
    special = true;
  }
  if (self.index > self.sectionStart) cbs.ontext(self.sectionStart, self.index);
  const nameFrom = nameStart + offset;
  const gt = i + offset;
  if (closing) {
    cbs.onclosetag(nameFrom, gt);
  } else {
    if (special) {
      self.isSpecial = false;
      self.currentSequence = emptySequence;
      self.sequenceIndex = 0;
    }
    cbs.onopentagname(nameFrom, gt);
    cbs.onopentagend(gt);
    self.enterTagBody();
  }
  // An end tag leaves the tokenizer in text, where it is (its states pass through three others to get back there).
  self.sectionStart = gt + 1;
  // The state loop advances the index after this call.
  self.index = gt;
  return true;
}

Object.defineProperties(SkippingTokenizer.prototype, {
  stateText: {
    value: function stateText(this: Tokenizer, c: number): void {
      const self = this as unknown as TokenizerInternals;
      if (c === LT && (self.cbs as unknown as LinearParser).tableRun !== null && takeTableRun(self)) return;
      if (c === LT && self.decodeEntities) {
        if (takeSimpleTag(self, (this as SkippingTokenizer).emptySequence)) return;
      }
      if (c === LT || c === AMP || !self.decodeEntities) {
        baseTokenizer.stateText.call(this, c);
        return;
      }
      const skips = (this as SkippingTokenizer).skips;
      const i = firstOf(self.buffer, self.index - self.offset + 1, LT, AMP, skips.lt, skips.amp);
      // The state loop advances the index after this call: stop one short of the character.
      self.index = i + self.offset - 1;
    },
  },
  handleInAttributeValue: {
    value: function handleInAttributeValue(this: Tokenizer, c: number, quote: number): void {
      const self = this as unknown as TokenizerInternals;
      if (c === quote || c === AMP || !self.decodeEntities) {
        baseTokenizer.handleInAttributeValue.call(this, c, quote);
        return;
      }
      const skips = (this as SkippingTokenizer).skips;
      const i = firstOf(self.buffer, self.index - self.offset + 1, quote, AMP, quote === 0x22 ? skips.doubleQuote : skips.singleQuote, skips.amp);
      self.index = i + self.offset - 1;
    },
  },
  // The states inside a tag. Each does nothing for the characters its skip passes over (read from
  // htmlparser2 12.0.0's Tokenizer: a name ends at `/`, `>` or whitespace, an attribute name also
  // at `=`, the space between attributes at anything but whitespace, an unquoted value at
  // whitespace, `>` or, when entities are decoded, `&`).
  stateInTagName: {
    value: function stateInTagName(this: Tokenizer, c: number): void {
      if (stopsAt(ENDS_TAG_NAME, c)) baseTokenizer.stateInTagName.call(this, c);
      else skipUntil(this as unknown as TokenizerInternals, ENDS_TAG_NAME);
    },
  },
  stateInClosingTagName: {
    value: function stateInClosingTagName(this: Tokenizer, c: number): void {
      if (stopsAt(ENDS_TAG_NAME, c)) baseTokenizer.stateInClosingTagName.call(this, c);
      else skipUntil(this as unknown as TokenizerInternals, ENDS_TAG_NAME);
    },
  },
  stateInAttributeName: {
    value: function stateInAttributeName(this: Tokenizer, c: number): void {
      if (stopsAt(ENDS_ATTRIBUTE_NAME, c)) baseTokenizer.stateInAttributeName.call(this, c);
      else skipUntil(this as unknown as TokenizerInternals, ENDS_ATTRIBUTE_NAME);
    },
  },
  stateBeforeAttributeName: {
    value: function stateBeforeAttributeName(this: Tokenizer, c: number): void {
      if (stopsAt(ENDS_SPACE, c)) baseTokenizer.stateBeforeAttributeName.call(this, c);
      else skipUntil(this as unknown as TokenizerInternals, ENDS_SPACE);
    },
  },
  stateAfterAttributeName: {
    value: function stateAfterAttributeName(this: Tokenizer, c: number): void {
      if (stopsAt(ENDS_SPACE, c)) baseTokenizer.stateAfterAttributeName.call(this, c);
      else skipUntil(this as unknown as TokenizerInternals, ENDS_SPACE);
    },
  },
  stateBeforeAttributeValue: {
    value: function stateBeforeAttributeValue(this: Tokenizer, c: number): void {
      if (stopsAt(ENDS_SPACE, c)) baseTokenizer.stateBeforeAttributeValue.call(this, c);
      else skipUntil(this as unknown as TokenizerInternals, ENDS_SPACE);
    },
  },
  stateInAttributeValueNoQuotes: {
    value: function stateInAttributeValueNoQuotes(this: Tokenizer, c: number): void {
      const self = this as unknown as TokenizerInternals;
      if (stopsAt(ENDS_UNQUOTED_VALUE, c) || !self.decodeEntities) baseTokenizer.stateInAttributeValueNoQuotes.call(this, c);
      else skipUntil(self, ENDS_UNQUOTED_VALUE);
    },
  },
  /** htmlparser2's fastForwardTo: the index at the next `c` after the current one (true), else at the buffer's last character (false). */
  fastForwardTo: {
    value: function fastForwardTo(this: Tokenizer, c: number): boolean {
      const self = this as unknown as TokenizerInternals;
      const buffer = self.buffer;
      const at = buffer.indexOf(ASCII_CHARS[c] ?? String.fromCharCode(c), self.index - self.offset + 1);
      if (at >= 0) {
        self.index = at + self.offset;
        return true;
      }
      self.index = buffer.length + self.offset - 1;
      return false;
    },
  },
});

/**
 * htmlparser2's Parser with a linear open-element stack: the same events for the same input, in
 * time linear in the input whatever the nesting depth, and a tokenizer that skips through runs of
 * ordinary characters ({@link SkippingTokenizer}).
 */
/**
 * Called by the tokenizer at a `<` in text while the innermost open element is a table, a row
 * group or a row (`top`, its name) outside foreign content, with the input buffer and the `<`'s
 * place in it: the handler may take the complete elements that start there itself and return how
 * many characters they span (0: none, the tokenizer reads on as usual). It must take only
 * elements whose events would leave htmlparser2's open elements as they were (each opened and
 * closed within what it takes, none implied), and do itself what the events it replaces would
 * have done: they are not emitted. For light-dom.ts's packed tables, whose cells are most of a
 * table's tags.
 */
export type TableRun = (buffer: string, at: number, top: string) => number;

export class LinearParser extends Parser {
  private readonly attributeLists: boolean;
  private readonly headingEndTags: boolean;
  /**
   * The handler's {@link TableRun} while it has one (set while it packs a table), else null: the
   * tokenizer asks only then, so other markup pays one look at this field per `<`.
   */
  tableRun: TableRun | null = null;

  constructor(cbs: Partial<Handler>, options?: ParserOptions, own: LinearParserOptions = {}) {
    super(cbs, { ...options, Tokenizer: options?.Tokenizer ?? SkippingTokenizer });
    const self = this as unknown as ParserInternals;
    // The constructor starts foreignContext as [None] (0), as reset() does.
    self.stack = new TopFirstStack<string>();
    self.foreignContext = new TopFirstStack<number>([0]);
    if (own.attributeLists === true && cbs.onattribute !== undefined) throw new TypeError("attributeLists: the handler must not set onattribute");
    this.attributeLists = own.attributeLists === true;
    this.headingEndTags = own.headingEndTags === true;
  }

  /** htmlparser2's onclosetag, and with `headingEndTags` HTML's rule for a heading's end tag whose own name is not open. */
  override onclosetag(start: number, endIndex: number): void {
    // Only two-character names can be headings: other end tags pay one subtraction.
    if (this.headingEndTags && endIndex - start === 2) {
      const self = this as unknown as ParserInternals & { popElement(implied: boolean): void; readTagName(start: number, endIndex: number): string };
      const name = self.readTagName(start, endIndex);
      if (self.htmlMode && HEADINGS.has(name) && !self.stack.includes(name)) {
        // As htmlparser2's onclosetag: the event's end, whether or not a heading closes.
        self.endIndex = endIndex;
        const depth = self.stack.length;
        for (let i = 0; i < Math.min(depth, HEADING_END_REACH); i++) {
          const open = self.stack.at(i)!;
          if (HEADING_SCOPE_ENDS.has(open)) break;
          if (!HEADINGS.has(open)) continue;
          for (let k = 0; k < i; k++) self.popElement(true);
          self.popElement(false);
          break;
        }
        self.startIndex = endIndex + 1;
        return;
      }
    }
    super.onclosetag(start, endIndex);
  }

  /** htmlparser2's onattribname, with the common names as shared strings (see {@link KNOWN_ATTRIBUTE_NAMES}). */
  override onattribname(start: number, endIndex: number): void {
    const self = this as unknown as ParserInternals;
    if (self.lowerCaseAttributeNames) {
      const buffer = self.buffers[0];
      const from = start - self.bufferOffset;
      const to = endIndex - self.bufferOffset;
      if (buffer !== undefined && from >= 0 && to <= buffer.length) {
        const name = knownName(ATTRIBUTE_NAMES, buffer, from, to);
        if (name !== null) {
          self.startIndex = start;
          self.attribname = name;
          return;
        }
      }
    }
    super.onattribname(start, endIndex);
  }

  /**
   * A tag's first attribute gives it an object of its own (htmlparser2's onattribend then keeps
   * each name's first value), or, with `attributeLists`, a list.
   */
  override onattribend(quote: QuoteType, endIndex: number): void {
    const self = this as unknown as ParserInternals;
    if (!this.attributeLists) {
      if (self.attribs === NO_ATTRIBUTES) self.attribs = {};
      super.onattribend(quote, endIndex);
      return;
    }
    // htmlparser2's onattribend without its onattribute call (refused at construction).
    self.endIndex = endIndex;
    const attribs = self.attribs;
    if (attribs === NO_ATTRIBUTES) self.attribs = new AttributeList(self.attribname, self.attribvalue) as unknown as Record<string, string>;
    else if (attribs !== null) (attribs as unknown as AttributeList).items.push(self.attribname, self.attribvalue);
    self.attribvalue = "";
  }

  /** htmlparser2's onend, reading the stack top-first through `at` (it indexes the array). */
  override onend(): void {
    const self = this as unknown as ParserInternals;
    if (self.cbs.onclosetag) {
      self.endIndex = self.startIndex;
      for (let i = 0; i < self.stack.length; i++) self.cbs.onclosetag(self.stack.at(i)!, true);
    }
    self.cbs.onend?.();
  }
}

/** htmlparser2's own (private) methods that LinearParser wraps. */
const base = Parser.prototype as unknown as {
  readTagName(this: Parser, start: number, endIndex: number): string;
  emitOpenTag(this: Parser, name: string): void;
};

// htmlparser2 declares these two private, so they are replaced on the prototype rather than overridden in the class.
Object.defineProperties(LinearParser.prototype, {
  /**
   * htmlparser2's readTagName lower-cases a fresh slice of the input for every start and end tag.
   * For the known names outside SVG and MathML (where it applies case adjustments, and the
   * original runs) this gives a shared string: the same name, without two allocations per tag.
   */
  readTagName: {
    value: function readTagName(this: LinearParser, start: number, endIndex: number): string {
      const self = this as unknown as ParserInternals;
      if (self.lowerCaseTagNames && self.htmlMode && self.foreignContext.length <= 1) {
        const buffer = self.buffers[0];
        const from = start - self.bufferOffset;
        const to = endIndex - self.bufferOffset;
        if (buffer !== undefined && from >= 0 && to <= buffer.length) {
          const name = knownName(TAG_NAMES, buffer, from, to);
          // Outside foreign content htmlparser2 reads `<image>` as `img`, as HTML does.
          if (name !== null) return name === "image" ? "img" : name;
        }
      }
      return base.readTagName.call(this, start, endIndex);
    },
  },
  /** htmlparser2 starts every tag's attributes as a new `{}`: start them as {@link NO_ATTRIBUTES}. */
  emitOpenTag: {
    value: function emitOpenTag(this: LinearParser, name: string): void {
      base.emitOpenTag.call(this, name);
      const self = this as unknown as ParserInternals;
      if (self.attribs !== null) self.attribs = NO_ATTRIBUTES;
    },
  },
});
