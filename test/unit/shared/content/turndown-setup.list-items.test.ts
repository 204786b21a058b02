/**
 * Ordered lists number their items by position among the list's elements; the tree walk finds
 * each item's position from the one before it (turndown-setup.ts, listItemIndex) instead of
 * searching the list's children for every item. Checked against turndown's own walk and rule
 * lookup, and on a list long enough that the search made it quadratic.
 */
import type TurndownService from "turndown";
import { describe, expect, it } from "vitest";
import { htmlToMarkdown, turndownSingleUse } from "../../../../shared/content/html-to-markdown";
import { type LightElement, parseLightDocument } from "../../../../shared/content/light-dom";
import { createTurndownService } from "../../../../shared/content/turndown-setup";

function turndownWalkService(): TurndownService {
  const service = createTurndownService(null);
  delete (service as unknown as { rules: { forNode?: unknown } }).rules.forNode;
  return service;
}

describe("ordered list item numbers", () => {
  const pages = [
    '<ol start="3"><li>a</li> text <li>b<ol><li>c</li><li>d</li></ol></li><!-- x --><li>e</li></ol>',
    "<ol><li>a<ol><li>b<li>c</ol><li>d<li>e</ol><ol><li>f<li>g</ol>",
    "<ol><p>p</p><li>a</li><span>s</span><li>b</li></ol><ul><li>u</ul><ol><li>o</ol>",
  ];

  it.each(pages)("numbers %s as turndown's walk does", (html) => {
    const ours = turndownSingleUse(createTurndownService(null), parseLightDocument(html).body);
    expect(ours).toBe(turndownWalkService().turndown(parseLightDocument(html).body));
  });

  it("numbers the same tree the same when it is converted again after a change", () => {
    const service = createTurndownService(null);
    const doc = parseLightDocument("<ol><li>a<li>b<li>c</ol>");
    const list = doc.body.firstChild as LightElement;
    expect(turndownSingleUse(service, doc.body)).toBe("1. a\n2. b\n3. c");
    // An item added before the others: every number after it moves.
    const extra = (parseLightDocument("<ol><li>z</ol>").body.firstChild as LightElement).firstChild!;
    extra.parentNode!.removeChild(extra);
    list.insertBefore(extra, list.firstChild!);
    expect(turndownSingleUse(service, doc.body)).toBe("1. z\n2. a\n3. b\n4. c");
  });

  it("numbers a list of 100,000 items", () => {
    const html = `<html><body><ol>${"<li>x".repeat(100_000)}</ol></body></html>`;
    const lines = htmlToMarkdown(html, { baseUrl: "https://example.com/", mainContent: false }).markdown.split("\n");
    expect(lines).toHaveLength(100_000);
    expect(lines[0]).toBe("1. x");
    expect(lines[99_999]).toBe("100000. x");
  });
});
