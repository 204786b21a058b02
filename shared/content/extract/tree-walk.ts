import type { WorkMeter } from "../conversion-deadline";
import type { LightElement, LightNode } from "../light-dom";
import { run } from "./run-state";

/**
 * Walks over the light tree for the main-content extraction: a post-order walk with skipped
 * subtrees (iterative over the sibling and parent links, no recursion and no stack to grow) and
 * the neighbour look-ups of the rules. The walks tick the run's meter (run-state.ts).
 */

/**
 * Post-order walk of `root`'s element subtree, children before parents, not descending into
 * elements for which `skip` is true (they are not visited either). `skip` is asked once about each
 * child, before the child's subtree is walked. Iterative over the sibling and parent links: no
 * recursion depth and no stack to grow.
 */
export function postOrder(root: LightElement, skip: (el: LightElement) => boolean, visit: (el: LightElement) => void): void {
  // The run's meter is set before its walks and cleared after them: read once per walk, not per element.
  const meter = run.meter;
  let el = deepestFirst(root, skip, meter);
  for (;;) {
    meter?.tick();
    visit(el);
    if (el === root) return;
    const next = nextKept(el.nextSibling, skip);
    el = next === null ? el.parentNode! : deepestFirst(next, skip, meter);
  }
}

/** The first element from `n` on among its siblings for which `skip` is false. */
function nextKept(n: LightNode | null, skip: (el: LightElement) => boolean): LightElement | null {
  for (; n !== null; n = n.nextSibling) if (n.nodeType === 1 && !skip(n)) return n;
  return null;
}

/** Where a post-order walk of `el`'s subtree starts: down the first kept children to one without any. */
function deepestFirst(el: LightElement, skip: (el: LightElement) => boolean, meter: WorkMeter | undefined): LightElement {
  for (;;) {
    meter?.tick();
    const child = nextKept(el.firstChild, skip);
    if (child === null) return el;
    el = child;
  }
}

/**
 * Pre-order walk of `root`'s element subtree, parents before children: `enter` is asked about
 * each element (`root` first), and the walk goes into its children only when it answers true;
 * `leave` is told when the walk comes back out of an element it went into. Iterative over the
 * sibling and parent links: no stack, where one that holds every child of a flat page's body
 * (hundreds of thousands) grows by copies and is moved by the garbage collector. Ticks the run's
 * meter once per element entered.
 */
export function preOrder(root: LightElement, enter: (el: LightElement) => boolean, leave: (el: LightElement) => void): void {
  const meter = run.meter;
  meter?.tick();
  if (!enter(root)) return;
  let parent = root;
  let n: LightNode | null = root.firstChild;
  for (;;) {
    for (; n !== null; n = n.nextSibling) {
      if (n.nodeType !== 1) continue;
      meter?.tick();
      if (enter(n)) break;
    }
    if (n !== null) {
      parent = n;
      n = n.firstChild;
      continue;
    }
    // Every child of `parent` is done: back out of it.
    leave(parent);
    if (parent === root) return;
    n = parent.nextSibling;
    parent = parent.parentNode!;
  }
}

export function previousElement(el: LightElement): LightElement | null {
  for (let n = el.previousSibling; n !== null; n = n.previousSibling) if (n.nodeType === 1) return n;
  return null;
}

export function firstElement(el: LightElement): LightElement | null {
  for (let n = el.firstChild; n !== null; n = n.nextSibling) if (n.nodeType === 1) return n;
  return null;
}

export function ancestorsOf(el: LightElement, stop: LightElement): Set<LightElement> {
  const out = new Set<LightElement>();
  for (let p = el.parentNode; p !== null && p !== stop; p = p.parentNode) out.add(p);
  return out;
}

export function elementChildCount(el: LightElement, kept: (el: LightElement) => boolean): number {
  let n = 0;
  for (let c = el.firstChild; c !== null; c = c.nextSibling) if (c.nodeType === 1 && kept(c)) n++;
  return n;
}

/** The last element child of `el` that cleaning kept, when no text follows it in `el`. */
export function lastKept(el: LightElement, removed: ReadonlySet<LightElement>): LightElement | null {
  return keptBackFrom(el.lastChild, removed);
}

/** The element before `el` among its siblings that cleaning kept, when no text lies between. */
export function previousKept(el: LightElement, removed: ReadonlySet<LightElement>): LightElement | null {
  return keptBackFrom(el.previousSibling, removed);
}

/** The first element from `n` back among its siblings that cleaning kept, when no text lies on the way. */
function keptBackFrom(n: LightNode | null, removed: ReadonlySet<LightElement>): LightElement | null {
  for (; n !== null; n = n.previousSibling) {
    if (n.nodeType === 3) {
      if (n.data.trim() !== "") return null;
      continue;
    }
    if (!removed.has(n)) return n;
  }
  return null;
}
