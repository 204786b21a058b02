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
const attrs = fc.constantFrom("", "", "", "", ' class="num"', " hidden", ' aria-hidden="true"', ' style="display:none"', ' class="share"', ' class="caption"', " align=right");
const cell = fc.tuple(fc.constantFrom("td", "td", "th"), attrs, cellText).map(([tag, a, text]) => `<${tag}${a}>${text}</${tag}>`);
const row = fc.tuple(attrs, fc.array(cell, { minLength: 1, maxLength: 4 })).map(([a, cells]) => `<tr${a}>${cells.join("")}</tr>`);
const rows = fc.array(row, { minLength: 1, maxLength: 14 }).map((r) => r.join(""));
const table = fc
  .tuple(attrs, fc.oneof(rows, fc.tuple(fc.constantFrom("thead", "tbody", "tfoot"), attrs, rows).map(([g, a, r]) => `<${g}${a}>${r}</${g}>`)))
  .map(([a, body]) => `<table${a}>${body}</table>`);
/** A table where pages put them: in the article, beside it, in furniture, in a noscript, alone. */
const page = fc
  .tuple(
    table,
    fc.constantFrom("in", "after", "aside", "nav", "noscript", "alone", "lead", "div"),
    fc.integer({ min: 0, max: 3 }),
  )
  .map(([t, where, paragraphs]) => {
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
      default:
        return t;
    }
  });

describe("main content with packed tables", () => {
  it("extracts what it extracts from the tree the tables stand for", () => {
    fc.assert(
      fc.property(page, (html) => {
        expect(extractionOf(html, true)).toBe(extractionOf(html, false));
      }),
      { numRuns: 400 },
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
