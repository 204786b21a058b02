import type TurndownService from "turndown";

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
  parentNode: TableNode | null;
  firstChild: TableNode | null;
  nextSibling: TableNode | null;
  previousSibling: TableNode | null;
  childNodes: ArrayLike<TableNode>;
  textContent: string | null;
  getAttribute(name: string): string | null;
  style?: { textAlign?: string };
  rows?: ArrayLike<TableNode>;
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
  /** Filled on first use. */
  columns?: { count: number; alignments: string[] };
}

/** The elements a plain table holds (see TableFacts.plain). */
const PLAIN_TABLE_PARTS: ReadonlySet<string> = new Set(["TR", "TD", "TH", "THEAD", "TBODY", "TFOOT"]);

/** The largest colspan HTML honours. */
const MAX_COLSPAN = 1_000;

const ALIGN_BORDER: Readonly<Record<string, string>> = { left: ":---", right: "---:", center: ":---:" };

function border(alignment: string): string {
  return ALIGN_BORDER[alignment] ?? "---";
}

function alignmentOf(cell: TableNode | null | undefined): string {
  return cell ? (cell.getAttribute("align") || cell.style?.textAlign || "").toLowerCase() : "";
}

const NEEDS_CELL_ESCAPE = /[\n|]/;

/** The plugin's `cell()`: one cell's Markdown, `index` its position among its row's child nodes. */
function cellMarkdown(content: string, node: TableNode | null, index: number): string {
  const prefix = index === 0 ? "| " : " ";
  let filtered = content.trim();
  // Most cells hold neither a newline nor a pipe: the three replacements would change nothing.
  if (NEEDS_CELL_ESCAPE.test(filtered)) filtered = filtered.replace(/\n\r/g, "<br>").replace(/\n/g, "<br>").replace(/\|+/g, "\\|");
  while (filtered.length < 3) filtered += " ";
  if (node) {
    // HTML clamps colspan to 1,000 (WHATWG HTML §4.9.11); the plugin did not, and looped as many
    // times as a hostile attribute asked.
    const colspan = Math.min(Number(node.getAttribute("colspan") || 1), MAX_COLSPAN);
    for (let i = 1; i < colspan; i++) filtered += " |    ";
  }
  return `${prefix}${filtered} |`;
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

function hasCell(tr: TableNode): boolean {
  for (let n = tr.firstChild; n !== null; n = n.nextSibling) if (n.nodeName === "TD" || n.nodeName === "TH") return true;
  return false;
}

/**
 * Builds the replacement rules around per-conversion caches (a service converts one tree; the
 * caches go with it).
 */
function tableRules(): { rules: Record<string, TurndownService.Rule>; isPlainTable: (table: unknown) => boolean } {
  const facts = new WeakMap<TableNode, TableFacts>();
  const rowIndex = new WeakMap<TableNode, Map<TableNode, number>>();

  const factsOf = (table: TableNode): TableFacts => {
    const known = facts.get(table);
    if (known !== undefined) return known;
    const found: TableFacts = { hasTrigger: false, hasTable: false, caption: null, plain: true };
    // Depth first in tree order, following sibling and parent links (no stack, no child arrays);
    // a nested table contributes its own facts (computed once, memoized) instead of being walked again.
    let node = table.firstChild;
    while (node !== null) {
      let descend = false;
      if (node.nodeType === 1) {
        const name = node.nodeName;
        if (!PLAIN_TABLE_PARTS.has(name)) found.plain = false;
        else if (name === "TR" && found.plain && !hasCell(node)) found.plain = false;
        if (name === "TABLE") {
          const inner = factsOf(node);
          found.hasTable = true;
          found.hasTrigger ||= inner.hasTrigger;
          found.caption ??= inner.caption;
        } else {
          if (HTML_TABLE_TRIGGERS.has(name)) found.hasTrigger = true;
          if (name === "CAPTION") found.caption ??= node;
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
    facts.set(table, found);
    return found;
  };

  /** The plugin's tableShouldBeSkipped: no table, a single cell, or a table holding tables. */
  const decideSkipped = (table: TableNode | null): boolean => {
    if (table === null || !table.rows) return true;
    if (table.rows.length === 1 && table.rows[0]!.childNodes.length <= 1) return true;
    return factsOf(table).hasTable;
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

  /** Column count (the longest row's child nodes) and each column's alignment by majority vote, as the plugin votes. */
  const columnsOf = (table: TableNode): { count: number; alignments: string[] } => {
    const f = factsOf(table);
    if (f.columns !== undefined) return f.columns;
    const rows = table.rows ?? [];
    // Each row's child nodes by sibling links: reading every row's childNodes built an array per row.
    let count = 0;
    for (let r = 0; r < rows.length; r++) {
      let width = 0;
      for (let cell = rows[r]!.firstChild; cell !== null; cell = cell.nextSibling) width++;
      count = Math.max(count, width);
    }
    const votes: Array<Record<string, number>> = Array.from({ length: count }, () => ({ left: 0, right: 0, center: 0, "": 0 }));
    const alignments = Array.from({ length: count }, () => "");
    for (let r = 0; r < rows.length; r++) {
      let c = 0;
      for (let cell = rows[r]!.firstChild; cell !== null; cell = cell.nextSibling, c++) {
        const a = alignmentOf(cell);
        const v = votes[c]!;
        // As the plugin counts: an alignment outside the four starts at NaN and never wins.
        v[a] = Number(v[a]) + 1;
        if (v[a] > v[alignments[c]!]!) alignments[c] = a;
      }
    }
    f.columns = { count, alignments };
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

  const asNode = (node: unknown) => node as TableNode;

  const isPlainTable = (table: unknown) => factsOf(asNode(table)).plain;
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
        let borderCells = "";
        if (isHeadingRow(el)) {
          const { count, alignments } = columnsOf(table!);
          for (let i = 0; i < count; i++) borderCells += cellMarkdown(border(alignments[i]!), i < el.childNodes.length ? el.childNodes[i]! : null, i);
        }
        return `\n${content}${borderCells ? `\n${borderCells}` : ""}`;
      },
    },
    webgateTable: {
      filter: (node) => asNode(node).nodeName === "TABLE",
      replacement: (content, node) => {
        const table = asNode(node);
        const f = factsOf(table);
        // What the plugin would keep as raw HTML: its content as text instead.
        if (f.hasTrigger) return `\n\n${content}\n\n`;
        if (skipped(table)) return content;
        content = content.replace(/\n+/g, "\n");
        // The plugin splits the whole table into lines to look at the second (or, with one line, at that one).
        const trimmed = content.trim();
        const firstBreak = trimmed.indexOf("\n");
        const nextBreak = firstBreak === -1 ? -1 : trimmed.indexOf("\n", firstBreak + 1);
        const secondLine = firstBreak === -1 ? trimmed : trimmed.slice(firstBreak + 1, nextBreak === -1 ? trimmed.length : nextBreak);
        const secondLineIsDivider = /\| :?---/.test(secondLine);
        const { count, alignments } = columnsOf(table);
        let emptyHeader = "";
        if (count && !secondLineIsDivider) {
          emptyHeader = `|${"     |".repeat(count)}\n|`;
          for (let c = 0; c < count; c++) emptyHeader += ` ${border(alignments[c]!)} |`;
        }
        const captionText = f.caption ? f.caption.textContent || "" : "";
        const caption = captionText ? `${captionText}\n\n` : "";
        return `\n\n${caption}${`${emptyHeader}${content}`.trimStart()}\n\n`;
      },
    },
  };
  return { rules, isPlainTable };
}

/** What {@link useLinearTables} gives the caller beside the rules it adds. */
export interface LinearTables {
  /** The rule that writes `<table>` elements (the one turndown picks for every table). */
  tableRule: TurndownService.Rule;
  /**
   * Whether everything below `table` is rows, cells and row groups with text (no nested table,
   * caption, column group or markup inside cells), every row having a cell: such a table is all
   * block elements that are never blank (TD, TH and the row groups are "meaningful when blank" to
   * turndown, and each row holds a cell), which lets turndown-setup.ts write it without turndown's
   * per-node bookkeeping. Memoized with the rest of the table's facts.
   */
  isPlainTable(table: unknown): boolean;
}

/**
 * Adds the table rules to `service`, after the GFM plugin (turndown tries the rules added last
 * first, so these take the plugin's place for `table`, `tr`, `th` and `td`).
 */
export function useLinearTables(service: TurndownService): LinearTables {
  const { rules, isPlainTable } = tableRules();
  for (const [name, rule] of Object.entries(rules)) service.addRule(name, rule);
  return { tableRule: rules.webgateTable!, isPlainTable };
}
