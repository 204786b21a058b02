import { Parser, type Handler, type ParserOptions } from "htmlparser2";

/**
 * htmlparser2 12's `Parser` keeps its open elements in an array with the current element first:
 * every start tag is an `unshift` and every end tag a `shift`, each moving the whole array, and
 * every `<form>` runs `stack.includes("form")`. On a page of n nested elements that is O(n²):
 * 40,000 nested `<div>` took 1.5 s to parse, 128,000 far longer. This stack keeps the same
 * top-first view (`[0]`, `length`, `unshift`, `shift`, `indexOf`, `includes`) over an array in
 * push order, so each operation is O(1) (`indexOf` is amortized O(1): the distance it scans is
 * the number of elements the caller then pops). The tree htmlparser2 reports is unchanged (a
 * test parses the corpus both ways).
 */
class TopFirstStack<T> {
  private readonly items: T[] = [];
  private readonly counts = new Map<T, number>();
  /**
   * The top, as an own data property kept current by unshift and shift: htmlparser2 reads
   * `stack[0]` and `foreignContext[0]` on every tag, and an indexed getter on the prototype made
   * each read a slow runtime lookup (a tenth of the parse of a table).
   */
  0: T | undefined = undefined;

  constructor(initial: T[] = []) {
    for (const item of initial) this.unshift(item);
  }

  get length(): number {
    return this.items.length;
  }

  /** htmlparser2's reset() empties the stack with `length = 0`. */
  set length(value: number) {
    while (this.items.length > value) this.shift();
  }

  /** The element at depth `i` from the top (htmlparser2 reads `[0]`; onend reads every index). */
  at(i: number): T | undefined {
    return this.items[this.items.length - 1 - i];
  }

  unshift(item: T): number {
    this.items.push(item);
    this.counts.set(item, (this.counts.get(item) ?? 0) + 1);
    this[0] = item;
    return this.items.length;
  }

  shift(): T | undefined {
    const item = this.items.pop();
    this[0] = this.items[this.items.length - 1];
    if (item !== undefined) {
      const n = this.counts.get(item)! - 1;
      if (n === 0) this.counts.delete(item);
      else this.counts.set(item, n);
    }
    return item;
  }

  includes(item: T): boolean {
    return this.counts.has(item);
  }

  indexOf(item: T): number {
    if (!this.counts.has(item)) return -1;
    for (let i = this.items.length - 1; i >= 0; i--) if (this.items[i] === item) return this.items.length - 1 - i;
    return -1;
  }
}

/** The private members of htmlparser2's Parser this file replaces (htmlparser2 12.0.0). */
interface ParserInternals {
  stack: TopFirstStack<string>;
  foreignContext: TopFirstStack<number>;
  cbs: Partial<Handler>;
  startIndex: number;
  endIndex: number;
}

/**
 * htmlparser2's Parser with a linear open-element stack: the same events for the same input, in
 * time linear in the input whatever the nesting depth.
 */
export class LinearParser extends Parser {
  constructor(cbs: Partial<Handler>, options?: ParserOptions) {
    super(cbs, options);
    const self = this as unknown as ParserInternals;
    // The constructor starts foreignContext as [None] (0), as reset() does.
    self.stack = new TopFirstStack<string>();
    self.foreignContext = new TopFirstStack<number>([0]);
  }

  /** htmlparser2's onend, reading the stack top-first through `at` (it indexes the array). */
  override onend(): void {
    const self = this as unknown as ParserInternals;
    if (self.cbs.onclosetag) {
      self.endIndex = self.startIndex;
      for (let i = 0; i < self.stack.length; i++) self.cbs.onclosetag(self.stack.at(i)!, true);
    }
    self.cbs.onend?.();
  }
}
