/**
 * The prose walk (prose-walk.ts) drives turndown's rules over prose subtrees with cheaper
 * bookkeeping: a speed-only change, checked against turndown's own walk over the same tree, on
 * random trees of prose elements mixed with elements that leave it to turndown.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { turndownSingleUse } from "../../../../shared/content/html-to-markdown";
import { type LightElement, parseLightDocument } from "../../../../shared/content/light-dom";
import { collapseWhitespace } from "../../../../shared/content/collapse-whitespace";
import { MarkdownJoin, PROSE_TAGS, isProseSubtree, joinOne, markProseFacts } from "../../../../shared/content/prose-walk";
import { createTurndownService } from "../../../../shared/content/turndown-setup";

const BASE = "https://example.com/dir/page.html";

/** turndown's own walk: it copies the tree (the copy has no prose facts) and converts the copy. */
function turndownWalk(html: string): string {
  return createTurndownService(BASE).turndown(parseLightDocument(html).body);
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

const PROSE = [...PROSE_TAGS].map((t) => t.toLowerCase());
// Elements outside the prose set: their subtrees go through turndown's own walk, prose below them through the prose walk.
const OTHER = ["code", "pre", "table", "tr", "td", "input", "x-widget", "video", "kbd"];
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

describe("prose walk", () => {
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

  it("takes prose subtrees and leaves the rest to turndown", () => {
    const { body } = parseLightDocument("<div><p>a <em>b</em></p><pre>c</pre></div><section><h2>t</h2><ul><li><a href=\"/x\">l</a></li></ul></section>");
    collapseWhitespace(body);
    markProseFacts(body);
    const [div, section] = body.children as [LightElement, LightElement];
    expect(isProseSubtree(div)).toBe(false);
    expect(isProseSubtree(div.children[0])).toBe(true);
    expect(isProseSubtree(div.children[1])).toBe(false);
    expect(isProseSubtree(section)).toBe(true);
    // A tree whose facts were never recorded (turndown's own copy) is never taken.
    expect(isProseSubtree(parseLightDocument("<p>a</p>").body.children[0])).toBe(false);
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
