/**
 * preOrder, the walk over the sibling and parent links, against a recursive walk (the reference):
 * the same elements entered in the same order, the same elements left, after their children and
 * only when the walk went into them, whatever `enter` declines.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { preOrder } from "../../../../../shared/content/extract/tree-walk";
import { type LightElement, parseLightDocument } from "../../../../../shared/content/light-dom";

function referenceWalk(el: LightElement, enter: (el: LightElement) => boolean, leave: (el: LightElement) => void): void {
  if (!enter(el)) return;
  for (let c = el.firstChild; c !== null; c = c.nextSibling) if (c.nodeType === 1) referenceWalk(c, enter, leave);
  leave(el);
}

/** The events of one walk of `html`: `+n` entered, `-n` left, with n the element's place in the order entered; `declined` positions are not gone into. */
function events(html: string, declined: ReadonlySet<number>, walk: typeof preOrder): string[] {
  const doc = parseLightDocument(html);
  const order = new Map<LightElement, number>();
  const out: string[] = [];
  walk(
    doc.body,
    (el) => {
      const k = order.size;
      order.set(el, k);
      out.push(`+${k}${el.nodeName}`);
      return !declined.has(k);
    },
    (el) => out.push(`-${order.get(el)}`),
  );
  return out;
}

const page: fc.Arbitrary<string> = fc.letrec<{ node: string; nodes: string }>((tie) => ({
  node: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.constantFrom("x", " ", "<br>", "<img src=x>"),
    fc.tuple(fc.constantFrom("div", "p", "span", "ul", "li", "table", "code"), tie("nodes")).map(([tag, inner]) => `<${tag}>${inner}</${tag}>`),
  ),
  nodes: fc.array(tie("node"), { maxLength: 5 }).map((xs) => xs.join("")),
})).nodes.map((inner) => `<html><body>${inner}</body></html>`);

describe("preOrder", () => {
  it("enters and leaves what a recursive walk does, in its order, whatever enter declines", () => {
    fc.assert(
      fc.property(page, fc.uniqueArray(fc.nat(30), { maxLength: 5 }), (html, declined) => {
        const set = new Set(declined);
        expect(events(html, set, preOrder)).toEqual(events(html, set, referenceWalk));
      }),
      { numRuns: 500 },
    );
  });

  it("leaves a parent after its children and goes on with its next sibling", () => {
    const html = "<html><body><div><p>a</p>x<p>b</p></div><ul><li>c</li></ul></body></html>";
    expect(events(html, new Set([4]), preOrder)).toEqual(["+0BODY", "+1DIV", "+2P", "-2", "+3P", "-3", "-1", "+4UL", "-0"]);
  });

  it("walks nothing under a root it does not enter", () => {
    expect(events("<html><body><p>a</p></body></html>", new Set([0]), preOrder)).toEqual(["+0BODY"]);
  });
});
