import { describe, expect, it } from "vitest";
import { htmlToMarkdown } from "../../../../../shared/content/html-to-markdown";

// The title heading and the lead put back before the article body (title-and-lead.ts), through
// the whole main-content conversion; fixtures of our own making.

const text = (html: string) => htmlToMarkdown(html, { baseUrl: "https://news.example/2026/story.html", mainContent: true, format: "text" }).markdown;
const page = (title: string, body: string) => `<!doctype html><html><head><title>${title}</title></head><body>${body}</body></html>`;
const sentence = (topic: string, i: number) => `The ${topic} report, paragraph ${i}, explains what happened, who was there, and why it matters to readers.`;
const paragraphs = (topic: string, n: number) => Array.from({ length: n }, (_, i) => `<p>${sentence(topic, i)} ${sentence(topic, i + 100)}</p>`).join("\n");
const teasers = `<div class="teasers">${Array.from({ length: 40 }, (_, i) => `<a href="/s/${i}">Story ${i}</a>`).join(" ")}</div>`;

describe("a standfirst set inline beside the headline", () => {
  it("keeps the lead in a <strong> of the headline's <hgroup>, between the headline and the body", () => {
    const html = page(
      "Police open an inquiry into the stolen cars - Daily Example",
      `${teasers}<article><hgroup class="head"><h2 class="kicker"></h2><h1>Police open an inquiry into the stolen cars</h1>
       <strong class="dek">In that frame, the inspector has promised that the inquiry will be open to the public. </strong></hgroup>
       <div class="share"><a href="/share">Share</a></div><div class="text">${paragraphs("inquiry", 5)}</div></article>`,
    );
    const out = text(html);
    const lead = out.indexOf("In that frame, the inspector has promised");
    expect(lead).toBeGreaterThan(out.indexOf("Police open an inquiry into the stolen cars"));
    expect(lead).toBeLessThan(out.indexOf("The inquiry report, paragraph 0"));
  });

  it("does not take a <strong> inside a metadata paragraph for the lead: it is a part of its paragraph", () => {
    const html = page(
      "Police open an inquiry into the stolen cars - Daily Example",
      `${teasers}<article><header><h1>Police open an inquiry into the stolen cars</h1>
       <p class="meta"><strong>Written for the example desk, who reported on the council, the court and the police.</strong></p>
</header>
       <div class="text">${paragraphs("inquiry", 5)}</div></article>`,
    );
    const out = text(html);
    expect(out).toContain("The inquiry report, paragraph 0");
    expect(out).not.toContain("Written for the example desk");
  });
});
