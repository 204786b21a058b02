import type TurndownService from "turndown";
import type { LightElement, LightNode } from "./light-dom";
import { TURNDOWN_BLOCK, TURNDOWN_MEANINGFUL_WHEN_BLANK, TURNDOWN_VOID } from "./turndown-elements";

/**
 * turndown's conversion walk (turndown 7.2.5: `turndown`, `process`, `replacementForNode`, `Node`,
 * `join`, `postProcess`) over a light tree (light-dom.ts), with cheaper per-node bookkeeping: the
 * same rules, looked up in the same order, called in the same order with the same content, so the
 * same Markdown. What is cheaper, and why it gives the same result:
 *
 * - `isBlock`, `isCode`, `isBlank`: turndown tests every node's name against arrays of names and
 *   every element's whole text with a regex, and looks for void and "meaningful when blank"
 *   elements below a blank one with 27 `getElementsByTagName` walks. Here one walk over the tree
 *   after whitespace collapsing ({@link markProseFacts}) records for each element whether its text
 *   is blank and whether such elements are below it, the names are looked up in sets, and
 *   `isCode` (a `<code>` element or anything below one) is passed down the recursion.
 * - `flankingWhitespace`: turndown runs a seven-group regex over each inline element's text and
 *   each text node's (where no rule reads it). Here an element whose text neither starts nor ends
 *   with whitespace gets the empty edges the regex would give; any other goes through turndown's
 *   own steps (reproduced below); text nodes get none.
 * - `join`: turndown keeps the parts in arrays, trims newlines with regexes and joins them; here
 *   {@link MarkdownJoin} appends to one string with the same result.
 * - turndown writes the four facts on every node; here they stay in local variables, except
 *   `isBlock`, which turndown's default, blank and keep replacements read from the element. (No
 *   rule of webgate's service reads the other three from a node: the rule lookup gets them here.)
 * - `postProcess`: the output's leading tabs and newlines and trailing whitespace are cut by
 *   scanning from its ends, not by turndown's regexes (`[\t\r\n\s]+$` tries every run of
 *   whitespace in the whole output).
 * - tables whose parts hold text only are written by markdown-tables.ts's plain-table path.
 *
 * Only for turndown services without `preformattedCode` (turndown-setup.ts decides). A property
 * test compares this walk with turndown's own on random trees; the corpus and the extraction set
 * convert byte for byte as before.
 */

const BLOCK = TURNDOWN_BLOCK;
const VOID = TURNDOWN_VOID;
const MEANINGFUL_WHEN_BLANK = TURNDOWN_MEANINGFUL_WHEN_BLANK;

/** Bits of {@link LightElement.proseFacts}. */
const NON_BLANK_TEXT = 1;
const VOID_BELOW = 2;
const MEANINGFUL_BELOW = 4;

/** JavaScript's `\s` (WhiteSpace and LineTerminator), by code unit. */
function isSpace(c: number): boolean {
  if (c <= 0x20) return c === 0x20 || (c >= 0x09 && c <= 0x0d);
  if (c < 0xa0) return false;
  return c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
}

/** Whether `text` holds a character outside `\s` (turndown's `/^\s*$/i` fails on it). */
function hasNonSpace(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (!isSpace(text.charCodeAt(i))) return true;
  return false;
}

/** The bits an element passes to its parent: what is at or below it. */
function upward(el: LightElement): number {
  const name = el.nodeName;
  let bits = el.proseFacts;
  if (VOID.has(name)) bits |= VOID_BELOW;
  if (MEANINGFUL_WHEN_BLANK.has(name)) bits |= MEANINGFUL_BELOW;
  return bits;
}

/**
 * Records on every element below `root` (and on `root`) the facts the walk reads, in one walk
 * without recursion: whether its text is blank, and whether void or "meaningful when blank"
 * elements are below it. Run it after the last change to the tree (whitespace collapsing): the
 * walk trusts these facts.
 */
export function markProseFacts(root: LightElement): void {
  root.proseFacts = 0;
  let node: LightNode = root;
  descend: for (;;) {
    // An element's only text without a node (light-dom.ts's onlyText) is read where it is, its node not made.
    const only = node.nodeType === 1 ? node.onlyText : null;
    if (only !== null) noteProseText(only, node as LightElement);
    const first: LightNode | null = node.nodeType === 1 && only === null ? node.firstChild : null;
    if (first !== null) {
      enter(first);
      node = first;
      continue;
    }
    // `node` is done: fold it into its parent, then go on with its next sibling or climb.
    for (;;) {
      if (node === root) return;
      const parent: LightElement = node.parentNode!;
      if (node.nodeType === 1) parent.proseFacts |= upward(node);
      const sibling: LightNode | null = node.nextSibling;
      if (sibling !== null) {
        enter(sibling);
        node = sibling;
        continue descend;
      }
      node = parent;
    }
  }
}

/** A node reached for the first time: an element starts its facts, a text marks its parent non-blank. */
function enter(node: LightNode): void {
  if (node.nodeType === 1) node.proseFacts = 0;
  else noteProseText(node.data, node.parentNode!);
}

/**
 * For a walk that marks the facts as it goes ({@link markProseFacts}'s steps, exported for
 * collapse-whitespace.ts's walk, which marks them while it collapses): a text `data` of
 * `parent`'s marks it non-blank when it holds a character outside `\s`.
 */
export function noteProseText(data: string, parent: LightElement): void {
  if (hasNonSpace(data)) parent.proseFacts |= NON_BLANK_TEXT;
}

/** The other step of such a walk: `el`, whose facts are complete, folded into its parent's. */
export function foldProseFacts(el: LightElement): void {
  el.parentNode!.proseFacts |= upward(el);
}

/** A rule as turndown keeps it. */
export interface WalkRule {
  filter?: unknown;
  replacement(content: string, node: unknown, options: TurndownService.Options): string;
  append?: (options: TurndownService.Options) => string;
}

/** What the walk asks the turndown service (turndown-setup.ts builds it from the service's rules). */
export interface WalkRules {
  /** turndown's forNode without any fast path, for an element that is blank or not as `isBlank` says. */
  ruleFor(node: LightElement, isBlank: boolean): WalkRule;
  /** turndown's escape as the service has it. */
  escape(text: string): string;
  options: TurndownService.Options;
  /** The rule whose content {@link plainTableContent} may write (tables outside code). */
  tableRule: WalkRule;
  /** A plain table's content as turndown's walk would hand it to {@link tableRule}, or null (markdown-tables.ts). */
  plainTableContent(table: LightElement): string | null;
  /** The service's rules in turndown's order (`rules.array`): postProcess appends what their `append` returns. */
  rules: readonly WalkRule[];
}

/**
 * turndown's `turndown(root)` for a light tree whose whitespace is collapsed and whose facts are
 * marked ({@link markProseFacts}), without turndown's copy of the tree.
 */
export function convertTree(root: LightElement, rules: WalkRules): string {
  const out = new MarkdownJoin();
  // The root's own isCode is never set by turndown (it converts the root's children only).
  for (let n: LightNode | null = root.firstChild; n !== null; n = n.nextSibling) out.append(partOf(n, false, rules));
  for (const rule of rules.rules) if (typeof rule.append === "function") out.append(rule.append(rules.options));
  return trimOutput(out.text);
}

/** turndown's `output.replace(/^[\t\r\n]+/, "").replace(/[\t\r\n\s]+$/, "")`, by scanning from both ends. */
export function trimOutput(text: string): string {
  let start = 0;
  for (let c = text.charCodeAt(0); c === 9 || c === 10 || c === 13; c = text.charCodeAt(++start));
  let end = text.length;
  while (end > start && isSpace(text.charCodeAt(end - 1))) end--;
  return start === 0 && end === text.length ? text : text.slice(start, end);
}

const NO_FLANKING = Object.freeze({ leading: "", trailing: "" });

/** The Markdown of `el`'s children as turndown's `process(el).join("")` gives it; `isCode` is `el`'s own. */
function childrenContent(el: LightElement, isCode: boolean, rules: WalkRules): string {
  // An only text without a node (light-dom.ts's onlyText): what partOf gives for its node.
  const only = el.onlyText;
  if (only !== null) return joinOne(isCode ? only : rules.escape(only));
  const first = el.firstChild;
  if (first === null) return "";
  if (first.nextSibling === null) return joinOne(partOf(first, isCode, rules));
  const out = new MarkdownJoin();
  for (let n: LightNode | null = first; n !== null; n = n.nextSibling) out.append(partOf(n, isCode, rules));
  return out.text;
}

/**
 * turndown's join of a single part: the part with its leading newlines cut to two, its trailing
 * ones untouched (a heading's text, a link's, a cell's, a container of one block). Reading the
 * trailing run, as a join of several parts must, cost each level of deep nesting the whole run,
 * which turndown lets grow by two newlines per level.
 */
export function joinOne(part: string): string {
  let lead = 0;
  while (lead < part.length && part.charCodeAt(lead) === 10) lead++;
  return lead <= 2 ? part : part.slice(lead - 2);
}

/** One child's part of its parent's content: turndown's replacement for it; `parentIsCode` is the parent's isCode. */
function partOf(n: LightNode, parentIsCode: boolean, rules: WalkRules): string {
  // turndown also sets isBlock, isBlank and flankingWhitespace on text nodes, which nothing reads.
  if (n.nodeType === 3) return parentIsCode ? n.data : rules.escape(n.data);
  const node = n;
  const name = node.nodeName;
  const facts = node.proseFacts;
  // turndown's Node(): isCode, isBlank and the flanking whitespace stay local (only turndown's own
  // walk reads them from the node); isBlock is read by turndown's default, blank and keep replacements.
  const isCode = parentIsCode || name === "CODE";
  const isBlock = BLOCK.has(name);
  node.isBlock = isBlock;
  const isBlank = !VOID.has(name) && !MEANINGFUL_WHEN_BLANK.has(name) && (facts & (NON_BLANK_TEXT | VOID_BELOW | MEANINGFUL_BELOW)) === 0;
  const ws = isBlock ? NO_FLANKING : flankingWhitespace(node, rules.options);
  const rule = rules.ruleFor(node, isBlank);
  let content = (rule === rules.tableRule && !isCode ? rules.plainTableContent(node) : null) ?? childrenContent(node, isCode, rules);
  if (ws.leading !== "" || ws.trailing !== "") content = content.trim();
  return ws.leading + rule.replacement(content, node, rules.options) + ws.trailing;
}

/**
 * turndown's flankingWhitespace for an inline element: none when its text neither starts nor ends
 * with whitespace (every group of turndown's edge regex is then empty), else turndown's steps.
 */
function flankingWhitespace(node: LightElement, options: TurndownService.Options): { leading: string; trailing: string } {
  const text = node.textContent;
  if (text === "" || (!isSpace(text.charCodeAt(0)) && !isSpace(text.charCodeAt(text.length - 1)))) return NO_FLANKING;
  const edges = edgeWhitespace(text);
  if (edges.leadingAscii && isFlankedByWhitespace("left", node, options)) edges.leading = edges.leadingNonAscii;
  if (edges.trailingAscii && isFlankedByWhitespace("right", node, options)) edges.trailing = edges.trailingNonAscii;
  return { leading: edges.leading, trailing: edges.trailing };
}

// turndown 7.2.5's edgeWhitespace and isFlankedByWhitespace (not exported by it), as written there.
function edgeWhitespace(string: string): { leading: string; leadingAscii: string; leadingNonAscii: string; trailing: string; trailingNonAscii: string; trailingAscii: string } {
  const m = string.match(/^(([ \t\r\n]*)(\s*))(?:(?=\S)[\s\S]*\S)?((\s*?)([ \t\r\n]*))$/)!;
  return { leading: m[1]!, leadingAscii: m[2]!, leadingNonAscii: m[3]!, trailing: m[4]!, trailingNonAscii: m[5]!, trailingAscii: m[6]! };
}

function isFlankedByWhitespace(side: "left" | "right", node: LightElement, options: TurndownService.Options): boolean {
  const sibling = side === "left" ? node.previousSibling : node.nextSibling;
  const regExp = side === "left" ? / $/ : /^ /;
  if (sibling === null) return false;
  if (sibling.nodeType === 3) return regExp.test(sibling.data);
  if (options.preformattedCode && sibling.nodeName === "CODE") return false;
  return !BLOCK.has(sibling.nodeName) && regExp.test(sibling.textContent);
}

/**
 * turndown's `join` (turndown 7.2.5, not exported) on a growing string instead of turndown's array
 * of parts: each replacement is appended with the newlines at the seam (the text's trailing ones,
 * the replacement's leading ones) replaced by as many of them as the longer run has, at most two.
 * turndown looks only at its last part, whose trailing newlines are always those of the whole
 * (every part before the last ends in something else), so the string gives the same result.
 *
 * The trailing newlines are kept as a count beside the text, not in it, until {@link text} is
 * read: taking them off the end of a string built by appending would flatten it at every seam,
 * quadratic in the content.
 */
export class MarkdownJoin {
  /** The text so far without its trailing newlines. */
  private body = "";
  /** How many newlines end the text so far. */
  private trailing = 0;

  /** The joined text (turndown's `output.join("")`). */
  get text(): string {
    return this.trailing === 0 ? this.body : this.body + "\n".repeat(this.trailing);
  }

  append(replacement: string): void {
    let lead = 0;
    while (lead < replacement.length && replacement.charCodeAt(lead) === 10) lead++;
    const newlines = this.trailing > lead ? Math.min(2, this.trailing) : Math.min(2, lead);
    if (lead === replacement.length) {
      // Nothing but newlines: they stay at the end, as many as the seam keeps.
      this.trailing = newlines;
      return;
    }
    let end = replacement.length;
    while (replacement.charCodeAt(end - 1) === 10) end--;
    this.trailing = replacement.length - end;
    // Slicing a string built by concatenation copies it whole: the replacement's own leading
    // newlines stay as part of the seam when there are no more of them than the seam has.
    if (lead <= newlines) {
      const core = end === replacement.length ? replacement : replacement.slice(0, end);
      const more = newlines - lead;
      this.body += more === 0 ? core : more === 1 ? "\n" + core : "\n\n" + core;
    } else {
      this.body += "\n\n" + replacement.slice(lead, end);
    }
  }
}
