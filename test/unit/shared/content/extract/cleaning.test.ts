import { describe, expect, it } from "vitest";
import { htmlToMarkdown } from "../../../../../shared/content/html-to-markdown";

// Fixtures of our own making for the article cleaning's tail rules (cleaning.ts): each fails when
// its rule is reverted.

const BASE = "https://news.example/2026/story.html";
const text = (html: string) => htmlToMarkdown(html, { baseUrl: BASE, mainContent: true, format: "text" }).markdown;
const page = (title: string, body: string) => `<!doctype html><html><head><title>${title}</title></head><body>${body}</body></html>`;
const sentence = (topic: string, i: number) => `The ${topic} report, paragraph ${i}, explains what happened, who was there, and why it matters to readers.`;
const paragraphs = (topic: string, n: number) => Array.from({ length: n }, (_, i) => `<p>${sentence(topic, i)} ${sentence(topic, i + 100)}</p>`).join("\n");

describe("a link line to the reader that points on", () => {
  it("drops 'Hier geht es zur …' and 'Continue reading the main story' on lines of their own", () => {
    const html = page(
      "Club news",
      `<div class="story"><h1>Club news</h1>${paragraphs("club", 4)}
       <p>${sentence("club", 7)}<br><br><a href="/files/board.pdf">Hier geht es zur neuen Vorstandsstruktur</a><br><br></p>
       <p><a href="#next">Continue reading the main story</a></p></div>`,
    );
    const out = text(html);
    expect(out).toContain("The club report, paragraph 7");
    expect(out).not.toContain("Vorstandsstruktur");
    expect(out).not.toContain("Continue reading");
  });

  it("keeps such a link inside a sentence, bare or in bold", () => {
    const html = page(
      "Club news",
      `<div class="story"><h1>Club news</h1>${paragraphs("club", 4)}
       <p><b>We write about the league every week. </b><a href="/follow"><b>Follow us</b></a><b> to stay up to date on the season and its games.</b></p>
       <p>The board wrote its plan down. <strong><a href="/plan">Hier geht’s zum Plan des Vorstands</a></strong>.</p></div>`,
    );
    const out = text(html);
    expect(out).toContain("Follow us to stay up to date on the season");
    expect(out).toContain("Hier geht’s zum Plan des Vorstands");
  });
});

describe("a label line left at the article's end", () => {
  it("drops a last line that ends with a colon, whose list cleaning took; keeps a label with its text after it", () => {
    const html = page(
      "Trip report",
      `<div class="post"><h1>Trip report</h1>${paragraphs("trip", 4)}
       <p>Packing list:</p><p>${sentence("packing", 1)}</p>
       <p>Die Karte zum Abspeichern:</p>
       <ul class="related-links"><li><a href="/a">Another trip to the coast</a></li><li><a href="/b">A third trip to the hills</a></li></ul></div>`,
    );
    const out = text(html);
    expect(out).toContain("Packing list:");
    expect(out).toContain("The packing report, paragraph 1");
    expect(out).not.toContain("Die Karte zum Abspeichern");
    expect(out).not.toContain("Another trip");
  });

  it("keeps a last line with a colon that is a sentence's length, not a label's", () => {
    const last = "In the end the old mountain guide said out loud what every one of us had been thinking for days:";
    const html = page("Trip report", `<div class="post"><h1>Trip report</h1>${paragraphs("trip", 4)}<p>${last}</p></div>`);
    expect(text(html)).toContain(last);
  });
});

describe("listing controls written as text", () => {
  it("drops a listing's count line and a picture's show/hide control; keeps the items", () => {
    const html = page(
      "Red wines",
      `<div class="shop"><h1>Red wines</h1>${paragraphs("wine", 4)}
       <div class="step"><p>${sentence("step", 1)}</p><div role="button"><span>Bild anzeigen</span> <span>Bild schließen</span></div></div>
       <p>Es werden die Weine 1 bis 10 von insgesamt 19 angezeigt!</p>
       <p class="count">Showing 1–10 of 19 results</p></div>`,
    );
    const out = text(html);
    expect(out).toContain("The step report, paragraph 1");
    expect(out).not.toContain("Bild anzeigen");
    expect(out).not.toContain("insgesamt 19");
    expect(out).not.toContain("Showing 1");
  });
});

describe("teasers that end with a read-more link", () => {
  const card = (title: string, href: string) =>
    `<div class="card"><div class="pic"><a href="${href}"><img src="/i/${href.slice(1)}.jpg" alt=""></a></div><div class="body"><p>${title} is another story of the site, told in two lines under its picture. See for yourself!</p><p><a href="${href}">Weiterlesen</a></p></div></div>`;

  it("drops a run of such cards and one such box inside the article; keeps the article's paragraphs", () => {
    const html = page(
      "Garden news",
      `<div class="story"><h1>Garden news</h1>${paragraphs("garden", 3)}
       <div class="box"><p>The summer holiday is near, and the stars show where they spend it. See for yourself!</p><strong><a href="/stars/holiday">Weiterlesen</a></strong></div>
       ${paragraphs("garden", 2)}
       <div class="more">${card("The winter coat", "/coat")}${card("The autumn soup", "/soup")}${card("The spring bulbs", "/bulbs")}</div></div>`,
    );
    const out = text(html);
    expect(out).toContain("The garden report, paragraph 1");
    expect(out).not.toContain("The summer holiday is near");
    expect(out).not.toContain("The winter coat");
    expect(out).not.toContain("The spring bulbs");
    expect(out).not.toContain("Weiterlesen");
  });

  it("keeps paragraphs that end with a read-more link to their source, and a box whose link stays on the page", () => {
    const html = page(
      "Garden news",
      `<div class="story"><h1>Garden news</h1>${paragraphs("garden", 3)}
       <p>The study counted the bees of 40 gardens over two summers. <a href="/study">Read more</a></p>
       <p>The second study counted the birds of the same gardens in winter. <a href="/study-2">Read more</a></p>
       <div class="box"><p>The method of the count is set out below the results, in the notes of the authors.</p><a href="#method">Read more</a></div>
       ${paragraphs("garden", 2)}</div>`,
    );
    const out = text(html);
    expect(out).toContain("The study counted the bees of 40 gardens");
    expect(out).toContain("The second study counted the birds");
    expect(out).toContain("The method of the count is set out");
  });
});

describe("a line written in a box beside its picture", () => {
  const picture = `<div class="step-image"><picture><source srcset="/img/step.webp"><img src="/img/step.jpg" alt=""></picture></div>`;
  /** A step of a recipe: a counter, the step's line written in the box (with inline elements), a show/hide control in two spans, its picture. */
  const step = (i: number, line: string) => `<div class="step-item"><div class="step-inner">
      <div class="progress"><span>${i}</span> von 5</div>
      ${line}
      <div class="toggle" role="button">
        <span class="toggle-open">
          Bild anzeigen   </span>
        <span class="toggle-close">
          Bild schließen   </span>
      </div>
      ${picture}</div></div>`;
  const recipe = (steps: string, after = "") =>
    page(
      "Mole cake",
      `<div class="recipe"><h1>Mole cake</h1>${paragraphs("baking", 3)}
       ${steps}${after}</div>`,
    );

  it("keeps the step and drops the control that its two spans write", () => {
    const out = text(
      recipe(
        [
          step(1, `Schlage <span class="ingredient">600 g Sahne</span> mit <span class="ingredient">3 Beuteln Gelatine</span> steif.`),
          step(2, `Ab mit dem Kuchen in den Ofen. Er muss <strong>35 Min.</strong> backen.`),
        ].join("\n"),
      ),
    );
    expect(out).toContain("Schlage 600 g Sahne mit 3 Beuteln Gelatine steif.");
    expect(out).toContain("Ab mit dem Kuchen in den Ofen. Er muss 35 Min. backen.");
    expect(out).not.toContain("Bild anzeigen");
    expect(out).not.toContain("Bild schließen");
  });

  it("still drops a picture's short caption set in an element of its own", () => {
    const out = text(recipe(step(1, `Ab mit dem Kuchen in den Ofen. Er muss <strong>35 Min.</strong> backen.`), `<div class="media">${picture}<p>The finished cake on its plate.</p></div>`));
    expect(out).toContain("Ab mit dem Kuchen in den Ofen.");
    expect(out).not.toContain("The finished cake on its plate.");
  });
});
