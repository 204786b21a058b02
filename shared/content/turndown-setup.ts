import TurndownService from "turndown";
import { gfm } from "@joplin/turndown-plugin-gfm";
import type { WorkMeter } from "./conversion-deadline";
import { LightElement, structureVersion } from "./light-dom";
import { type LinearTables, useLinearTables } from "./markdown-tables";
import { type WalkRules, convertTree } from "./prose-walk";
import { ReferenceResolver } from "./references";

/** webgate's turndown options: ATX headings, fenced code blocks, `-` bullets, inline links. */
export const TURNDOWN_OPTIONS: TurndownService.Options = {
  headingStyle: "atx",
  codeBlockStyle: "fenced",
  fence: "```",
  bulletListMarker: "-",
  hr: "---",
  emDelimiter: "_",
  strongDelimiter: "**",
  linkStyle: "inlined",
};

/**
 * A superset of what turndown's escapes match: `\ * ` [ ] _` anywhere, `- + = # ~ >` at the start,
 * or digits and `. ` at the start (an ordered-list marker; a number alone needs no escape, and
 * table cells of numbers were the common case).
 */
const MAY_NEED_ESCAPE_ANYWHERE = /[\\*`[\]_]/;
const MAY_NEED_ESCAPE_AT_START = /^(?:[-+=#~>]|\d+\. )/;

/** `\ * ` [ ] _` by code: {@link MAY_NEED_ESCAPE_ANYWHERE}'s characters. */
const ESCAPED_CODES = new Uint8Array(128);
for (const c of "\\*`[]_") ESCAPED_CODES[c.charCodeAt(0)] = 1;

/**
 * Texts up to this long are scanned a character at a time instead of by the regex: a regex call
 * costs more than the scan of a short text, and a table of one-word cells or a page of short
 * paragraphs has one text per element.
 */
const SHORT_TEXT = 16;

/** {@link MAY_NEED_ESCAPE_ANYWHERE}`.test(text)`, by a scan. */
function hasEscapedCharacter(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 128 && ESCAPED_CODES[c] === 1) return true;
  }
  return false;
}

/**
 * Whether `text` may need escaping (see the two patterns above). One pattern with both parts
 * (`a|^b`) made the regex engine try the anchored part at every position; as two tests, with the
 * anchored one only when the first character can start it, it takes half the time.
 */
function mayNeedEscape(text: string): boolean {
  if (text.length <= SHORT_TEXT ? hasEscapedCharacter(text) : MAY_NEED_ESCAPE_ANYWHERE.test(text)) return true;
  const c = text.charCodeAt(0);
  // - + = # ~ > or a digit
  return (c === 45 || c === 43 || c === 61 || c === 35 || c === 126 || c === 62 || (c >= 48 && c <= 57)) && MAY_NEED_ESCAPE_AT_START.test(text);
}

/** The characters turndown escapes wherever they are (its escapes for `\\`, `*`, `` ` ``, `[`, `]`, `_`). */
const ESCAPED_ANYWHERE = /[\\*`[\]_]/g;
const HEADING_START = /^#{1,6} /;
const ORDERED_MARKER_START = /^\d+\. /;

/**
 * turndown 7.2.5's `escape` (its `escapeMarkdown`: 13 regex replacements in a row over the
 * text) in one replacement and at most one edit at the start, with the same result. Its global
 * escapes each put one backslash before a character of {@link ESCAPED_ANYWHERE} (the first
 * doubles the backslashes that are there; the backslashes the others add come after it). Its
 * start-of-text escapes (`-`, `+ `, `=`…, `#`… , `~~~`, `>`, `1. `) match no character the global
 * ones escape, so the global ones never change whether they match; and once one has matched the
 * text starts with a backslash, which none of the others matches: at most one applies, the one
 * the first character names.
 */
function escapeMarkdown(text: string): string {
  const escaped = text.replace(ESCAPED_ANYWHERE, "\\$&");
  switch (escaped.charCodeAt(0)) {
    case 45: // -
    case 61: // = (one or more)
    case 62: // >
      return "\\" + escaped;
    case 43: // "+ "
      return escaped.startsWith("+ ") ? "\\" + escaped : escaped;
    case 35: // "#" to "######", then a space
      return HEADING_START.test(escaped) ? "\\" + escaped : escaped;
    case 126: // ~~~
      return escaped.startsWith("~~~") ? "\\" + escaped : escaped;
    default: {
      // digits, then ". ": the backslash goes before the dot
      const marker = ORDERED_MARKER_START.exec(escaped);
      if (marker === null) return escaped;
      const dot = marker[0].length - 2;
      return `${escaped.slice(0, dot)}\\${escaped.slice(dot)}`;
    }
  }
}

// turndown's own helpers (not exported by it), reproduced so the replaced rules escape alike.
function cleanAttribute(value: string | null): string {
  return value ? value.replace(/(\n+\s*)+/g, "\n") : "";
}

/** What {@link escapeLinkDestination} changes: most destinations hold none of it and are returned as they are. */
const DESTINATION_SPECIAL = /[<>() ]/;

function escapeLinkDestination(destination: string): string {
  if (!DESTINATION_SPECIAL.test(destination)) return destination;
  const escaped = destination.replace(/([<>()])/g, "\\$1");
  return escaped.includes(" ") ? `<${escaped}>` : escaped;
}

function escapeLinkTitle(title: string): string {
  return title.replace(/"/g, '\\"');
}

/** A block whose single line can carry a link: not a list item, quote, fence, table row or rule. */
const NOT_LINKABLE = /^(?:[-+*] |\d+[.)] |>|```|~~~|\||---|!\[)/;
const HEADING = /^(#{1,6} )(.+)$/;
/** An absolute URL CommonMark can write as an autolink `<…>`: a scheme, no spaces, no angle brackets. */
const AUTOLINKABLE = /^[a-z][a-z0-9+.-]{1,31}:[^\s<>]*$/i;

/**
 * A link around block content (`<a><h4>Title</h4><p>teaser</p></a>`, failure class 5): Markdown
 * links hold inline content only, and `[\n\n#### Title\n\n](url)` is not a link at all (the URL
 * leaks into the text). The link moves inside the first heading (`#### [Title](url)`), else
 * around the first block that is a single plain line; when no block can carry it (only lists,
 * quotes, code or tables), the blocks stay as they are and the link follows on its own line.
 */
function linkAroundBlocks(content: string, href: string, titlePart: string): string {
  const blocks = content.trim().split(/\n{2,}/);
  const single = (b: string) => !b.includes("\n") && !b.includes("](");
  let at = blocks.findIndex((b) => single(b) && HEADING.test(b));
  if (at === -1) at = blocks.findIndex((b) => single(b) && !NOT_LINKABLE.test(b) && b.trim() !== "");
  const destination = `(${escapeLinkDestination(href)}${titlePart})`;
  if (at === -1) {
    const own = AUTOLINKABLE.test(href) && titlePart === "" ? `<${href}>` : `[${href.replace(/([\\[\]])/g, "\\$1")}]${destination}`;
    return `\n\n${blocks.join("\n\n")}\n\n${own}\n\n`;
  }
  const heading = HEADING.exec(blocks[at]!);
  blocks[at] = heading ? `${heading[1]}[${heading[2]}]${destination}` : `[${blocks[at]}]${destination}`;
  return `\n\n${blocks.join("\n\n")}\n\n`;
}

/**
 * A list item's content as turndown's rule prepares it, `content.replace(/^\n+/, "")
 * .replace(/\n+$/, "\n").replace(/\n/gm, "\n" + indent)`: leading newlines cut, trailing ones
 * cut to one, every line after the first indented by `width` spaces. The ends are found by
 * scanning from them (`/\n+$/` tries every position of the content), and content of one line
 * is not searched for newlines a second time.
 */
export function indentItem(content: string, width: number): string {
  let start = 0;
  while (content.charCodeAt(start) === 10) start++;
  let end = content.length;
  while (end > start && content.charCodeAt(end - 1) === 10) end--;
  if (start === end) return "";
  const core = start === 0 && end === content.length ? content : content.slice(start, end);
  const item = end < content.length ? core + "\n" : core;
  return item.includes("\n") ? item.replace(/\n/g, `\n${" ".repeat(width)}`) : item;
}

/** The last item whose index {@link listItemIndex} found in each light-dom list, and the tree structure it was found in. */
const lastListItems = new WeakMap<object, { item: unknown; index: number; version: number }>();

/**
 * `node`'s index among `list.children` (its position among the list's elements), for the ordered
 * list's item numbers. turndown converts a list's items in order, so for a light-dom list the item
 * after the last one asked about is one further along: `indexOf` on the list's children for every
 * item made an `<ol>` of n items cost O(n²) (160,000 items took 4.5 s). Any other DOM, a tree changed
 * since, or an item not right after the last one, is looked up by `indexOf` as before.
 */
function listItemIndex(list: { children: ArrayLike<unknown> }, node: unknown): number {
  if (!(node instanceof LightElement)) return Array.prototype.indexOf.call(list.children, node);
  let previous = node.previousSibling;
  while (previous !== null && previous.nodeType !== 1) previous = previous.previousSibling;
  const version = structureVersion();
  const last = lastListItems.get(list);
  const index = previous === null ? 0 : last !== undefined && last.item === previous && last.version === version ? last.index + 1 : Array.prototype.indexOf.call(list.children, node);
  if (last === undefined) lastListItems.set(list, { item: node, index, version });
  else {
    last.item = node;
    last.index = index;
    last.version = version;
  }
  return index;
}

function hasTableAncestor(node: RuleNode): boolean {
  for (let p = node.parentNode; p !== null; p = p.parentNode) {
    if (p.nodeName === "TABLE") return true;
  }
  return false;
}

/**
 * The DOM surface the rules read (satisfied by browser DOMs, linkedom and light-dom). turndown
 * types its nodes with the DOM lib, which this project does not compile with; rules narrow to this.
 */
interface RuleNode {
  nodeName: string;
  parentNode: RuleNode | null;
  getAttribute(name: string): string | null;
  getElementsByTagName(name: string): ArrayLike<unknown>;
}

function asRuleNode(node: unknown): RuleNode {
  return node as RuleNode;
}

/**
 * Builds webgate's turndown service: {@link TURNDOWN_OPTIONS} (overridable, for the corpus
 * comparison), GFM tables, strikethrough, task lists and highlighted code blocks from `@joplin/turndown-plugin-gfm`, and
 * rules that
 * - resolve link and image references against `baseUrl` (the final URL or `<base href>`);
 * - drop `data:` images and images without `src`;
 * - reduce `javascript:`/`vbscript:`/`data:` links, and links whose text is empty, to their text;
 * - turn tables the plugin would keep as raw HTML (they hold code, lists, headings…) into
 *   Markdown text instead, since agents read the Markdown, not a rendering;
 * - write GFM tables in time linear in the table (markdown-tables.ts replaces the plugin's table rules).
 *
 * `meter` counts one unit per element and text node converted (the conversion's deadline checkpoints).
 */
export function createTurndownService(baseUrl: string | null, overrides: TurndownService.Options = {}, meter?: WorkMeter): TurndownService {
  return buildService({ baseUrl, meter }, overrides);
}

/** What a service's rules read of the conversion at hand (see {@link conversionService}). */
interface ConversionContext {
  baseUrl: string | null;
  meter: WorkMeter | undefined;
  /**
   * Set when a table rule was picked: the table rules keep caches keyed by the tree's tables
   * (markdown-tables.ts), which are emptied before the service converts another tree.
   */
  tablesUsed?: boolean;
  /** The service's table rules (set when the service is built). */
  tables?: LinearTables;
  /** The references' resolver for `baseUrl`, made on first use. */
  resolver?: ReferenceResolver;
}

function resolverOf(context: ConversionContext): ReferenceResolver {
  if (context.resolver === undefined || context.resolver.baseUrl !== context.baseUrl) context.resolver = new ReferenceResolver(context.baseUrl);
  return context.resolver;
}

let shared: { service: TurndownService; context: ConversionContext } | null = null;

/**
 * {@link createTurndownService}`(baseUrl, {}, meter)` for one conversion, without building a
 * service each time: one service with webgate's options is kept, and its rules read `baseUrl` and
 * `meter` from a context set here. Building the service (turndown's rules, the GFM plugin,
 * webgate's rules, the rule index) took ~0.1 ms, a tenth of converting a 10 KB page. Conversions
 * are synchronous and nothing converts inside a rule, so one context at a time is enough; the
 * service's rule index (by tag) is filled once instead of once per page. After a page whose tables
 * were converted the table rules' caches are emptied (see ConversionContext.tablesUsed; building
 * a fresh service instead cost a fifth of the corpus's pages 0.1-0.4 ms each). Each worker thread
 * has its own module, so its own service.
 */
export function conversionService(baseUrl: string | null, meter: WorkMeter | undefined): TurndownService {
  if (shared === null) {
    const context: ConversionContext = { baseUrl, meter };
    shared = { service: buildService(context, {}), context };
  } else if (shared.context.tablesUsed === true) {
    shared.context.tables!.forgetTrees();
    shared.context.tablesUsed = false;
  }
  shared.context.baseUrl = baseUrl;
  shared.context.meter = meter;
  return shared.service;
}

function buildService(context: ConversionContext, overrides: TurndownService.Options): TurndownService {
  const service = new TurndownService({ ...TURNDOWN_OPTIONS, ...overrides });
  // turndown runs 13 regex replacements over every text node. Most text holds none of the
  // characters they look for; skipping those nodes gives identical output, faster, and the
  // others get the same escaping in one replacement (escapeMarkdown).
  service.escape = (text: string) => {
    context.meter?.tick();
    return mayNeedEscape(text) ? escapeMarkdown(text) : text;
  };
  fastHeadings(service);
  fastInlineCode(service);
  // The rules' names, for the filters' guards (see FILTER_GUARDS): turndown's array keeps only the rules.
  const named = new Map<string, Rule>(Object.entries((service.options as { rules?: Record<string, Rule> }).rules ?? {}));
  const addRule = service.addRule.bind(service);
  service.addRule = (key, rule) => {
    named.set(key, rule as Rule);
    return addRule(key, rule);
  };
  service.use(gfm);
  const before = new Set(rulesOf(service).array);
  const tables = useLinearTables(service);
  context.tables = tables;
  const tableRules = new Set(rulesOf(service).array.filter((rule) => !before.has(rule)));

  // A row or cell outside any table (left by Readability's clean-up, or by a stray tag) would
  // crash the GFM plugin, which looks up the parent table: render it as plain text instead.
  service.addRule("webgateOrphanTableParts", {
    filter: (node) => {
      const el = asRuleNode(node);
      return (el.nodeName === "TR" || el.nodeName === "TD" || el.nodeName === "TH") && !hasTableAncestor(el);
    },
    replacement: (content, node) => (asRuleNode(node).nodeName === "TR" ? `\n\n${content}\n\n` : ` ${content} `),
  });

  // turndown pads list markers to four columns ("-   item", "1.  item"). CommonMark needs only
  // the marker and one space; the padding is pure token cost for an agent. Continuation lines
  // are indented to the content column, so nested lists and paragraphs stay inside the item.
  service.addRule("webgateListItem", {
    filter: "li",
    replacement: (content, node, options) => {
      const el = node as unknown as RuleNode & { parentNode: (RuleNode & { children: ArrayLike<unknown> }) | null; nextSibling: unknown };
      let prefix = `${options.bulletListMarker ?? "-"} `;
      const parent = el.parentNode;
      if (parent !== null && parent.nodeName === "OL") {
        const start = parent.getAttribute("start");
        const index = listItemIndex(parent, node);
        prefix = `${start !== null && start.trim() !== "" && Number.isFinite(Number(start)) ? Number(start) + index : index + 1}. `;
      }
      const body = indentItem(content, prefix.length);
      return prefix + body + (el.nextSibling && !body.endsWith("\n") ? "\n" : "");
    },
  });

  service.addRule("webgateImage", {
    filter: "img",
    replacement: (_content, node) => {
      const el = asRuleNode(node);
      const src = el.getAttribute("src") ?? "";
      if (src.trim() === "") return "";
      const href = resolverOf(context).image(src);
      if (href === null) return "";
      const alt = service.escape(cleanAttribute(el.getAttribute("alt")));
      const title = cleanAttribute(el.getAttribute("title"));
      const titlePart = title ? ` "${escapeLinkTitle(title)}"` : "";
      return `![${alt}](${escapeLinkDestination(href)}${titlePart})`;
    },
  });

  service.addRule("webgateInlineLink", {
    filter: (node, options) => {
      const el = asRuleNode(node);
      return options.linkStyle === "inlined" && el.nodeName === "A" && Boolean(el.getAttribute("href"));
    },
    replacement: (content, node) => {
      const el = asRuleNode(node);
      const { href, textOnly } = resolverOf(context).link(el.getAttribute("href") ?? "");
      if (textOnly || content.trim() === "") return content;
      const title = escapeLinkTitle(cleanAttribute(el.getAttribute("title")));
      const titlePart = title ? ` "${title}"` : "";
      if (content.includes("\n\n")) return linkAroundBlocks(content, href, titlePart);
      return `[${content}](${escapeLinkDestination(href)}${titlePart})`;
    },
  });
  // turndown's own addRule again (from its prototype).
  delete (service as { addRule?: unknown }).addRule;
  indexRulesByTag(service, context, tables, tableRules, filterGuards(named));
  return service;
}

/**
 * What an element must be for a rule's function filter to match it, for the rules of webgate's
 * service that have one (read from turndown 7.2.5, `@joplin/turndown-plugin-gfm` 1.0.68 and this
 * service's own rules, by the name each was added under): the tag names it can match, or
 * "attributes" for a filter that matches only elements with attributes (the task-list filter asks
 * for `type="checkbox"` or `role="checkbox"` on any tag). A filter not listed here may match
 * anything and is asked for every element. A test checks each guard against its filter on
 * elements of every tag, with and without attributes.
 */
export const FILTER_GUARDS: Readonly<Record<string, readonly string[] | "attributes">> = {
  indentedCodeBlock: ["PRE"],
  fencedCodeBlock: ["PRE"],
  inlineLink: ["A"],
  referenceLink: ["A"],
  code: ["CODE"],
  highlightedCodeBlock: ["DIV"],
  table: ["TABLE"],
  taskListItems: "attributes",
  webgateOrphanTableParts: ["TR", "TD", "TH"],
  webgateInlineLink: ["A"],
  webgateTable: ["TABLE"],
};

/** A function filter's guard (see {@link FILTER_GUARDS}): the tags it can match, or null for any tag with attributes. */
type Guard = ReadonlySet<string> | null;

/** The guards of the named rules' function filters, by filter (a copy of a rule made by replaceTurndownRule keeps its filter). */
function filterGuards(named: ReadonlyMap<string, Rule>): Map<Filter, Guard> {
  const guards = new Map<Filter, Guard>();
  for (const [name, guard] of Object.entries(FILTER_GUARDS)) {
    const filter = named.get(name)?.filter;
    if (typeof filter === "function") guards.set(filter, guard === "attributes" ? null : new Set(guard));
  }
  return guards;
}

/** turndown's own rule of that name (its `options.rules`, the CommonMark rules it starts a service with), if any. */
function turndownRuleOf(service: TurndownService, name: string): Rule | undefined {
  return (service.options as { rules?: Record<string, Rule> }).rules?.[name];
}

/** An ATX heading's marker and the space after it, by level (index 1 to 6). */
const ATX_MARKERS: readonly string[] = ["", "# ", "## ", "### ", "#### ", "##### ", "###### "];

/**
 * turndown's heading rule writes an ATX heading's marker with its `repeat`, `Array(n + 1).join("#")`:
 * a new array and a new string for every heading (a page of headings made a fifth of its garbage
 * there). This service's copy of the rule takes the marker from {@link ATX_MARKERS} and otherwise
 * calls turndown's own (setext headings): the same string, `"\n\n" + marker + content + "\n\n"`
 * where turndown's is `"\n\n" + repeat("#", level) + " " + content + "\n\n"`. The copy takes the
 * rule's place in this service's list only: turndown's shared rule object is not changed.
 */
function fastHeadings(service: TurndownService): void {
  replaceTurndownRule(service, "heading", (turndownRule) => (content, node, options) => {
    const level = asRuleNode(node).nodeName.charCodeAt(1) - 48;
    if (options.headingStyle === "setext" && level < 3) return turndownRule.replacement(content, node, options);
    return "\n\n" + ATX_MARKERS[level]! + content + "\n\n";
  });
}

/** What turndown's inline-code rule changes or looks at in its content: a backtick, a line break, a leading space. */
const CODE_NEEDS_TURNDOWN = /[`\r\n]/;

/**
 * turndown's inline-code rule runs three regexes over every `<code>`'s content and makes an array
 * for the backtick runs it looks for (`content.match(/`+/gm) || []`): about 240 bytes of garbage
 * per element on a page of `<code>` elements. For content without a backtick, CR or LF that does
 * not start with a space, every one of them finds nothing: no line break to replace, no extra
 * space (`^\``, `\`$` and `^ .*?[^ ].* $` all need a backtick or a leading space), one backtick
 * as the delimiter, so the rule returns `` "`" + content + "`" ``. This service's copy of the rule
 * returns that for such content and calls turndown's own for any other (and for empty content,
 * which turndown's returns as ""). turndown's shared rule object is not changed.
 */
function fastInlineCode(service: TurndownService): void {
  replaceTurndownRule(service, "code", (turndownRule) => (content, node, options) => {
    if (content === "" || content.charCodeAt(0) === 32 || CODE_NEEDS_TURNDOWN.test(content)) return turndownRule.replacement(content, node, options);
    return "`" + content + "`";
  });
}

/**
 * Puts a copy of turndown's rule `name` with the replacement `make` builds (from turndown's own,
 * which it may call) in its place in this service's list: turndown's shared rule object is not changed.
 */
function replaceTurndownRule(service: TurndownService, name: string, make: (turndownRule: Rule) => Rule["replacement"]): void {
  const array = rulesOf(service).array;
  const at = array.findIndex((rule) => rule === turndownRuleOf(service, name));
  if (at === -1) return;
  const turndownRule = array[at]!;
  array[at] = { filter: turndownRule.filter, replacement: make(turndownRule) };
}

type Filter = string | string[] | ((node: unknown, options: unknown) => boolean);
interface Rule {
  filter?: Filter;
  replacement(content: string, node: unknown, options: TurndownService.Options): string;
}
interface RulesInternals {
  array: Rule[];
  _keep: Rule[];
  _remove: Rule[];
  blankRule: Rule;
  defaultRule: Rule;
  forNode(node: ConvertedNode): Rule;
}

/** What turndown reads and writes on the nodes it converts. */
interface ConvertedNode {
  nodeName: string;
  nodeType: number;
  nodeValue: string | null;
  childNodes: ArrayLike<ConvertedNode>;
  firstChild: ConvertedNode | null;
  nextSibling: ConvertedNode | null;
  isBlock?: boolean;
  isCode?: boolean;
  isBlank?: boolean;
  flankingWhitespace?: { leading: string; trailing: string };
}

function matches(rule: Rule, node: { nodeName: string }, options: unknown): boolean {
  const filter = rule.filter!;
  if (typeof filter === "function") return filter.call(rule, node, options);
  const name = node.nodeName.toLowerCase();
  return typeof filter === "string" ? filter === name : filter.includes(name);
}

function rulesOf(service: TurndownService): RulesInternals {
  return (service as unknown as { rules: RulesInternals }).rules;
}

/** The walk of prose-walk.ts for each service built here, with the `forNode` it goes with and the filters' guards. */
const WALKS = new WeakMap<TurndownService, { forNode: RulesInternals["forNode"]; rules: WalkRules; guards: ReadonlyMap<Filter, Guard> }>();

/**
 * The guards the tree walk's rule lookup trusts for `service` (built here), by function filter:
 * the tags each filter can match, or null for "only elements with attributes" (see
 * {@link FILTER_GUARDS}); empty for any other service. For the test that checks them.
 */
export function filterGuardsOf(service: TurndownService): ReadonlyMap<(node: unknown, options: unknown) => boolean, ReadonlySet<string> | null> {
  const guards = WALKS.get(service)?.guards ?? new Map<Filter, Guard>();
  return guards as ReadonlyMap<(node: unknown, options: unknown) => boolean, Guard>;
}

/**
 * The conversion of a light tree (whitespace collapsed, facts marked: see html-to-markdown.ts)
 * by prose-walk.ts's walk with `service`'s rules, when `service` was built here, its rule lookup
 * is still the one installed here and it does not keep preformatted code; else null (turndown's
 * own walk is then the one to use).
 */
export function treeWalkOf(service: TurndownService): ((root: LightElement) => string) | null {
  const walk = WALKS.get(service);
  if (walk === undefined || service.options.preformattedCode || rulesOf(service).forNode !== walk.forNode) return null;
  return (root) => convertTree(root, walk.rules);
}

/**
 * turndown 7.2.5 picks a node's rule by trying all ~35 rules in order, lower-casing the node name
 * for each tag filter. This replaces that lookup with the same ordered search over only the rules
 * that can match the tag (tag filters for it, and every function filter), computed once per tag:
 * the same first match, so the same Markdown (a test compares), with less work per element.
 *
 * It also writes plain tables (see {@link writePlainTable}) itself, and records for
 * {@link treeWalkOf} the walk that uses the same lookup.
 */
function indexRulesByTag(service: TurndownService, context: ConversionContext, tables: LinearTables, tableRules: ReadonlySet<Rule>, guards: ReadonlyMap<Filter, Guard>): void {
  const rules = rulesOf(service);
  const options = service.options;
  const byTag = new Map<string, Rule[]>();
  const lookUp = (node: ConvertedNode): Rule => {
    let candidates = byTag.get(node.nodeName);
    if (candidates === undefined) {
      const name = node.nodeName.toLowerCase();
      candidates = rules.array.filter((r) => typeof r.filter === "function" || (typeof r.filter === "string" ? r.filter === name : r.filter!.includes(name)));
      byTag.set(node.nodeName, candidates);
    }
    return firstMatch(candidates, node);
  };
  /** turndown's search through `candidates`, then its keep, remove and default rules. */
  const firstMatch = (candidates: readonly Rule[], node: ConvertedNode): Rule => {
    for (let i = 0; i < candidates.length; i++) {
      const rule = candidates[i]!;
      if (typeof rule.filter !== "function" || rule.filter.call(rule, node, options)) return rule;
    }
    for (let i = 0; i < rules._keep.length; i++) if (matches(rules._keep[i]!, node, options)) return rules._keep[i]!;
    for (let i = 0; i < rules._remove.length; i++) if (matches(rules._remove[i]!, node, options)) return rules._remove[i]!;
    return rules.defaultRule;
  };
  const find = (node: ConvertedNode): Rule => {
    const rule = lookUp(node);
    if (tableRules.has(rule)) context.tablesUsed = true;
    return rule;
  };
  // turndown's forNode, with the rule lookup above: what the fast paths below use for the nodes they convert.
  const ruleFor = (node: ConvertedNode): Rule => {
    context.meter?.tick();
    return node.isBlank ? rules.blankRule : find(node);
  };
  const escape = (text: string) => service.escape(text);
  const tick = () => context.meter?.tick();
  const partRule = (part: unknown) => find(part as ConvertedNode);
  const forNode = function forNode(node: ConvertedNode): Rule {
    const rule = ruleFor(node);
    if (rule === rules.blankRule) return rule;
    if (rule === tables.tableRule && !node.isCode) {
      const content = tables.plainTableContent(node, escape, tick, partRule);
      if (content !== null) return writePlainTable(node, rule, content);
    }
    return rule;
  };
  rules.forNode = forNode;
  const byGuardedTag = new Map<string, GuardedCandidates>();
  const guardedFind = (node: LightElement): Rule => {
    let tag = byGuardedTag.get(node.nodeName);
    if (tag === undefined) {
      tag = guardedCandidates(node.nodeName, rules, guards, tableRules);
      byGuardedTag.set(node.nodeName, tag);
    }
    // A tag whose first candidate is a function filter either way (<a>, <code>) is searched through
    // all its candidates without asking the element whether it has attributes: the answer would
    // spare no call before that filter's, and asking cost links 7-12% in the A/B.
    const ask = tag.bareRule !== null || tag.bare.length === 0;
    const attributed = !ask || node.hasAttributes();
    const known = attributed ? tag.attributedRule : tag.bareRule;
    if (known !== null) {
      if (known.table) context.tablesUsed = true;
      return known.rule;
    }
    const rule = firstMatch(attributed ? tag.attributed : tag.bare, node as unknown as ConvertedNode);
    if (tableRules.has(rule)) context.tablesUsed = true;
    return rule;
  };
  WALKS.set(service, {
    forNode,
    rules: {
      ruleFor: (node, isBlank) => {
        context.meter?.tick();
        return isBlank ? rules.blankRule : guardedFind(node);
      },
      escape,
      options,
      tableRule: tables.tableRule as Rule,
      plainTableContent: (table) => tables.plainTableContent(table, escape, tick, partRule),
      rules: rules.array,
    },
    guards,
  });
}

/** A rule known for every element of a tag (no function filter left to ask before it), and whether it is a table rule. */
interface KnownRule {
  rule: Rule;
  table: boolean;
}

/**
 * The rules an element of one tag can match, in turndown's order (tag filters for it, and the
 * function filters whose guard lets it through), for an element without attributes (`bare`) and
 * with (`attributed`); and for each, the rule itself when the first of them has a tag filter (every
 * element of the tag then gets it, with no filter to call: a `<p>` went through six function
 * filters before its own rule).
 */
interface GuardedCandidates {
  bare: Rule[];
  attributed: Rule[];
  bareRule: KnownRule | null;
  attributedRule: KnownRule | null;
}

function guardedCandidates(nodeName: string, rules: RulesInternals, guards: ReadonlyMap<Filter, Guard>, tableRules: ReadonlySet<Rule>): GuardedCandidates {
  const name = nodeName.toLowerCase();
  const forTag = rules.array.filter((r) => {
    const filter = r.filter!;
    if (typeof filter === "string") return filter === name;
    if (typeof filter !== "function") return filter.includes(name);
    const guard = guards.get(filter);
    return guard === undefined || guard === null || guard.has(nodeName);
  });
  const bare = forTag.filter((r) => typeof r.filter !== "function" || guards.get(r.filter) !== null);
  const known = (candidates: Rule[]): KnownRule | null => {
    const first = candidates[0];
    return first === undefined || typeof first.filter === "function" ? null : { rule: first, table: tableRules.has(first) };
  };
  return { bare, attributed: forTag, bareRule: known(bare), attributedRule: known(forTag) };
}

/**
 * Hands a plain table (rows, cells and row groups holding text only) to the table rule with
 * `content`, its Markdown as turndown's walk would have found it (markdown-tables.ts,
 * `plainTableContent`), and hides the table's children from turndown's own
 * walk until the table's replacement runs (it would convert them a second time).
 *
 * turndown's walk does for every node what changes nothing in such a table: its Node() computes
 * whether the node is a block (all six tags are), code (not: no CODE below and the table is not
 * in code), blank (TD, TH and the row groups never are, and every row holds a cell) and its
 * flanking whitespace (none around blocks), none of which the table rules read; it looks up each
 * node's rule among the ~35 (by tag here, the same for every part of the table, see
 * `plainTableContent`); it keeps the parts in arrays it joins. The same Markdown (a property test
 * compares on random tables, and the corpus converts as before), with a fraction of the work per
 * cell.
 */
function writePlainTable(table: ConvertedNode, tableRule: Rule, content: string): Rule {
  if (table instanceof LightElement) {
    table.childNodesHidden = true;
  } else {
    try {
      Object.defineProperty(table, "childNodes", { value: [], configurable: true });
    } catch {
      // A DOM whose childNodes cannot be shadowed: turndown walks the table itself (same output).
      return tableRule;
    }
  }
  return {
    filter: tableRule.filter,
    replacement: (_content, node, opts) => {
      if (node instanceof LightElement) node.childNodesHidden = false;
      else delete (node as { childNodes?: unknown }).childNodes;
      return tableRule.replacement(content, node, opts);
    },
  };
}
