import type { LightElement, PackedTable } from "../light-dom";
import { classWeight } from "./class-signals";
import { countText, emptyStats, textChars } from "./figures";
import { CONDITIONAL, FURNITURE_START_CHARS, isFurnitureBlock, opensLikeFurniture, PROMPT_MAX_CHARS } from "./furniture";
import { run } from "./run-state";
import { SERVER_MESSAGE_MARK } from "./server-messages";

/**
 * Whether a large packed table can stay packed through the main-content cleaning: judged from its
 * arrays before it is built, by asking the cleaning's furniture tests about each part as the
 * cleaning would ({@link partsStayInCleaning}).
 */

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
  const figures = run.figures?.raw.get(table);
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
      run.meter?.tick();
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
export function judgeTable(el: LightElement): boolean {
  const judged = run.judgedTables;
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
