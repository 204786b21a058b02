import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { turndownSingleUse } from "../../../../shared/content/html-to-markdown";
import { type LightElement, type LightNode, MAX_DEPTH, parseLightDocument } from "../../../../shared/content/light-dom";
import { conversionService, createTurndownService } from "../../../../shared/content/turndown-setup";

// Tables whose rows and cells the parse keeps out of the tree (`packTables`) must convert exactly
// as the tree they stand for, and build that tree for any reader that asks for their children.

/** Every table in the tree, packed or not. */
function tablesOf(root: LightElement): LightElement[] {
  const out: LightElement[] = [];
  const visit = (el: LightElement): void => {
    if (el.nodeName === "TABLE") out.push(el);
    for (let n: LightNode | null = el.firstChild; n !== null; n = n.nextSibling) if (n.nodeType === 1) visit(n);
  };
  visit(root);
  return out;
}

const markdownOf = (html: string, packTables: boolean) => turndownSingleUse(conversionService("https://example.com/", undefined), parseLightDocument(html, { packTables }).body);

/**
 * The Markdown, or the error thrown: main's code throws on some table structure htmlparser2 builds
 * from broken markup (text put inside rows nested in rows), and packing must not change that either.
 */
function outcomeOf(html: string, packTables: boolean): string {
  try {
    return markdownOf(html, packTables);
  } catch (error) {
    return `throws ${(error as Error).message}`;
  }
}

const space = fc.constantFrom("", " ", "  ", "\n", "\t", " \n ", "\u00a0", "\r\n");
const word = fc.constantFrom("a", "bc", "1.", "12", "-", "*x*", "&amp;", "&nbsp;", "|", "a|b", "é", "_", "#", "line\nbreak");
const cellText = fc.array(fc.oneof(space, word), { maxLength: 4 }).map((parts) => parts.join(""));
const attrs = fc.constantFrom("", "", "", ' align="right"', " align=CENTER", ' align="justify"', ' style="text-align: center"', ' style="color: red"', " colspan=2", " colspan=0", " colspan=x", ' class="n"', " align=left colspan=3");
/** What a cell may hold: mostly text; sometimes what makes the table not plain. */
const cellContent = fc.oneof(
  { weight: 12, arbitrary: cellText },
  { weight: 1, arbitrary: fc.constantFrom("<b>x</b>", "a<br>b", '<a href="/l">l</a>', "<script>s</script>x", "x<!-- c -->y", "<p>p</p>", "<table><tr><td>in</td><td>ner</td></tr></table>", "<code>c</code>", "<span> s </span>") },
);
const cell = fc.tuple(fc.constantFrom("td", "td", "th"), attrs, cellContent, fc.boolean()).map(([tag, a, content, close]) => `<${tag}${a}>${content}${close ? `</${tag}>` : ""}`);
const row = fc.tuple(attrs, fc.array(cell, { maxLength: 4 }), fc.boolean(), space).map(([a, cells, close, ws]) => `<tr${a}>${ws}${cells.join(ws)}${close ? "</tr>" : ""}`);
const group = fc.tuple(fc.constantFrom("thead", "tbody", "tfoot"), attrs, fc.array(row, { maxLength: 3 }), fc.boolean()).map(([tag, a, rows, close]) => `<${tag}${a}>${rows.join("")}${close ? `</${tag}>` : ""}`);
const tablePart = fc.oneof(
  { weight: 6, arbitrary: row },
  { weight: 2, arbitrary: group },
  { weight: 1, arbitrary: fc.constantFrom(" ", "\n  ", "stray text", "<caption>cap</caption>", "<td>loose</td>", "<colgroup><col></colgroup>", "<!-- c -->") },
);
const table = fc.tuple(attrs, fc.array(tablePart, { maxLength: 6 }), fc.constantFrom("</table>", "</table>", "")).map(([a, parts, close]) => `<table${a}>${parts.join("")}${close}`);
/** A table in some context: text around it, inline or block parents, code, links, forms. */
const page = fc
  .tuple(fc.constantFrom("", "x ", "<p>before</p>", "<span>a </span>", "text\n"), fc.constantFrom("", "div", "em", "a href=/l", "form", "code", "pre", "li", "td"), fc.array(table, { minLength: 1, maxLength: 2 }), fc.constantFrom("", " tail", "<p>after</p>", "<span> s</span>", "<br>y"))
  .map(([before, wrap, tables, after]) => {
    const inner = tables.join(" ");
    const name = wrap.split(" ")[0]!;
    return `${before}${wrap === "" ? inner : `<${wrap}>${inner}</${name}>`}${after}`;
  });

/**
 * Tables of the markup the parse takes straight from the input (`<td>text</td>` runs, rows of
 * them), with the near misses that must go through htmlparser2: other cases, attributes, spaces
 * in tags, entities, mismatched or missing end tags, a cell closed by another.
 */
const runText = fc.constantFrom("", "1", "row 7", "a > b", " x ", "\n", "&amp;", "a&lt;b", "|", "\u00a0");
const runCell = fc.oneof(
  { weight: 8, arbitrary: fc.tuple(fc.constantFrom("td", "th"), runText).map(([tag, t]) => `<${tag}>${t}</${tag}>`) },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom("<TD>", "<td >", "<td\n>", "<td a=1>", "<th>", "<td>"), runText, fc.constantFrom("</td>", "</TD>", "</td >", "</th>", "", "<td>", "</tr>")).map(([open, t, close]) => `${open}${t}${close}`) },
);
const runRow = fc.tuple(fc.constantFrom("<tr>", "<tr>", "<tr>", "<TR>", "<tr class=r>"), fc.array(runCell, { maxLength: 5 }), fc.constantFrom("</tr>", "</tr>", "</tr>", "", "</TR>", "\n</tr>")).map(([open, cells, close]) => `${open}${cells.join("")}${close}`);
const runTable = fc
  .tuple(fc.constantFrom("", "<thead>", "<tbody>"), fc.array(runRow, { minLength: 1, maxLength: 6 }), fc.constantFrom("", "", "\n"), fc.constantFrom("", "</tbody>", "</thead><tbody><tr><td>b</td></tr></tbody>", "<tr><td><b>x</b></td></tr>"), fc.constantFrom("</table>", ""))
  .map(([group, rows, between, more, close]) => `<p>t</p><table>${group}${rows.join(between)}${more}${close}<p>after</p>`);

describe("packed tables (parseLightDocument's packTables)", () => {
  it("read runs of plain cells and rows from the input as htmlparser2's events would build them", () => {
    fc.assert(
      fc.property(runTable, (html) => {
        const packed = parseLightDocument(html, { packTables: true }).body;
        const plain = parseLightDocument(html).body;
        expect(packed.innerHTML).toBe(plain.innerHTML);
        expect(outcomeOf(html, true)).toBe(outcomeOf(html, false));
      }),
      { numRuns: 2000 },
    );
  });

  it("convert to the Markdown of the tree they stand for, on random tables in random places", () => {
    fc.assert(
      fc.property(page, (html) => {
        expect(outcomeOf(html, true)).toBe(outcomeOf(html, false));
      }),
      { numRuns: 1500 },
    );
  });

  it("build the tree the parse builds without packing, with the same text, for a reader of their children", () => {
    fc.assert(
      fc.property(page, (html) => {
        const packed = parseLightDocument(html, { packTables: true }).body;
        const plain = parseLightDocument(html).body;
        expect(packed.textContent).toBe(plain.textContent);
        // innerHTML asks each element for its children: every packed table is built on the way.
        expect(packed.innerHTML).toBe(plain.innerHTML);
        expect(tablesOf(packed).every((t) => t.packedTable === null)).toBe(true);
      }),
      { numRuns: 1000 },
    );
  });

  it("keep a large plain table out of the tree, and build it on the first read of its child nodes", () => {
    const rows = Array.from({ length: 50 }, (_, r) => `<tr>${Array.from({ length: 4 }, (_, c) => `<td> ${r}.${c} </td>`).join("")}</tr>`).join("\n");
    const html = `<p>t</p><table><thead><tr><th>a</th><th>b</th><th>c</th><th>d</th></tr></thead><tbody>${rows}</tbody></table>`;
    const doc = parseLightDocument(html, { packTables: true });
    const [el] = tablesOf(doc.body);
    expect(el!.packedTable).not.toBeNull();
    expect(el!.firstChild).toBeNull();
    expect(el!.textContent).toBe(parseLightDocument(html).body.lastChild!.textContent);
    const groups = el!.childNodes;
    expect(el!.packedTable).toBeNull();
    expect(groups.map((g) => g.nodeName)).toEqual(["THEAD", "TBODY"]);
    expect(el!.rows.length).toBe(51);
    expect(markdownOf(html, true)).toBe(markdownOf(html, false));
  });

  it("are built as trees where they are not plain, a single cell, inside code or another table, or near the depth limit", () => {
    const plainRows = "<tr><td>a</td><td>b</td></tr><tr><td>c</td><td>d</td></tr>";
    const cases: Array<[string, boolean]> = [
      [`<table>${plainRows}</table>`, true],
      [`<table>${plainRows}<tr><td><b>x</b></td></tr></table>`, false],
      [`<table>${plainRows}<tr></tr></table>`, false],
      ["<table><tr><td>only</td></tr></table>", false],
      [`<code><table>${plainRows}</table></code>`, false],
      [`<pre><table>${plainRows}</table></pre>`, false],
      [`<table><caption>c</caption>${plainRows}</table>`, false],
      [`${"<div>".repeat(MAX_DEPTH - 3)}<table>${plainRows}</table>`, false],
      [`${"<div>".repeat(MAX_DEPTH - 4)}<table>${plainRows}</table>`, true],
    ];
    for (const [html, packed] of cases) {
      const tables = tablesOf(parseLightDocument(html, { packTables: true }).body);
      expect(tables[0]!.packedTable !== null, html.slice(-80)).toBe(packed);
      expect(markdownOf(html, true)).toBe(markdownOf(html, false));
    }
  });

  it("go through the walk over trees when a rule added later takes a table part", () => {
    const service = createTurndownService(null);
    service.addRule("countCells", { filter: "td", replacement: (content) => `[${content}]` });
    const html = "<table><tr><th>h</th><th>g</th></tr><tr><td>1</td><td> 2 </td></tr></table>";
    const doc = parseLightDocument(html, { packTables: true });
    expect(tablesOf(doc.body)[0]!.packedTable).not.toBeNull();
    expect(turndownSingleUse(service, doc.body)).toBe("| h   | g   |\n| --- | --- |\n[1][2]");
  });

  it("keep the Markdown written for each service apart: another service converting the same tree writes its own", () => {
    const html = "<table><tr><td>a*b</td><td>c</td></tr></table>";
    const body = parseLightDocument(html, { packTables: true }).body;
    const table = tablesOf(body)[0]!;
    const plain = createTurndownService(null);
    const shouting = createTurndownService(null);
    shouting.escape = (text: string) => text.toUpperCase();
    expect(turndownSingleUse(plain, body)).toBe("|     |     |\n| --- | --- |\n| a\\*b | c   |");
    expect(table.packedTable?.written).not.toBeNull();
    expect(turndownSingleUse(shouting, body)).toBe("|     |     |\n| --- | --- |\n| A*B | C   |");
    expect(turndownSingleUse(plain, body)).toBe("|     |     |\n| --- | --- |\n| a\\*b | c   |");
    expect(table.packedTable).not.toBeNull();
  });

  it("stay packed when asked for elements of a name they cannot hold, and are built when asked for their parts", () => {
    const html = "<h1>t</h1><table><thead><tr><th>h</th><th>g</th></tr></thead><tr><td>1</td><td>2</td></tr></table>";
    const body = parseLightDocument(html, { packTables: true }).body;
    const table = tablesOf(body)[0]!;
    expect(body.getElementsByTagName("h1").map((el) => el.textContent)).toEqual(["t"]);
    expect(body.getElementsByTagName("p")).toEqual([]);
    expect(table.packedTable).not.toBeNull();
    expect(body.getElementsByTagName("td").map((el) => el.textContent)).toEqual(["1", "2"]);
    expect(table.packedTable).toBeNull();
    const again = parseLightDocument(html, { packTables: true }).body;
    expect(again.getElementsByTagName("*").map((el) => el.nodeName)).toEqual(["H1", "TABLE", "THEAD", "TR", "TH", "TH", "TR", "TD", "TD"]);
  });

  it("name the parts that have attributes, each with its ancestors, without being built", () => {
    const html = '<table><tbody class="g"><tr><td>a</td><td hidden>b</td></tr><tr id="r"><td>c</td><td style="x">d</td></tr></tbody><tr><td>e</td><td>f</td></tr></table>';
    const table = tablesOf(parseLightDocument(html, { packTables: true }).body)[0]!;
    const parts = table.packedTable!.partsWithAttributes(table);
    expect(parts.map((el) => `${el.nodeName}:${el.parentNode?.nodeName}:${Object.keys(el.attributes).join(",")}`)).toEqual(["TBODY:TABLE:class", "TD:TR:hidden", "TR:TBODY:id", "TD:TR:style"]);
    expect(table.packedTable).not.toBeNull();
    const plain = tablesOf(parseLightDocument("<table><tr><td>a</td><td>b</td></tr></table>", { packTables: true }).body)[0]!;
    expect(plain.packedTable!.partsWithAttributes(plain)).toEqual([]);
  });
});
