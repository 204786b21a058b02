/**
 * measureSubtree, the walk that measures each element as it leaves it, against the walk it
 * replaced: postOrder visiting each element and measure gathering its figures from its children
 * (kept here as the reference). The same figures for every element, the same numbers, the same
 * visits in the same order and the same checkpoints, whatever the walk skips, whatever a visit
 * removes (the element itself, or some of its children before measuring it again).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { WorkMeter } from "../../../../../shared/content/conversion-deadline";
import { FiguresTable, measure, measureSubtree } from "../../../../../shared/content/extract/figures";
import { MAIN_CONTENT_PRUNED } from "../../../../../shared/content/extract/main-content";
import { run } from "../../../../../shared/content/extract/run-state";
import { postOrder } from "../../../../../shared/content/extract/tree-walk";
import { type LightElement, type LightNode, parseLightDocument } from "../../../../../shared/content/light-dom";

const COLUMNS = ["chars", "linkChars", "inlineChars", "inlineCommas", "commas", "sentences", "paragraphs", "images", "listItems", "inputs", "embeds", "headingChars", "hasCode"] as const;

/** What a walk left: each visited element's number and figures, in visiting order, and the checkpoints it ticked. */
interface WalkRecord {
  visits: string[];
  ticks: number;
  serverMessageWords: boolean;
}

/** Every element of the tree under `root`, in document order (the same positions in two parses of one page). */
function elementsOf(root: LightElement): LightElement[] {
  const out: LightElement[] = [];
  const stack: LightNode[] = [root];
  while (stack.length > 0) {
    const n = stack.pop()!;
    if (n.nodeType !== 1) continue;
    out.push(n);
    for (let c = n.lastChild; c !== null; c = c.previousSibling) stack.push(c);
  }
  return out;
}

/**
 * What a visit does with an element, by its document position: 0 keeps it, 1 removes it, 2
 * removes its odd-numbered element children and measures it again. Elements at positions in
 * `skipped` are removed before the walk (the walk skips them).
 */
interface Plan {
  skipped: ReadonlySet<number>;
  actions: readonly number[];
}

function walk(html: string, plan: Plan, fused: boolean, numbering: boolean): WalkRecord {
  const doc = parseLightDocument(html, { pruned: MAIN_CONTENT_PRUNED, packTables: true });
  const elements = elementsOf(doc.body);
  const position = new Map(elements.map((el, k) => [el, k]));
  const removed = new Set<LightElement>(elements.filter((_, k) => plan.skipped.has(k) && k > 0));
  const kept = (el: LightElement) => !removed.has(el);
  const t = new FiguresTable(numbering ? 0 : elements.length);
  if (!numbering) elements.forEach((el) => t.number(el));
  t.reset();
  let ticks = 0;
  run.meter = new WorkMeter({ expired: () => (ticks++, false) }, 1);
  const visits: string[] = [];
  const act = (el: LightElement, i: number) => {
    const action = plan.actions[position.get(el)! % plan.actions.length] ?? 0;
    if (action === 1 && el !== doc.body) removed.add(el);
    if (action === 2) {
      let k = 0;
      for (let c = el.firstChild; c !== null; c = c.nextSibling) if (c.nodeType === 1 && k++ % 2 === 1) removed.add(c);
      measure(el, t, kept);
    }
    visits.push(`${position.get(el)}#${i}:${COLUMNS.map((c) => t[c][i]).join(",")}`);
  };
  try {
    if (fused) {
      measureSubtree(doc.body, t, (el) => removed.has(el), act, numbering ? { number: true } : { removed });
    } else {
      postOrder(doc.body, (el) => removed.has(el), (el) => {
        if (numbering) t.number(el);
        act(el, measure(el, t, numbering ? undefined : kept));
      });
    }
  } finally {
    run.meter = undefined;
  }
  // The figures as the walk left them (a parent's visit may measure a child's parent again).
  const rows = elements.filter((el) => t.holds(el.walkIndex)).map((el) => `${position.get(el)}#${el.walkIndex}:${COLUMNS.map((c) => t[c][el.walkIndex]).join(",")}`);
  return { visits: [...visits, ...rows], ticks, serverMessageWords: t.serverMessageWords };
}

const TEXTS = ["x", " ", "One, two. Three! ", "a\u00a0b", "Warning: something on line 12 ", "\u3001\u3002", "why? ", ""];
const TAGS = ["div", "p", "a", "span", "li", "ul", "h2", "h4", "pre", "code", "b", "blockquote", "td"];
const VOIDS = ["<img src=x>", "<input>", "<br>", "<video></video>", "<textarea>t</textarea>"];

/** Random pages: nested elements of many kinds with texts, void elements, and plain tables (kept packed by the parse). */
const page: fc.Arbitrary<string> = fc.letrec<{ node: string; nodes: string }>((tie) => ({
  node: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.constantFrom(...TEXTS),
    fc.constantFrom(...VOIDS),
    fc.tuple(fc.constantFrom(...TAGS), tie("nodes")).map(([tag, inner]) => `<${tag}>${inner}</${tag}>`),
    fc.array(fc.array(fc.constantFrom(...TEXTS), { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 3 }).map((rows) => `<table>${rows.map((r) => `<tr>${r.map((c) => `<td>${c}</td>`).join("")}</tr>`).join("")}</table>`),
  ),
  nodes: fc.array(tie("node"), { maxLength: 5 }).map((xs) => xs.join("")),
})).nodes.map((inner) => `<html><body>${inner}</body></html>`);

const plan: fc.Arbitrary<Plan> = fc.record({
  skipped: fc.uniqueArray(fc.nat(40), { maxLength: 4 }).map((xs) => new Set(xs)),
  actions: fc.array(fc.constantFrom(0, 0, 0, 1, 2), { minLength: 1, maxLength: 12 }),
});

describe("measureSubtree", () => {
  it("numbers and measures every element as the first walk did (postOrder, number, measure)", () => {
    fc.assert(
      fc.property(page, (html) => {
        const none = { skipped: new Set<number>(), actions: [0] };
        expect(walk(html, none, true, true)).toEqual(walk(html, none, false, true));
      }),
      { numRuns: 300 },
    );
  });

  it("gives the figures of measure with `kept`, whatever is skipped and whatever the visits remove", () => {
    fc.assert(
      fc.property(page, plan, (html, p) => {
        expect(walk(html, p, true, false)).toEqual(walk(html, p, false, false));
      }),
      { numRuns: 400 },
    );
  });

  it("adds a child to its parent only when it is kept after its visit", () => {
    const html = "<html><body><div><p>One, two.</p><p>Three four</p></div></body></html>";
    const removeFirst = { skipped: new Set<number>(), actions: [0, 0, 1, 0] };
    const fused = walk(html, removeFirst, true, false);
    expect(fused).toEqual(walk(html, removeFirst, false, false));
    // The div (position 1) has only the second paragraph's text: 9 characters, no comma.
    expect(fused.visits.find((v) => v.startsWith("1#"))).toMatch(/^1#\d+:9,0,0,0,0,0,1,/);
  });

  it("walks a tree deeper than its stack's first size", () => {
    const html = `<html><body>${"<div>".repeat(300)}x, y.${"</div>".repeat(300)}</body></html>`;
    const none = { skipped: new Set<number>(), actions: [0] };
    const fused = walk(html, none, true, true);
    expect(fused).toEqual(walk(html, none, false, true));
    // The body, numbered last, has the text's four characters, its comma and its sentence end.
    expect(fused.visits[300]).toMatch(/^0#300:4,0,0,0,1,1,/);
  });
});
