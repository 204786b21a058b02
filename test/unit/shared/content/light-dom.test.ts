/**
 * The light tree's compact members: the three facts kept in one packed field read back as the
 * fields they replace, `hasAttributes()` is false only when no attribute look-up can answer, and
 * text inside table structure goes before its table.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { htmlToMarkdown } from "../../../../shared/content/html-to-markdown";
import { type LightElement, parseLightDocument } from "../../../../shared/content/light-dom";

/** The first element of a parsed body. */
function firstElement(html: string): LightElement {
  const el = parseLightDocument(html).body.firstChild;
  if (el === null || el.nodeType !== 1) throw new Error(`no element in ${html}`);
  return el;
}

type Write = { member: "isBlock"; value: boolean | undefined } | { member: "proseFacts"; value: number } | { member: "childNodesHidden"; value: boolean };

const write: fc.Arbitrary<Write> = fc.oneof(
  fc.record({ member: fc.constant("isBlock" as const), value: fc.constantFrom(true, false, undefined) }),
  fc.record({ member: fc.constant("proseFacts" as const), value: fc.oneof(fc.integer({ min: -1, max: 15 }), fc.integer({ min: -1, max: (1 << 24) - 2 })) }),
  fc.record({ member: fc.constant("childNodesHidden" as const), value: fc.boolean() }),
);

describe("LightElement's packed facts (isBlock, proseFacts, childNodesHidden)", () => {
  it("start as the fields did (undefined, -1, false)", () => {
    const el = firstElement("<div>x</div>");
    expect([el.isBlock, el.proseFacts, el.childNodesHidden]).toEqual([undefined, -1, false]);
  });

  it("read back what was written last to each, whatever the order of writes", () => {
    fc.assert(
      fc.property(fc.array(write, { maxLength: 30 }), (writes) => {
        const el = firstElement("<p>a<b>b</b></p>");
        const model: { isBlock: boolean | undefined; proseFacts: number; childNodesHidden: boolean } = { isBlock: undefined, proseFacts: -1, childNodesHidden: false };
        for (const w of writes) {
          if (w.member === "isBlock") el.isBlock = w.value;
          else if (w.member === "proseFacts") el.proseFacts = w.value;
          else el.childNodesHidden = w.value;
          (model as Record<string, unknown>)[w.member] = w.value;
          expect({ isBlock: el.isBlock, proseFacts: el.proseFacts, childNodesHidden: el.childNodesHidden }).toEqual(model);
        }
        // Hiding the children still hides them, and showing them gives them back.
        expect(el.childNodes.length).toBe(el.childNodesHidden ? 0 : 2);
      }),
    );
  });

  it("refuse a proseFacts the field cannot hold, leaving the facts as they were", () => {
    const el = firstElement("<p>a</p>");
    el.proseFacts = 5;
    el.isBlock = true;
    for (const bad of [-2, 1 << 24, 1.5, Number.NaN]) expect(() => (el.proseFacts = bad)).toThrow(RangeError);
    expect([el.proseFacts, el.isBlock, el.childNodesHidden]).toEqual([5, true, false]);
  });
});

const NAMES = ["align", "style", "colspan", "class", "id", "ALIGN", "data-x", "constructor", "__proto__", "toString", "x"];
const attributeList = fc.array(fc.tuple(fc.constantFrom(...NAMES), fc.constantFrom("", "left", "2", "text-align: right", "a b")), { maxLength: 4 });

describe("LightElement.hasAttributes", () => {
  it("is false exactly when the tag has no attribute, and then every look-up gives null, before and after the attribute object is built", () => {
    fc.assert(
      fc.property(attributeList, fc.constantFrom("td", "th"), fc.boolean(), (list, tag, buildObject) => {
        const table = firstElement(`<table><tr><${tag}${list.map(([n, v]) => ` ${n}="${v}"`).join("")}>t</${tag}></tr></table>`);
        const target = (table.firstChild as LightElement).firstChild as LightElement;
        expect(target.nodeName).toBe(tag.toUpperCase());
        if (buildObject) void target.attributes;
        if (list.length === 0) expect(target.hasAttributes()).toBe(false);
        if (!target.hasAttributes()) {
          for (const name of NAMES) if (!["constructor", "__proto__", "toString"].includes(name)) expect(target.getAttribute(name)).toBeNull();
          expect(target.style.textAlign).toBe("");
        }
        // Names that are not members of Object.prototype make the element have attributes.
        if (list.some(([n]) => !["constructor", "__proto__", "toString"].includes(n))) expect(target.hasAttributes()).toBe(true);
      }),
    );
  });

  it("answers for elements built outside the parse (a copy's attribute object, an empty one)", () => {
    const el = firstElement('<div align="right">x</div>');
    expect(el.cloneNode(true).hasAttributes()).toBe(true);
    expect(firstElement("<div>x</div>").cloneNode(true).hasAttributes()).toBe(false);
  });
});

describe("text in table structure", () => {
  const rowsInRows = "<table><tr><td>a</td></tr><tr><thead><tr><thead><tr><td>b</td>moved</tr></thead></thead></tr></table>";

  it("goes before the innermost open table however deep the rows and groups inside it nest", () => {
    const body = parseLightDocument(`<p>p</p>${rowsInRows}`).body;
    const texts: string[] = [];
    const inRows = (el: LightElement): void => {
      for (let n = el.firstChild; n !== null; n = n.nextSibling) {
        if (n.nodeType === 3 && el.nodeName !== "TD") texts.push(n.data);
        if (n.nodeType === 1) inRows(n);
      }
    };
    const table = body.lastChild as LightElement;
    inRows(table);
    expect(texts).toEqual([]);
    expect(table.previousSibling?.nodeType === 3 ? table.previousSibling.data : null).toBe("moved");
  });

  it("no longer crashes the conversion (it was read as a row's cell), in either mode and format", () => {
    for (const mainContent of [false, true]) {
      for (const format of ["markdown", "text"] as const) {
        const { markdown } = htmlToMarkdown(rowsInRows, { baseUrl: "https://example.com/", mainContent, format });
        expect(markdown.startsWith("moved")).toBe(true);
      }
    }
  });
});

describe("the light tree's headings", () => {
  it("end at another level's heading end tag, as HTML's tree does: the article after <h2>…</h3> is not inside the heading", () => {
    const body = parseLightDocument("<article><h2 class=excerpt>Sums it up</h3><div><h3>Ad</h3></div><p>The story.</p></article>").body;
    const article = body.firstChild as LightElement;
    expect(article.childNodes.map((n) => (n as LightElement).nodeName)).toEqual(["H2", "DIV", "P"]);
    expect((article.firstChild as LightElement).textContent).toBe("Sums it up");
  });
});

describe("LightElement.moveChildrenTo", () => {
  /** The tree as markup with each node's parent and sibling links checked on the way. */
  function shape(el: LightElement): string {
    let out = `<${el.nodeName}>`;
    let prev = null;
    for (let n = el.firstChild; n !== null; n = n.nextSibling) {
      expect(n.parentNode).toBe(el);
      expect(n.previousSibling).toBe(prev);
      prev = n;
      out += n.nodeType === 3 ? n.data : shape(n);
    }
    expect(el.lastChild).toBe(prev);
    return `${out}</${el.nodeName}>`;
  }

  it("leaves the tree that appendChild(removeChild()) per child leaves, text caches included", () => {
    const bodies = fc.array(fc.constantFrom("<p>a</p>", "b", "<div><i>c</i>d</div>", "<br>", " "), { maxLength: 8 });
    fc.assert(
      fc.property(bodies, fc.array(fc.constantFrom("<h1>t</h1>", "u"), { maxLength: 2 }), (parts, before) => {
        const html = `<html><body>${parts.join("")}</body></html>`;
        const [a, b] = [parseLightDocument(html).body, parseLightDocument(html).body];
        const [outA, outB] = [0, 1].map(() => parseLightDocument(`<div>${before.join("")}</div>`).body.firstChild as LightElement);
        // Read the caches first: the move must clear them.
        void [a.textContent, b.textContent, outA!.textContent, outB!.textContent];
        while (a.firstChild !== null) outA!.appendChild(a.removeChild(a.firstChild));
        b.moveChildrenTo(outB!);
        expect(shape(outB!)).toBe(shape(outA!));
        expect(shape(b)).toBe(shape(a));
        expect([outB!.textContent, b.textContent]).toEqual([outA!.textContent, a.textContent]);
      }),
    );
  });
});
