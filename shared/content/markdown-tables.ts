import type TurndownService from "turndown";
import type { LightElement, PackedTable } from "./light-dom";
import { joinOne, markProseFacts } from "./prose-walk";

/**
 * GFM tables in time linear in the table: the same Markdown as the `@joplin/turndown-plugin-gfm`
 * 1.0.68 rules they replace (tableCell, tableRow, table; a property test compares them on random
 * tables), without the plugin's repeated walks. The plugin looks at every table's whole subtree
 * several times (for code, lists and headings, for nested tables, for a caption, and webgate's
 * own "table as text" check eleven more), finds a cell's column by searching its row, and counts
 * columns and votes on column alignment over all rows again for every heading row: a 300-column
 * table paid 300² per row, a table nesting others paid its depth times its size.
 *
 * Here each table's facts are gathered in one walk of its subtree that takes a nested table's
 * facts instead of walking it again (so every node is visited once, whatever the nesting), and a
 * table's column count and alignments, and each row's cell positions, are computed once.
 */

/** The DOM surface read (light-dom, linkedom and domino all have it). */
interface TableNode {
  nodeName: string;
  nodeType: number;
  nodeValue: string | null;
  parentNode: TableNode | null;
  firstChild: TableNode | null;
  nextSibling: TableNode | null;
  previousSibling: TableNode | null;
  childNodes: ArrayLike<TableNode>;
  textContent: string | null;
  getAttribute(name: string): string | null;
  /** Element.hasAttributes() (DOM): false for an element without any, whose alignment and span need no look-up. */
  hasAttributes?(): boolean;
  style?: { textAlign?: string };
  rows?: ArrayLike<TableNode>;
  /** A light-dom table's rows and cells when the parse kept them out of the tree (light-dom.ts's PackedTable). */
  packedTable?: PackedTable | null;
}

/**
 * Tags that make the GFM plugin keep a table as raw HTML (code, lists, headings, rules, quotes);
 * webgate writes such a table's content as text instead (its rows still as `| … |` lines).
 */
export const HTML_TABLE_TRIGGERS: ReadonlySet<string> = new Set(["CODE", "UL", "OL", "H1", "H2", "H3", "H4", "H5", "H6", "HR", "BLOCKQUOTE"]);

interface TableFacts {
  /** A descendant (nested tables' included) is one of {@link HTML_TABLE_TRIGGERS}. */
  hasTrigger: boolean;
  /** A descendant is a table: the plugin then writes the cells as paragraphs ("skipped"). */
  hasTable: boolean;
  /** The first `<caption>` among the descendants, in tree order (the plugin's querySelector). */
  caption: TableNode | null;
  /**
   * Every element below the table is a row, a cell or a row group (TR, TD, TH, THEAD, TBODY,
   * TFOOT; so no nested table, caption or inline markup), and every row has a cell: see
   * {@link isPlainTable}.
   */
  plain: boolean;
  /** How many rows the table has (HTMLTableElement.rows), and how many child nodes the first has. */
  rowCount: number;
  firstRowWidth: number;
  /**
   * For a plain table: its first element of each tag (TR, TD, TH and the row groups it has), in
   * tree order. None for a packed table: its parts were checked as it was written, and the
   * stand-ins made for the check would stay alive with the facts.
   */
  firstParts: readonly TableNode[];
  /**
   * The column count (the longest row's child nodes) and each column's alignment by majority
   * vote, as the plugin votes (an alignment other than left, right and center counts for none).
   */
  columns?: { count: number; alignments: string[] };
}

/**
 * turndown's join (prose-walk.ts's MarkdownJoin: each part appended with the newlines at the seam
 * replaced by as many as the longer run has, at most two) into an array of pieces joined once at
 * the end. Appending a table's tens of thousands of rows to one string made as many
 * concatenations, which the table rule then had to flatten. Exported for its property test.
 */
export class PartsJoin {
  /** The text so far without its trailing newlines, in pieces. */
  private readonly pieces: string[] = [];
  /** How many newlines end the text so far. */
  private trailing = 0;

  get text(): string {
    const body = this.pieces.join("");
    return this.trailing === 0 ? body : body + "\n".repeat(this.trailing);
  }

  append(part: string): void {
    let lead = 0;
    while (lead < part.length && part.charCodeAt(lead) === 10) lead++;
    const newlines = this.trailing > lead ? Math.min(2, this.trailing) : Math.min(2, lead);
    if (lead === part.length) {
      // Nothing but newlines: they stay at the end, as many as the seam keeps.
      this.trailing = newlines;
      return;
    }
    let end = part.length;
    while (part.charCodeAt(end - 1) === 10) end--;
    this.trailing = part.length - end;
    // The part's own leading newlines stay in it when there are no more of them than the seam has.
    if (lead <= newlines) {
      if (newlines > lead) this.pieces.push(newlines - lead === 1 ? "\n" : "\n\n");
      this.pieces.push(end === part.length ? part : part.slice(0, end));
    } else {
      this.pieces.push("\n\n", part.slice(lead, end));
    }
  }
}

/**
 * What the facts walk tells apart, by tag name (one look-up per element): the kind in the low
 * bits, and for each of the parts a plain table holds (TR, TD, TH and the row groups, see
 * TableFacts.plain) a bit of its own above {@link KIND_BITS}, with which its first element is kept.
 */
const PART = 1;
const ROW = PART | 2;
const GROUP = PART | 4;
const TABLE = 8;
const TRIGGER = 16;
const CAPTION = 32;
const KIND_BITS = 63;
const KIND: ReadonlyMap<string, number> = new Map([
  ["TR", ROW | (1 << 6)],
  ["TD", PART | (1 << 7)],
  ["TH", PART | (1 << 8)],
  ["THEAD", GROUP | (1 << 9)],
  ["TBODY", GROUP | (1 << 10)],
  ["TFOOT", GROUP | (1 << 11)],
  ["TABLE", TABLE],
  ["CAPTION", CAPTION],
  ...[...HTML_TABLE_TRIGGERS].map((tag) => [tag, TRIGGER] as const),
]);

/** How many pieces of a plain table's Markdown are joined into one chunk (see writeRegular). */
const PIECES_PER_CHUNK = 4_096;

/** The largest colspan HTML honours. */
const MAX_COLSPAN = 1_000;

/** The alignments a column can take (the plugin's votes): none first, as each column starts. */
const ALIGNMENTS: readonly string[] = ["", "left", "right", "center"];

const ALIGN_BORDER: Readonly<Record<string, string>> = { left: ":---", right: "---:", center: ":---:" };

function border(alignment: string): string {
  return ALIGN_BORDER[alignment] ?? "---";
}

/** The plugin's `(align || style.textAlign || "").toLowerCase()`, without lower-casing the empty answer of most cells. */
function alignmentOf(cell: TableNode): string {
  // Most cells have no attributes: no align, no style, so no alignment (three look-ups saved).
  if (hasNoAttributes(cell)) return "";
  const align = cell.getAttribute("align");
  if (align) return align.toLowerCase();
  const textAlign = cell.style?.textAlign;
  return textAlign ? textAlign.toLowerCase() : "";
}

/** {@link alignmentOf} for cell `cell` of a packed table. */
function packedAlignment(packed: PackedTable, cell: number): string {
  if (!packed.cellHasAttributes(cell)) return "";
  const align = packed.cellAttribute(cell, "align");
  if (align) return align.toLowerCase();
  const textAlign = packed.cellTextAlign(cell);
  return textAlign ? textAlign.toLowerCase() : "";
}

/** {@link spanOf} for cell `cell` of a packed table. */
function packedSpan(packed: PackedTable, cell: number): number {
  return spanFrom(packed.cellHasAttributes(cell) ? packed.cellAttribute(cell, "colspan") : null);
}

/** Whether `node` says it has no attributes at all (DOMs without hasAttributes are asked name by name). */
function hasNoAttributes(node: TableNode): boolean {
  return node.hasAttributes !== undefined && !node.hasAttributes();
}

/**
 * The alignment votes of a table's columns: four counters per column, for the {@link ALIGNMENTS},
 * and the winning one's index per column, in typed arrays grown by doubling as columns appear (a
 * row of 250,000 cells pushed five numbers per cell onto two growing arrays). An alignment outside
 * the four is not counted: the plugin counted it from NaN, so it never won.
 */
class ColumnVotes {
  // Four columns to start: 64 bytes, which V8 keeps on its heap (a larger typed array's memory is
  // allocated and freed outside it, which cost a page of many small tables more than its votes).
  private votes = new Int32Array(16);
  private leaders = new Uint8Array(4);
  /** How many columns have a vote (the longest row so far). */
  count = 0;

  /** Counts `cell`'s vote for the alignment of column `c`. */
  vote(c: number, cell: TableNode): void {
    this.voteFor(c, alignmentOf(cell));
  }

  /** {@link vote} for a cell whose alignment is `alignment`. */
  voteFor(c: number, alignment: string): void {
    if (c >= this.count) this.grow(c + 1);
    const a = alignment === "" ? 0 : ALIGNMENTS.indexOf(alignment);
    if (a === -1) return;
    const votes = this.votes;
    const n = ++votes[c * 4 + a]!;
    // Strictly more votes: on a tie the alignment that got there first keeps the column.
    if (n > votes[c * 4 + this.leaders[c]!]!) this.leaders[c] = a;
  }

  /** The columns the votes elected: their count and alignments. */
  columns(): { count: number; alignments: string[] } {
    const alignments = new Array<string>(this.count);
    for (let c = 0; c < this.count; c++) alignments[c] = ALIGNMENTS[this.leaders[c]!]!;
    return { count: this.count, alignments };
  }

  private grow(count: number): void {
    if (count > this.leaders.length) {
      const capacity = Math.max(count, this.leaders.length * 2);
      const leaders = new Uint8Array(capacity);
      leaders.set(this.leaders);
      this.leaders = leaders;
      const votes = new Int32Array(capacity * 4);
      votes.set(this.votes);
      this.votes = votes;
    }
    this.count = count;
  }
}

/**
 * The border row of a table of these columns: each column's border written as a cell (its span
 * from `spanAt`), joined once (appending a cell at a time made a concatenation node per column).
 */
function borderRow(columns: { count: number; alignments: string[] }, spanAt: (i: number) => number): string {
  const cells = new Array<string>(columns.count);
  for (let i = 0; i < columns.count; i++) cells[i] = spannedCellMarkdown(border(columns.alignments[i]!), spanAt(i), i);
  return cells.join("");
}

/** The plugin's `cell()`: one cell's Markdown, `index` its position among its row's child nodes. */
function cellMarkdown(content: string, node: TableNode | null, index: number): string {
  return spannedCellMarkdown(content, spanOf(node), index);
}

/** {@link cellMarkdown} for a cell that spans `span` columns. */
function spannedCellMarkdown(content: string, span: number, index: number): string {
  return `${index === 0 ? "| " : " "}${cellText(content)}${span > 1 ? " |    ".repeat(span - 1) : ""} |`;
}

/** {@link cellMarkdown}'s string, as pieces added to `pieces`. */
function pushCell(pieces: string[], content: string, node: TableNode, index: number): void {
  pushSpannedCell(pieces, content, spanOf(node), index);
}

/** {@link pushCell} for a cell that spans `span` columns. */
function pushSpannedCell(pieces: string[], content: string, span: number, index: number): void {
  pieces.push(index === 0 ? "| " : " ", cellText(content));
  if (span > 1) pieces.push(" |    ".repeat(span - 1));
  pieces.push(" |");
}

/** A cell's content as its Markdown holds it: trimmed, line breaks as `<br>`, pipes escaped, at least three characters. */
function cellText(content: string): string {
  let text = content.trim();
  // Most cells hold neither a newline nor a pipe: the three replacements would change nothing.
  if (text.includes("|") || text.includes("\n")) text = text.replace(/\n\r/g, "<br>").replace(/\n/g, "<br>").replace(/\|+/g, "\\|");
  return text.length >= 3 ? text : text.length === 2 ? `${text} ` : text.length === 1 ? `${text}  ` : "   ";
}

/** The columns a cell spans: its colspan, clamped as HTML clamps it. */
function spanOf(node: TableNode | null): number {
  return spanFrom(node === null || hasNoAttributes(node) ? null : node.getAttribute("colspan"));
}

/** The columns a cell with this `colspan` attribute spans. */
function spanFrom(span: string | null): number {
  // HTML clamps colspan to 1,000 (WHATWG HTML §4.9.11); the plugin did not, and looped as many
  // times as a hostile attribute asked. (As in the plugin, a value that is not a number spans one.)
  return span ? Math.min(Number(span), MAX_COLSPAN) : 1;
}

function nearestTable(node: TableNode): TableNode | null {
  let parent = node.parentNode;
  while (parent !== null && parent.nodeName !== "TABLE") parent = parent.parentNode;
  return parent;
}

function isFirstTbody(element: TableNode): boolean {
  const previous = element.previousSibling;
  return element.nodeName === "TBODY" && (!previous || (previous.nodeName === "THEAD" && /^\s*$/i.test(previous.textContent ?? "")));
}

function isHeadingRow(tr: TableNode): boolean {
  const parent = tr.parentNode!;
  if (parent.nodeName === "THEAD") return true;
  if (parent.firstChild !== tr || !(parent.nodeName === "TABLE" || isFirstTbody(parent))) return false;
  for (let i = 0; i < tr.childNodes.length; i++) if (tr.childNodes[i]!.nodeName !== "TH") return false;
  return true;
}

/**
 * The Markdown of a plain table as {@link tableRules}' one-pass writers build it (writeRegular
 * over a tree, writePacked over a packed table's arrays): the pieces (each row's newline, each
 * cell's three or four pieces), joined into one flat chunk every {@link PIECES_PER_CHUNK} pieces,
 * with an empty chunk after each heading row for its border (known once every row is counted);
 * the alignment votes per column; the first part of each kind (the rules' filters are asked about
 * it); the row count and the first row's width. Appending each cell to its row made a string and
 * a concatenation node per cell, and joining each row a string per row, all alive until the table
 * was done: a large table's cells are most of a page's nodes, and the young generation's
 * collections copy whatever is alive. `Row` is how a writer names a heading row for its border.
 */
/** A packed table's {@link TableFacts.firstParts}. */
const NO_PARTS: readonly TableNode[] = Object.freeze([]);

class PlainTableMarkdown<Row> {
  readonly pieces: string[] = [];
  readonly votes = new ColumnVotes();
  /** The parts asked about, when the writer keeps them (a tree's parts are in the tree anyway; a packed table's stand-ins are not kept). */
  readonly firstParts: TableNode[] | null;
  rowCount = 0;
  firstRowWidth = 0;
  // Made on the first flush or heading row: a small table's pieces are joined once, into its Markdown.
  private chunks: string[] | null = null;
  private headings: Array<{ at: number; row: Row }> | null = null;
  private partsSeen = 0;

  constructor(keepParts: boolean) {
    this.firstParts = keepParts ? [] : null;
  }

  /**
   * Whether a part of tag `name` may be written: the first of its kind is made (`standIn`),
   * recorded and asked about with `acceptsPart`; a kind once seen always may.
   */
  accepts(name: string, standIn: () => TableNode, acceptsPart: (part: TableNode) => boolean): boolean {
    const bit = (KIND.get(name) ?? 0) & ~KIND_BITS;
    if ((this.partsSeen & bit) !== 0) return true;
    this.partsSeen |= bit;
    const part = standIn();
    this.firstParts?.push(part);
    return acceptsPart(part);
  }

  /** Ends a row of `width` cells; `heading` names it when it is a heading row (its border comes after it). */
  endRow(width: number, heading: Row | null): void {
    if (this.rowCount++ === 0) this.firstRowWidth = width;
    if (heading !== null) {
      this.flush();
      const chunks = (this.chunks ??= []);
      (this.headings ??= []).push({ at: chunks.length, row: heading });
      chunks.push("");
    } else if (this.pieces.length >= PIECES_PER_CHUNK) {
      this.flush();
    }
  }

  /** The columns the votes elected: their count and alignments. */
  columns(): { count: number; alignments: string[] } {
    return this.votes.columns();
  }

  /** After a cell: a row's pieces are joined a chunk at a time too (one join of a 250,000-cell row's pieces took twice as long). */
  endCell(): void {
    if (this.pieces.length >= PIECES_PER_CHUNK) this.flush();
  }

  /** The whole Markdown, each heading row followed by the border `borderOf` writes for it (none when empty). */
  finish(borderOf: (row: Row) => string): string {
    const chunks = this.chunks;
    if (chunks === null) return this.pieces.join("");
    for (const { at, row } of this.headings ?? []) {
      const borderCells = borderOf(row);
      if (borderCells !== "") chunks[at] = `\n${borderCells}`;
    }
    this.flush();
    return chunks.length === 1 ? chunks[0]! : chunks.join("");
  }

  private flush(): void {
    if (this.pieces.length === 0) return;
    (this.chunks ??= []).push(this.pieces.join(""));
    this.pieces.length = 0;
  }
}

/**
 * Builds the replacement rules around per-conversion caches (a service converts one tree; the
 * caches go with it). Maps, not WeakMaps: they live no longer than the tree they point into, and
 * a WeakMap's look-ups and its entries' handling by the garbage collector cost more (a table
 * nesting 300 tables asked for facts thousands of times).
 */
function tableRules(): { rules: Record<string, TurndownService.Rule> } & Omit<LinearTables, "tableRule"> {
  const facts = new Map<TableNode, TableFacts>();
  /** The rule each part of a plain table has here, by tag name (filled below, with the rules). */
  const partRules = new Map<string, TurndownService.Rule>();
  const rowIndex = new Map<TableNode, Map<TableNode, number>>();

  /**
   * What {@link writePacked} wrote for a packed table, and the table's facts, are kept on the
   * table (PackedTable.written; the rules may ask twice, and the parts are not in the tree to be
   * walked again), not in `facts`, tagged with this object, which forgetTrees replaces: they go
   * with their tree, as a WeakMap's entry would (one service converts page after page in a
   * long-lived worker), without an ephemeron or map entry per table for the garbage collector (a
   * page of many small tables had thousands), and another service's rules, or these after
   * forgetTrees, do not read them.
   */
  let writer: object = {};

  const factsOf = (table: TableNode): TableFacts => {
    const written = table.packedTable?.written ?? null;
    // Only writePacked writes them, with a TableFacts.
    if (written !== null && written.by === writer) return written.facts as TableFacts;
    const known = facts.get(table);
    if (known !== undefined) return known;
    const firstParts: TableNode[] = [];
    const found: TableFacts = { hasTrigger: false, hasTable: false, caption: null, plain: true, firstParts, rowCount: 0, firstRowWidth: 0 };
    // The table's rows (HTMLTableElement.rows: its own TR children and those of its own row
    // groups) are met on the way: their widths and their cells' alignment votes are counted here.
    const votes = new ColumnVotes();
    let rowsHoldText = false;
    /** The part tags met so far (their KIND bits above KIND_BITS). */
    let partsSeen = 0;
    // Depth first in tree order, following sibling and parent links (no stack, no child arrays);
    // a nested table contributes its own facts (computed once, memoized) instead of being walked again.
    let node = table.firstChild;
    while (node !== null) {
      let descend = false;
      if (node.nodeType === 1) {
        const name = node.nodeName;
        const code = KIND.get(name) ?? 0;
        const kind = code & KIND_BITS;
        if ((kind & PART) === 0) found.plain = false;
        else if (found.plain && (partsSeen & code & ~KIND_BITS) === 0) {
          partsSeen |= code & ~KIND_BITS;
          firstParts.push(node);
        }
        if (kind === ROW) {
          const parent = node.parentNode!;
          let hasCell = false;
          if (parent === table || (((KIND.get(parent.nodeName) ?? 0) & KIND_BITS) === GROUP && parent.parentNode === table)) {
            let c = 0;
            for (let cell = node.firstChild; cell !== null; cell = cell.nextSibling, c++) {
              if (cell.nodeType !== 1) {
                rowsHoldText = true;
                continue;
              }
              hasCell ||= cell.nodeName === "TD" || cell.nodeName === "TH";
              votes.vote(c, cell);
            }
            if (found.rowCount++ === 0) found.firstRowWidth = c;
          } else {
            for (let cell = node.firstChild; cell !== null && !hasCell; cell = cell.nextSibling) hasCell = cell.nodeName === "TD" || cell.nodeName === "TH";
          }
          if (!hasCell) found.plain = false;
        }
        if (kind === TABLE) {
          const inner = factsOf(node);
          found.hasTable = true;
          found.hasTrigger ||= inner.hasTrigger;
          found.caption ??= inner.caption;
        } else {
          if (kind === TRIGGER) found.hasTrigger = true;
          else if (kind === CAPTION) found.caption ??= node;
          descend = true;
        }
      }
      if (descend && node.firstChild !== null) {
        node = node.firstChild;
        continue;
      }
      while (node !== table && node.nextSibling === null) node = node.parentNode!;
      node = node === table ? null : node.nextSibling;
    }
    if (!found.plain) found.firstParts = [];
    // A row holding text (domino keeps it, inside <pre>): the votes are read as the plugin read
    // them, on first use (the plugin asks the text for its attributes, and throws).
    if (!rowsHoldText) found.columns = votes.columns();
    facts.set(table, found);
    return found;
  };

  /** The plugin's tableShouldBeSkipped: no table, a single cell, or a table holding tables. */
  const decideSkipped = (table: TableNode | null): boolean => {
    // Every DOM here has HTMLTableElement's `rows` (asking for it would build the list of rows).
    if (table === null || !("rows" in table)) return true;
    const f = factsOf(table);
    if (f.rowCount === 1 && f.firstRowWidth <= 1) return true;
    return f.hasTable;
  };
  // Every cell and row asks about its table, and a conversion changes no table: the last answer is kept.
  let lastTable: TableNode | null | undefined;
  let lastSkipped = false;
  const skipped = (table: TableNode | null): boolean => {
    if (table !== lastTable) {
      lastSkipped = decideSkipped(table);
      lastTable = table;
    }
    return lastSkipped;
  };

  /**
   * Column count (the longest row's child nodes) and each column's alignment by majority vote, as
   * the plugin votes: counted during the table's facts walk, or here when a row holds text.
   */
  const columnsOf = (table: TableNode): { count: number; alignments: string[] } => {
    const f = factsOf(table);
    if (f.columns !== undefined) return f.columns;
    const rows = table.rows ?? [];
    const votes = new ColumnVotes();
    for (let r = 0; r < rows.length; r++) {
      let c = 0;
      for (let cell = rows[r]!.firstChild; cell !== null; cell = cell.nextSibling, c++) votes.vote(c, cell);
    }
    f.columns = votes.columns();
    return f.columns;
  };

  // Cells are converted in order, so a cell right after the last one looked up is one further
  // along, without a position map for its row (a table of one-cell rows built one map per row).
  let lastCell: TableNode | null = null;
  let lastIndex = -1;
  const indexInRow = (node: TableNode): number => {
    const index = node.previousSibling === null ? 0 : node.previousSibling === lastCell ? lastIndex + 1 : positionInRow(node);
    lastCell = node;
    lastIndex = index;
    return index;
  };
  const positionInRow = (node: TableNode): number => {
    const row = node.parentNode!;
    let positions = rowIndex.get(row);
    if (positions === undefined) {
      positions = new Map();
      for (let i = 0; i < row.childNodes.length; i++) positions.set(row.childNodes[i]!, i);
      rowIndex.set(row, positions);
    }
    return positions.get(node) ?? -1;
  };

  /** The plugin's tableRow for a row of a table that is not skipped. */
  const rowMarkdown = (content: string, tr: TableNode, table: TableNode): string => {
    if (!isHeadingRow(tr)) return `\n${content}`;
    const { count, alignments } = columnsOf(table);
    const borderCells = borderRow({ count, alignments }, (i) => spanOf(i < tr.childNodes.length ? tr.childNodes[i]! : null));
    return `\n${content}${borderCells ? `\n${borderCells}` : ""}`;
  };

  /**
   * What turndown's walk hands the table rule as a plain table's content: each part's replacement
   * by the rule for its tag (cells, rows, row groups), the parts joined as turndown joins them,
   * each text escaped by `escape`; `tick` is called once per element, as the rule lookup it saves
   * would have. A cell's position is its place among its parent's child nodes, counted on the
   * way; whether the table is skipped is asked once.
   */
  const contentByParts = (table: TableNode, escape: (text: string) => string, tick: () => void): string => {
    const skip = skipped(table);
    const partOf = (node: TableNode, index: number): string => {
      if (node.nodeType === 3) return escape(node.nodeValue ?? "");
      // turndown joins an empty replacement for any other node (none survive its clean-up).
      if (node.nodeType !== 1) return "";
      tick();
      const content = contentOf(node);
      if (skip) return content;
      const name = node.nodeName;
      if (name === "TD" || name === "TH") return cellMarkdown(content, node, index);
      return name === "TR" ? rowMarkdown(content, node, table) : content;
    };
    const contentOf = (el: TableNode): string => {
      const first = el.firstChild;
      if (first === null) return "";
      // A cell's one text, a row's one cell.
      if (first.nextSibling === null) return joinOne(partOf(first, 0));
      const content = new PartsJoin();
      let index = 0;
      for (let child: TableNode | null = first; child !== null; child = child.nextSibling) content.append(partOf(child, index++));
      return content.text;
    };
    return contentOf(table);
  };

  /**
   * {@link contentByParts} in one pass for a table whose facts are not known yet and that is
   * regular: its children rows and row groups, the groups' children rows, each row's children one
   * or more cells, each cell holding one text or nothing (most tables of text). There every part
   * ends in a `|` and starts with at most one newline, so turndown's join of an element's parts is
   * their concatenation, and the table's content its rows' Markdown one after the other: a
   * newline, the cells' Markdown, and for a heading row its border, added at the end, once every
   * row's width and alignments are counted. The table's facts are gathered on the way (so the
   * table is walked once, not once for its facts and once for its Markdown), the elements ticked
   * and the texts escaped in turndown's order, and each tag's first part checked with
   * `acceptsPart`. Null, with no facts recorded, at the first node that makes the table irregular
   * or a part `acceptsPart` refuses.
   */
  const writeRegular = (table: TableNode, escape: (text: string) => string, tick: () => void, acceptsPart: (part: TableNode) => boolean): string | null => {
    const md = new PlainTableMarkdown<TableNode>(true);
    const { pieces, votes } = md;
    const accepted = (part: TableNode): boolean => md.accepts(part.nodeName, () => part, acceptsPart);
    // The row and cell tags accepted so far (tag names are shared strings): a tag once accepted always is.
    let rowAccepted = false;
    let acceptedCell = "";
    const writeRow = (tr: TableNode): boolean => {
      if (!rowAccepted) {
        if (tr.nodeType !== 1 || tr.nodeName !== "TR" || !accepted(tr)) return false;
        rowAccepted = true;
      } else if (tr.nodeName !== "TR") {
        return false;
      }
      tick();
      pieces.push("\n");
      let c = 0;
      for (let cell = tr.firstChild; cell !== null; cell = cell.nextSibling, c++) {
        const name = cell.nodeName;
        if (name !== acceptedCell) {
          if (cell.nodeType !== 1 || (name !== "TD" && name !== "TH") || !accepted(cell)) return false;
          acceptedCell = name;
        }
        tick();
        const inside = cell.firstChild;
        let content = "";
        if (inside !== null) {
          if (inside.nodeType !== 3 || inside.nextSibling !== null) return false;
          content = escape(inside.nodeValue ?? "");
        }
        votes.vote(c, cell);
        pushCell(pieces, content, cell, c);
        md.endCell();
      }
      // A row without a cell: not a plain table.
      if (c === 0) return false;
      md.endRow(c, isHeadingRow(tr) ? tr : null);
      return true;
    };
    for (let child = table.firstChild; child !== null; child = child.nextSibling) {
      if (child.nodeName !== "TR" && child.nodeType === 1 && ((KIND.get(child.nodeName) ?? 0) & KIND_BITS) === GROUP) {
        if (!accepted(child)) return null;
        tick();
        for (let tr = child.firstChild; tr !== null; tr = tr.nextSibling) if (!writeRow(tr)) return null;
      } else if (!writeRow(child)) {
        return null;
      }
    }
    const columns = md.columns();
    facts.set(table, { hasTrigger: false, hasTable: false, caption: null, plain: true, firstParts: md.firstParts!, rowCount: md.rowCount, firstRowWidth: md.firstRowWidth, columns });
    // A single cell: the rules write the table as its content (turndown's join of the parts as they are).
    if (skipped(table)) return contentByParts(table, escape, tick);
    return md.finish((tr) => borderRow(columns, (i) => spanOf(i < tr.childNodes.length ? tr.childNodes[i]! : null)));
  };


  /**
   * {@link writeRegular} for a table whose rows and cells the parse packed (light-dom.ts's
   * PackedTable: a regular table by construction, more than a single cell), from its arrays: the
   * same pieces, ticks, escapes, votes, facts and heading rows, each tag's first part checked with
   * `acceptsPart` on an element standing for it (its name, attributes and ancestors, which is all
   * the rules' filters read). Null when a part is refused: the table is then built as a tree, its
   * prose facts marked, and handed to the walk over trees.
   */
  const writePacked = (table: TableNode, packed: PackedTable, escape: (text: string) => string, tick: () => void, acceptsPart: (part: TableNode) => boolean): string | null => {
    const element = table as unknown as LightElement;
    const { children, groups, cellTexts } = packed;
    const md = new PlainTableMarkdown<number>(false);
    const { pieces, votes } = md;
    const accepted = (name: string, standIn: () => TableNode): boolean => md.accepts(name, standIn, acceptsPart);
    /** isFirstTbody of group `g`: a TBODY first in the table, or after a THEAD of blank text. */
    const isFirstTbodyPacked = (g: number): boolean => {
      const group = groups[g]!;
      if (group.name !== "tbody") return false;
      if (group.childIndex === 0) return true;
      const previous = children[group.childIndex - 1]!;
      if (previous >= 0 || groups[-1 - previous]!.name !== "thead") return false;
      const before = groups[-1 - previous]!;
      let text = "";
      for (let c = packed.cellStart(before.rowStart); c < (before.rowEnd > before.rowStart ? packed.cellEnd(before.rowEnd - 1) : 0); c++) text += cellTexts[c] ?? "";
      return /^\s*$/i.test(text);
    };
    /** isHeadingRow of row `r`. */
    const isHeadingPacked = (r: number): boolean => {
      const g = packed.groupOf(r);
      if (g !== -1 && groups[g]!.name === "thead") return true;
      if (g === -1 ? children[0] !== r : groups[g]!.rowStart !== r || !isFirstTbodyPacked(g)) return false;
      for (let c = packed.cellStart(r); c < packed.cellEnd(r); c++) if (!packed.isHeaderCell(c)) return false;
      return true;
    };
    let rowAccepted = false;
    let acceptedCell = "";
    const writeRow = (r: number): boolean => {
      if (!rowAccepted) {
        if (!accepted("TR", () => packed.rowNode(element, r) as unknown as TableNode)) return false;
        rowAccepted = true;
      }
      tick();
      pieces.push("\n");
      const start = packed.cellStart(r);
      const end = packed.cellEnd(r);
      let c = 0;
      for (let i = start; i < end; i++, c++) {
        const name = packed.isHeaderCell(i) ? "TH" : "TD";
        if (name !== acceptedCell) {
          if (!accepted(name, () => packed.cellNode(element, r, i) as unknown as TableNode)) return false;
          acceptedCell = name;
        }
        tick();
        const text = cellTexts[i] ?? null;
        const content = text === null ? "" : escape(text);
        const hasAttributes = packed.cellHasAttributes(i);
        votes.voteFor(c, hasAttributes ? packedAlignment(packed, i) : "");
        pushSpannedCell(pieces, content, hasAttributes ? packedSpan(packed, i) : 1, c);
        md.endCell();
      }
      md.endRow(c, isHeadingPacked(r) ? r : null);
      return true;
    };
    const written = ((): boolean => {
      for (const child of children) {
        if (child >= 0) {
          if (!writeRow(child)) return false;
          continue;
        }
        const g = -1 - child;
        const group = groups[g]!;
        if (!accepted(group.name.toUpperCase(), () => packed.groupNode(element, g) as unknown as TableNode)) return false;
        tick();
        for (let r = group.rowStart; r < group.rowEnd; r++) if (!writeRow(r)) return false;
      }
      return true;
    })();
    if (!written) {
      element.unpack();
      markProseFacts(element);
      return null;
    }
    const columns = md.columns();
    const tableFacts: TableFacts = { hasTrigger: false, hasTable: false, caption: null, plain: true, firstParts: NO_PARTS, rowCount: md.rowCount, firstRowWidth: md.firstRowWidth, columns };
    const content = md.finish((row) => {
      const start = packed.cellStart(row);
      const width = packed.cellEnd(row) - start;
      return borderRow(columns, (i) => (i < width ? packedSpan(packed, start + i) : 1));
    });
    packed.written = { by: writer, markdown: content, facts: tableFacts };
    return content;
  };

  /** See {@link LinearTables.plainTableContent}. */
  const plainTableContent = (table: TableNode, escape: (text: string) => string, tick: () => void, ruleOf: (part: unknown) => unknown): string | null => {
    const acceptsPart = (part: TableNode) => ruleOf(part) === partRules.get(part.nodeName);
    const packed = table.packedTable ?? null;
    if (packed !== null) {
      const written = packed.written;
      if (written !== null && written.by === writer) return written.markdown;
      return writePacked(table, packed, escape, tick, acceptsPart) ?? plainTableContent(table, escape, tick, ruleOf);
    }
    let f = facts.get(table);
    if (f === undefined) {
      const written = writeRegular(table, escape, tick, acceptsPart);
      if (written !== null) return written;
      f = factsOf(table);
    }
    if (!f.plain || !f.firstParts.every(acceptsPart)) return null;
    return contentByParts(table, escape, tick);
  };

  const asNode = (node: unknown) => node as TableNode;

  const rules: Record<string, TurndownService.Rule> = {
    webgateTableCell: {
      filter: ["th", "td"],
      replacement: (content, node) => {
        const el = asNode(node);
        if (skipped(nearestTable(el))) return content;
        return cellMarkdown(content, el, indexInRow(el));
      },
    },
    webgateTableRow: {
      filter: "tr",
      replacement: (content, node) => {
        const el = asNode(node);
        const table = nearestTable(el);
        if (skipped(table)) return content;
        return rowMarkdown(content, el, table!);
      },
    },
    webgateTableSection: {
      filter: ["thead", "tbody", "tfoot"],
      replacement: (content) => content,
    },
    webgateTable: {
      filter: (node) => asNode(node).nodeName === "TABLE",
      replacement: (content, node) => {
        const table = asNode(node);
        const f = factsOf(table);
        // What the plugin would keep as raw HTML: its content as text instead.
        if (f.hasTrigger) return `\n\n${content}\n\n`;
        if (skipped(table)) return content;
        // Rows written as rows hold no blank line: the replacement would scan and copy the whole table for nothing.
        if (content.includes("\n\n")) content = content.replace(/\n+/g, "\n");
        // The plugin splits the whole table into lines to look at the second (or, with one line, at that one).
        const trimmed = content.trim();
        const firstBreak = trimmed.indexOf("\n");
        const nextBreak = firstBreak === -1 ? -1 : trimmed.indexOf("\n", firstBreak + 1);
        const secondLine = firstBreak === -1 ? trimmed : trimmed.slice(firstBreak + 1, nextBreak === -1 ? trimmed.length : nextBreak);
        const secondLineIsDivider = /\| :?---/.test(secondLine);
        const { count, alignments } = columnsOf(table);
        let emptyHeader = "";
        if (count && !secondLineIsDivider) {
          const borders = new Array<string>(count);
          for (let c = 0; c < count; c++) borders[c] = ` ${border(alignments[c]!)} |`;
          emptyHeader = `|${"     |".repeat(count)}\n|${borders.join("")}`;
        }
        const captionText = f.caption ? f.caption.textContent || "" : "";
        const caption = captionText ? `${captionText}\n\n` : "";
        return `\n\n${caption}${`${emptyHeader}${content}`.trimStart()}\n\n`;
      },
    },
  };
  const cell = rules.webgateTableCell!;
  const group = rules.webgateTableSection!;
  partRules.set("TD", cell).set("TH", cell).set("TR", rules.webgateTableRow!).set("THEAD", group).set("TBODY", group).set("TFOOT", group);
  const forgetTrees = (): void => {
    facts.clear();
    writer = {};
    rowIndex.clear();
    lastTable = undefined;
    lastSkipped = false;
    lastCell = null;
    lastIndex = -1;
  };
  return { rules, plainTableContent: (table, escape, tick, ruleOf) => plainTableContent(asNode(table), escape, tick, ruleOf), forgetTrees };
}

/** What {@link useLinearTables} gives the caller beside the rules it adds. */
export interface LinearTables {
  /** The rule that writes `<table>` elements (the one turndown picks for every table). */
  tableRule: TurndownService.Rule;
  /**
   * The content turndown's walk would hand {@link tableRule} for `table`, written by the table
   * rules directly, when `table` is plain (TableFacts.plain: everything below it is rows, cells
   * and row groups holding text, every row having a cell; such a table is all block elements that
   * are never blank, which turndown's per-node bookkeeping has nothing to find in) and
   * `ruleOf(part)`, turndown's rule lookup, gives the table's first part of each tag that tag's
   * table rule; else null. The rules turndown can pick for these tags tell nodes apart by tag
   * name and by the table around them, which every part of one table shares, so the first part
   * of a tag stands for all (a rule for one of these tags that looked at anything else about a
   * node would have to be checked here). `escape` is called for each text, `tick` for each
   * element, in turndown's order. Memoized with the rest of the table's facts.
   */
  plainTableContent(table: unknown, escape: (text: string) => string, tick: () => void, ruleOf: (part: unknown) => unknown): string | null;
  /**
   * Empties the caches of the tables converted so far (their facts, their rows' cell positions,
   * the last table and cell looked at): the caches trust that a table does not change while they
   * know it, and hold its tree. Call it before the rules convert another tree.
   */
  forgetTrees(): void;
}

/**
 * Adds the table rules to `service`, after the GFM plugin (turndown tries the rules added last
 * first, so these take the plugin's place for `table`, `tr`, `th`, `td` and the row groups).
 */
export function useLinearTables(service: TurndownService): LinearTables {
  const { rules, ...plain } = tableRules();
  for (const [name, rule] of Object.entries(rules)) service.addRule(name, rule);
  return { tableRule: rules.webgateTable!, ...plain };
}
