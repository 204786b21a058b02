/**
 * The conversion walk (prose-walk.ts) drives turndown's rules over a light tree with cheaper
 * bookkeeping: a speed-only change, checked against turndown's own walk and rule lookup over the
 * same tree, on random trees of every kind of element webgate converts.
 */
import fc from "fast-check";
import TurndownService from "turndown";
import { describe, expect, it } from "vitest";
import { turndownSingleUse } from "../../../../shared/content/html-to-markdown";
import { parseLightDocument } from "../../../../shared/content/light-dom";
import { collapseWhitespace } from "../../../../shared/content/collapse-whitespace";
import { MarkdownJoin, joinOne, markProseFacts, trimOutput } from "../../../../shared/content/prose-walk";
import { conversionService, createTurndownService, treeWalkOf } from "../../../../shared/content/turndown-setup";

const BASE = "https://example.com/dir/page.html";

/** webgate's service with turndown's own rule lookup and walk (no rule index, no plain-table writer). */
function turndownWalkService(): TurndownService {
  const service = createTurndownService(BASE);
  delete (service as unknown as { rules: { forNode?: unknown } }).rules.forNode;
  return service;
}

/** turndown's own walk: it copies the tree and converts the copy. */
function turndownWalk(html: string): string {
  return turndownWalkService().turndown(parseLightDocument(html).body);
}

function proseWalk(html: string): string {
  return turndownSingleUse(createTurndownService(BASE), parseLightDocument(html).body);
}

// Text with what changes turndown's decisions: edge spaces (flanking whitespace), non-ASCII
// spaces (blank but not collapsed), Markdown characters (escaping), newlines (collapsing).
const text = fc
  .array(fc.constantFrom("a", "word", " ", "  ", "\n", "\u00a0", "\u2003", "*", "_", "[x]", "1. ", "# ", "-", "`", "\\", "&lt;b&gt;", "é", "\t"), { maxLength: 5 })
  .map((parts) => parts.join(""));

const attribute = fc.constantFrom(
  "",
  ' href="/x"',
  ' href="https://example.org/a b"',
  ' href="javascript:alert(1)"',
  ' href=""',
  ' href="#top" title="T &quot;q&quot;"',
  ' src="i.png"',
  ' src="data:image/png;base64,AA" alt="d"',
  ' src="/p.jpg" alt="an *alt*" title="t"',
  ' start="3"',
  ' class="highlight-source-js"',
  ' role="checkbox" aria-checked="true"',
);

// Headings, paragraphs, lists, quotes, sectioning containers and phrasing markup.
const PROSE = [
  "p", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "ul", "ol", "li", "dl", "dt", "dd",
  "div", "section", "article", "main", "header", "hgroup", "address", "center", "figure", "figcaption",
  "a", "em", "i", "strong", "b", "u", "s", "del", "strike", "ins", "span", "small", "big", "sub", "sup",
  "abbr", "acronym", "cite", "dfn", "q", "mark", "time", "font", "bdi", "bdo", "data", "label", "picture",
  "br", "hr", "wbr", "img",
];
// Code, tables and their parts (plain tables have their own path), form controls, media, unknown elements.
const OTHER = ["code", "pre", "table", "thead", "tbody", "tr", "td", "th", "caption", "input", "textarea", "select", "button", "x-widget", "video", "audio", "iframe", "kbd", "samp", "nav", "aside", "footer", "form", "fieldset", "details", "summary"];
const VOIDS = new Set(["br", "hr", "wbr", "img", "input"]);

const node: fc.Memo<string> = fc.memo((depth) =>
  depth <= 1
    ? fc.oneof(text, fc.constantFrom("<br>", '<img src="i.png" alt="x">', "<hr>", "<img>"))
    : fc.oneof(
        { weight: 3, arbitrary: text },
        {
          weight: 5,
          arbitrary: fc
            .tuple(fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...PROSE) }, { weight: 1, arbitrary: fc.constantFrom(...OTHER) }), attribute, fc.array(node(depth - 1), { maxLength: 4 }))
            .map(([tag, attrs, kids]) => (VOIDS.has(tag) ? `<${tag}${attrs}>` : `<${tag}${attrs}>${kids.join("")}</${tag}>`)),
        },
      ),
);

describe("conversion walk", () => {
  it("writes what turndown's own walk writes, on random trees", () => {
    fc.assert(
      fc.property(fc.array(node(5), { maxLength: 5 }), (parts) => {
        const html = parts.join("");
        expect(proseWalk(html)).toBe(turndownWalk(html));
      }),
      { numRuns: 2500 },
    );
  });

  it("writes what turndown's walk writes on the cases that make its decisions", () => {
    const cases = [
      // flanking whitespace kept, dropped next to a space, non-ASCII kept
      "<p>a<em> b </em>c</p>",
      "<p>a <em> b </em> c</p>",
      "<p>a<strong>\u00a0b\u00a0</strong>c</p>",
      "<p>x<a href=\"/y\"> link </a>.<span> s </span><b> </b></p>",
      // blank elements: whitespace only, with a void or a link inside
      "<div><p> </p><p>\u00a0</p><p><img src=\"i.png\"></p><p><a href=\"/x\"></a></p><span> </span></div>",
      // links around blocks, lists with start, nested lists, quotes
      "<article><a href=\"/s\"><h4>Title</h4><p>teaser</p></a><ol start=\"4\"><li>one<ul><li>two</li></ul></li><li><p>three</p></li></ol><blockquote><p>q</p><p>r</p></blockquote></article>",
      // prose below code (no escaping) and next to a table
      "<code><span>*a*</span> <b>_b_</b></code><table><tr><td>c</td></tr></table><p>*d*</p>",
      // escaping at line starts, hr, br
      "<div><p>1. not a list</p><p># nor a heading</p><hr><p>a<br>b<br></p></div>",
    ];
    for (const html of cases) expect(proseWalk(html), html).toBe(turndownWalk(html));
  });

  it("converts every element kind as turndown's walk does: code, tables, forms, media, unknown elements", () => {
    const cases = [
      "<p>a <code>*b* <span>_c_</span></code> <kbd> k </kbd></p><pre><code class=\"language-js\">x = *y*\n</code></pre><pre>plain <b>pre</b></pre>",
      "<table><caption>cap</caption><tr><th>h</th><th> g </th></tr><tr><td>1</td><td><em>2</em></td></tr></table><table><tr><td><ul><li>in a cell</li></ul></td></tr></table>",
      "<tr><td>orphan</td></tr><td>cell</td>",
      "<form><fieldset><label>n <input type=\"text\"></label><textarea> t </textarea><select><option>o</option></select><button> b </button></fieldset></form>",
      "<nav><a href=\"/a\">A</a> <a href=\"/b\"> B </a></nav><aside> </aside><footer><x-widget> w </x-widget></footer>",
      "<video src=\"v.mp4\"></video><audio></audio><iframe src=\"/f\"></iframe><details><summary>s</summary>d</details>",
      "<ul><li><input type=\"checkbox\" checked> done</li><li><input type=\"checkbox\"> open</li></ul>",
      "<div class=\"highlight highlight-source-js\"><pre>let a = 1;</pre></div><del>gone</del><s> s </s>",
      " \n <p>\u00a0</p>\u2003",
    ];
    for (const html of cases) expect(proseWalk(html), html).toBe(turndownWalk(html));
  });

  it("is used for webgate's services only while their rule lookup is the one built with them", () => {
    const service = createTurndownService(BASE);
    expect(treeWalkOf(service)).not.toBeNull();
    expect(treeWalkOf(createTurndownService(BASE, { preformattedCode: true }))).toBeNull();
    expect(treeWalkOf(turndownWalkService())).toBeNull();
    expect(treeWalkOf(new TurndownService())).toBeNull();
    // The facts the walk reads: blank text, void and "meaningful when blank" elements below.
    const { body } = parseLightDocument("<div><p> </p><p><img src=\"i.png\"></p><p>t</p></div>");
    collapseWhitespace(body);
    markProseFacts(body);
    expect(body.children[0]!.children.map((p) => p.proseFacts)).toEqual([0, 2, 1]);
  });

  it("cuts the output's ends as turndown's postProcess does", () => {
    const edge = fc.array(fc.constantFrom("a", " ", "\n", "\t", "\r", "\u00a0", "\u2028", "\ufeff", "\u3000", "\v", "\f", "\u0085", "\u200b"), { maxLength: 8 }).map((p) => p.join(""));
    fc.assert(
      fc.property(edge, (text) => {
        expect(trimOutput(text)).toBe(text.replace(/^[\t\r\n]+/, "").replace(/[\t\r\n\s]+$/, ""));
      }),
      { numRuns: 3000 },
    );
  });

  it("one service for every conversion writes what a service per conversion writes, tables and base URLs included", () => {
    const pages = [
      ["https://a.example/x/", "<p><a href=\"y\">y</a> <img src=\"i.png\"></p><table><tr><th>h</th></tr><tr><td>1</td></tr></table>"],
      ["https://b.example/", "<p><a href=\"y\">y</a></p><table><tr><th>h</th></tr><tr><td>2</td></tr></table><table><tr><td><code>c</code></td></tr></table>"],
      ["https://c.example/z/w", "<ol start=\"3\"><li><a href=\"../q\">q</a></li></ol>"],
      ["https://a.example/x/", "<p><a href=\"y\">y</a></p>"],
    ] as const;
    for (let round = 0; round < 2; round++) {
      for (const [base, html] of pages) {
        const fresh = turndownSingleUse(createTurndownService(base), parseLightDocument(html).body);
        expect(turndownSingleUse(conversionService(base, undefined), parseLightDocument(html).body), `${base} ${html}`).toBe(fresh);
      }
    }
    // The service is kept, after pages with tables too.
    const first = conversionService(null, undefined);
    turndownSingleUse(first, parseLightDocument("<p>a</p>").body);
    expect(conversionService(null, undefined)).toBe(first);
    turndownSingleUse(first, parseLightDocument("<table><tr><td>1</td></tr></table>").body);
    expect(conversionService(null, undefined)).toBe(first);
  });

  it("forgets the tables of the trees it converted before it converts another", () => {
    // The table rules cache each table's facts (its width, whether it is plain): a cache that
    // outlived its conversion would answer for a table that has changed since.
    const { body } = parseLightDocument("<table><tr><th>h</th></tr><tr><td>1</td></tr></table>");
    expect(turndownSingleUse(conversionService(null, undefined), body)).toBe("| h   |\n| --- |\n| 1   |");
    const row = parseLightDocument("<table><tr><td>2</td><td><ul><li>x</li></ul></td></tr></table>").body.children[0]!.children[0]!.children[0]!;
    body.children[0]!.children[0]!.appendChild(row);
    const expected = turndownSingleUse(createTurndownService(null), parseLightDocument(body.innerHTML).body);
    expect(expected).toContain("| --- | --- |");
    expect(turndownSingleUse(conversionService(null, undefined), body)).toBe(expected);
  });

  it("joins as turndown's join does", () => {
    // turndown 7.2.5's join over an array of parts, as written there.
    const turndownJoin = (replacements: string[]): string => {
      const output: string[] = [];
      for (const replacement of replacements) {
        const tail = output.pop() ?? "";
        const s1 = tail.replace(/\n*$/, "");
        const s2 = replacement.replace(/^\n*/, "");
        const nls = Math.max(tail.length - s1.length, replacement.length - s2.length);
        const separator = "\n\n".substring(0, nls);
        if (s1) output.push(s1);
        if (separator) output.push(separator);
        if (s2) output.push(s2);
      }
      return output.join("");
    };
    const part = fc.array(fc.constantFrom("\n", "a", " ", "\n\n\n", "b\n"), { maxLength: 6 }).map((p) => p.join(""));
    fc.assert(
      fc.property(fc.array(part, { maxLength: 8 }), (replacements) => {
        const join = new MarkdownJoin();
        for (const r of replacements) join.append(r);
        expect(join.text).toBe(turndownJoin(replacements));
        for (const r of replacements) expect(joinOne(r)).toBe(turndownJoin([r]));
      }),
      { numRuns: 3000 },
    );
  });

  it("converts 400 levels of nesting (the depth limit) as turndown's walk does", () => {
    const html = `${"<div>".repeat(450)}deep <em>and</em> ${"<blockquote><p>q</p></blockquote></div>".repeat(450)}`;
    expect(proseWalk(html)).toBe(turndownWalk(html));
  });

  it("stays linear: 50,000 paragraphs of prose in one article", () => {
    const html = `<article>${"<p>some <em>text</em> and <a href=\"/l\">a link</a></p>".repeat(50_000)}</article>`;
    const markdown = proseWalk(html);
    expect(markdown.split("\n\n")).toHaveLength(50_000);
  });
});
