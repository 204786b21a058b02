import type { LightElement, LightNode } from "../light-dom";
import { classAndId, hasNoAttributes, isMetaLike } from "./class-signals";
import { countText, type Figures, HEADINGS, INLINE, textChars } from "./figures";
import { expandTable } from "./packed-tables";
import { AUTHOR_BIO, BYLINE_LINE, CAPTION_CREDIT_END, COPYRIGHT_NOTICE, CREDIT_BY_LINE, CREDIT_LINE, FILING_LINE, hasClassWord, METADATA_LINE, READER_PROMPT, SIDE_BOX } from "./patterns";

/**
 * The furniture tests of the main-content cleaning that read a block's words and class: page
 * metadata, author boxes and disclaimers, caption, credit and source lines, lines to the reader
 * about the site ({@link isFurnitureBlock}), and the bounded text readers they use
 * ({@link textStart}, {@link textEnd}).
 */

/** Containers that are removed when their figures look like furniture (Readability's conditional cleaning). */
export const CONDITIONAL = new Set(["DIV", "SECTION", "UL", "OL", "DL", "TABLE", "HEADER", "FIELDSET", "SPAN", "P", "CENTER", "TD"]);

export const META_MAX_CHARS = 200;

/** A byline names a few people and an outlet: a longer block that starts like one is text. */
export const BYLINE_MAX_CHARS = 120;

/** Metadata lines ("Autor: Ann Example", "Veröffentlicht am 12.03.2020, 14:05 Uhr") are shorter than this. */
const METADATA_LINE_MAX_CHARS = 100;

export const TABLE_PARTS = new Set(["TABLE", "THEAD", "TBODY", "TFOOT", "TR", "TD", "TH", "CAPTION"]);

/** A reader prompt ("Subscribe now…", "Follow us on…") is a line or two. */
export const PROMPT_MAX_CHARS = 300;

/** An author box (a bio, a photo, links) or a disclaimer is a paragraph or two: a longer block so named is more than that. */
export const SIDE_BOX_MAX_CHARS = 1500;

/**
 * The first characters of `el`'s text, whitespace collapsed and trimmed: enough for the prefix
 * patterns (link-list phrases, credit lines); with `untilLink`, only the text before the first
 * link. Bounded whatever the subtree holds (huge runs of whitespace, many empty elements), so
 * calling it on every element stays linear.
 */
export function textStart(el: LightElement, limit = 80, untilLink = false): string {
  // Most small blocks hold one text node ("<h3>Title</h3>", "<li>item"): the walk below would read
  // it alone, and this gives what it gives without its stack (asked up to five times per block).
  const only = el.firstChild;
  if (only !== null && only === el.lastChild && only.nodeType === 3) return collapsedStart(only.data, limit);
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
      // At most `limit` characters of each text node are looked at. A space that ends one node and
      // one that opens the next ("<span>Enlarge </span>\n <span>Image</span>") are one space, as
      // the reader sees them: the phrase patterns are written with single spaces.
      const part = n.data.slice(0, limit).replace(/\s+/g, " ");
      out += part.charCodeAt(0) === 0x20 && (out === "" || out.charCodeAt(out.length - 1) === 0x20) ? part.slice(1) : part;
      continue;
    }
    for (let c = n.lastChild; c !== null; c = c.previousSibling) stack.push(c);
  }
  return out.trim();
}

/**
 * `text.slice(0, limit)` with whitespace collapsed and trimmed, as {@link textStart} reads a text
 * node: the slice itself when it has nothing to collapse or trim (one scan, no pattern and no new
 * string), which is what most texts' first characters are.
 */
function collapsedStart(text: string, limit: number): string {
  const start = text.length > limit ? text.slice(0, limit) : text;
  const last = start.length - 1;
  for (let i = 0; i <= last; i++) {
    const c = start.charCodeAt(i);
    if (c === 0x20 ? i === 0 || i === last || start.charCodeAt(i - 1) === 0x20 : isSpace(c)) return start.replace(/\s+/g, " ").trim();
  }
  return start;
}

/** Whether `c` is one of the characters that `\s` matches but the space (which {@link collapsedStart} looks at itself). */
function isSpace(c: number): boolean {
  if (c < 0x80) return c >= 0x09 && c <= 0x0d;
  return c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
}

/**
 * Furniture that sits among the article's own blocks, named by its class or its first words:
 * page metadata, author boxes and disclaimers, caption/credit/source lines, and lines to the
 * reader about the site. Checked on every block of the article, and on the siblings joined to it.
 */
export function isFurnitureBlock(el: LightElement, s: Figures): boolean {
  const name = el.nodeName;
  const match = classAndId(el);
  if (s.chars < META_MAX_CHARS && isMetaLike(match)) return true;
  if (INLINE.has(name)) return false;
  if (s.chars < SIDE_BOX_MAX_CHARS && (hasClassWord(SIDE_BOX, match) || (!hasNoAttributes(el) && /\bauthor\b/i.test(el.attributes.itemprop ?? "")))) return true;
  if (s.chars === 0 || s.chars >= PROMPT_MAX_CHARS) return false;
  // The first words, gathered once for the tests below (every small block of an article is checked).
  const start = textStart(el, FURNITURE_START_CHARS);
  return opensLikeFurniture(name, s.chars, start, () => textEnd(el, CREDIT_TAIL_CHARS)) || isFieldLineBlock(el, s.chars, start);
}

/**
 * Whether a short block is a line of metadata fields between separators, one of them a date
 * ("Freitag | 14. Juni 2019 | 15:49 von Ann Example in Mode | 0 Kommentare", "2021-10-16 |
 * Botschaft"): `start` is its {@link textStart}, which must be all of its text. Not a heading
 * ("Konzert | 12.03.2020" titles its section), not in tables (a row's cells are its data), and not
 * one of a run of such lines: a concert calendar or a list of releases ("02.11.2022 | Example Band
 * | Stadthalle" line after line) is the page's content. Only a block that reads as such a line has
 * its neighbours read (one {@link textStart} each).
 */
function isFieldLineBlock(el: LightElement, chars: number, start: string): boolean {
  const name = el.nodeName;
  if (chars >= BYLINE_MAX_CHARS || HEADINGS.has(name) || TABLE_PARTS.has(name) || !FIELD_SEPARATOR.test(start) || nonSpaceLength(start) !== chars || !isFieldLine(start)) return false;
  const besides = [previousElementOf(el), nextElementOf(el)];
  return !besides.some((b) => b !== null && isFieldLine(textStart(b, FURNITURE_START_CHARS)));
}

/** `el`'s nearest element sibling before it, past whitespace (at most a few nodes looked at). */
function previousElementOf(el: LightElement): LightElement | null {
  let n = el.previousSibling;
  for (let k = 0; n !== null && k < 4; n = n.previousSibling, k++) if (n.nodeType === 1) return n;
  return null;
}

/** `el`'s nearest element sibling after it, past whitespace (at most a few nodes looked at). */
function nextElementOf(el: LightElement): LightElement | null {
  let n = el.nextSibling;
  for (let k = 0; n !== null && k < 4; n = n.nextSibling, k++) if (n.nodeType === 1) return n;
  return null;
}

/** How much of a block's first words {@link isFurnitureBlock} looks at. */
export const FURNITURE_START_CHARS = 160;

/**
 * {@link isFurnitureBlock}'s tests of a block's first words: `start` is its {@link textStart}, and
 * `tail` gives its {@link textEnd} when `start` is not all of its `chars` characters. Apart from
 * the block's name, they read its text only (a packed table's parts are judged by them without
 * being built: see {@link partsStayInCleaning}).
 */
export function opensLikeFurniture(name: string, chars: number, start: string, tail: () => { text: string; whole: boolean }): boolean {
  const inTable = TABLE_PARTS.has(name);
  if (start === lastLine.start && chars === lastLine.chars && inTable === lastLine.inTable) return lastLine.answer;
  // Whether `start` is all of the block's text, asked only of a block short enough for the tail's test.
  const whole = chars < CAPTION_MAX_CHARS && nonSpaceLength(start) === chars;
  const answer = furnitureLine(inTable, chars, start, whole, tail);
  // Remembered when nothing but these three decided it: the tail is read only for a short block
  // whose start is not all of its text.
  lastLine.start = whole || chars >= CAPTION_MAX_CHARS ? start : null;
  lastLine.chars = chars;
  lastLine.inTable = inTable;
  lastLine.answer = answer;
  return answer;
}

/**
 * {@link opensLikeFurniture}'s last answer that its start, its size and its being a table's
 * part decided alone: a run of alike blocks ("Reply", "Share", the items of a generated list, a
 * flood of one tag) is judged once instead of by nine patterns per block. The patterns hold no
 * state (no `g` or `y` flag), so the answer for the same three is the same.
 */
const lastLine: { start: string | null; chars: number; inTable: boolean; answer: boolean } = { start: null, chars: -1, inTable: false, answer: false };

function furnitureLine(inTable: boolean, chars: number, start: string, whole: boolean, tail: () => { text: string; whole: boolean }): boolean {
  // A short caption, photo credit, source or copyright line, whatever its markup (class 4's policy).
  if (chars < 150 && (CREDIT_LINE.test(start) || CREDIT_BY_LINE.test(start))) return true;
  // A copyright notice ("© 2022, Example News. This article is the copyrighted property of …")
  // runs longer than a credit line, up to a few reprint terms.
  if (COPYRIGHT_NOTICE.test(start)) return true;
  // A byline on a line of its own ("By Ann Example, Daily Example"), whatever its markup.
  if (chars < BYLINE_MAX_CHARS && (BYLINE_LINE.test(start) || isLabelledByline(start))) return true;
  // A metadata line ("Auteur : Ann Example", "Date 23.05.2011", "Kategorie: News", "Imprimer").
  // Not in tables: a date or a name in a cell is the table's data.
  if (chars < METADATA_LINE_MAX_CHARS && !inTable && METADATA_LINE.test(start)) return true;
  // The writer's bio line ("Ann Example is a reporter for …"), in the body's own paragraphs.
  if (AUTHOR_BIO.test(start)) return true;
  // The blog platform's filing line ("This entry was posted in News. Bookmark the permalink.").
  if (FILING_LINE.test(start)) return true;
  // A short caption that ends with its photo's credit ("… | © Agency/Photographer").
  if (chars < CAPTION_MAX_CHARS && endsWithCredit(whole, start, tail)) return true;
  // A short line to the reader about the site (subscribe, follow us, paywall notice, ad disclosure).
  return READER_PROMPT.test(start);
}

/**
 * A byline's word written as a label with a colon ("Von: Ann Example", "By: Ann Example"), or
 * after the verb or the noun that says so ("Written by: Ann Example", "Posted by Ann Example",
 * "Geschrieben von …", "Ein Beitrag von …", "Écrit par …"), or a credit for where the text comes
 * from ("Courtesy of Example News"). The first group is the byline's own word.
 */
const BYLINE_LABEL = new RegExp(
  "^(?:(?:[Ww]ritten|[Pp]osted|[Rr]eported|[Ss]tory|[Ww]ords|[Gg]eschrieben|[Vv]erfasst|[Ee]in (?:[Aa]rtikel|[Bb]eitrag|[Gg]astbeitrag|[Kk]ommentar|[Ii]nterview)|[Ee]ine (?:[Kk]olumne|[Aa]nalyse|[Rr]eportage|[Rr]ezension)|[Éé]crit|[Ee]scrit[ao]|[Ss]critt[oa]|[Nn]apisa(?:ł|ła|ne))\\s+)?" +
    "([Bb]y|BY|[Vv]on|VON|[Pp]ar|[Pp]or|[Dd]oor|[Pp]rzez)\\s*:?\\s+|^[Cc]ourtesy of\\s+(?=\\p{Lu})",
  "u",
);

/** A news agency's short lower-case name after a byline's names: ", dpa", ", epd/kna", ", dpa-AFX". */
const AGENCY_END = /,\s*\p{Ll}[\p{L}-]{1,7}(?:\/\p{L}[\p{L}-]{1,7})*\s*$/u;

/** A byline's date after "on", "am", "le": what follows is read as a date by {@link METADATA_LINE}. */
const ON_DATE_END = /\s+(?:on|am|le|el|il)\s+([^\s].{4,40})$/u;

/**
 * Whether `line` is a byline with its word written as a label ("Von: Ann Example", "Written by:
 * Ann Example | May 4, 2021") or a courtesy credit ("Courtesy of Example News"): the line read as
 * "By" and what follows the label is a {@link BYLINE_LINE}, so the names after it must be
 * capitalized as there ("Von: den Anfängen …", "Posted by the council" are not one).
 */
function isLabelledByline(line: string): boolean {
  const label = BYLINE_LABEL.exec(line);
  if (label === null) return false;
  // A news agency after the names, written as agencies write their names ("Von Ann Example, dpa"),
  // and the day it was written ("Written by Ann Example on May 4, 2021").
  let rest = line.slice(label[0].length).replace(AGENCY_END, "");
  const dated = ON_DATE_END.exec(rest);
  if (dated !== null && METADATA_LINE.test(dated[1]!)) rest = rest.slice(0, dated.index);
  // "Courtesy of" names an outlet of one capitalized word too ("Courtesy of Reuters").
  return BYLINE_LINE.test(`By ${rest}`) || (label[1] === undefined && /^\p{Lu}[\p{L}\p{M}'’.&-]*$/u.test(rest));
}

/** A field of a metadata line (a date, a name, a category, a count) is a few words: a longer one is a phrase of text. */
const FIELD_MAX_WORDS = 6;

/** The separators between a metadata line's fields: bars and dots (a dash also joins the ends of a range: "21.10. – 27.10.2019"). */
const FIELD_SEPARATOR = /[|·•∙]/;

/**
 * Whether `line` (a short block's whole text) is metadata fields between separators: two or more
 * fields of at most {@link FIELD_MAX_WORDS} words each, at least one of them a date, alone or as
 * a metadata field ({@link METADATA_LINE}: "14. Juni 2019", "Updated: May 4, 2021"). A
 * line of words between bars with no date ("Home | News | Sport") is left to the link and menu
 * rules; a phrase with a date in it is no field ("Am 12.03.2020 öffnete der Hafen | Bericht").
 */
function isFieldLine(line: string): boolean {
  let fields = 0;
  let dated = false;
  let start = 0;
  // One scan: each field's words (runs of spaces: `line` is collapsed) and digits, its text read
  // by the pattern only when it has a digit.
  let words = 0;
  let inWord = false;
  let digit = false;
  for (let i = 0; i <= line.length; i++) {
    const c = i < line.length ? line.charCodeAt(i) : 0x7c;
    if (c === 0x7c || c === 0xb7 || c === 0x2022 || c === 0x2219) {
      if (words > 0) {
        if (words > FIELD_MAX_WORDS) return false;
        fields++;
        dated ||= digit && METADATA_LINE.test(line.slice(start, i).trim());
      }
      start = i + 1;
      words = 0;
      inWord = false;
      digit = false;
      continue;
    }
    if (c === 0x20) {
      inWord = false;
      continue;
    }
    if (!inWord) words++;
    inWord = true;
    digit ||= c >= 0x30 && c <= 0x39;
  }
  return fields >= 2 && dated;
}

/** A caption is a line or two: a longer block that ends with a credit is text that names its source. */
const CAPTION_MAX_CHARS = 250;

/**
 * Whether a short block's text ends with a photo credit ("… | © Agency", "(Foto: Name)").
 * `start` is the block's {@link textStart}: when it holds the whole text (`startIsWhole`: most short
 * blocks), its end is the block's, and the text is not walked again.
 */
function endsWithCredit(startIsWhole: boolean, start: string, tail: () => { text: string; whole: boolean }): boolean {
  if (startIsWhole) return hasCreditMark(start) && CAPTION_CREDIT_END.test(start);
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
export function standsAlone(el: LightElement): boolean {
  const prev = el.previousSibling;
  const next = el.nextSibling;
  return (prev === null || prev.nodeType === 1 || prev.data.trim() === "") && (next === null || next.nodeType === 1 || next.data.trim() === "");
}

/**
 * Whether the text right after an inline element carries on its sentence: a dateline that opens
 * the first paragraph ("<span class=dateline>KOBE –</span> A total of…") is part of the story's
 * text, where a byline or a date on a line of its own is not. Looks at the next sibling only.
 */
export function sentenceGoesOn(el: LightElement): boolean {
  const next = el.nextSibling;
  if (next === null || next.nodeType !== 3) return false;
  countText(next.data.slice(0, 200));
  return textChars >= 40;
}
