import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MAIN_CONTENT_PRUNED, extractMainContent } from "../../../../../shared/content/extract/main-content";
import { htmlToMarkdown } from "../../../../../shared/content/html-to-markdown";
import { type LightElement, parseLightDocument } from "../../../../../shared/content/light-dom";

// The extractor measures plain tables kept packed by the parse (light-dom.ts) as leaves and builds
// them only where it tells their parts apart: what it extracts must be what it extracts from the
// tree those tables stand for, whatever the cells say (furniture lines, paragraphs, nothing) and
// whatever attributes the parts carry (hidden ones).

/** The extracted element's HTML and the reason, from a parse with or without packed tables. */
function extractionOf(html: string, packTables: boolean): string {
  const doc = parseLightDocument(html, { pruned: MAIN_CONTENT_PRUNED, structuredData: true, packTables });
  const result = extractMainContent(doc.body, { title: "Rivers of the world" });
  return `${result.reason}\n${result.element?.outerHTML ?? "null"}`;
}

const PROSE = "The river runs through the valley, past the stone bridge and the meadow. It floods in spring, and the delta grows. ";
const article = (n: number) => `<article><h1>Rivers of the world</h1>${`<p>${PROSE.repeat(2)}</p>`.repeat(n)}</article>`;

const cellText = fc.constantFrom(
  "",
  " ",
  "12",
  "row 7",
  "1.5",
  "a, b, c.",
  "Photo: AP",
  "By Ann Example",
  "Subscribe now to our newsletter",
  "© 2024 Example News. All rights reserved.",
  "3 Comments",
  "Related",
  "Read also: more",
  "A cell that holds a long sentence of text. And another one.",
  "x".repeat(24),
  "x".repeat(25),
);
const attrs = fc.constantFrom("", "", "", "", ' class="num"', ' class="promo"', " hidden", ' aria-hidden="true"', ' style="display:none"', ' class="share"', ' class="caption"', " align=right");
const cell = fc.tuple(fc.constantFrom("td", "td", "th"), attrs, cellText).map(([tag, a, text]) => `<${tag}${a}>${text}</${tag}>`);
const row = fc.tuple(attrs, fc.array(cell, { minLength: 1, maxLength: 4 })).map(([a, cells]) => `<tr${a}>${cells.join("")}</tr>`);
const rows = fc.array(row, { minLength: 1, maxLength: 14 }).map((r) => r.join(""));
const table = fc
  .tuple(attrs, fc.oneof(rows, fc.tuple(fc.constantFrom("thead", "tbody", "tfoot"), attrs, rows).map(([g, a, r]) => `<${g}${a}>${r}</${g}>`)))
  .map(([a, body]) => `<table${a}>${body}</table>`);
/** Where pages put a table: in the article, beside it, in furniture, in a noscript, alone, … */
type Placement = "in" | "after" | "aside" | "nav" | "noscript" | "alone" | "lead" | "div" | "story" | "heading";
/** A page with table `t` placed `where`, beside an article of `paragraphs` + 1 paragraphs. */
function placed(t: string, where: Placement, paragraphs: number): string {
  const a = article(paragraphs);
  switch (where) {
    case "in":
      return a.replace("</h1>", `</h1>${t}`);
    case "after":
      return `${a}${t}`;
    case "aside":
      return `${a}<aside class="sidebar">${t}</aside>`;
    case "nav":
      return `<nav>${t}</nav>${a}`;
    case "noscript":
      return `<noscript>${t}<p>${PROSE.repeat(6)}</p></noscript>`;
    case "lead":
      return `<h1>Rivers of the world</h1>${t}<div class="content">${`<p>${PROSE}</p>`.repeat(paragraphs + 1)}</div>`;
    case "div":
      return `<div class="post">${t}<p>${PROSE}</p></div>`;
    case "story":
      return a.replace("</h1>", `</h1><div><h3>Another river</h3>${t}<p>${PROSE}</p></div>`);
    case "heading":
      return `${a}<h2>${t}</h2>`;
    case "alone":
      return t;
  }
}
const page = fc
  .tuple(table, fc.constantFrom<Placement>("in", "after", "aside", "nav", "noscript", "alone", "lead", "div"), fc.integer({ min: 0, max: 3 }))
  .map(([t, where, paragraphs]) => placed(t, where, paragraphs));

// Tables of at least 1,500 characters without attributes on their parts are judged from their
// arrays before the cleaning would build them: when no part is furniture by its words, they stay
// packed through the cleaning (table-judge.ts's partsStayInCleaning). Their cells are mostly data,
// now and then a furniture line, or pieces that make one only when a row's cells are read together.
const bigCellText = fc.constantFrom(
  "12",
  "row 7",
  "1.5",
  "a, b, c.",
  "x".repeat(24),
  "",
  "   spaced   out   ",
  "Photo: AP",
  "Photo",
  ": AP",
  "By",
  " Ann Example",
  "Subscribe now",
  "© 2024",
  "Related",
  "Notice: x in /a.php on line 3",
  `${" ".repeat(170)}| © AP`,
);
const bigCellTexts = fc.oneof({ weight: 6, arbitrary: fc.constantFrom("12", "row 7", "1.5", "x".repeat(24), "a, b, c.") }, { weight: 1, arbitrary: bigCellText });
const bigAttrs = fc.oneof({ weight: 12, arbitrary: fc.constant("") }, { weight: 1, arbitrary: attrs });
const bigCell = fc.tuple(fc.constantFrom("td", "td", "th"), bigAttrs, bigCellTexts).map(([tag, a, text]) => `<${tag}${a}>${text}</${tag}>`);
const bigRow = fc.tuple(bigAttrs, fc.array(bigCell, { minLength: 1, maxLength: 5 })).map(([a, cells]) => `<tr${a}>${cells.join("")}</tr>`);
const bigRows = fc.tuple(fc.array(bigRow, { minLength: 1, maxLength: 8 }), fc.integer({ min: 1, max: 60 })).map(([r, times]) => r.join("").repeat(times));
/** A short row group (its words judged as a part's), or rows in one. */
const bigGroup = fc.tuple(fc.constantFrom("thead", "tbody", "tfoot"), bigAttrs, fc.array(bigRow, { minLength: 1, maxLength: 3 })).map(([g, a, r]) => `<${g}${a}>${r.join("")}</${g}>`);
const bigTable = fc
  .tuple(fc.constantFrom("", "", ' class="sidebar"', ' role="presentation"'), fc.option(bigGroup), bigRows, fc.boolean())
  .map(([a, group, body, wrapped]) => `<table${a}>${group ?? ""}${wrapped ? `<tbody>${body}</tbody>` : body}</table>`);
const bigPage = fc
  .tuple(bigTable, fc.constantFrom<Placement>("in", "after", "alone", "div", "story", "heading", "lead"), fc.integer({ min: 0, max: 3 }))
  .map(([t, where, paragraphs]) => placed(t, where, paragraphs));

/** A table of `n` rows of data cells, with `extra` among them. */
const dataTable = (n: number, extra = "") => `<table>${Array.from({ length: n }, (_, i) => `<tr><td>river ${i}</td><td>${i * 7} km</td></tr>`).join("")}${extra}</table>`;

describe("main content with packed tables", () => {
  it.each([
    ["the tree the tables stand for", page, 400],
    ["the trees of large tables", bigPage, 300],
  ] as const)("extracts what it extracts from %s", (_, pages, numRuns) => {
    fc.assert(
      fc.property(pages, (html) => {
        expect(extractionOf(html, true)).toBe(extractionOf(html, false));
      }),
      { numRuns },
    );
  });

  it.each([
    ["a table of one-cell rows", `<table>${Array.from({ length: 40 }, (_, i) => `<tr><td>row ${i}</td></tr>`).join("")}</table>`],
    ["an article beside a data table", `${article(3)}<table><tr><th>a</th><th>b</th></tr><tr><td>1</td><td>2</td></tr></table>`],
    ["a table whose cells are paragraphs", `<table><tr><td>${PROSE}</td><td>${PROSE}</td></tr></table>`],
    ["a hidden row", `${article(1)}<table><tr hidden><td>x</td></tr><tr><td>y</td></tr></table>`],
    ["a credit line in a cell", `<div>${article(2)}<table><tr><td>Photo: AP</td></tr><tr><td>2</td></tr></table></div>`],
  ])("converts %s as from the tree", (_, html) => {
    expect(extractionOf(html, true)).toBe(extractionOf(html, false));
  });

  it.each([
    ["a large table of data", dataTable(200)],
    ["a large table with a cell of 25 characters", dataTable(200, `<tr><td>${"y".repeat(25)}</td></tr>`)],
    ["a large table with a hidden row", dataTable(200, "<tr hidden><td>gone</td></tr>")],
    ["a large table with a furniture class on a cell", dataTable(200, '<tr><td class="share">Share</td></tr>')],
    ["a large table with a furniture class on an empty cell", dataTable(200, '<tr><td class="share"></td><td>1</td></tr>')],
    ["a large table with a furniture weight on a cell", dataTable(200, '<tr><td class="promo">12</td></tr>')],
    ["a large table with a metadata class on a row", dataTable(200, '<tr class="post-meta"><td>May 2</td></tr>')],
    ["a large table with a side-box class on a group", `<table><tbody class="author-bio"><tr><td>Ann</td></tr></tbody>${dataTable(200).slice(7, -8)}</table>`],
    ["a large table with classes that name no furniture", dataTable(200, '<tr class="odd"><td class="num" align="right">12</td></tr>')],
    ["a large table with a credit line in a cell", dataTable(200, "<tr><td>Photo: AP</td></tr>")],
    ["a large table whose row of cells reads as a byline", dataTable(200, "<tr><td>By</td><td> Ann Example</td></tr>")],
    ["a large table with a PHP message in a cell", dataTable(200, "<tr><td>Notice: x in /a.php on line 3</td></tr>")],
    ["a large table with a cell whose credit starts after 160 spaces", dataTable(200, `<tr><td>${" ".repeat(170)}| © AP</td></tr>`)],
    ["a large table in a heading", `${article(2)}<h2>${dataTable(200)}</h2>`],
    ["a large table under a heading in a box", `${article(2).replace("</h1>", `</h1><div><h3>Another river</h3>${dataTable(200)}</div>`)}`],
    ["a large table in a short group of rows", `<table><thead><tr><th>Photo: AP</th></tr></thead><tbody>${dataTable(200).slice(7, -8)}</tbody></table>`],
    ["a large table with a group whose rows read as a credit line", `<table><thead><tr><th>Photo</th></tr><tr><th>: AP</th></tr></thead>${dataTable(200).slice(7, -8)}</table>`],
  ])("converts %s as from the tree", (_, html) => {
    expect(extractionOf(html, true)).toBe(extractionOf(html, false));
  });

  it("keeps a large table of data packed through the cleaning, and writes it", () => {
    const html = article(2).replace("</article>", `${dataTable(300)}</article>`);
    const doc = parseLightDocument(html, { pruned: MAIN_CONTENT_PRUNED, packTables: true });
    const table = (doc.body.firstChild as LightElement).lastChild as LightElement;
    const result = extractMainContent(doc.body, { title: "Rivers of the world" });
    expect(result.element?.textContent).toContain("river 299");
    // Judged whole before the cleaning would have built it: never built.
    expect(table.packedTable?.rowCount).toBe(300);
    const markdown = htmlToMarkdown(html, { baseUrl: "https://example.com/", mainContent: true }).markdown;
    expect(markdown).toContain("| river 299 | 2093 km |");
  });

  it("keeps a large table packed whose parts have attributes that name no furniture", () => {
    const rows = Array.from({ length: 300 }, (_, i) => `<tr class="${i % 2 ? "odd" : "even"}"><td class="num" align="right">${i}</td><td>river ${i}</td></tr>`).join("");
    const html = article(2).replace("</article>", `<table><tbody class="data">${rows}</tbody></table></article>`);
    expect(extractionOf(html, true)).toBe(extractionOf(html, false));
    const doc = parseLightDocument(html, { pruned: MAIN_CONTENT_PRUNED, packTables: true });
    const table = (doc.body.firstChild as LightElement).lastChild as LightElement;
    const result = extractMainContent(doc.body, { title: "Rivers of the world" });
    expect(result.element?.textContent).toContain("river 299");
    expect(table.packedTable?.rowCount).toBe(300);
  });

  it("builds a large table whose cells hold a furniture line, and cleans it as before", () => {
    const html = article(2).replace("</article>", `${dataTable(300, "<tr><td>Subscribe now</td></tr>")}</article>`);
    const doc = parseLightDocument(html, { pruned: MAIN_CONTENT_PRUNED, packTables: true });
    const table = (doc.body.firstChild as LightElement).lastChild as LightElement;
    const result = extractMainContent(doc.body, { title: "Rivers of the world" });
    expect(table.packedTable).toBeNull();
    expect(result.element?.textContent).toContain("river 299");
    expect(result.element?.textContent).not.toContain("Subscribe now");
  });

  it("leaves a plain table outside the article packed", () => {
    const html = `<nav><table>${"<tr><td>1</td><td>2</td></tr>".repeat(5)}</table></nav>${article(4)}`;
    const doc = parseLightDocument(html, { pruned: MAIN_CONTENT_PRUNED, packTables: true });
    const table = (doc.body.firstChild as LightElement).firstChild as LightElement;
    expect(table.packedTable?.rowCount).toBe(5);
    const result = extractMainContent(doc.body, { title: "Rivers of the world" });
    expect(result.reason).toBe("article");
    expect(result.element?.textContent).not.toContain("12");
    // The table was never built: the extraction measured it as a leaf.
    expect(table.packedTable?.rowCount).toBe(5);
  });

  it("writes the same Markdown as before for a page of tables", () => {
    const html = article(2).replace("</article>", `<table><tr><th>River</th><th>Length</th></tr>${"<tr><td>Nile</td><td>6650</td></tr>".repeat(12)}</table></article>`);
    const markdown = htmlToMarkdown(html, { baseUrl: "https://example.com/", mainContent: true }).markdown;
    expect(markdown).toContain("| River | Length |");
    expect(markdown.match(/\| Nile \| 6650 \|/g)).toHaveLength(12);
  });
});
