import type { WorkMeter } from "../conversion-deadline";
import { LightElement, LightText, parseLightDocument } from "../light-dom";
import { MAIN_CONTENT_PRUNED } from "./main-content";

/**
 * The article body a page publishes as structured data (schema.org JSON-LD `articleBody`), used
 * when the page's HTML does not carry the article: sites that render the body with scripts from
 * a JSON copy, or send it only in the JSON-LD (docs/content.md, "Main content").
 */

/** schema.org types whose `articleBody` is the page's article: Article and its subtypes (NewsArticle, BlogPosting, Report, …). */
const ARTICLE_TYPE = /(?:article|posting|report)$/i;
/** At most this many JSON values are visited per page, whatever the structured data holds. */
const MAX_VISITS = 20_000;
/** A structured body shorter than this (non-space characters) is a teaser, not an article. */
const MIN_BODY_CHARS = 500;
/** The structured body replaces the extracted article when the article has less than this share of its text. */
const MIN_SHARE = 0.5;

interface StructuredArticle {
  body: string;
  headline: string;
  /** The article's `description` (often its lead, which some sites leave out of `articleBody`). */
  description: string;
}

/** The longest `articleBody` of an Article-typed object in the page's JSON-LD scripts, with its headline; null when none. */
export function findStructuredArticle(scripts: readonly string[]): StructuredArticle | null {
  let best: StructuredArticle | null = null;
  let visits = 0;
  const budget = { visits: MAX_VISITS };
  for (const script of scripts) {
    let data: unknown;
    try {
      data = JSON.parse(script);
    } catch {
      continue;
    }
    const stack: unknown[] = [data];
    while (stack.length > 0 && visits++ < MAX_VISITS) {
      const value = stack.pop();
      if (Array.isArray(value)) {
        for (const item of value) stack.push(item);
        continue;
      }
      if (value === null || typeof value !== "object") continue;
      const record = value as Record<string, unknown>;
      const body = bodyText(record.articleBody);
      if (body !== "" && isArticleType(record["@type"]) && (best === null || body.length > best.body.length)) {
        best = { body, headline: stringField(record, "headline"), description: stringField(record, "description") };
      } else if (hasType(record["@type"], HOW_TO_TYPE)) {
        const howTo = howToHtml(record, budget);
        if (howTo !== "" && (best === null || howTo.length > best.body.length)) best = { body: howTo, headline: stringField(record, "name"), description: "" };
      }
      for (const key of Object.keys(record)) if (key !== "articleBody" && typeof record[key] === "object") stack.push(record[key]);
    }
  }
  return best;
}

function stringField(record: Record<string, unknown>, key: string): string {
  const value = record[key];
  return typeof value === "string" ? value : "";
}

function bodyText(value: unknown): string {
  if (typeof value === "string") return value;
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === "string").join("\n\n");
  return "";
}

function isArticleType(type: unknown): boolean {
  return hasType(type, ARTICLE_TYPE);
}

function hasType(type: unknown, pattern: RegExp): boolean {
  if (typeof type === "string") return pattern.test(type);
  return Array.isArray(type) && type.some((t) => typeof t === "string" && pattern.test(t));
}

/** schema.org HowTo and its subtype Recipe: instructions published as data (description, ingredients, steps). */
const HOW_TO_TYPE = /^(?:https?:\/\/schema\.org\/)?(?:HowTo|Recipe)$/i;

/** A string that is already HTML (the description or a step written with `<p>`…). */
const LOOKS_LIKE_HTML = /<\/?(?:p|br|div|h[1-6]|ul|ol|li|blockquote|a|strong|em|b|i)\b[^>]*>/i;

function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** A text of the data as a block: HTML as it is, plain text as a paragraph (a heading for `h`). */
function block(text: string, h?: "h2" | "h3"): string {
  if (text.trim() === "") return "";
  if (h === undefined && LOOKS_LIKE_HTML.test(text)) return text;
  const tag = h ?? "p";
  return `<${tag}>${escapeHtml(text)}</${tag}>`;
}

/**
 * The text of a HowTo or Recipe as HTML: its description, its ingredients (a list) and its steps
 * (`step`, `recipeInstructions`: strings, HowToStep and HowToDirection with their `text`,
 * HowToSection with a name over its `itemListElement`), in order. A step's `name` is written
 * when it is not the start of its text (some sites repeat the text as the name). Iterative and
 * bounded by the caller's `budget` of visited values, shared with the rest of the walk.
 */
function howToHtml(record: Record<string, unknown>, budget: { visits: number }): string {
  const parts: string[] = [block(stringField(record, "description"))];
  const ingredients = record.recipeIngredient ?? record.ingredients;
  if (Array.isArray(ingredients)) {
    const items = ingredients.filter((v): v is string => typeof v === "string" && v.trim() !== "");
    if (items.length > 0) parts.push(`<ul>${items.map((item) => `<li>${escapeHtml(item)}</li>`).join("")}</ul>`);
  }
  // A depth-first walk over the steps in document order: a stack of values still to write.
  const stack: unknown[] = [record.recipeInstructions, record.step].reverse();
  while (stack.length > 0 && budget.visits-- > 0) {
    const value = stack.pop();
    if (typeof value === "string") {
      parts.push(block(value));
    } else if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push(value[i]);
    } else if (value !== null && typeof value === "object") {
      const step = value as Record<string, unknown>;
      const name = stringField(step, "name").trim();
      const text = stringField(step, "text");
      if (name !== "" && !collapse(text).startsWith(collapse(name).slice(0, 40))) parts.push(block(name, hasType(step["@type"], /section$/i) ? "h2" : "h3"));
      parts.push(block(text));
      stack.push(step.itemListElement);
    }
  }
  const html = parts.join("");
  return html.replace(/<[^>]*>/g, "").trim() === "" ? "" : html;
}

function collapse(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

function nonSpaceChars(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c > 0x20 && c !== 0xa0) n++;
  }
  return n;
}

/**
 * The article to convert: `extracted` (what extractMainContent returned, or null), unless the
 * page's structured data holds an article body of at least {@link MIN_BODY_CHARS} characters of
 * which the extracted article has less than half; then that body, under its headline (or the
 * page's title) as an `<h1>`. A body written in HTML is parsed as HTML (pruned as the page is);
 * plain text becomes one paragraph per line. The structured `description` goes first when the
 * extracted article shows it and the body leaves it out (a lead kept apart from the body).
 * Linear in the structured data's size.
 */
export function preferStructuredBody(extracted: LightElement | null, structuredData: readonly string[], title: string, meter?: WorkMeter): LightElement | null {
  if (structuredData.length === 0) return extracted;
  const article = findStructuredArticle(structuredData);
  if (article === null) return extracted;
  // A body written in HTML is parsed as it is; plain text becomes one paragraph per line (parsed
  // too, so that character references in it are decoded).
  const isHtml = /<\/?(?:p|br|div|h[1-6]|ul|ol|li|blockquote|a|strong|em|b|i)\b[^>]*>/i.test(article.body);
  const source = isHtml ? article.body : article.body.split(/\r?\n/).filter((line) => line.trim() !== "").map((line) => `<p>${line}</p>`).join("");
  const body = parseLightDocument(source, { pruned: MAIN_CONTENT_PRUNED, ...(meter === undefined ? {} : { meter }) }).body;
  const bodyChars = nonSpaceChars(body.textContent);
  if (bodyChars < MIN_BODY_CHARS) return extracted;
  if (extracted !== null && nonSpaceChars(extracted.textContent) >= MIN_SHARE * bodyChars) return extracted;
  const out = new LightElement("article", {});
  const headline = (article.headline.trim() || title).replace(/\s+/g, " ");
  if (headline !== "") {
    const h1 = new LightElement("h1", {});
    h1.appendChild(new LightText(headline));
    out.appendChild(h1);
  }
  // The lead that the page shows in its article but the structured body leaves out.
  const lead = collapse(article.description);
  if (lead.length >= 40 && extracted !== null && collapse(extracted.textContent).includes(lead) && !collapse(body.textContent).includes(lead)) {
    const p = new LightElement("p", {});
    p.appendChild(new LightText(lead));
    out.appendChild(p);
  }
  while (body.firstChild !== null) out.appendChild(body.removeChild(body.firstChild));
  return out;
}
