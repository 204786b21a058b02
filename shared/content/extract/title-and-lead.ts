import type { LightElement, LightNode } from "../light-dom";
import type { Attempt } from "./attempt";
import { classAndId, FURNITURE_TAGS, isHidden } from "./class-signals";
import { type Figures, type FiguresTable, HEADINGS, INLINE } from "./figures";
import { isFurnitureBlock, standsAlone, textStart } from "./furniture";
import { expandTable } from "./packed-tables";
import { ALWAYS_UNLIKELY, hasClassWord, SIDE_BOX } from "./patterns";

/**
 * The article's title heading and lead (standfirst) when the chosen block left them out: a heading
 * that repeats the page's `<title>`, and the short blocks between it and the article body.
 */

/** Class/id words of media blocks (an image with its description), which are not the lead. */
const MEDIA = /image|img|photo|foto|picture|bild|figure|gallery|video|caption|legend/i;

/** Class/id words of galleries and slideshows, which hold slides' descriptions rather than a lead. */
const GALLERY = /gallery|galerie|slideshow|carousel|slider|lightbox/i;

/** At most this many steps (elements looked at, levels climbed) are walked before the article for its lead. */
const LEAD_WALK = 600;

/** A lead is a paragraph or two: more text than this between title and article is not a header area. */
const LEAD_MAX_CHARS = 1500;

/** A block of the lead this long or longer needs no sentence, comma or heading to count (see {@link isLeadLike}). */
const LEAD_PROSE_CHARS = 80;

/** A subtitle without a stop or a comma (see {@link isSubtitleLine}) has at least this many words. */
const SUBTITLE_MIN_WORDS = 6;

/** A subtitle sits at most this many levels below the headline's parent (the article header). */
const SUBTITLE_DEPTH = 3;

/**
 * The node before `n` in a reverse walk that takes elements whole: its previous sibling, or its
 * nearest ancestor's below `stop`. Each level climbed counts against `budget` (a deep nest).
 */
function previousOf(n: LightNode, stop: LightElement, budget: { steps: number }): LightNode | null {
  for (let c: LightNode | null = n; c !== null && c !== stop && budget.steps-- > 0; c = c.parentNode) if (c.previousSibling !== null) return c.previousSibling;
  return null;
}

/**
 * The article's lead (standfirst, intro, subtitle): paragraph-like blocks between the page's title
 * heading and the article's first node, which templates often keep in the article's header rather
 * than with its body. Walks backwards from the article; only when it reaches the headline (an
 * `<h1>`, or a heading that repeats the `<title>`) within a short walk is what it collected the
 * lead (else it was another part of the page). Link-dense blocks, furniture, media blocks and page
 * metadata (bylines, dates, captions) are passed over. When the article's first node is its
 * headline ({@link opensWithHeadline}), the walk starts at the second. Returns the blocks in
 * document order. Bounded: at most {@link LEAD_WALK} steps, whatever the page's shape.
 */
export function leadBlocks(body: LightElement, attempt: Attempt, raw: FiguresTable, isTitle: (text: string) => boolean): LightElement[] {
  // A headline joined to the article as a prose sibling: the lead lies between it and the body.
  const first = opensWithHeadline(attempt, raw, isTitle) ? attempt.nodes[1] : attempt.nodes[0];
  if (first === undefined || first === body) return [];
  // The walk starts at the article's first kept text: an article header that cleaning removed
  // (its class says "header") may hold the headline and the lead.
  let start = first;
  for (let level = 0; level < 100 && (raw.get(start)?.inlineChars ?? 0) === 0; level++) {
    expandTable(start);
    let next: LightElement | null = null;
    for (let c = start.firstChild; c !== null && next === null; c = c.nextSibling) if (c.nodeType === 1 && !attempt.removed.has(c) && (raw.get(c)?.chars ?? 0) > 0) next = c;
    if (next === null) break;
    start = next;
  }
  const out: LightElement[] = [];
  // Subtitle lines (no stop, no comma) met on the walk: kept only if they sit beside the headline.
  const subtitles = new Set<LightElement>();
  let chars = 0;
  const budget = { steps: LEAD_WALK };
  let cur = previousOf(start, body, budget);
  while (cur !== null && budget.steps-- > 0) {
    if (cur.nodeType !== 1) {
      cur = previousOf(cur, body, budget);
      continue;
    }
    const s = raw.get(cur);
    const name = cur.nodeName;
    // A link is passed over whole: the blocks inside one (a teaser card "Up next: …" wrapped in
    // an <a>) are its link text, not the lead.
    // So is an author box or a disclaimer (a bio beside the headline is about the writer, not the story).
    const match = classAndId(cur);
    if (s === undefined || s.chars === 0 || name === "A" || isHidden(cur) || FURNITURE_TAGS.has(name) || name === "FIGURE" || name === "FIGCAPTION" || hasClassWord(ALWAYS_UNLIKELY, match) || hasClassWord(SIDE_BOX, match)) {
      cur = previousOf(cur, body, budget);
      continue;
    }
    // The headline: the page's <h1> (kicker and headline often differ from the <title>), or a
    // lower heading that repeats the <title>.
    if (name === "H1" || (HEADINGS.has(name) && s.chars < 300 && isTitle(normalizeTitle(cur.textContent)))) {
      const headline = cur;
      return (subtitles.size === 0 ? out : out.filter((el) => !subtitles.has(el) || besideHeadline(el, headline))).reverse();
    }
    if (s.chars > LEAD_MAX_CHARS) return [];
    const kind = leadKind(cur, s);
    if (kind !== null) {
      if (!hasClassWord(MEDIA, match)) out.push(cur);
      if (kind === "subtitle") subtitles.add(cur);
      chars += s.chars;
      if (chars > LEAD_MAX_CHARS) return [];
      cur = previousOf(cur, body, budget);
      continue;
    }
    // A gallery or slideshow is passed over whole: the blurb of a slide inside it is not the lead.
    if (!hasClassWord(GALLERY, match)) expandTable(cur);
    cur = hasClassWord(GALLERY, match) ? previousOf(cur, body, budget) : (cur.lastChild ?? previousOf(cur, body, budget));
  }
  return [];
}

/**
 * Whether the article's first node is its headline, with more nodes after it: the sibling join
 * takes a long headline for a line of prose, and passes over the standfirst block after it (a
 * `<div>` around the lead paragraph). The lead walk then starts at the second node and ends at
 * the headline, and the lead goes between the two (see {@link leadBlocks}). The headline is what
 * the walk stops at: an `<h1>`, or a heading of under 300 characters that repeats the `<title>`.
 */
export function opensWithHeadline(attempt: Attempt, raw: FiguresTable, isTitle: (text: string) => boolean): boolean {
  const first = attempt.nodes[0];
  if (first === undefined || attempt.nodes.length < 2 || !HEADINGS.has(first.nodeName)) return false;
  return first.nodeName === "H1" || ((raw.get(first)?.chars ?? 0) < 300 && isTitle(normalizeTitle(first.textContent)));
}

/**
 * Whether a block met on the lead walk reads as the lead: "lead" for a paragraph in sentences (or
 * a subtitle heading), "subtitle" for a line without a stop or a comma that only counts beside the
 * headline (see {@link isSubtitleLine}), null otherwise.
 */
function leadKind(el: LightElement, s: Figures): "lead" | "subtitle" | null {
  if ((INLINE.has(el.nodeName) && !isLineOfItsOwn(el)) || s.inlineChars < 0.7 * s.chars || s.linkChars > 0.2 * s.chars) return null;
  // The furniture lines the article's own blocks are cleaned of (metadata, bylines and a byline
  // that goes on with the writer's bio, captions and credits, prompts): not the lead either.
  if (isFurnitureBlock(el, s)) return null;
  if (HEADINGS.has(el.nodeName)) return s.chars >= 25 ? "lead" : null;
  if (s.chars < 40) return null;
  if (s.sentences > 0 || s.commas > 0 || s.chars >= LEAD_PROSE_CHARS) return "lead";
  return isSubtitleLine(el) ? "subtitle" : null;
}

/**
 * Whether an inline element is a line of its own among blocks: the standfirst that a header sets
 * in a `<strong>` or a `<span>` beside the headline (`<hgroup><h1>…</h1><strong>The lead…</strong>
 * </hgroup>`). No text stands beside it, and its parent holds block children among its first
 * {@link HEADER_CHILDREN} (the walk looks at an inline element only inside a parent that was not
 * a lead block itself): a `<strong>` inside a paragraph is a part of that paragraph, judged with it.
 */
function isLineOfItsOwn(el: LightElement): boolean {
  const parent = el.parentNode;
  if (parent === null || INLINE.has(parent.nodeName) || !standsAlone(el)) return false;
  // A header holds a few children: at most this many are looked at, so that a walk over a flood
  // of inline siblings reads a bounded number of them for each.
  let looked = 0;
  for (let c = parent.firstChild; c !== null && looked < HEADER_CHILDREN; c = c.nextSibling, looked++) if (c.nodeType === 1 && !INLINE.has(c.nodeName) && c.nodeName !== "BR") return true;
  return false;
}

/** At most this many of an inline element's siblings are looked at for a block among them (see {@link isLineOfItsOwn}). */
const HEADER_CHILDREN = 32;

/**
 * A subtitle written as a phrase, without a closing stop ("Pubs and bars face penalties for
 * playing loud music", as news sites set their standfirsts): at least {@link SUBTITLE_MIN_WORDS}
 * words and no digit (a line of dates and times is metadata, not the lead). Asked only of a block
 * under {@link LEAD_PROSE_CHARS} characters, whose text {@link textStart} reads whole.
 */
function isSubtitleLine(el: LightElement): boolean {
  const line = textStart(el, 2 * LEAD_PROSE_CHARS);
  return !/\p{Nd}/u.test(line) && line.split(" ").length >= SUBTITLE_MIN_WORDS;
}

/**
 * Whether `el` sits in the headline's own header: the headline's parent is at most
 * {@link SUBTITLE_DEPTH} levels above it. A phrase further away (a site's slogan, a widget's
 * label in a column between the headline and the body) is not the article's subtitle.
 */
function besideHeadline(el: LightElement, headline: LightElement): boolean {
  const header = headline.parentNode;
  let level = 0;
  for (let p = el.parentNode; p !== null && level < SUBTITLE_DEPTH; p = p.parentNode, level++) if (p === header) return true;
  return false;
}

/** Whether a heading's text (normalized) is the page's title, or the headline part of it ("Headline | Site"). */
export function titleMatcher(title: string): (text: string) => boolean {
  const wanted = normalizeTitle(title);
  const parts = title.split(/\s+[|–—·:»/-]\s+/).map(normalizeTitle).filter((p) => p.length >= 3);
  return (text) =>
    text.length >= 3 && (text === wanted || parts.includes(text) || (wanted.includes(text) && text.length >= 0.4 * wanted.length) || (text.includes(wanted) && wanted.length >= 0.4 * text.length));
}

/**
 * The page's title heading when the article does not start with one of its own: the first `<h1>`
 * outside the article whose text repeats the `<title>` (or is contained in it, as in
 * "Headline | Site"), kept so the document's structure reads (issue 17, class 6).
 */
export function titleHeading(body: LightElement, attempt: Attempt, isTitle: (text: string) => boolean): LightElement | null {
  const inArticle = new Set(attempt.nodes);
  const isInside = (el: LightElement) => {
    for (let p: LightElement | null = el; p !== null; p = p.parentNode) if (inArticle.has(p)) return true;
    return false;
  };
  // A page has a handful of <h1>; a hostile one with thousands is not walked up for each.
  const h1s = body.getElementsByTagName("h1").slice(0, 20);
  const isKept = (el: LightElement) => {
    let level = 0;
    for (let p: LightElement | null = el; p !== null && level < 50; p = p.parentNode, level++) if (attempt.removed.has(p)) return false;
    return true;
  };
  for (const h of h1s) if (isInside(h) && isKept(h)) return null;
  let best: LightElement | null = null;
  let bestRank = -1;
  for (const h of h1s) {
    if (attempt.removed.has(h)) continue;
    const text = normalizeTitle(h.textContent);
    if (!isTitle(text)) continue;
    // The site's name in a logo <h1> inside the page header is a part of the title too: an <h1>
    // outside the page header ranks first, then the longer text.
    const rank = (inPageHeader(h, attempt) ? 0 : 1_000_000) + text.length;
    if (rank > bestRank) {
      best = h;
      bestRank = rank;
    }
  }
  return best;
}

/** Whether `el` sits in a `<header>` or a furniture element (at most 50 levels up). */
function inPageHeader(el: LightElement, attempt: Attempt): boolean {
  let level = 0;
  for (let p = el.parentNode; p !== null && level < 50; p = p.parentNode, level++) {
    if (p.nodeName === "HEADER" || attempt.removed.has(p)) return true;
  }
  return false;
}

/**
 * A title's words for comparison: lower case, punctuation and spacing folded to single spaces
 * (a headline "Abrechnung : Musik-Stars" repeats the title "Abrechnung: Musik-Stars").
 */
export function normalizeTitle(text: string): string {
  return text.replace(/[^\p{L}\p{N}]+/gu, " ").trim().toLowerCase();
}
