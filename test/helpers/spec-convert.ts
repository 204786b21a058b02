import { createRequire } from "node:module";
import { PRUNED_TAGS, isControlForm } from "../../shared/content/light-dom";
import { effectiveBase } from "../../shared/content/html-to-markdown";
import { neutralizeBoundaryMarkers } from "../../shared/content/neutralize";
import { createTurndownService } from "../../shared/content/turndown-setup";

interface DominoElement {
  remove(): void;
  getAttribute(name: string): string | null;
  textContent: string | null;
}
interface DominoNode {
  nodeType: number;
  firstChild: DominoNode | null;
  nextSibling: DominoNode | null;
  parentNode: DominoNode | null;
  removeChild(child: DominoNode): void;
  normalize(): void;
}
interface DominoDocument {
  body: DominoNode;
  querySelector(selector: string): DominoElement | null;
  querySelectorAll(selector: string): ArrayLike<DominoElement>;
}

// domino is turndown's own HTML5 (spec-compliant) parser; it is what turndown parses strings with.
const domino = createRequire(import.meta.url)("@mixmark-io/domino") as { createDocument(html: string): DominoDocument };

const PRUNE_SELECTOR = [...PRUNED_TAGS].join(",");

function removeComments(root: DominoNode): void {
  const stack: DominoNode[] = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    for (let child = node.firstChild; child !== null; ) {
      const next = child.nextSibling;
      if (child.nodeType === 8) node.removeChild(child);
      else if (child.nodeType === 1) stack.push(child);
      child = next;
    }
  }
}

/**
 * The reference for the fast whole-page path: the same pruning and turndown set-up over a
 * spec-compliant (HTML5 tree construction) parse instead of htmlparser2's.
 */
export function specFullPageMarkdown(html: string, baseUrl: string): string {
  const doc = domino.createDocument(html);
  const base = effectiveBase(baseUrl, doc.querySelector("base[href]")?.getAttribute("href") ?? null);
  const pruned = doc.querySelectorAll(PRUNE_SELECTOR);
  for (let i = 0; i < pruned.length; i++) pruned[i]!.remove();
  // The same form rule as the light tree (a pruning policy, not a parser property): with its
  // controls gone, a form is removed only if little text is left, otherwise it is unwrapped.
  const forms = doc.querySelectorAll("form");
  for (let i = 0; i < forms.length; i++) if (isControlForm(forms[i]!.textContent ?? "")) forms[i]!.remove();
  removeComments(doc.body);
  // Removing elements and comments leaves neighbouring text as separate nodes, which a parse
  // that never built them would have as one; merge them so both trees hold the same document.
  doc.body.normalize();
  return neutralizeBoundaryMarkers(createTurndownService(base).turndown(doc.body));
}
