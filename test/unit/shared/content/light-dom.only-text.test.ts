/**
 * An element's only text kept as a string (LightElement.onlyText) until something asks for its
 * node: the node it then gets is the one the parse built before, and the walks that read the
 * string instead (whitespace collapsing with the prose facts, the prose walk) leave the tree, the
 * facts and the Markdown that the node gives.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { collapseWhitespaceAndMarkProseFacts } from "../../../../shared/content/collapse-whitespace";
import { turndownSingleUse } from "../../../../shared/content/html-to-markdown";
import { type LightElement, type LightNode, LightText, parseLightDocument } from "../../../../shared/content/light-dom";
import { createTurndownService } from "../../../../shared/content/turndown-setup";

function firstElement(html: string): LightElement {
  const el = parseLightDocument(html).body.firstChild;
  if (el === null || el.nodeType !== 1) throw new Error(`no element in ${html}`);
  return el;
}

/** Every element's only text made a node, as any reader of firstChild makes it. */
function materialize(el: LightElement): void {
  for (let n = el.firstChild; n !== null; n = n.nextSibling) if (n.nodeType === 1) materialize(n);
}

/** How many elements below `el` hold their only text as a string. */
function countOnlyTexts(el: LightElement): number {
  let count = 0;
  const visit = (e: LightElement): void => {
    if (e.onlyText !== null) {
      count++;
      return;
    }
    for (let n = e.firstChild; n !== null; n = n.nextSibling) if (n.nodeType === 1) visit(n);
  };
  visit(el);
  return count;
}

/** Every node in document order, texts as their data, elements as name and facts, links checked. */
function shape(root: LightElement): string[] {
  const out: string[] = [];
  const visit = (n: LightNode): void => {
    if (n.nodeType === 3) {
      out.push(JSON.stringify(n.data));
      return;
    }
    out.push(`${n.nodeName}:${n.proseFacts}(`);
    let prev: LightNode | null = null;
    for (let c = n.firstChild; c !== null; c = c.nextSibling) {
      expect(c.parentNode).toBe(n);
      expect(c.previousSibling).toBe(prev);
      prev = c;
      visit(c);
    }
    expect(n.lastChild).toBe(prev);
    out.push(")");
  };
  visit(root);
  return out;
}

describe("an element's only text", () => {
  it("is kept as a string by the parse, pieces of one run (around entities) joined, and the upper-case tags and attributes do not matter", () => {
    for (const [html, text] of [
      ["<p>x</p>", "x"],
      ["<P CLASS='a'>a&amp;b&lt;c</P>", "a&b<c"],
      ["<p>1 < 2 &gt; 0", "1 < 2 > 0"],
      ["<li>x", "x"],
    ] as const) {
      const el = firstElement(html);
      expect(el.onlyText).toBe(text);
      expect(el.textContent).toBe(text);
      expect(el.childNodes.map((n) => (n.nodeType === 3 ? n.data : n.nodeName))).toEqual([text]);
    }
    // Not for an element with any other child, nor a void or self-closed one, which has none.
    expect(firstElement("<p>a<b>c</b></p>").onlyText).toBeNull();
    expect(firstElement("<p><b>c</b>a</p>").onlyText).toBeNull();
    expect(firstElement("<br/>x").onlyText).toBeNull();
    expect(firstElement("<p/>x").onlyText).toBe("x");
    expect(firstElement("<p></p>").onlyText).toBeNull();
  });

  it("becomes one text node on the first read of firstChild or lastChild, the node the parse built before", () => {
    const el = firstElement("<p>a&amp;b</p>");
    const node = el.lastChild;
    expect(node).toBeInstanceOf(LightText);
    expect(el.firstChild).toBe(node);
    expect(el.onlyText).toBeNull();
    expect(node!.parentNode).toBe(el);
    expect([node!.previousSibling, node!.nextSibling]).toEqual([null, null]);
    expect((node as LightText).data).toBe("a&b");
    expect(el.textContent).toBe("a&b");
  });

  it("stays before a child appended after it, and goes with the element's children when they move", () => {
    const el = firstElement("<p>a</p>");
    el.appendChild(new LightText("b"));
    expect(el.childNodes.map((n) => (n as LightText).data)).toEqual(["a", "b"]);
    expect(el.textContent).toBe("ab");
    const from = firstElement("<p>c</p>");
    const to = firstElement("<div>d</div>");
    from.moveChildrenTo(to);
    expect(to.textContent).toBe("dc");
    expect(from.textContent).toBe("");
    expect(from.firstChild).toBeNull();
  });

  it("set or removed in place clears the text its ancestors cached", () => {
    const body = parseLightDocument("<div><p>a b</p><p>c</p></div>").body;
    const p = (body.firstChild as LightElement).firstChild as LightElement;
    expect(body.textContent).toBe("a bc");
    p.setOnlyText("x");
    expect(body.textContent).toBe("xc");
    // An empty text stays a child, as a text node whose data is "" does.
    p.setOnlyText("");
    expect(p.onlyText).toBe("");
    p.removeOnlyText();
    expect(p.firstChild).toBeNull();
    expect(body.textContent).toBe("c");
    expect(() => p.removeOnlyText()).toThrow(TypeError);
  });

  it("collapses, marks its facts and converts as its text node does, on random whitespace-heavy trees", () => {
    const space = fc.constantFrom(" ", "  ", "\n", "\t", " \n ", "\u00a0", "\u2003", "");
    const word = fc.constantFrom("a", "bc", "*x*", "&amp;", "1 < 2", "é");
    const text = fc.array(fc.oneof(space, word), { maxLength: 4 }).map((parts) => parts.join(""));
    const node: fc.Memo<string> = fc.memo((depth) =>
      depth <= 1
        ? fc.oneof(text, fc.constantFrom("<br>", '<img src="i.png">', "<hr>", "<td></td>"))
        : fc.oneof(
            { weight: 3, arbitrary: text },
            { weight: 1, arbitrary: fc.constantFrom("<br>", " <br> ", "<wbr>", '<img src="i.png">') },
            {
              weight: 4,
              arbitrary: fc
                .tuple(fc.constantFrom("p", "div", "span", "em", 'a href="/x"', "pre", "code", "li", "h2", "td", "b", "dt", "table"), fc.array(node(depth - 1), { maxLength: 3 }))
                .map(([tag, kids]) => `<${tag}>${kids.join("")}</${tag.split(" ")[0]}>`),
            },
          ),
    );
    let kept = 0;
    fc.assert(
      fc.property(fc.array(node(4), { maxLength: 5 }), (parts) => {
        const html = parts.join("");
        const asNodes = parseLightDocument(html).body;
        materialize(asNodes);
        const asStrings = parseLightDocument(html).body;
        collapseWhitespaceAndMarkProseFacts(asNodes);
        collapseWhitespaceAndMarkProseFacts(asStrings);
        kept += countOnlyTexts(asStrings);
        const markdown = turndownSingleUse(createTurndownService("https://example.com/"), asStrings);
        expect(markdown).toBe(turndownSingleUse(createTurndownService("https://example.com/"), asNodes));
        expect(shape(asStrings)).toEqual(shape(asNodes));
      }),
      { numRuns: 1500 },
    );
    // The walks met strings, not only nodes.
    expect(kept).toBeGreaterThan(100);
  });
});
