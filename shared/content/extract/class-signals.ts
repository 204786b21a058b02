import type { LightElement } from "../light-dom";
import { NO_ATTRIBUTES } from "../linear-parser";
import { ALWAYS_UNLIKELY, CONTENT_HEADER, hasClassWord, MAYBE_CANDIDATE, NEGATIVE, POSITIVE, UNLIKELY_CANDIDATE, UNLIKELY_ROLES } from "./patterns";

/**
 * What an element's attributes say about it to the main-content extraction: Readability's class
 * weight, hidden elements, furniture by class, id or role, and page metadata by class.
 */

/** Comment threads can be long: their size never makes them a wrapper of the article. */
export const COMMENTS = /comment(?!ary)|kommentare|komentarze|disqus|replies/i;

/** Furniture by element name: unlikely as the article, removed from it when small. */
export const FURNITURE_TAGS = new Set(["NAV", "ASIDE", "FOOTER"]);

/** Short elements with these class/id words are page metadata, not article text. */
const META_LIKE = /byline|author|dateline|date|posted|published|credit|copyright|caption|meta|share|social|tags|related|breadcrumb|rating|print|toolbar/i;

/** Taxonomy classes that CMSs put on a post ("tag-comments", "category-sidebar-news"): the post's topics, not its role. */
const TAXONOMY_CLASS = /(?:^|\s)(?:tag|category)-\S*/g;

/**
 * Whether the parser gave `el` no attributes (the shared empty object): most elements of a large
 * page, whose attribute look-ups the rules asked of every element then skip. Reads `attributes`
 * as the look-ups would; an element built with its own `{}` is looked up as before.
 */
export function hasNoAttributes(el: LightElement): boolean {
  return el.attributes === NO_ATTRIBUTES;
}

/** The class attribute without taxonomy classes. */
function roleClasses(el: LightElement): string | undefined {
  const cls = el.attributes.class;
  return cls !== undefined && (cls.includes("tag-") || cls.includes("category-")) ? cls.replace(TAXONOMY_CLASS, " ") : cls;
}

export function classAndId(el: LightElement): string {
  if (hasNoAttributes(el)) return "";
  const cls = roleClasses(el);
  const id = el.attributes.id;
  return cls === undefined ? (id ?? "") : id === undefined ? cls : `${cls} ${id}`;
}

/** Readability's class weight: ±25 for article and furniture words in class and id. */
export function classWeight(el: LightElement): number {
  if (hasNoAttributes(el)) return 0;
  let weight = 0;
  const cls = roleClasses(el);
  const id = el.attributes.id;
  if (cls !== undefined && cls !== "") {
    if (hasClassWord(NEGATIVE, cls)) weight -= 25;
    if (hasClassWord(POSITIVE, cls)) weight += 25;
  }
  if (id !== undefined && id !== "") {
    if (hasClassWord(NEGATIVE, id)) weight -= 25;
    if (hasClassWord(POSITIVE, id)) weight += 25;
  }
  if (el.attributes.itemprop !== undefined && /articlebody|text/i.test(el.attributes.itemprop)) weight += 25;
  return weight;
}

export function isHidden(el: LightElement): boolean {
  if (hasNoAttributes(el)) return false;
  const a = el.attributes;
  if (a.hidden !== undefined || a["aria-hidden"] === "true") return true;
  const style = a.style;
  return style !== undefined && /(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*hidden)/i.test(style);
}

/** Elements the filters drop before scoring: furniture by class, id or role, and hidden elements. */
export function isUnlikely(el: LightElement): boolean {
  const name = el.nodeName;
  if (name === "BODY" || name === "A" || name === "ARTICLE" || name === "MAIN") return false;
  if (FURNITURE_TAGS.has(name)) return true;
  if (hasNoAttributes(el)) return false;
  const role = el.attributes.role;
  if (role !== undefined && UNLIKELY_ROLES.has(role.toLowerCase())) return true;
  const match = classAndId(el);
  if (match === "") return false;
  if (hasClassWord(ALWAYS_UNLIKELY, match) && !/article|main|body/i.test(el.attributes.itemprop ?? "")) return true;
  return hasClassWord(UNLIKELY_CANDIDATE, match) && !hasClassWord(MAYBE_CANDIDATE, match) && !hasClassWord(CONTENT_HEADER, match);
}

/**
 * Whether class and id name page metadata (byline, date, tags, share, rating…). A word of article
 * text in another class name keeps the element ("entry-content date-box"); in the same name it
 * only says whose metadata it is ("entry-meta", "post-ratings", "postmetadata").
 */
export function isMetaLike(match: string): boolean {
  if (match === "" || !hasClassWord(META_LIKE, match)) return false;
  let meta = false;
  for (const name of match.split(/\s+/)) {
    if (hasClassWord(META_LIKE, name)) meta = true;
    else if (hasClassWord(POSITIVE, name)) return false;
  }
  return meta;
}
