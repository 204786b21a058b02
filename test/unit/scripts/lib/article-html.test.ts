import { describe, expect, it } from "vitest";
import { generateArticleHtml } from "../../../../scripts/lib/article-html";
import { renderDocument } from "../../../../shared/content/render";

describe("generateArticleHtml", () => {
  it("is deterministic for a seed and varies with it", () => {
    expect(generateArticleHtml(20_000, 3)).toBe(generateArticleHtml(20_000, 3));
    expect(generateArticleHtml(20_000, 4)).not.toBe(generateArticleHtml(20_000, 3));
  });

  it.each([20_000, 100_000, 1_000_000])("reaches %i bytes within one section", (target) => {
    const bytes = Buffer.byteLength(generateArticleHtml(target));
    expect(bytes).toBeGreaterThanOrEqual(target);
    expect(bytes).toBeLessThan(target + 3_000);
  });

  it("reads as an article: the main-content extractor finds it and the Markdown has its structure", () => {
    const page = renderDocument({ body: Buffer.from(generateArticleHtml(60_000, 2)), contentType: "text/html; charset=utf-8", finalUrl: "https://bench.example/a", mainContent: true });
    expect(page.extractor).toBe("readability");
    expect(page.title).toMatch(/\| The Bench Gazette$/);
    expect(page.content).toMatch(/^## /m);
    expect(page.content).toMatch(/^- /m);
    expect(page.content).toMatch(/^```js\nconst \w+ = await fetch/m);
    expect(page.content).toMatch(/\| name \| value \| note \|/);
    expect(page.content).toContain("](https://bench.example/articles/");
    // Navigation and the footer's form are boilerplate, not content.
    expect(page.content).not.toContain("Subscribe");
  });
});
