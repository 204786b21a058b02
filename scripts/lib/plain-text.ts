/**
 * Plain text of a DOM subtree (light tree or linkedom/jsdom): text nodes in order, a line break
 * around block-level elements and at `<br>`, nothing of scripts and styles. Used to score
 * extractors that return an element (Readability) on the same footing as webgate's text output.
 */
interface TextNodeLike {
  nodeType: number;
  nodeName: string;
  data?: string;
  firstChild: TextNodeLike | null;
  nextSibling: TextNodeLike | null;
}

const INLINE = new Set(["A", "ABBR", "B", "BDI", "BDO", "BIG", "CITE", "CODE", "DATA", "DEL", "DFN", "EM", "FONT", "I", "INS", "KBD", "LABEL", "MARK", "NOBR", "Q", "S", "SAMP", "SMALL", "SPAN", "STRIKE", "STRONG", "SUB", "SUP", "TIME", "TT", "U", "VAR", "WBR", "IMG"]);
const SKIP = new Set(["SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE"]);

export function plainText(root: unknown): string {
  const parts: string[] = [];
  const stack: (TextNodeLike | "\n")[] = [root as TextNodeLike];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node === "\n") {
      parts.push("\n");
      continue;
    }
    if (node.nodeType === 3) {
      parts.push(node.data ?? "");
      continue;
    }
    if (node.nodeType !== 1 && node.nodeType !== 9 && node.nodeType !== 11) continue;
    const name = node.nodeName.toUpperCase();
    if (SKIP.has(name)) continue;
    if (name === "BR") {
      parts.push("\n");
      continue;
    }
    const block = !INLINE.has(name);
    if (block) {
      parts.push("\n");
      stack.push("\n");
    }
    const children: TextNodeLike[] = [];
    for (let c = node.firstChild; c !== null; c = c.nextSibling) children.push(c);
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
  }
  return parts.join("").replace(/[ \t\u00a0]*\n\s*/g, "\n").trim();
}
