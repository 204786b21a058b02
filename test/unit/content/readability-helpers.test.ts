import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseHTML } from "linkedom";
import { convertMainContent, elementsByTag } from "../../../shared/content/html-to-markdown";

// The faster Readability helpers (html-to-markdown.ts, createReadability) must pick the same
// article as unmodified Readability: `reference` runs the unmodified one. The corpus test does
// the same over every corpus page; these pages cover each replaced helper on their own.

const URL_ = "https://example.com/post";
const para = (n: number, word: string) => `<p>${Array.from({ length: n }, (_, i) => `${word} sentence number ${i}, with commas, and enough words to score.`).join(" ")}</p>`;
const page = (body: string) => `<!doctype html><html><head><title>T</title></head><body>${body}</body></html>`;

const PAGES: Record<string, string> = {
  fixture: readFileSync(path.resolve(__dirname, "../../fixtures/content/article.html"), "utf8"),
  // Bylines: rel=author and itemprop=author are taken out of the article only when short.
  // The first candidate is too long to be one and stays in the article; the next one is taken out.
  bylines: page(`<div class="post"><div itemprop="author name">Longauthor ${"x".repeat(120)}</div><a rel="author" href="/me">Ann Author</a><p class="byline">By Someone</p>${para(8, "Body")}${para(6, "More")}</div>`),
  // Hidden by inline style, by the hidden attribute, by aria-hidden (kept when fallback-image).
  hidden: page(`<article>${para(6, "Shown")}<div style="display: none">${para(4, "StyleHidden")}</div><div style="visibility:hidden">${para(4, "Invisible")}</div><div hidden>${para(4, "AttrHidden")}</div><div aria-hidden="true">${para(4, "AriaHidden")}</div><div aria-hidden="true" class="mwe-math-fallback-image-inline fallback-image">${para(3, "Fallback")}</div><div style="color: red">${para(3, "Styled")}</div>${para(5, "Tail")}</article>`),
  // Under 500 characters: Readability retries with fewer heuristics.
  short: page(`<div class="comment sidebar"><p>Short text, only a little, nothing more.</p></div><div><p>Another short one, also brief.</p></div>`),
  // <base href>: one without href and one inside a template are skipped.
  bases: `<html><head><base target="_blank"><template><base href="https://wrong.example/"></template><base href="/docs/"><base href="https://second.example/"></head><body><article>${para(6, "Linked")}<p><a href="page">rel</a> <img src="i.png"></p></article></body></html>`,
  // Tags the helpers look for, in nested and upper-case markup, tables, embeds, lists.
  mixed: page(`<DIV id="main"><H2>Heading</H2>${para(5, "Intro")}<TABLE><tr><td>${para(3, "Cell")}</td></tr></TABLE><ul><li>${para(2, "Item")}</li></ul><div class="share social"><img src="a.png"><iframe src="https://www.youtube.com/embed/x"></iframe></div>${para(6, "Outro")}<br><br><font>old font</font></DIV>`),
};

describe("Readability with webgate's faster helpers", () => {
  for (const [name, html] of Object.entries(PAGES)) {
    it(`gives unmodified Readability's Markdown: ${name}`, () => {
      const fast = convertMainContent(html, URL_);
      const reference = convertMainContent(html, URL_, true);
      expect(fast).toEqual(reference);
      if (name !== "short") expect(fast?.markdown.length ?? 0).toBeGreaterThan(100);
    });
  }

  it("takes out a short byline and keeps a long author block", () => {
    const markdown = convertMainContent(PAGES.bylines!, URL_)?.markdown ?? "";
    expect(markdown).toContain("Longauthor");
    expect(markdown).not.toContain("Ann Author");
  });

  it("resolves links against the first <base href> outside templates", () => {
    const markdown = convertMainContent(PAGES.bases!, URL_)?.markdown ?? "";
    expect(markdown).toContain("[rel](https://example.com/docs/page)");
    expect(markdown).toContain("![](https://example.com/docs/i.png)");
  });

  it("leaves out what is hidden and keeps what is only styled", () => {
    const markdown = convertMainContent(PAGES.hidden!, URL_)?.markdown ?? "";
    expect(markdown).toContain("Shown sentence");
    expect(markdown).toContain("Styled sentence");
    for (const hidden of ["StyleHidden", "Invisible", "AttrHidden", "AriaHidden"]) expect(markdown).not.toContain(hidden);
  });

  it("elementsByTag returns what linkedom's querySelectorAll returns, in the same order", () => {
    const html = `${PAGES.mixed!}<template><p>in template</p><img src="t.png"></template>${PAGES.fixture!}<div><p>a<img src="x"><p>b</div><svg><g><image href="z"/></g></svg>`;
    const document = (parseHTML(html) as unknown as { document: { querySelectorAll(s: string): Iterable<unknown>; body: unknown; documentElement: unknown } }).document;
    const roots = [document.documentElement, document.body, ...Array.from(document.querySelectorAll("div, table, li"))];
    const lists = [["p"], ["img", "embed", "object", "iframe"], ["h1", "h2", "h3", "h4", "h5", "h6"], ["TABLE", "ul"], ["br"], ["template"], ["g", "image"], ["nothing"]];
    let matched = 0;
    for (const root of roots) {
      for (const tags of lists) {
        const expected = Array.from((root as { querySelectorAll(s: string): Iterable<unknown> }).querySelectorAll(tags.join(",")));
        const actual = elementsByTag(root as Parameters<typeof elementsByTag>[0], tags);
        expect(actual.length).toBe(expected.length);
        actual.forEach((el, i) => expect(el === expected[i]).toBe(true));
        matched += actual.length;
      }
    }
    expect(matched).toBeGreaterThan(50);
  });
});
