import { describe, expect, it } from "vitest";
import { findStructuredArticle } from "../../../../../shared/content/extract/structured-body";
import { htmlToMarkdown } from "../../../../../shared/content/html-to-markdown";

// Text that exists only in the page's JSON-LD (issue 17, reading quality): the article body a
// site publishes as schema.org structured data while its HTML is a script-rendered shell.

const BASE = "https://news.example/2026/story.html";
const main = (html: string, format: "markdown" | "text" = "markdown") => htmlToMarkdown(html, { baseUrl: BASE, mainContent: true, format });
const sentence = (i: number) => `Paragraph ${i} of the harbour story says what happened, who was there, and why it matters to the town.`;
const bodyText = (n: number) => Array.from({ length: n }, (_, i) => `${sentence(i)} ${sentence(i + 100)}`).join("\n");
const jsonLd = (data: unknown) => `<script type="application/ld+json">${JSON.stringify(data)}</script>`;
const menu = `<nav><ul>${Array.from({ length: 8 }, (_, i) => `<li><a href="/s/${i}">Section ${i}</a></li>`).join("")}</ul></nav>`;
const page = (head: string, body: string) => `<!doctype html><html><head><title>Harbour | News</title>${head}</head><body>${body}</body></html>`;

describe("the article body from JSON-LD", () => {
  it("a page whose HTML lacks the article answers the JSON-LD articleBody, headline first, one paragraph per line", () => {
    const html = page(jsonLd({ "@context": "https://schema.org", "@type": "NewsArticle", headline: "The harbour reopens", articleBody: bodyText(6) }), `${menu}<div id="app"></div><p>Loading the story, please wait.</p>`);
    const out = main(html);
    expect(out.markdown.startsWith("# The harbour reopens\n")).toBe(true);
    expect(out.markdown).toContain(`\n\n${sentence(4)} ${sentence(104)}\n\n${sentence(5)}`);
    expect(out.markdown).not.toContain("Section 3");
    expect(out.extractor).toBe("readability");
  });

  it("finds the article in an @graph, among other types, and takes a body written in HTML as HTML", () => {
    const graph = { "@graph": [{ "@type": "WebSite", name: "News" }, { "@type": ["BlogPosting"], headline: "Tides", articleBody: `<p>${sentence(1)}</p><p>${sentence(2)} <a href="/tides">More on tides</a>.</p><p>${bodyText(4)}</p>` }] };
    const out = main(page(jsonLd(graph), `${menu}<div id="root"></div>`));
    expect(out.markdown).toContain("# Tides");
    expect(out.markdown).toContain("[More on tides](https://news.example/tides)");
  });

  it("keeps the HTML article when it holds the body (structured data changes nothing)", () => {
    const article = `<article><h1>The harbour reopens</h1>${Array.from({ length: 6 }, (_, i) => `<p>${sentence(i)} <em>${sentence(i + 100)}</em></p>`).join("")}</article>`;
    const html = page(jsonLd({ "@type": "NewsArticle", headline: "The harbour reopens", articleBody: bodyText(6) }), `${menu}${article}`);
    expect(main(html).markdown).toContain(`_${sentence(105)}_`);
  });

  it("ignores a teaser body, a non-article type, and JSON that does not parse", () => {
    const teaser = jsonLd({ "@type": "Article", articleBody: "A short teaser of the story." });
    const recipe = jsonLd({ "@type": "Recipe", articleBody: bodyText(6) });
    const shell = `${menu}<main><p>Only this line is on the page, with a comma, and a full stop.</p></main>`;
    for (const head of [teaser, recipe, `<script type="application/ld+json">{"@type": "Article", "articleBody": </script>`]) {
      const out = main(page(head, shell));
      expect(out.markdown).not.toContain("Paragraph 1 of the harbour story");
      expect(out.markdown).toContain("Only this line is on the page");
    }
  });

  it("puts the lead first when the page shows it in its article and the body leaves it out", () => {
    const lead = "The harbour opens again after a winter of repairs, and the ferries return on Monday.";
    const html = page(jsonLd({ "@type": "Article", headline: "Harbour", description: lead, articleBody: bodyText(8) }), `${menu}<article><h1>Harbour</h1><p>${lead}</p><p>${sentence(0)}</p><div class="paywall">Subscribe to read on.</div></article>`);
    const out = main(html, "text");
    expect(out.markdown).toContain(lead);
    expect(out.markdown.indexOf(lead)).toBeLessThan(out.markdown.indexOf(sentence(7)));
  });

  it("walks a bounded amount of structured data and never throws on odd JSON", () => {
    expect(findStructuredArticle(["[]", "null", "42", '"x"', "{}", JSON.stringify({ "@type": 3, articleBody: ["a", 1, "b"] })])).toBeNull();
    expect(findStructuredArticle([JSON.stringify({ "@type": "Report", articleBody: ["a", 1, "b"] })])?.body).toBe("a\n\nb");
    const deep = `${"[".repeat(50_000)}${"]".repeat(50_000)}`;
    expect(() => findStructuredArticle([deep])).not.toThrow();
  });
});

describe("instructions published as HowTo or Recipe data", () => {
  const step = (i: number) => `Step ${i} of the tablecloth guide: measure, cut and hem the cloth, then press it flat so that it hangs evenly.`;
  it("a page whose HTML lacks them answers the description and the steps (HowToStep, HowToDirection)", () => {
    const howTo = {
      "@context": "http://schema.org/",
      "@type": "HowTo",
      name: "A round tablecloth in seven steps",
      description: `<p>${sentence(1)}</p><p>${sentence(2)}</p>`,
      step: Array.from({ length: 5 }, (_, i) => ({ "@type": "HowToStep", name: `Measure part ${i}`, itemListElement: { "@type": "HowToDirection", text: `<p>${step(i)}</p>` } })),
    };
    const out = main(page(jsonLd(howTo), `${menu}<div id="app"></div><p>Your browser is out of date.</p>`), "text").markdown;
    expect(out.startsWith("A round tablecloth in seven steps\n")).toBe(true);
    expect(out).toContain(sentence(2));
    expect(out.indexOf("Measure part 3")).toBeLessThan(out.indexOf(step(3)));
    expect(out).toContain(step(4));
    expect(out).not.toContain("Section 3");
  });

  it("a Recipe's ingredients as a list, its instructions as strings or sections, in order; a name that repeats its text once", () => {
    const recipe = {
      "@type": ["Recipe"],
      name: "Mandarin cake",
      description: "The creamiest cake I know, with a shortcrust base and a sour cream filling.",
      recipeIngredient: ["250 g flour", "3 cups sour cream", "2 cans of mandarins"],
      recipeInstructions: [
        { "@type": "HowToSection", name: "For the base", itemListElement: [{ "@type": "HowToStep", text: step(1) }, step(2)] },
        { "@type": "HowToStep", name: step(3), text: step(3) },
        bodyText(3),
      ],
    };
    const out = main(page(jsonLd(recipe), `${menu}<main><p>Rate this picture.</p></main>`)).markdown;
    expect(out).toContain("- 250 g flour\n- 3 cups sour cream");
    expect(out).toContain("## For the base");
    expect(out.indexOf(step(1))).toBeLessThan(out.indexOf(step(2)));
    expect(out.split(step(3)).length).toBe(2);
    expect(out).toContain(sentence(102));
  });

  it("keeps the HTML when it shows the recipe, and never throws on odd step data", () => {
    const recipe = { "@type": "Recipe", name: "Cake", recipeInstructions: [step(1), step(2), step(3), step(4), step(5)] };
    const article = `<article><h1>Cake</h1>${[1, 2, 3, 4, 5].map((i) => `<p><em>${step(i)}</em></p>`).join("")}</article>`;
    expect(main(page(jsonLd(recipe), `${menu}${article}`)).markdown).toContain(`_${step(5)}_`);
    const odd = [{ "@type": "HowTo", step: [null, 3, [[["x"]]], { itemListElement: { itemListElement: {} } }] }, { "@type": "Recipe", recipeIngredient: "flour", recipeInstructions: {} }];
    expect(() => findStructuredArticle(odd.map((o) => JSON.stringify(o)))).not.toThrow();
    const deep = `{"@type": "HowTo", "step": ${"[".repeat(50_000)}${"]".repeat(50_000)}}`;
    expect(() => findStructuredArticle([deep])).not.toThrow();
  });
});
