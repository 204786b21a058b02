/**
 * removeServerMessages' walk over the tree's links removes what a walk that judges each whole
 * child list before going down removed (the stack walk it replaced, kept here as the reference).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { removeServerMessages, serverMessageEnd } from "../../../../../shared/content/extract/server-messages";
import { type LightElement, type LightNode, parseLightDocument } from "../../../../../shared/content/light-dom";
import { SERVER_MESSAGE_TEXT } from "../../../../../shared/content/extract/patterns";

function referenceRemove(root: LightElement): void {
  const stack: LightElement[] = [root];
  while (stack.length > 0) {
    const el = stack.pop()!;
    for (let n = el.firstChild; n !== null; ) {
      let next = n.nextSibling;
      if (n.nodeType === 1) {
        const end = n.nodeName === "B" ? serverMessageEnd(n) : null;
        if (end === null) {
          stack.push(n);
        } else {
          next = end.nextSibling;
          let before = n.previousSibling;
          while (before !== null && before.nodeType === 3 && before.data.trim() === "") before = before.previousSibling;
          if (before?.nodeName === "BR") el.removeChild(before);
          for (let c: LightNode | null = n; c !== next && c !== null; ) {
            const following: LightNode | null = c.nextSibling;
            el.removeChild(c);
            c = following;
          }
          if (next?.nodeName === "BR") {
            const after: LightNode | null = next.nextSibling;
            el.removeChild(next);
            next = after;
          }
        }
      } else if (n.data.includes(" on line ")) {
        const text = n.data.replace(SERVER_MESSAGE_TEXT, "");
        if (text !== n.data) n.data = text;
      }
      n = next;
    }
  }
}

function markup(el: LightElement): string {
  let out = "";
  for (let n = el.firstChild; n !== null; n = n.nextSibling) out += n.nodeType === 3 ? n.data : `<${n.nodeName}>${markup(n)}</${n.nodeName}>`;
  return out;
}

const MESSAGE = "<br />\n<b>Warning</b>:  Creating default object in <b>/var/www/a.php</b> on line <b>12</b><br />\n";
const PIECES = [MESSAGE, "<b>Notice</b>: x in <b>/b.php</b> on line <b>3</b>", "Notice: y in /c.php on line 7 and more", "<p>", "</p>", "<div>", "</div>", "<b>", "</b>", "text", " ", "<br>", "<i>a</i>", "<b>Warning</b>", ": z", " on line ", "<b>9</b>"];

describe("removeServerMessages", () => {
  it("removes what the whole-list-first walk removed, on random trees of messages and their parts", () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...PIECES), { maxLength: 24 }), (pieces) => {
        const html = `<html><body>${pieces.join("")}</body></html>`;
        const [a, b] = [parseLightDocument(html).body, parseLightDocument(html).body];
        referenceRemove(a);
        removeServerMessages(b);
        expect(markup(b)).toBe(markup(a));
      }),
      { numRuns: 500 },
    );
  });

  it("removes a message nested in blocks, and its line breaks", () => {
    const body = parseLightDocument(`<html><body><div><p>Before</p><div>${MESSAGE}<p>After</p></div></div></body></html>`).body;
    removeServerMessages(body);
    expect(markup(body)).toBe("<DIV><P>Before</P><DIV>\n\n<P>After</P></DIV></DIV>");
  });
});
