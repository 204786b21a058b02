/**
 * The tree walk's rule lookup (turndown-setup.ts) skips a function filter for an element its
 * guard rules out (FILTER_GUARDS): each guard must hold for its filter, or an element would get a
 * later rule than turndown gives it. Checked on elements of every tag webgate converts, with and
 * without attributes, in the contexts the filters look at (inside PRE, LI, LABEL, SPAN, tables).
 */
import { describe, expect, it } from "vitest";
import { type LightElement, parseLightDocument } from "../../../../shared/content/light-dom";
import { FILTER_GUARDS, createTurndownService, filterGuardsOf } from "../../../../shared/content/turndown-setup";

const TAGS = [
  "p", "h1", "h3", "h6", "blockquote", "ul", "ol", "li", "dl", "dt", "dd", "div", "section", "article", "a", "em", "i",
  "strong", "b", "s", "del", "strike", "span", "label", "code", "pre", "br", "hr", "img", "input", "table", "thead",
  "tbody", "tfoot", "tr", "td", "th", "caption", "colgroup", "col", "figure", "sup", "mark", "font",
];

const ATTRIBUTES = [
  "",
  ' href="/x"',
  ' href="/x" title="t"',
  ' type="checkbox"',
  ' type="checkbox" checked',
  ' role="checkbox" aria-checked="true"',
  ' class="highlight-source-js"',
  ' class="language-js"',
  ' src="i.png" alt="a"',
  ' colspan="2" align="right"',
];

/** Every tag with every attribute list, on its own, as an only child and among siblings, in each context. */
function fixtureHtml(): string {
  const parts: string[] = [];
  for (const tag of TAGS) {
    for (const attrs of ATTRIBUTES) {
      const el = `<${tag}${attrs}>x<code>c</code></${tag}>`;
      const only = `<${tag}${attrs}><code>c</code></${tag}>`;
      parts.push(el, `<pre>${only}</pre>`, `<pre>${el}y</pre>`, `<ul><li>${el}</li><li><label>${el}</label></li><li><span>${el}</span></li></ul>`);
      parts.push(`<table><tr><td>${el}</td></tr></table>`, `<div class="highlight-source-js">${`<pre>${el}</pre>`}</div>`);
    }
  }
  return parts.join("");
}

function elementsOf(root: LightElement): LightElement[] {
  // Not the root: turndown converts only its children, and some filters read the parent.
  return root.getElementsByTagName("*");
}

describe("the rule lookup's filter guards", () => {
  const service = createTurndownService("https://example.com/");
  const guards = filterGuardsOf(service);

  it("finds a function filter for every guarded rule name", () => {
    expect(guards.size).toBe(new Set(Object.keys(FILTER_GUARDS)).size);
  });

  it("holds for every filter on every element it rules out", () => {
    const elements = elementsOf(parseLightDocument(fixtureHtml()).body);
    expect(elements.length).toBeGreaterThan(5_000);
    let ruledOut = 0;
    for (const [filter, guard] of guards) {
      for (const el of elements) {
        const allowed = guard === null ? el.hasAttributes() : guard.has(el.nodeName);
        if (allowed) continue;
        ruledOut++;
        expect(Boolean(filter(el, service.options)), `${el.outerHTML.slice(0, 80)} ruled out for ${filter.toString().slice(0, 80)}`).toBe(false);
      }
    }
    expect(ruledOut).toBeGreaterThan(10_000);
  });

  it("lets through the elements each filter matches (the fixture reaches every filter)", () => {
    const elements = elementsOf(parseLightDocument(fixtureHtml()).body);
    for (const [filter] of guards) {
      // The referenced-link filter matches only with linkStyle "referenced", the indented-code one only with codeBlockStyle "indented".
      const options = { ...service.options, linkStyle: "referenced", codeBlockStyle: "indented" } as const;
      const matched = elements.some((el) => Boolean(filter(el, service.options)) || Boolean(filter(el, options)));
      expect(matched, filter.toString().slice(0, 80)).toBe(true);
    }
  });
});
