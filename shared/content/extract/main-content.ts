import type { WorkMeter } from "../conversion-deadline";
import { LightElement, type LightNode, PRUNED_TAGS } from "../light-dom";
import type { Attempt, ExtractReason } from "./attempt";
import { classAndId, classWeight, COMMENTS, isHidden, isUnlikely } from "./class-signals";
import { cleanSubtree, isCommentHead } from "./cleaning";
import { emptyStats, type Figures, FiguresTable, FiguresView, INLINE, measure, measureSubtree } from "./figures";
import { isFurnitureBlock, sentenceGoesOn, standsAlone, textStart } from "./furniture";
import { settleTable } from "./packed-tables";
import { hasClassWord } from "./patterns";
import { run } from "./run-state";
import { removeServerMessages } from "./server-messages";
import { leadBlocks, normalizeTitle, opensWithHeadline, titleHeading, titleMatcher } from "./title-and-lead";
import { ancestorsOf, elementChildCount, postOrder, preOrder } from "./tree-walk";

/**
 * Main-content extraction over the light tree (docs/content.md, "Main content").
 *
 * Scoring follows Mozilla Readability's idea (paragraph text and commas credited to the ancestors
 * that hold the paragraphs, class and id words weighing in, link-heavy candidates discounted,
 * siblings of the winner that look like article text joined to it), computed in linear passes
 * over the tree: every figure an element needs is gathered in one post-order walk from its
 * children's figures, and a paragraph credits at most five ancestors. The chosen subtree is then
 * cleaned of what sits inside articles but is not article text: link-dense blocks (related
 * stories, tag lists, share bars, "more from" lists), hidden elements, bylines, dates and photo
 * credits. Which attempt is kept is decided from the article itself: enough text and sentences.
 */

export interface ExtractOptions {
  /** The page's `<title>` text (whitespace collapsed): a heading repeating it is kept as the article's title. */
  title: string;
  /** The conversion's deadline checkpoints: one unit per element visited by the extraction's walks. */
  meter?: WorkMeter;
  /** How many elements the page's tree holds besides the body (LightDocument.elements): the figures' tables start that large. */
  elements?: number;
}

export interface ExtractResult {
  /** A detached element holding the article (or the cleaned page); null with reason "no_text". */
  element: LightElement | null;
  reason: ExtractReason;
}

/**
 * What the parse drops for main-content extraction: {@link PRUNED_TAGS} but the page furniture
 * (`nav`, `aside`, `footer`), which the extractor judges itself. An unclosed `<aside>` must not
 * swallow the article after it, and an article may sit inside one. `<noscript>` is built too:
 * it is set aside like a hidden element unless it holds the only copy of the article (see
 * {@link isNoscriptArticle}).
 */
export const MAIN_CONTENT_PRUNED: ReadonlySet<string> = new Set([...PRUNED_TAGS].filter((t) => t !== "nav" && t !== "aside" && t !== "footer" && t !== "noscript"));

/** An article with at least this many non-space characters is accepted without further attempts. */
export const ENOUGH_CHARS = 500;

/** Below this many characters, or {@link MIN_SENTENCES} sentences, an article is not enough on its own. */
export const MIN_CHARS = 140;

export const MIN_SENTENCES = 2;

/** Scored with all their text, nested blocks included (Readability's tags to score). */
const WHOLE_TEXT_PARAGRAPHS = new Set(["P", "SECTION", "PRE"]);

const TAG_SCORE: Readonly<Record<string, number>> = {
  DIV: 5, ARTICLE: 8, MAIN: 5, SECTION: 3, PRE: 3, TD: 3, BLOCKQUOTE: 3,
  ADDRESS: -3, OL: -3, UL: -3, DL: -3, DD: -3, DT: -3, LI: -3, FORM: -3,
  H1: -5, H2: -5, H3: -5, H4: -5, H5: -5, H6: -5, TH: -5,
};

/**
 * Extracts the main content of a page parsed into a light tree (`body`, as parseLightDocument
 * returns it). The page tree is consumed: the returned element holds nodes moved out of it.
 * Never throws on any tree the parser builds; linear in the number of nodes.
 */
export function extractMainContent(body: LightElement, options: ExtractOptions): ExtractResult {
  run.meter = options.meter;
  run.judgedTables = new Map();
  try {
    return extract(body, options);
  } finally {
    run.meter = undefined;
    run.figures = undefined;
    run.judgedTables = undefined;
  }
}

function extract(body: LightElement, options: ExtractOptions): ExtractResult {
  const hidden = new Set<LightElement>();
  const unlikely = new Set<LightElement>();
  const raw = new FiguresTable(options.elements === undefined ? 0 : options.elements + 1);
  // The first headings (h1–h3), gathered by the first walk for the feed rule (articlesTitled).
  const headings: LightElement[] = [];
  run.figures = { raw, work: null };
  measureSubtree(body, raw, settleTable, (el) => {
    if (headings.length < TITLE_HEADINGS && (el.nodeName === "H1" || el.nodeName === "H2" || el.nodeName === "H3")) headings.push(el);
  }, { number: true });
  markFiltered(body, hidden, unlikely, raw);
  // One table for the attempts' walks and their cleaning, each starting it afresh.
  const work = new FiguresTable(raw.size);
  run.figures.work = work;
  const titleArticles = articlesTitled(headings, raw, titleMatcher(options.title));

  let best: Attempt | null = null;
  const attempts: Attempt[] = [];
  let firstScores = new Map<LightElement, number>();
  for (const relaxed of [false, true]) {
    // With no furniture found, the relaxed attempt would be the strict one again (the same elements
    // skipped, nothing to weigh down): the same article or none, never a longer one.
    if (relaxed && unlikely.size === 0) break;
    const attempt = tryExtract(body, relaxed ? hidden : new Set([...hidden, ...unlikely]), relaxed, unlikely, raw, work, titleArticles);
    if (attempt === null) continue;
    attempts.push(attempt);
    if (!relaxed) firstScores = attempt.scores;
    if (best === null || attempt.chars > best.chars) best = attempt;
    if (attempt.chars >= ENOUGH_CHARS || (attempt.chars >= MIN_CHARS && attempt.sentences >= MIN_SENTENCES)) break;
  }
  if (best === null || best.chars < MIN_CHARS || best.sentences < MIN_SENTENCES) {
    // No article with enough text and sentences of its own: the page cleaned of furniture, if that
    // has enough text and more than the article.
    const page = cleanPage(body, hidden, unlikely, firstScores, work, raw);
    if (page.chars >= MIN_CHARS && page.chars > (best?.chars ?? 0)) best = page;
  }
  if (best === null || best.chars < MIN_CHARS) {
    const fallback = uncleanedFallback(body, attempts, best);
    // Without its furniture lines, still more than what it falls back from (never less than `best`).
    if (fallback !== null && fallback !== best) dropFurnitureLines(fallback, work);
    if (fallback !== null && fallback.chars > (best?.chars ?? 0)) best = fallback;
  }
  if (best === null || best.chars === 0) return { element: null, reason: "no_text" };
  return { element: materialize(best, body, options.title, raw), reason: best.reason };
}

/** A short page: its text without furniture is at most this many characters (a post or two, no portal). */
const SHORT_PAGE_CHARS = 2500;

/**
 * The result when the cleaned article and the cleaned page both hold less than a paragraph: on a
 * small page the cleaning took the article's own blocks for furniture (a short post whose
 * paragraphs link on, a single box of text) and left its headline and byline. Then the page
 * without its furniture and hidden elements, uncleaned, when that is a short page; else the
 * attempt whose nodes say the most uncleaned (the relaxed attempt's nodes hold the text that
 * furniture words marked: a forum's posts in "comment" boxes). Never less than `best`.
 */
function uncleanedFallback(body: LightElement, attempts: readonly Attempt[], best: Attempt | null): Attempt | null {
  const strict = attempts.find((a) => a.reason === "article");
  const floor = best?.chars ?? 0;
  if (strict !== undefined && strict.pageChars >= MIN_CHARS && strict.pageChars <= SHORT_PAGE_CHARS && strict.pageChars > floor) {
    return { ...strict, nodes: [body], removed: new Set(strict.skipped), chars: strict.pageChars, reason: "page_cleaned" };
  }
  const whole = attempts.reduce<Attempt | null>((a, b) => (a === null || b.uncleanedChars > a.uncleanedChars ? b : a), null);
  return whole !== null && whole.uncleanedChars > floor ? { ...whole, removed: new Set(whole.skipped), chars: whole.uncleanedChars } : best;
}

/**
 * Removes from an uncleaned fallback's nodes the blocks that are furniture by their own words and
 * class ({@link isFurnitureBlock}: bylines, metadata and filing lines, the like widget's and the
 * share lines, reader prompts, author boxes), and none by link density or score: those rules took
 * the short page's own blocks for furniture, which is why it is uncleaned. Post-order, as the
 * cleaning judges: the smallest block so read goes, and its parent is judged without it. An
 * inline element is judged only on a line of its own (a dateline or a name that opens a sentence
 * is the text's). Nothing is removed when that would leave no text. One walk over the nodes
 * (`stats`'s figures are rewritten).
 */
function dropFurnitureLines(attempt: Attempt, stats: FiguresTable): void {
  const removed = new Set(attempt.removed);
  let chars = 0;
  for (const node of attempt.nodes) {
    if (removed.has(node)) continue;
    stats.reset();
    measureSubtree(node, stats, (el) => removed.has(el), (el, i) => {
      if (el === node) return;
      if (INLINE.has(el.nodeName) && (!standsAlone(el) || sentenceGoesOn(el))) return;
      if (isFurnitureBlock(el, new FiguresView(stats, i))) removed.add(el);
    }, { removed });
    chars += stats.chars[node.walkIndex] ?? 0;
  }
  if (chars === 0) return;
  attempt.removed = removed;
  attempt.chars = chars;
}

/** Pre-order: hidden elements, and furniture by class/id/role (not inside tables or code). */
function markFiltered(body: LightElement, hidden: Set<LightElement>, unlikely: Set<LightElement>, raw: FiguresTable): void {
  const pageChars = raw.get(body)?.chars ?? 0;
  // Furniture is small beside the page: an element with furniture words that holds a large part of
  // the page's text in sentences is a wrapper ("…share-container" around the article, an unclosed
  // <aside>), not furniture. A list is not a wrapper: a long list of related posts with excerpts
  // is still related posts.
  const tooBigForFurniture = (el: LightElement) => {
    const s = raw.get(el);
    return s !== undefined && s.chars > 0.3 * pageChars && s.sentences >= 5 && el.nodeName !== "UL" && el.nodeName !== "OL" && !hasClassWord(COMMENTS, classAndId(el));
  };
  const visible = lazyVisibleText(body);
  // How many tables and code elements the walk is inside.
  let protecting = 0;
  preOrder(body, (n) => {
    if (n === body) return true;
    if (isHidden(n) || RUBY_ANNOTATIONS.has(n.nodeName) || (n.nodeName === "NOSCRIPT" && !isNoscriptArticle(n, raw, visible))) {
      hidden.add(n);
      return false;
    }
    if (protecting === 0 && isUnlikely(n) && !tooBigForFurniture(n)) {
      unlikely.add(n);
      return false;
    }
    if (PROTECTING.has(n.nodeName)) protecting++;
    return true;
  }, (el) => {
    if (PROTECTING.has(el.nodeName)) protecting--;
  });
}

/** Elements whose content is not judged furniture by its class (data tables, code). */
const PROTECTING = new Set(["TABLE", "CODE", "PRE"]);

/**
 * Ruby annotations (`<rt>` readings, `<rp>` fallback parentheses) are set aside like hidden
 * elements: kept, they interleave every word's pronunciation with the word itself (子こども for
 * 子ども in furigana), and the text is no longer the text a reader reads or quotes.
 */
const RUBY_ANNOTATIONS = new Set(["RT", "RP"]);

/** A `<noscript>` with at least this much text in sentences may be the article's only copy. */
const NOSCRIPT_ARTICLE_CHARS = ENOUGH_CHARS;

/**
 * Whether a `<noscript>` holds the page's article: some pages (blog platforms that render posts
 * from a script template, lazy apps with a crawler copy) show the article only to browsers
 * without scripts, and send nothing else. Such a copy is prose (at least
 * {@link NOSCRIPT_ARTICLE_CHARS} characters, three sentences, little link text) whose opening
 * words the rest of the page does not show; any other `<noscript>` (tracking pixels, lazy images'
 * fallbacks, "please enable JavaScript", a duplicate of text the page shows) is set aside.
 */
function isNoscriptArticle(el: LightElement, raw: FiguresTable, visible: () => string): boolean {
  const s = raw.get(el);
  if (s === undefined || s.chars < NOSCRIPT_ARTICLE_CHARS || s.sentences < 3 || s.linkChars > 0.3 * s.chars) return false;
  // Compared without whitespace: markup splits a text into runs at other places than its copy.
  const start = textStart(el, 120).replace(/\s+/g, "");
  return start.length >= 40 && !visible().includes(start);
}

/**
 * The page's text outside `<noscript>` elements, without whitespace, built on first use: one
 * walk, only on pages with a `<noscript>` long enough to be an article.
 */
function lazyVisibleText(body: LightElement): () => string {
  let text: string | null = null;
  return () => {
    if (text !== null) return text;
    const parts: string[] = [];
    const stack: LightNode[] = [body];
    while (stack.length > 0) {
      const n = stack.pop()!;
      if (n.nodeType === 3) {
        parts.push(n.data);
        continue;
      }
      if (n.nodeName === "NOSCRIPT") continue;
      const packed = n.firstChild === null ? n.packedTable : null;
      if (packed !== null) parts.push(packed.text());
      for (let c = n.lastChild; c !== null; c = c.previousSibling) stack.push(c);
    }
    text = parts.join("").replace(/\s+/g, "");
    return text;
  };
}

function tryExtract(
  body: LightElement,
  skipped: Set<LightElement>,
  relaxed: boolean,
  unlikely: Set<LightElement>,
  raw: FiguresTable,
  work: FiguresTable,
  titleArticles: readonly LightElement[],
): Attempt | null {
  // Nothing skipped: every element's figures are the page's own, measured already.
  const stats = skipped.size === 0 ? raw : work;
  if (stats === work) work.reset();
  const scores = new Map<LightElement, number>();
  const kept = (el: LightElement) => !skipped.has(el);
  const initScore = (el: LightElement) => {
    let s = scores.get(el);
    if (s === undefined) {
      s = (TAG_SCORE[el.nodeName] ?? 0) + classWeight(el) + (relaxed && unlikely.has(el) ? -25 : 0);
      scores.set(el, s);
    }
    return s;
  };
  postOrder(body, (el) => skipped.has(el), (el) => {
    const i = stats === raw ? el.walkIndex : measure(el, stats, kept);
    if (INLINE.has(el.nodeName) || el === body) return;
    // What Readability scores as a paragraph: these elements with all their text, and any other
    // block with its own (inline) text, as Readability turns such a <div> into a <p>.
    const whole = WHOLE_TEXT_PARAGRAPHS.has(el.nodeName);
    const chars = whole ? stats.chars[i]! : stats.inlineChars[i]!;
    const commas = whole ? stats.commas[i]! : stats.inlineCommas[i]!;
    if (chars < 25) return;
    const linkChars = stats.linkChars[i]!;
    if (linkChars > 0 && linkChars > 0.66 * stats.chars[i]! && commas < 2) return;
    const contentScore = 1 + Math.min(commas, 30) + Math.min(Math.floor(chars / 100), 3);
    // A <div> whose own text sits between block children (paragraphs written with <br> around a
    // floated box or a table) holds that text as paragraphs: Readability wraps such runs in <p>
    // inside the <div>, so the <div> itself is their parent and takes their full score.
    const mixed = el.nodeName === "DIV" && stats.chars[i]! > stats.inlineChars[i]!;
    let level = 0;
    for (let a = mixed ? el : el.parentNode; a !== null && level < 5; a = a.parentNode, level++) {
      const divider = level === 0 ? 1 : level === 1 ? 2 : level * 3;
      scores.set(a, initScore(a) + contentScore / divider);
      if (a === body) break;
    }
  });

  // Final scores: discounted by link density.
  const ranked: [LightElement, number][] = [];
  for (const [el, raw] of scores) {
    if (el === body) continue;
    const s = stats.get(el);
    if (s === undefined || s.chars === 0) continue;
    const score = raw * (1 - s.linkChars / s.chars);
    scores.set(el, score);
    ranked.push([el, score]);
  }
  ranked.sort((a, b) => b[1] - a[1]);
  if (ranked.length === 0) return null;

  const settle = (start: LightElement, above: LightElement) => {
    let top = start;
    const topScore = scores.get(top) ?? 0;
    // Several strong candidates under one ancestor: the article is that ancestor (Readability).
    const alternatives = ranked.slice(1, 6).filter(([, s]) => s / topScore >= 0.75).map(([el]) => ancestorsOf(el, body));
    if (alternatives.length >= 3) {
      for (let p = top.parentNode; p !== null && p !== body && p !== above; p = p.parentNode) {
        if (alternatives.filter((set) => set.has(p)).length >= 3) {
          top = p;
          break;
        }
      }
    }
    // Climb while the parent scores better (the article was split into scored parts).
    let lastScore = scores.get(top) ?? 0;
    const threshold = lastScore / 3;
    for (let p = top.parentNode; p !== null && p !== body && p !== above; p = p.parentNode) {
      const ps = scores.get(p);
      if (ps === undefined) continue;
      if (ps < threshold) break;
      if (ps > lastScore) {
        top = p;
        break;
      }
      lastScore = ps;
    }
    // An only child: its parent is the same content with its container's context.
    while (top.parentNode !== null && top.parentNode !== body && top.parentNode !== above && elementChildCount(top.parentNode, kept) === 1) top = top.parentNode;
    return top;
  };
  let top = settle(ranked[0]![0], body);
  // A feed of whole articles (the next stories appended below the page's own): the one the
  // page's title names, not the longest.
  const titled = titledArticle(top, ranked, stats, titleArticles);
  if (titled !== null) top = settle(titled.candidate, titled.article.parentNode ?? body);

  // Siblings joined for their text may be furniture lines themselves (a copyright line after the
  // article body, a subscription prompt): cleaning looks inside each node, so they are checked here.
  let nodes = joinSiblings(top, scores, stats, kept, titleArticles).filter((n) => n === top || !isFurnitureBlock(n, stats.get(n) ?? emptyStats()));
  const removed = new Set<LightElement>(skipped);
  let chars = 0;
  let sentences = 0;
  const nodeChars = nodes.map((n) => stats.get(n)?.chars ?? 0);
  const uncleanedChars = nodeChars.reduce((a, b) => a + b, 0);
  const pageChars = stats.chars[body.walkIndex] ?? 0;
  const listCards: Array<{ cards: LightElement[]; chars: number }> = [];
  let besideTop = 0;
  let besideSentences = 0;
  nodes.forEach((node, k) => {
    const s = cleanSubtree(node, removed, unlikely, relaxed, scores, work, nodeChars[k], node === top ? listCards : undefined);
    chars += s.chars;
    sentences += s.sentences;
    if (node !== top) {
      besideTop += s.chars;
      besideSentences += s.sentences;
    }
  });
  // The best block is a list of teaser cards, and an article of its own sits beside it (the
  // next stories after a short post): the cards go.
  if (listCards.length > 0 && besideTop >= MIN_CHARS && besideSentences >= MIN_SENTENCES) {
    for (const list of listCards) {
      for (const c of list.cards) removed.add(c);
      chars -= list.chars;
    }
  }
  // A joined sibling that cleaning took whole (a list of teaser cards after a short article).
  if (nodes.some((n) => removed.has(n))) nodes = nodes.filter((n) => !removed.has(n));
  return { nodes, removed, chars, sentences, skipped, uncleanedChars, pageChars, scores, reason: relaxed ? "article_relaxed" : "article" };
}

/** At most this many headings are compared with the title, and this many levels climbed to their `<article>`. */
const TITLE_HEADINGS = 200;

const ARTICLE_CLIMB = 50;

/** The nearest `<article>` at or above `el` (at most {@link ARTICLE_CLIMB} levels up), or null. */
function articleOf(el: LightElement): LightElement | null {
  let level = 0;
  for (let p: LightElement | null = el; p !== null && level < ARTICLE_CLIMB; p = p.parentNode, level++) if (p.nodeName === "ARTICLE") return p;
  return null;
}

/** Whether `el` is `ancestor` or inside it (at most {@link ARTICLE_CLIMB} levels down). */
function isWithin(el: LightElement, ancestor: LightElement): boolean {
  let level = 0;
  for (let p: LightElement | null = el; p !== null && level < ARTICLE_CLIMB; p = p.parentNode, level++) if (p === ancestor) return true;
  return false;
}

/**
 * The `<article>` elements that hold a headline repeating the page's `<title>` (an `<h1>`–`<h3>`
 * among `headings`, the first {@link TITLE_HEADINGS} of the page, that repeats the whole title or
 * its headline part): the page's own article, when the page is a feed of several. Only headings
 * of under 300 characters (by the first walk's figures) have their text read.
 */
function articlesTitled(headings: readonly LightElement[], raw: FiguresTable, isTitle: (text: string) => boolean): LightElement[] {
  const out: LightElement[] = [];
  for (const h of headings) {
    if ((raw.get(h)?.chars ?? 0) > 300) continue;
    const text = h.textContent;
    if (!isTitle(normalizeTitle(text))) continue;
    const article = articleOf(h);
    if (article !== null && !out.includes(article)) out.push(article);
  }
  return out;
}

/** A page's own article beside a longer one: at least this share of the chosen article's text. */
const TITLED_SHARE = 0.1;

/**
 * When the chosen candidate sits in an `<article>` that is not the one the page's title names,
 * and the titled one holds an article of its own (at least {@link ENOUGH_CHARS} characters in
 * five sentences, and {@link TITLED_SHARE} of the chosen one's text), that article's best
 * candidate: news sites append the next stories, whole, below the page's own ("infinite
 * scroll"), and the next one may be longer. A short card with the same headline (the page's
 * own story in a "most read" box) is not an article of its own.
 */
function titledArticle(top: LightElement, ranked: readonly [LightElement, number][], stats: FiguresTable, titleArticles: readonly LightElement[]): { candidate: LightElement; article: LightElement } | null {
  if (titleArticles.length === 0) return null;
  const own = articleOf(top);
  if (own === null || titleArticles.includes(own)) return null;
  const topChars = stats.get(top)?.chars ?? 0;
  for (const article of titleArticles) {
    if (isWithin(own, article) || isWithin(article, own)) continue;
    const best = ranked.find(([el]) => isWithin(el, article));
    if (best === undefined) continue;
    const s = stats.get(best[0]);
    if (s !== undefined && s.chars >= ENOUGH_CHARS && s.sentences >= 5 && s.chars >= TITLED_SHARE * topChars) return { candidate: best[0], article };
  }
  return null;
}

/** The top candidate and the siblings that look like more of the article (Readability's rule). */
function joinSiblings(top: LightElement, scores: Map<LightElement, number>, stats: FiguresTable, kept: (el: LightElement) => boolean, titleArticles: readonly LightElement[]): LightElement[] {
  const parent = top.parentNode;
  if (parent === null) return [top];
  const topScore = scores.get(top) ?? 0;
  const threshold = Math.max(10, topScore * 0.2);
  const topClass = top.attributes.class ?? "";
  const topChars = stats.get(top)?.chars ?? 0;
  const out: LightElement[] = [];
  let afterTop = false;
  for (let n = parent.firstChild; n !== null; n = n.nextSibling) {
    if (n.nodeType !== 1 || !kept(n)) continue;
    if (n === top) {
      out.push(n);
      afterTop = true;
      continue;
    }
    // The comment area's title after the article ("Comments", "3 Kommentare"): what follows it
    // among the siblings is the thread, its form and the site's lines under it, not more text.
    if (afterTop && isCommentHead(n, stats.get(n) ?? emptyStats())) break;
    let bonus = 0;
    if (topClass !== "" && n.attributes.class === topClass) bonus = topScore * 0.2;
    const score = scores.get(n);
    if (score !== undefined && score + bonus >= threshold) {
      out.push(n);
      continue;
    }
    const s = stats.get(n);
    if (s === undefined || s.chars === 0) continue;
    const density = s.linkChars / s.chars;
    if (isUnscoredProse(n, top, topChars, titleArticles.length > 0, s, density)) {
      out.push(n);
      continue;
    }
    if (n.nodeName === "P" || (!INLINE.has(n.nodeName) && s.inlineChars === s.chars)) {
      if ((s.chars > 80 && density < 0.25) || (s.chars <= 80 && density === 0 && s.sentences > 0)) out.push(n);
    }
  }
  return out;
}

/**
 * A sibling with at least this much text, in {@link PROSE_SENTENCES} sentences, and at least
 * {@link PROSE_SHARE} of the chosen block's, is a run of prose: the article's other half.
 */
const PROSE_CHARS = ENOUGH_CHARS;

const PROSE_SHARE = 0.5;

const PROSE_SENTENCES = 4;

/** A run of prose has less link text than this share; a repeat of the chosen block, less than {@link REPEAT_DENSITY}. */
const PROSE_DENSITY = 0.15;

const REPEAT_DENSITY = 0.25;

const LISTS = new Set(["UL", "OL", "DL"]);

/**
 * Whether a sibling of the chosen block that scored too little to join is more of the article all
 * the same. A paragraph credits only five ancestors, so a sibling whose paragraphs sit deeper (a
 * forum's next post, the second half of an article in a box of its own after an ad slot, a page
 * built of sections that each nest their text in a grid) scores its tag and nothing else, and
 * Readability's rule, which reads the sibling's score, leaves it out. Such a sibling joins when it
 * is prose by its own figures: a repeat of the chosen block (the same element with the same
 * class: the next post, the next section) with a sentence of text and few links; or a long run
 * of text ({@link PROSE_CHARS} characters in {@link PROSE_SENTENCES} sentences, half the chosen
 * block's, under {@link PROSE_DENSITY} of it link text: a writer's bio, a contact box or a few
 * teasers under a long article are short beside it) that is not a list (teasers whose headlines
 * are not links, only an empty link over each card's picture, are other stories). Neither is
 * furniture by name, class or role: the relaxed attempt and the wrapper rule keep such elements
 * in the tree (a sidebar kept for its size); and neither is an `<article>` when the page's title
 * names an `<article>` (`feed`: the page may be a feed of whole stories).
 */
function isUnscoredProse(n: LightElement, top: LightElement, topChars: number, feed: boolean, s: Figures, density: number): boolean {
  const repeat = n.nodeName === top.nodeName && (top.attributes.class ?? "") !== "" && n.attributes.class === top.attributes.class;
  const prose = repeat
    ? s.chars > 80 && density < REPEAT_DENSITY && s.sentences > 0
    : !LISTS.has(n.nodeName) && s.chars >= PROSE_CHARS && s.chars >= PROSE_SHARE * topChars && density < PROSE_DENSITY && s.sentences >= PROSE_SENTENCES;
  // When the page's title names an <article>, the other <article> elements beside the chosen
  // block are other stories (the next ones of a feed), not more of this one.
  return prose && !(n.nodeName === "ARTICLE" && feed) && !isUnlikely(n);
}

/** The whole page, cleaned of furniture and link-dense blocks: the fallback when no article is enough. */
function cleanPage(body: LightElement, hidden: Set<LightElement>, unlikely: Set<LightElement>, scores: Map<LightElement, number>, stats: FiguresTable, raw: FiguresTable): Attempt {
  const removed = new Set<LightElement>([...hidden, ...unlikely]);
  const s = cleanSubtree(body, removed, unlikely, false, scores, stats, raw.get(body)?.chars ?? 0, []);
  return { nodes: [body], removed, chars: s.chars, sentences: s.sentences, skipped: new Set([...hidden, ...unlikely]), uncleanedChars: s.chars, pageChars: s.chars, scores, reason: "page_cleaned" };
}

/** Builds the result element: the attempt's nodes without what cleaning removed, title heading first. */
function materialize(attempt: Attempt, body: LightElement, title: string, raw: FiguresTable): LightElement {
  const isTitle = titleMatcher(title);
  const heading = attempt.reason === "page_cleaned" ? null : titleHeading(body, attempt, isTitle);
  const lead = attempt.reason === "page_cleaned" ? [] : leadBlocks(body, attempt, raw, isTitle);
  for (const el of attempt.removed) el.parentNode?.removeChild(el);
  const out = new LightElement("article", {});
  if (heading !== null) {
    heading.parentNode?.removeChild(heading);
    out.appendChild(heading);
  }
  // A headline joined as the article's first node goes before the lead found after it.
  const headline = lead.length > 0 && opensWithHeadline(attempt, raw, isTitle) ? attempt.nodes[0]! : null;
  if (headline !== null) {
    headline.parentNode?.removeChild(headline);
    out.appendChild(headline);
  }
  for (const el of lead) {
    el.parentNode?.removeChild(el);
    out.appendChild(el);
  }
  for (const node of attempt.nodes) {
    if (node === headline) continue;
    if (node === body) {
      body.moveChildrenTo(out);
    } else {
      node.parentNode?.removeChild(node);
      out.appendChild(node);
    }
  }
  removeServerMessages(out);
  return out;
}
