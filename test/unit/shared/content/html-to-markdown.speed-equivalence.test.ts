import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import TurndownService from "turndown";
import { decode as whatwgDecode } from "whatwg-encoding";
import { decodeBody } from "../../../../shared/content/decode";
import { turndownSingleUse } from "../../../../shared/content/html-to-markdown";
import { collapseWhitespace, collapseWhitespaceAndMarkProseFacts } from "../../../../shared/content/collapse-whitespace";
import { type LightElement, type LightNode, parseLightDocument } from "../../../../shared/content/light-dom";
import { markProseFacts } from "../../../../shared/content/prose-walk";
import { createTurndownService, indentItem } from "../../../../shared/content/turndown-setup";

// Speed-only changes must not change output: each fast path is checked against the code it replaces.
describe("speed-only fast paths", () => {
  it("the escape pre-check gives turndown's escaping exactly", () => {
    const ours = createTurndownService(null);
    const theirs = new TurndownService();
    const markdownish = fc.string({ unit: fc.constantFrom("a", " ", "\\", "*", "-", "+", "=", "#", "`", "~", "[", "]", ">", "_", "1", ".", "\n", "é"), maxLength: 30 });
    fc.assert(
      fc.property(fc.oneof(markdownish, fc.string()), (text) => {
        expect(ours.escape(text)).toBe(theirs.escape(text));
      }),
      { numRuns: 3000 },
    );
  });

  it("the one-pass escaping gives turndown's 13 replacements exactly, at the start of the text too", () => {
    const ours = createTurndownService(null);
    const theirs = new TurndownService();
    // Every start turndown's anchored escapes look at, then anything.
    const start = fc.constantFrom("", "-", "--", "+ ", "+", "=", "==", "# ", "###### ", "####### ", "#x", "~~~", "~~", ">", "1. ", "12. ", "1.", "1 ", "\\", "*", "_", "[", "`", "\\-", "*-", "_1. ");
    const rest = fc.string({ unit: fc.constantFrom("a", " ", "\\", "*", "-", "+", "=", "#", "`", "~", "[", "]", ">", "_", "1", ".", "é"), maxLength: 12 });
    fc.assert(
      fc.property(start, rest, (head, tail) => {
        expect(ours.escape(head + tail)).toBe(theirs.escape(head + tail));
      }),
      { numRuns: 3000 },
    );
    expect(ours.escape("1. *a* [b]_")).toBe("1\\. \\*a\\* \\[b\\]\\_");
  });

  it("a list item's content is cut and indented as the three regex replacements did", () => {
    const content = fc.string({ unit: fc.constantFrom("\n", "a", " ", "-", "\r"), maxLength: 12 });
    fc.assert(
      fc.property(content, fc.integer({ min: 2, max: 5 }), (text, width) => {
        expect(indentItem(text, width)).toBe(text.replace(/^\n+/, "").replace(/\n+$/, "\n").replace(/\n/gm, `\n${" ".repeat(width)}`));
      }),
      { numRuns: 3000 },
    );
  });

  it("the per-tag rule index picks the rule turndown's lookup picks", () => {
    const html = readFileSync(path.resolve(__dirname, "../../../fixtures/content/article.html"), "utf8") + "<table><tr><th>h</th></tr><tr><td><del>x</del> <code>c</code></td></tr></table><pre><code class=\"language-js\">a</code></pre><ul><li><input type=checkbox checked> done</li></ul><p><a href=\"/x\">l</a><img src=\"i.png\"><a href=\"javascript:x\">j</a></p>";
    const indexed = createTurndownService("https://example.com/");
    const plainLookup = createTurndownService("https://example.com/");
    delete (plainLookup as unknown as { rules: { forNode?: unknown } }).rules.forNode;
    const out = turndownSingleUse(indexed, parseLightDocument(html).body);
    expect(out).toBe(turndownSingleUse(plainLookup, parseLightDocument(html).body));
    expect(indexed.turndown(html)).toBe(plainLookup.turndown(html));
    expect(out).toContain("~~x~~");
    expect(out).toContain("```js\na\n```");
    expect(out).toContain("[l](https://example.com/x)");
  });

  it("the heading rule's marker table gives turndown's headings, ATX and setext, and leaves turndown's own rule as it was", () => {
    const html = "<h1>one</h1><h2>two <em>2</em></h2><h3>three</h3><h4>four</h4><h5>five</h5><h6>six</h6><h2></h2>";
    for (const headingStyle of ["atx", "setext"] as const) {
      const ours = createTurndownService(null, { headingStyle });
      expect(turndownSingleUse(ours, parseLightDocument(html).body)).toBe(new TurndownService({ headingStyle }).turndown(html));
    }
    expect(turndownSingleUse(createTurndownService(null), parseLightDocument("<h3>x</h3>").body)).toBe("### x");
    // The service's rule is a copy: turndown's own services keep turndown's rule object.
    const turndownHeading = (service: TurndownService) => (service as unknown as { rules: { array: { filter: unknown }[] } }).rules.array.find((r) => Array.isArray(r.filter) && r.filter[0] === "h1");
    expect(turndownHeading(new TurndownService())).toBe(turndownHeading(new TurndownService()));
    expect(turndownHeading(createTurndownService(null))).not.toBe(turndownHeading(new TurndownService()));
  });

  it("the inline-code rule's shortcut gives turndown's inline code, backticks, line breaks and edge spaces included", () => {
    const rulesOf = (service: TurndownService) => (service as unknown as { rules: { array: { filter: unknown; replacement(c: string, n: unknown, o: unknown): string }[] } }).rules.array;
    const theirs = new TurndownService();
    const turndownCode = (theirs.options as unknown as { rules: { code: unknown } }).rules.code;
    const ours = createTurndownService(null);
    const ourCode = rulesOf(ours).find((r) => r.filter === (turndownCode as { filter: unknown }).filter)!;
    expect(ourCode).not.toBe(turndownCode);
    const content = fc.string({ unit: fc.constantFrom("a", " ", "`", "``", "\n", "\r", "\u2028", "x y"), maxLength: 8 });
    fc.assert(
      fc.property(content, (text) => {
        expect(ourCode.replacement(text, null, ours.options)).toBe((turndownCode as typeof ourCode).replacement(text, null, theirs.options));
      }),
      { numRuns: 3000 },
    );
    const html = "<p><code>x</code> <code>a`b</code> <code> a </code> <code>l1\nl2</code> <code></code></p><pre><code>block</code></pre>";
    expect(turndownSingleUse(ours, parseLightDocument(html).body)).toBe(new TurndownService({ codeBlockStyle: "fenced", fence: "```" }).turndown(html));
  });

  it("webgate's whitespace collapsing gives what turndown's gives, on random whitespace-heavy trees", () => {
    const space = fc.constantFrom(" ", "  ", "\n", "\t", " \n ", "\r\n", "\u00a0", "");
    const word = fc.constantFrom("a", "bc", "1.", "-", "*x*", "&amp;", "é");
    const text = fc.array(fc.oneof(space, word), { maxLength: 5 }).map((parts) => parts.join(""));
    const node: fc.Memo<string> = fc.memo((depth) =>
      depth <= 1
        ? fc.oneof(text, fc.constantFrom("<br>", "<img src=\"i.png\">", "<hr>", "<input>"))
        : fc.oneof(
            { weight: 3, arbitrary: text },
            { weight: 1, arbitrary: fc.constantFrom("<br>", "<img src=\"i.png\">", " <br> ", "<wbr>") },
            {
              weight: 3,
              arbitrary: fc
                .tuple(fc.constantFrom("p", "div", "span", "em", "strong", "a href=\"/x\"", "pre", "code", "li", "h2", "td", "blockquote", "b"), fc.array(node(depth - 1), { maxLength: 4 }))
                .map(([tag, kids]) => `<${tag}>${kids.join("")}</${tag.split(" ")[0]}>`),
            },
          ),
    );
    fc.assert(
      fc.property(fc.array(node(4), { maxLength: 5 }), (parts) => {
        const html = parts.join("");
        const service = () => createTurndownService("https://example.com/");
        // turndown's own path: it copies the tree and collapses the copy itself.
        expect(turndownSingleUse(service(), parseLightDocument(html).body)).toBe(service().turndown(parseLightDocument(html).body));
      }),
      { numRuns: 1500 },
    );
  });

  it("whitespace collapsing that marks the prose facts in its walk leaves the tree and the facts of collapsing, then marking", () => {
    const space = fc.constantFrom(" ", "  ", "\n", "\t", " \n ", "\r\n", "\u00a0", "\u2003", "");
    const word = fc.constantFrom("a", "bc", "1.", "&amp;", "é");
    const text = fc.array(fc.oneof(space, word), { maxLength: 4 }).map((parts) => parts.join(""));
    const node: fc.Memo<string> = fc.memo((depth) =>
      depth <= 1
        ? fc.oneof(text, fc.constantFrom("<br>", "<img src=\"i.png\">", "<hr>", "<a href=\"/x\"></a>", "<td></td>"))
        : fc.oneof(
            { weight: 3, arbitrary: text },
            { weight: 1, arbitrary: fc.constantFrom("<br>", "<img src=\"i.png\">", " <br> ", "<wbr>", "<iframe></iframe>") },
            {
              weight: 3,
              arbitrary: fc
                .tuple(fc.constantFrom("p", "div", "span", "em", "a href=\"/x\"", "pre", "code", "li", "h2", "td", "video", "b"), fc.array(node(depth - 1), { maxLength: 4 }))
                .map(([tag, kids]) => `<${tag}>${kids.join("")}</${tag.split(" ")[0]}>`),
            },
          ),
    );
    // Every node in document order, texts as their data and elements as their name and facts.
    const shape = (root: LightElement): string[] => {
      const out: string[] = [];
      const visit = (n: LightNode): void => {
        if (n.nodeType === 3) {
          out.push(JSON.stringify(n.data));
          return;
        }
        out.push(`${n.nodeName}:${n.proseFacts}(`);
        for (let c = n.firstChild; c !== null; c = c.nextSibling) visit(c);
        out.push(")");
      };
      visit(root);
      return out;
    };
    fc.assert(
      fc.property(fc.array(node(4), { maxLength: 5 }), fc.boolean(), (parts, inPre) => {
        const html = inPre ? `<pre>${parts.join("")}</pre>` : parts.join("");
        const two = parseLightDocument(html).body;
        collapseWhitespace(two);
        markProseFacts(two);
        const one = parseLightDocument(html).body;
        collapseWhitespaceAndMarkProseFacts(one);
        expect(shape(one)).toEqual(shape(two));
        const pre = one.firstChild;
        if (inPre && pre !== null && pre.nodeType === 1) {
          const alone = parseLightDocument(html).body.firstChild as LightElement;
          collapseWhitespace(alone);
          markProseFacts(alone);
          collapseWhitespaceAndMarkProseFacts(pre);
          expect(shape(pre)).toEqual(shape(alone));
        }
      }),
      { numRuns: 1500 },
    );
  });

  it("UTF-8 through the native decoder equals whatwg-encoding's decode for valid UTF-8", () => {
    fc.assert(
      // U+FFFD is left out: a body that is mostly replacement characters is refused on purpose
      // (decode_failed, see MAX_GARBAGE_SHARE), which is not what this property compares.
      fc.property(fc.string({ unit: "grapheme", maxLength: 100 }).map((s) => s.replaceAll("\uFFFD", "?")), fc.boolean(), (text, bom) => {
        const bytes = new TextEncoder().encode(text);
        const body = bom ? new Uint8Array([0xef, 0xbb, 0xbf, ...bytes]) : bytes;
        expect(decodeBody(body, "text/plain; charset=utf-8").text).toBe(whatwgDecode(body, "UTF-8"));
      }),
      { numRuns: 500 },
    );
  });
});
