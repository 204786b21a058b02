/**
 * The linear table rules write exactly what the GFM plugin's rules (plus webgate's former "table
 * as text" rule) wrote, on random tables: a speed-only change, checked against the code it
 * replaces, on the light tree and on domino's DOM (turndown's own parser).
 */
import { gfm } from "@joplin/turndown-plugin-gfm";
import fc from "fast-check";
import TurndownService from "turndown";
import { describe, expect, it } from "vitest";
import { turndownSingleUse } from "../../../../shared/content/html-to-markdown";
import { parseLightDocument } from "../../../../shared/content/light-dom";
import { HTML_TABLE_TRIGGERS, PartsJoin, useLinearTables } from "../../../../shared/content/markdown-tables";
import { MarkdownJoin } from "../../../../shared/content/prose-walk";
import { TURNDOWN_OPTIONS, createTurndownService } from "../../../../shared/content/turndown-setup";

/** The rules as they were: the plugin's, and webgate's rule that wrote a table holding code, lists or headings as text. */
function pluginService(): TurndownService {
  const service = new TurndownService(TURNDOWN_OPTIONS);
  service.use(gfm);
  service.addRule("webgateTableAsText", {
    filter: (node) => {
      const el = node as unknown as { nodeName: string; getElementsByTagName(name: string): ArrayLike<unknown> };
      return el.nodeName === "TABLE" && [...HTML_TABLE_TRIGGERS].some((tag) => el.getElementsByTagName(tag).length > 0);
    },
    replacement: (content) => `\n\n${content}\n\n`,
  });
  return service;
}

function linearService(): TurndownService {
  const service = new TurndownService(TURNDOWN_OPTIONS);
  service.use(gfm);
  useLinearTables(service);
  return service;
}

const text = fc.stringMatching(/^[a-z |\n*_]{0,8}$/);
const attrs = fc
  .record({
    align: fc.option(fc.constantFrom("left", "right", "center", "justify", "LEFT", ""), { nil: undefined }),
    style: fc.option(fc.constantFrom("text-align: right", "text-align:center;color:red", "color: blue"), { nil: undefined }),
    colspan: fc.option(fc.constantFrom("2", "3", "0", "x", "1"), { nil: undefined }),
  })
  .map((a) => Object.entries(a).filter(([, v]) => v !== undefined).map(([k, v]) => ` ${k}="${v}"`).join(""));

const table: fc.Memo<string> = fc.memo((depth) => {
  const content = fc.oneof(
    { weight: 6, arbitrary: text },
    { weight: 2, arbitrary: text.map((t) => `<b>${t}</b> <a href="/x">${t}</a>`) },
    { weight: 1, arbitrary: fc.constantFrom("<ul><li>i</li></ul>", "<code>c</code>", "<h2>h</h2>", "<p>p</p><p>q</p>", "<br>", "<caption>inner cap</caption>") },
    ...(depth > 1 ? [{ weight: 1, arbitrary: table(depth - 1) }] : []),
  );
  const cell = fc.tuple(fc.constantFrom("td", "th"), attrs, fc.array(content, { maxLength: 2 })).map(([tag, a, parts]) => `<${tag}${a}>${parts.join("")}</${tag}>`);
  const row = fc.tuple(attrs, fc.array(cell, { maxLength: 4 })).map(([a, cells]) => `<tr${a}>${cells.join("")}</tr>`);
  const rows = fc.array(row, { maxLength: 4 }).map((r) => r.join(""));
  const body = fc.oneof(
    rows,
    fc.tuple(rows, rows).map(([h, b]) => `<thead>${h}</thead><tbody>${b}</tbody>`),
    fc.tuple(rows, rows).map(([h, b]) => `<thead></thead><tbody>${h}</tbody><tfoot>${b}</tfoot>`),
  );
  return fc.tuple(fc.option(text, { nil: undefined }), attrs, body).map(([caption, a, b]) => `<table${a}>${caption === undefined ? "" : `<caption>${caption}</caption>`}${b}</table>`);
});

describe("linear GFM table rules", () => {
  it("write what the plugin's rules wrote, on the light tree and on domino's DOM", () => {
    fc.assert(
      fc.property(fc.array(table(3), { minLength: 1, maxLength: 2 }), (tables) => {
        const html = `<p>before</p>${tables.join("<p>between</p>")}`;
        const expected = turndownSingleUse(pluginService(), parseLightDocument(html).body);
        expect(turndownSingleUse(linearService(), parseLightDocument(html).body)).toBe(expected);
        expect(linearService().turndown(html)).toBe(pluginService().turndown(html));
      }),
      { numRuns: 150 },
    );
  });

  it("write what the plugin's rules wrote (or throw where they threw) when rows hold text, as domino keeps it inside <pre>", () => {
    fc.assert(
      fc.property(table(2), fc.constantFrom(" ", "\n  ", "x"), (html, gap) => {
        const spaced = `<pre>${html.replace(/<(t[dhr])/g, `${gap}<$1`)}</pre>`;
        expect(outcome(() => linearService().turndown(spaced))).toBe(outcome(() => pluginService().turndown(spaced)));
      }),
      { numRuns: 150 },
    );
  });

  it("a colspan is honoured up to HTML's limit of 1,000, not as far as the attribute asks", () => {
    const html = '<table><tr><th colspan="1000000000">h</th><th>g</th></tr><tr><td>a</td><td>b</td></tr></table>';
    const markdown = turndownSingleUse(linearService(), parseLightDocument(html).body);
    const header = markdown.split("\n")[0]!;
    expect(header.split("|").length - 2).toBe(1_000 + 1);
  });
});

function outcome(run: () => string): string {
  try {
    return run();
  } catch (error) {
    return `throws ${(error as Error).name}`;
  }
}

/** webgate's service with turndown's own rule lookup and walk: no rule index, no plain-table writer. */
function turndownWalkService(): TurndownService {
  const service = createTurndownService("https://example.com/");
  delete (service as unknown as { rules: { forNode?: unknown } }).rules.forNode;
  return service;
}

// Text as cells hold it: Markdown-looking starts, escapes, pipes, spaces and newlines to collapse.
const cellText = fc.array(fc.constantFrom("a", "1", "1. ", "- ", "# ", "*", "_", "|", "\\", " ", "  ", "\n", "\t", "&amp;", "&nbsp;", "`", "[x]", ">"), { maxLength: 6 }).map((parts) => parts.join(""));
const gap = fc.constantFrom("", " ", "\n  ");
const plainTable: fc.Arbitrary<string> = (() => {
  const cell = fc.tuple(fc.constantFrom("td", "th"), attrs, cellText).map(([tag, a, t]) => `<${tag}${a}>${t}</${tag}>`);
  const row = fc.tuple(attrs, fc.array(fc.tuple(gap, cell).map(([g, c]) => g + c), { minLength: 1, maxLength: 4 })).map(([a, cells]) => `<tr${a}>${cells.join("")}</tr>`);
  const rows = fc.array(fc.tuple(gap, row).map(([g, r]) => g + r), { minLength: 1, maxLength: 4 }).map((r) => r.join(""));
  const body = fc.oneof(rows, fc.tuple(rows, rows).map(([h, b]) => `<thead>${h}</thead><tbody>${b}</tbody>`), fc.tuple(rows, rows).map(([h, b]) => `<tbody>${h}</tbody><tfoot>${b}</tfoot>`));
  return fc.tuple(attrs, body).map(([a, b]) => `<table${a}>${b}</table>`);
})();
const around = fc.constantFrom(["", ""], ["<p>text</p>", "<p>more</p>"], ["<div>a ", " b</div>"], ["<pre>", "</pre>"], ["<code>", "</code>"], ["<blockquote>", "</blockquote>"], ["<ul><li>", "</li></ul>"]);

describe("plain tables written without turndown's per-node walk", () => {
  it("give what turndown's own walk gives, on the light tree and on domino's DOM", () => {
    fc.assert(
      fc.property(fc.array(fc.oneof({ weight: 3, arbitrary: plainTable }, { weight: 1, arbitrary: table(2) }), { minLength: 1, maxLength: 3 }), around, (tables, [open, close]) => {
        const html = `${open}${tables.join("<p>between</p>")}${close}`;
        const expected = turndownSingleUse(turndownWalkService(), parseLightDocument(html).body);
        expect(turndownSingleUse(createTurndownService("https://example.com/"), parseLightDocument(html).body)).toBe(expected);
        // On domino's DOM a row can hold text between its cells (inside <pre>, where turndown
        // keeps whitespace), on which the table rules throw in both walks alike.
        expect(outcome(() => createTurndownService("https://example.com/").turndown(html))).toBe(outcome(() => turndownWalkService().turndown(html)));
      }),
      { numRuns: 400 },
    );
  });

  it("give what turndown's own walk gives on tables large enough to be written in several chunks, heading rows among them", () => {
    // Thousands of cells (the writer joins its pieces every 4,096), heading rows (a THEAD's, or
    // a first row of TH) whose border is filled in once every row is counted, alignments voted.
    const row = (cells: number, r: number, tag: string) => `<tr>${Array.from({ length: cells }, (_, c) => `<${tag}${(r + c) % 7 === 0 ? ' align="right"' : ""}>${r}.${c}</${tag}>`).join("")}</tr>`;
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 40 }), fc.integer({ min: 0, max: 3 }), fc.integer({ min: 20, max: 400 }), fc.boolean(), (cells, headRows, bodyRows, firstRowTh) => {
        const head = headRows === 0 ? "" : `<thead>${Array.from({ length: headRows }, (_, r) => row(cells, r, "th")).join("")}</thead>`;
        const body = Array.from({ length: bodyRows }, (_, r) => row(r === 0 ? cells : 1 + (r % cells), r, r === 0 && firstRowTh ? "th" : "td")).join("");
        const html = `<p>x</p><table>${head}<tbody>${body}</tbody></table>`;
        expect(turndownSingleUse(createTurndownService(null), parseLightDocument(html).body)).toBe(turndownSingleUse(turndownWalkService(), parseLightDocument(html).body));
      }),
      { numRuns: 12 },
    );
  });

  it("are written by turndown's walk when a rule added later takes a table part", () => {
    const service = createTurndownService(null);
    service.addRule("countCells", { filter: "td", replacement: (content) => `[${content}]` });
    const markdown = turndownSingleUse(service, parseLightDocument("<table><tr><th>h</th><th>g</th></tr><tr><td>1</td><td>2</td></tr></table>").body);
    expect(markdown).toBe("| h   | g   |\n| --- | --- |\n[1][2]");
  });

  it("join their parts as turndown joins them (the array join gives what the string join gives)", () => {
    const part = fc.array(fc.constantFrom("\n", "| a |", " ", "\n\n\n", "b\n", "\n| c |"), { maxLength: 6 }).map((p) => p.join(""));
    fc.assert(
      fc.property(fc.array(part, { maxLength: 8 }), (parts) => {
        const pieces = new PartsJoin();
        const string = new MarkdownJoin();
        for (const p of parts) {
          pieces.append(p);
          string.append(p);
        }
        expect(pieces.text).toBe(string.text);
      }),
      { numRuns: 3000 },
    );
  });

  it("leave the tree as turndown found it: the table's children are shown again", () => {
    const body = parseLightDocument("<table><tr><th>h</th><th>g</th></tr><tr><td>1</td><td>2</td></tr></table>").body;
    const markdown = turndownSingleUse(createTurndownService(null), body);
    expect(markdown).toBe("| h   | g   |\n| --- | --- |\n| 1   | 2   |");
    expect(body.children[0]!.childNodes.length).toBe(2);
  });
});
