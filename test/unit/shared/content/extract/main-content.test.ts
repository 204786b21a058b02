import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { MAIN_CONTENT_PRUNED, extractMainContent } from "../../../../../shared/content/extract/main-content";
import { htmlToMarkdown } from "../../../../../shared/content/html-to-markdown";
import { parseLightDocument } from "../../../../../shared/content/light-dom";

// Fixtures of our own making, one group per failure class of issue 17 that the extractor owns.

const BASE = "https://news.example/2026/story.html";
const main = (html: string) => htmlToMarkdown(html, { baseUrl: BASE, mainContent: true });
const extract = (html: string) => {
  const doc = parseLightDocument(html, { pruned: MAIN_CONTENT_PRUNED });
  return extractMainContent(doc.body, { title: doc.title.replace(/\s+/g, " ").trim() });
};
const sentence = (topic: string, i: number) => `The ${topic} report, paragraph ${i}, explains what happened, who was there, and why it matters to readers.`;
const paragraphs = (topic: string, n: number) => Array.from({ length: n }, (_, i) => `<p>${sentence(topic, i)} ${sentence(topic, i + 100)}</p>`).join("\n");
const links = (word: string, n: number) => Array.from({ length: n }, (_, i) => `<li><a href="/${word}/${i}">${word} headline number ${i} about another subject</a></li>`).join("");
const page = (title: string, body: string) => `<!doctype html><html><head><title>${title}</title></head><body>${body}</body></html>`;

describe("class 2: the fallback is decided from the article itself", () => {
  it("a short article on a heavy portal is the article, not the whole page", () => {
    const portal = Array.from({ length: 12 }, (_, k) => `<div class="teaser-box"><ul>${links(`section${k}`, 30)}</ul></div>`).join("");
    const html = page("Short news", `<div class="portal">${portal}</div><div class="story"><h1>Short news</h1>${paragraphs("council", 2)}</div><div class="comments-area"><p>${"A reader comment, with opinions, and more opinions. ".repeat(30)}</p></div>`);
    const out = main(html);
    expect(out.extractor).toBe("readability");
    expect(out.markdown).toContain("The council report, paragraph 1");
    expect(out.markdown).not.toContain("headline number");
    expect(out.markdown).not.toContain("A reader comment");
  });

  it("a page without sentences (an address card) keeps its text and drops the menu", () => {
    const html = page("Shop", `<div class="menu-main">${links("menu", 20)}</div><div><h2>Opening hours</h2><div>Monday to Friday from 9 to 18 o'clock</div><div>Saturday from 10 to 14 o'clock</div><div>Call 0123 456 789 for appointments at the store</div><div>Market Street 45, Springfield, next to the station</div><div>Parking in the yard behind the building is free</div></div>`);
    const out = main(html);
    expect(out.markdown).toContain("Market Street 45");
    expect(out.markdown).not.toContain("menu headline");
  });

  it("the uncleaned fallback keeps a small page whose every block reads as furniture, rather than leave it empty", () => {
    const html = page("Letters", `<nav><a href="/">Home</a> <a href="/about">About</a></nav><div><p>Subscribe to our newsletter and get the letters of the week, with the answers of the team, in your inbox.</p><p>Follow us on social media for the letters, the pictures and the answers of the week.</p></div>`);
    const result = extract(html);
    expect(result.reason).toBe("page_cleaned");
    expect(result.element?.textContent).toContain("Follow us on social media");
  });

  it("a page with hardly any text converts whole", () => {
    expect(extract(page("x", "<p>Tiny.</p>")).element).toBeNull();
    expect(main(page("x", "<p>Tiny.</p>")).markdown).toBe("Tiny.");
  });
});

describe("class 3: link-dense blocks inside the article", () => {
  const article = (inside: string) =>
    page("The story", `<article><h1>The story</h1>${paragraphs("river", 3)}${inside}${paragraphs("delta", 3)}</article>`);

  it("drops related-story lists, tag lists, share bars and 'more from' blocks", () => {
    const out = main(
      article(`<h3>Related stories</h3><ul>${links("related", 5)}</ul>
        <div class="tags"><a href="/t/a">Rivers</a> <a href="/t/b">Deltas</a> <a href="/t/c">Farming</a></div>
        <div class="share-bar"><a href="https://social.example/share">Share</a> <a href="mailto:?">Email</a></div>
        <div><h4>More from the desk</h4><ul>${links("more", 4)}</ul></div>`),
    );
    expect(out.markdown).toContain("The river report, paragraph 2");
    expect(out.markdown).toContain("The delta report, paragraph 2");
    for (const noise of ["related headline", "Rivers", "Share", "more headline", "Related stories"]) expect(out.markdown).not.toContain(noise);
  });

  it("keeps a paragraph that has links in its sentences, and a list of prose items", () => {
    const out = main(
      article(`<p>Read <a href="/a">the first study</a>, then <a href="/b">the second</a>, which found, with care, that floods help.</p>
        <ul><li>First, the water rises slowly over weeks, as snow melts.</li><li>Then, the silt settles on the fields, as it always has.</li></ul>`),
    );
    expect(out.markdown).toContain("[the first study](https://news.example/a)");
    expect(out.markdown).toContain("the silt settles on the fields");
  });
});

describe("class 4: captions, photo credits, bylines", () => {
  it("keeps the image with its alt text; drops captions, bylines, dates and photo credits", () => {
    const out = main(
      page("Floods", `<article><h1>Floods</h1><div class="byline">By Ann Writer</div><time class="date">1 May 2026</time>
        <figure><img src="/f.jpg" alt="The flooded plain"><figcaption>The plain after the spring flood.</figcaption><span class="photo-credit">Photo: Agency</span></figure>
        ${paragraphs("flood", 4)}</article>`),
    );
    expect(out.markdown).not.toContain("The plain after the spring flood.");
    expect(out.markdown).toContain("![The flooded plain](https://news.example/f.jpg)");
    expect(out.markdown).not.toContain("By Ann Writer");
    expect(out.markdown).not.toContain("1 May 2026");
    expect(out.markdown).not.toContain("Photo: Agency");
  });
});

describe("class 3: link-list labels inside the article, at any depth", () => {
  const article = (inside: string) => page("The story", `<article><h1>The story</h1><div class="body">${paragraphs("river", 3)}${inside}${paragraphs("delta", 3)}</div></article>`);

  it("drops a small 'read also' box that a link-list heading opens, nested in the body", () => {
    const out = main(article(`<div class="box"><div><h4>Lesen Sie auch</h4><p><a href="/x">Another story about the weather in spring</a></p><p>A short teaser line for it.</p></div></div>`));
    expect(out.markdown).toContain("The delta report, paragraph 2");
    expect(out.markdown).not.toContain("Lesen Sie auch");
    expect(out.markdown).not.toContain("Another story about the weather");
  });

  it("drops a bold label line ('Auch interessant: <link>') and a label paragraph with the link list after it", () => {
    const out = main(
      article(`<p><strong>Auch interessant:</strong> <a href="/y">Why rivers change their course every century</a></p>
        <p><strong>Czytaj też</strong></p><ul><li><a href="/z1">Inna historia o rzece i deltach</a></li><li><a href="/z2">Jeszcze jedna historia o rzece</a></li></ul>`),
    );
    expect(out.markdown).toContain("The river report, paragraph 2");
    for (const noise of ["Auch interessant", "Why rivers change", "Czytaj też", "Inna historia"]) expect(out.markdown).not.toContain(noise);
  });

  it("drops a teaser line whose label is plain or in italics ('Le puede interesar: <link>', '<em>Czytaj też: <link></em>')", () => {
    const out = main(article(`<p>Le puede interesar: <a href="/y">Why rivers change their course every century</a></p><p><em>Czytaj też: <a href="/z">Inna historia o rzece i deltach</a></em></p><p>Read <a href="/more">more</a>.</p><p>Puedes ver: <a href="/v">Otra historia sobre los ríos del norte</a></p>`));
    expect(out.markdown).toContain("The delta report, paragraph 2");
    expect(out.markdown).toContain("Read [more](https://news.example/more).");
    for (const noise of ["Le puede interesar", "Why rivers change", "Czytaj też", "Inna historia", "Puedes ver", "Otra historia"]) expect(out.markdown).not.toContain(noise);
  });

  it("keeps a paragraph that merely starts with a bold word and links in its sentence", () => {
    const out = main(article(`<p><strong>Update:</strong> the <a href="/r">ministry</a> confirmed on Monday, after a long meeting, that the dike will be rebuilt this summer.</p>`));
    expect(out.markdown).toContain("confirmed on Monday, after a long meeting");
  });
});

describe("class 4: caption, credit and source lines outside <figure>", () => {
  it("drops short lines that start with a credit or source label, keeps prose that mentions one", () => {
    const out = main(
      page("Floods", `<article><h1>Floods</h1>${paragraphs("flood", 3)}<div class="imginline"><img src="/m.png" alt="Map"><div>Abbildung 2: Die Karte der Überschwemmung</div></div>
        <p>Foto: Agentur Müller</p><p>Quelle: Landesregierung</p><p>© 2020 Example Media. All rights reserved.</p>
        <p>The source of the flood, the engineers said in their report, was a broken pipe under the old bridge.</p>${paragraphs("river", 2)}</article>`),
    );
    for (const noise of ["Abbildung 2", "Agentur Müller", "Quelle: Landesregierung", "All rights reserved"]) expect(out.markdown).not.toContain(noise);
    expect(out.markdown).toContain("The source of the flood, the engineers said");
    expect(out.markdown).toContain("![Map](https://news.example/m.png)");
  });
});

describe("furniture lines beside the article's body", () => {
  it("a copyright line or a prompt next to the body is not joined to the article as more of its text", () => {
    const out = main(page("Floods", `<div class="wrap"><h1>Floods</h1><div class="story">${paragraphs("flood", 5)}</div><p>Sign up for our newsletter, every morning.</p><div class="copyright">© 2020 Example Media Inc. All Rights Reserved.</div><p>The water fell again on Sunday, the mayor said, and the roads opened.</p></div>`));
    expect(out.markdown).toContain("The flood report, paragraph 4");
    expect(out.markdown).toContain("The water fell again on Sunday");
    expect(out.markdown).not.toContain("All Rights Reserved");
    expect(out.markdown).not.toContain("Sign up for our newsletter");
  });
});

describe("class 6: the title heading", () => {
  it("keeps the <h1> that repeats <title>, first, when it sits outside the article body", () => {
    const out = main(page("The guide | Example Site", `<header class="site"><h1 class="logo">Example Site</h1></header><div class="headline"><h1>The guide</h1></div><div class="entry-content">${paragraphs("guide", 5)}</div>`));
    expect(out.markdown.startsWith("# The guide\n")).toBe(true);
    expect(out.markdown).not.toContain("# Example Site");
  });

  it("keeps the <h1> inside the article", () => {
    const out = main(page("The guide", `<article><h1>The guide</h1>${paragraphs("guide", 5)}</article>`));
    expect(out.markdown.startsWith("# The guide\n")).toBe(true);
  });
});

describe("the article's parts around its best block", () => {
  it("keeps the lead that sits in the article header between the title heading and the body", () => {
    const out = main(
      page("The storm | Coast News", `<div class="page"><header class="entry-header"><h2 class="entry-title">The storm</h2>
        <div class="entry-meta"><span class="byline">By Ann Writer</span> <time class="date">1 May 2026</time></div>
        <div class="lead"><p>Overnight the storm broke the dike at two places, and the coast road is closed until Friday.</p></div></header>
        <div class="entry-content">${paragraphs("storm", 5)}</div></div>`),
    );
    expect(out.markdown).toContain("Overnight the storm broke the dike");
    expect(out.markdown.indexOf("Overnight the storm")).toBeLessThan(out.markdown.indexOf("The storm report, paragraph 0"));
    expect(out.markdown).not.toContain("By Ann Writer");
  });

  it("does not pull in text before the article that no title heading introduces", () => {
    const out = main(
      page("The storm", `<div class="box"><p>Subscribe today and read every story of ours, every day of the week, on all devices.</p></div>
        <div class="entry-content"><h1>The storm</h1>${paragraphs("storm", 5)}</div>`),
    );
    expect(out.markdown).toContain("The storm report, paragraph 4");
    expect(out.markdown).not.toContain("Subscribe today");
  });

  it("keeps a recipe's or product's header (description, servings), which its class calls a header", () => {
    const out = main(
      page("Cake", `<div class="page-header">${links("menu", 6)}</div><div class="recipe"><div class="recipe-header"><div class="recipe-title">Cake</div><div class="recipe-text"><p>The softest cake of the season, with fruit from the garden and a crisp base.</p><p>For 12 pieces, in one hour.</p></div></div>
        ${paragraphs("baking", 4)}</div>`),
    );
    expect(out.markdown).toContain("The softest cake of the season");
    expect(out.markdown).toContain("The baking report, paragraph 3");
    expect(out.markdown).not.toContain("menu headline");
  });

  it("keeps a list of short items (ingredients, steps) inside the article", () => {
    const out = main(
      page("Cake", `<article><h1>Cake</h1>${paragraphs("baking", 3)}<h2>Ingredients</h2>
        <ul><li>200 g flour</li><li>3 eggs</li><li>1 teaspoon of baking powder from the shop</li></ul>${paragraphs("oven", 3)}</article>`),
    );
    expect(out.markdown).toContain("200 g flour");
    expect(out.markdown).toContain("1 teaspoon of baking powder");
  });

  it("keeps a paragraph of sentences whose class name reads like a furniture word (com- for comment)", () => {
    const out = main(page("Match", `<article><h1>Match</h1>${paragraphs("match", 3)}<p class="com-paragraph">The referee, in the last minute of the match, gave a penalty that nobody on the pitch or in the stands had asked for. The crowd went quiet.</p>${paragraphs("league", 3)}</article>`));
    expect(out.markdown).toContain("gave a penalty that nobody on the pitch or in the stands had asked for.");
  });
});

describe("class names read as words", () => {
  it("an article wrapper whose camelCase class only looks like a furniture word ('APageRoot' is not 'pager') is the article", () => {
    const out = main(page("Sustainability", `<header class="n-header">${links("menu", 6)}</header><main class="APageRoot"><div class="APageRoot__Sections"><section class="APageRoot__SectionWrapper"><h2>Paper</h2>${paragraphs("paper", 2)}</section><section class="APageRoot__SectionWrapper"><h2>Boxes</h2>${paragraphs("box", 2)}</section></div></main>`));
    expect(out.extractor).toBe("readability");
    expect(out.markdown).toContain("The paper report, paragraph 1");
    expect(out.markdown).toContain("The box report, paragraph 1");
    expect(out.markdown).not.toContain("menu headline");
  });

  it("a header that holds share buttons ('has-sharing') keeps its lead; the share bar itself goes", () => {
    const out = main(page("Heat pumps", `<article><header class="intro has-sharing"><h1>Heat pumps</h1><div class="abstract">Heat pumps are selling as never before, and the trade expects more.</div><div class="sharing"><a href="/s">Share</a></div></header><div class="body">${paragraphs("pump", 4)}</div></article>`));
    expect(out.markdown).toContain("Heat pumps are selling as never before");
    expect(out.markdown).not.toContain("Share");
  });

  it("a negated furniture word ('non-paywall') does not make the article furniture; the paywall box itself goes", () => {
    const out = main(page("Flat hunt", `<div class="menu">${links("menu", 6)}</div><section class="row non-paywall"><article>${paragraphs("flat", 3)}</article></section><div class="paywall-box"><p>Subscribe now for full access to every story we publish.</p></div><div id="comments">${paragraphs("reader", 12)}</div>`));
    expect(out.markdown).toContain("The flat report, paragraph 2");
    expect(out.markdown).not.toContain("The reader report");
    expect(out.markdown).not.toContain("Subscribe now");
  });
});

describe("page metadata inside the article", () => {
  it("drops metadata lines whose class name also says whose metadata it is ('postmetadata', 'post-ratings', 'entry-meta')", () => {
    const out = main(
      page("Bees", `<article><h1>Bees</h1><div class="entry-content">${paragraphs("bee", 4)}<span class="post-ratings">(No ratings yet)</span></div>
        <div class="postmetadata">Posted on Tuesday, 6 May 2014 in News by admin</div><div class="entry-meta">Filed under Gardens</div></article>`),
    );
    expect(out.markdown).toContain("The bee report, paragraph 3");
    for (const noise of ["No ratings yet", "Posted on Tuesday", "Filed under"]) expect(out.markdown).not.toContain(noise);
  });

  it("keeps a short block whose article word is a class of its own ('entry-content' beside 'date-note')", () => {
    const out = main(page("Bees", `<article><h1>Bees</h1>${paragraphs("bee", 4)}<p class="entry-content date-note">The hives were counted again in June, and all were healthy.</p></article>`));
    expect(out.markdown).toContain("The hives were counted again in June");
  });
});

describe("author boxes and disclaimers", () => {
  const bio = "Ann Writer has reported on gardens, bees and the weather for twenty years, and she lives with two cats by the river. She also teaches, writes books, and answers every letter.";
  it("drops an author box by its class or its itemprop, bio paragraphs and all", () => {
    for (const box of [`<div class="post-author__bio"><img src="/ann.jpg" alt="Ann"><p>${bio}</p><p>${bio}</p></div>`, `<section class="box" itemprop="author" itemscope><h3>Ann Writer</h3><div itemprop="description"><p>${bio}</p></div></section>`]) {
      const out = main(page("Bees", `<article><h1>Bees</h1>${paragraphs("bee", 4)}${box}</article>`));
      expect(out.markdown).toContain("The bee report, paragraph 3");
      expect(out.markdown).not.toContain("twenty years");
    }
  });

  it("drops an editorial or affiliate disclaimer box, a few paragraphs long", () => {
    const note = "The advertising note below does not apply to the story above, which was written by our newsroom, independently, without payment of any kind.";
    const out = main(page("Bees", `<article><h1>Bees</h1>${paragraphs("bee", 4)}<div class="editorial-disclaimer"><p>${note}</p><p>${note}</p></div><p class="aawp-disclaimer">${note}</p></article>`));
    expect(out.markdown).toContain("The bee report, paragraph 3");
    expect(out.markdown).not.toContain("advertising note");
  });

  it("keeps the article when only its byline names the author inline", () => {
    const out = main(page("Bees", `<article><h1>Bees</h1><p>Our reporter <span itemprop="author">Ann Writer</span> visited the hives, and she counted them, one by one, in the rain.</p>${paragraphs("bee", 4)}</article>`));
    expect(out.markdown).toContain("Our reporter Ann Writer visited the hives");
  });
});

describe("lines to the reader about the site, inside the article", () => {
  it("drops subscription and newsletter prompts, follow-us lines, paywall notices and ad disclosures, in several languages", () => {
    const prompts = [
      "Subscribe now to our e-edition for the full story and more.",
      "For the latest stories and breaking news updates, follow us on our channels.",
      "Follow The Daily Example on Twitter and Instagram @example.",
      "To view the full story, please subscribe to The Example Times.",
      "*Werbung. Dieser Beitrag enthält Werbung für eine Marke.",
      "Gefällt dir unser Magazin? Dann unterstütze uns mit einem Abo.",
      "¡Suscríbete a nuestro boletín y recibe las noticias del día!",
      "Zapraszamy też do subskrypcji naszego kanału.",
      "Sie müssen sich einloggen, um einen Kommentar zu schreiben.",
      "Comments are closed.",
    ];
    const out = main(page("Port", `<article><h1>Port</h1>${paragraphs("port", 3)}${prompts.map((p) => `<p>${p}</p>`).join("")}<p><em>- Anzeige -</em></p>${paragraphs("quay", 2)}</article>`));
    expect(out.markdown).toContain("The quay report, paragraph 1");
    for (const prompt of prompts) expect(out.markdown).not.toContain(prompt.slice(1, 30));
    expect(out.markdown).not.toContain("Anzeige");
  });

  it("drops the label 'Advertisement' (and 'Publicidad', 'Reklama') alone or between dashes; keeps a short story whose container opens with one", () => {
    const labels = ["Advertisement", "- Advertisement -", "ADVERTISEMENT", "Publicidad", "Reklama"];
    const out = main(page("Port", `<article><h1>Port</h1>${paragraphs("port", 3)}${labels.map((l) => `<p>${l}</p>`).join("")}${paragraphs("quay", 2)}</article>`));
    expect(out.markdown).toContain("The quay report, paragraph 1");
    expect(out.markdown).not.toMatch(/Advertisement|ADVERTISEMENT|Publicidad|Reklama/);
    // A short story whose container opens with the label is the article, not an appeal at its end.
    const lines = [
      "We are told the governor called for calm on Thursday after officials arrested the premier and the port director at an airport on drug charges.",
      "The governor said in a statement that this will be shocking news for the people of the islands, and called for calm.",
      "The deputy premier will act as premier, and he urged calm and patience, saying he could not comment on an active case.",
    ];
    const slot = (where: string) => `<div class="ad-x ${where}-x"><span class="spot-title">- Advertisement - </span></div>`;
    const short = main(page("Premier arrested", `<div class="wrap"><h1>Premier arrested</h1><div class="single-content"><div class="block-inner">${slot("top")}${lines.map((l) => `<p>${l}</p>`).join("")}${slot("bottom")}</div></div><div class="box-author"><p>Ann Example</p></div></div>`));
    expect(short.markdown).toContain("We are told the governor called for calm");
    expect(short.markdown).toContain("he urged calm and patience");
  });

  it("drops English news furniture lines: sponsored labels, media and topic labels before a link, cookie notices, parenthesized credits, 'Loading...'", () => {
    const lines = [
      "<p>Sponsored Content</p>",
      "<p>Paid Post</p>",
      "<p>Scroll down for video</p>",
      "<p>Continue Reading</p>",
      "<p>Read the full story at the Example Times.</p>",
      "<p>Print this article</p>",
      "<p>Loading...</p>",
      '<p>WATCH: <a href="/v/1">Video of the bridge closing</a></p>',
      '<p>Listen: <a href="/p/1">Our podcast about the bridge</a></p>',
      '<p>Topics: <a href="/t/1">Bridges</a>, <a href="/t/2">Council</a></p>',
      "<p>We use cookies to ensure you get the best experience on our website.</p>",
      "<p>(Photo by Ann Example/Example Agency)</p>",
      "<p>(Foto: Bo Beispiel)</p>",
    ];
    const out = main(page("Port", `<article><h1>Port</h1>${paragraphs("port", 3)}${lines.join("")}${paragraphs("quay", 2)}</article>`));
    expect(out.markdown).toContain("The quay report, paragraph 1");
    for (const noise of ["Sponsored", "Paid Post", "Scroll down", "Continue Reading", "Read the full story", "Print this", "Loading", "WATCH", "Our podcast", "Topics", "cookies", "Photo by", "Foto:"]) expect(out.markdown).not.toContain(noise);
  });

  it("keeps a section titled 'Video: …', and a sentence about cookies in a recipe", () => {
    const recipe = "We use cookies crumbled over the cream, and a spoon of honey on each plate.";
    const out = main(page("Port", `<article><h1>Port</h1>${paragraphs("port", 3)}<h2>Video: how the bridge fell</h2>${paragraphs("bridge", 2)}<p>${recipe}</p>${paragraphs("quay", 2)}</article>`));
    expect(out.markdown).toContain("Video: how the bridge fell");
    expect(out.markdown).toContain(recipe);
  });

  it("keeps a paragraph that opens with the word 'Werbung' in a sentence; drops the label 'Werbung' alone or with a stop", () => {
    const story = "Werbung nervt. Tracking nervt. Und mobil habe ich keine Zeit für hässliche Werbemittel.";
    const out = main(page("Port", `<article><h1>Port</h1>${paragraphs("port", 3)}<p>${story}</p><p>Werbung</p><p>Werbung: Dieser Text nennt eine Marke.</p>${paragraphs("quay", 2)}</article>`));
    expect(out.markdown).toContain(story);
    expect(out.markdown).not.toMatch(/^Werbung$/m);
    expect(out.markdown).not.toContain("Dieser Text nennt eine Marke");
  });

  it("keeps article sentences that speak of subscriptions, and long paragraphs that start like a prompt", () => {
    const story = "Subscriptions to the port's ferry pass rose by a third this year, the harbour office said.";
    const long = `Sign up numbers for the regatta, the organisers said on Monday, ${"were higher than in any year before, and the town is glad, ".repeat(6)}`;
    const out = main(page("Port", `<article><h1>Port</h1>${paragraphs("port", 3)}<p>${story}</p><p>${long}</p></article>`));
    expect(out.markdown).toContain(story);
    expect(out.markdown).toContain("Sign up numbers for the regatta");
  });
});

describe("furniture elements", () => {
  it("an unclosed <aside> before the article does not swallow it", () => {
    const out = main(page("Story", `<aside class="promo"><a href="/x">Promo</a><div><article><h1>Story</h1>${paragraphs("aside", 5)}</article></div>`));
    expect(out.markdown).toContain("The aside report, paragraph 4");
  });

  it("a long list of related posts with their excerpts is not taken for a wrapper of the article", () => {
    const related = Array.from({ length: 6 }, (_, i) => `<li><a href="/r/${i}">Related post ${i}</a><small>${sentence("excerpt", i)} ${sentence("excerpt", i + 50)}</small></li>`).join("");
    const out = main(page("Story", `<div class="entry">${paragraphs("main", 4)}<ul class="related_post">${related}</ul></div>`));
    expect(out.markdown).toContain("The main report, paragraph 3");
    expect(out.markdown).not.toContain("The excerpt report");
  });

  it("a German comment thread ('kommentare') is a comment thread too", () => {
    const out = main(page("Story", `<main>${paragraphs("main", 5)}</main><div class="kommentare"><div class="eintrag"><p>${"Ein toller Beitrag, danke, wirklich. ".repeat(20)}</p></div></div>`));
    expect(out.markdown).toContain("The main report, paragraph 4");
    expect(out.markdown).not.toContain("Ein toller Beitrag");
  });

  it("a post's taxonomy classes ('tag-comments', 'category-sidebar-news') name its topics, not furniture", () => {
    const out = main(page("Story", `<div class="menu">${links("menu", 6)}</div><div class="wrap"><div class="post hentry tag-comments category-sidebar-news">${paragraphs("tagged", 8)}</div></div><div class="wrap"><div class="promo-box">${paragraphs("other", 3)}</div></div><div id="comments"><p>${"First! Great post, really, thanks. ".repeat(20)}</p></div>`));
    expect(out.markdown).toContain("The tagged report, paragraph 7");
    expect(out.markdown).not.toContain("First! Great post");
  });

  it("navigation, footers and comment threads around the article are left out", () => {
    const out = main(page("Story", `<nav>${links("nav", 8)}</nav><main>${paragraphs("main", 5)}</main><section id="comments"><p>${"First! Great post, really, thanks. ".repeat(20)}</p></section><footer>Imprint, contact, privacy</footer>`));
    expect(out.markdown).toContain("The main report, paragraph 4");
    for (const noise of ["nav headline", "First! Great post", "Imprint"]) expect(out.markdown).not.toContain(noise);
  });
});

describe("server output printed into the page: PHP error messages", () => {
  const warning = (level: string, line: number) => `<br />\n<b>${level}</b>:  Creating default object from empty value in <b>/var/www/site/wp-includes/classes.php</b> on line <b>${line}</b><br />\n`;

  it("messages in PHP's HTML form go, wherever they sit in the article; the article's text stays", () => {
    const body = `<div class="post"><h1>Harbour days</h1>${warning("Warning", 407)}${warning("Deprecated", 82)}<p>${sentence("harbour", 1)} ${warning("Strict Standards", 56)}${sentence("harbour", 2)}</p>${paragraphs("harbour", 4)}</div>`;
    const out = main(page("Harbour days", body)).markdown;
    expect(out).toContain("The harbour report, paragraph 1");
    expect(out).toContain("The harbour report, paragraph 2");
    expect(out).not.toMatch(/Warning|Deprecated|Strict Standards|classes\.php|on line/);
  });

  it("the plain-text form goes too, and text that only talks about warnings stays", () => {
    const body = `<div class="post"><h1>Harbour days</h1><p>Notice: Undefined index: id in /srv/www/htdocs/index.php on line 12 ${sentence("harbour", 1)}</p><p>Warning: the storm is coming in on line twelve of the coast, the captain said, and it will be late.</p>${paragraphs("harbour", 4)}</div>`;
    const out = main(page("Harbour days", body)).markdown;
    expect(out).not.toContain("index.php");
    expect(out).toContain("The harbour report, paragraph 1");
    expect(out).toContain("Warning: the storm is coming in on line twelve");
  });

  it("a bold word followed by a colon in the article is not a message", () => {
    const body = `<div class="post"><h1>Harbour days</h1><p><b>Warning</b>: the pier is closed in winter, as the notice on line boards says.</p>${paragraphs("harbour", 4)}</div>`;
    expect(main(page("Harbour days", body)).markdown).toContain("**Warning**: the pier is closed in winter");
  });
});

describe("class 8: never throws, linear in the input", () => {
  const tags = ["div", "p", "a", "span", "ul", "li", "table", "tr", "td", "article", "aside", "nav", "h1", "h2", "figure", "section", "br", "img"];
  const attrs = ['', ' class="comment"', ' class="content"', ' hidden', ' style="display:none"', ' role="navigation"', ' class="share"', ' href="/x"'];
  const fragment = fc.array(
    fc.oneof(
      fc.tuple(fc.constantFrom(...tags), fc.constantFrom(...attrs)).map(([t, a]) => `<${t}${a}>`),
      fc.constantFrom(...tags).map((t) => `</${t}>`),
      fc.constantFrom("Some words, with commas. ", "<!-- c -->", "&amp; ", "x", " ", "<![CDATA[y]]>", "<?pi?>", "\u0000"),
    ),
    { maxLength: 60 },
  ).map((parts) => parts.join(""));

  it("on arbitrary tag soup: no throw, and an element or null with a reason", () => {
    fc.assert(
      fc.property(fc.oneof(fragment, fc.string()), (html) => {
        const result = extract(html);
        expect(["article", "article_relaxed", "page_cleaned", "no_text"]).toContain(result.reason);
        expect(() => main(html)).not.toThrow();
      }),
      { numRuns: 400 },
    );
  });

  it("text between table cells (a real page answered 500): both modes convert, the text kept", () => {
    // Rows laid out differently (one with whitespace and stray text between its cells, one
    // without): the GFM plugin reads a column's cells as row.childNodes[i] and met a text node.
    const table = `<table><tr><th>Place</th><th>Name</th><th>Time</th></tr><tr>\n  <td>1</td>\n  <td>Ann</td> stray <td>12,3</td>\n</tr><tr><td>2</td><td>Bea</td><td>12,9</td></tr></table>`;
    const html = page("Results", `<article><h1>Results</h1>${paragraphs("race", 3)}${table}</article>`);
    for (const mainContent of [true, false]) {
      const out = htmlToMarkdown(html, { baseUrl: BASE, mainContent });
      expect(out.markdown).toMatch(/\| 2 +\| Bea \| 12,9 \|/);
      expect(out.markdown).toContain("stray");
    }
  });

  it("a deep nest of text blocks (every level a candidate) stays fast", () => {
    // Each level holds a sentence: every element is a paragraph crediting five ancestors, and
    // each is a candidate; work must stay proportional to the element count.
    const depth = 390;
    const html = page("Deep", `${"<div>Deep text, with a comma, and a sentence. ".repeat(depth)}${"</div>".repeat(depth)}`);
    const result = extract(html);
    expect(result.element).not.toBeNull();
  });
});
