/**
 * Deterministic, article-like HTML of a chosen size for the /fetch latency bench: a page with a
 * head full of metadata, navigation, a long article (headings, paragraphs with inline markup and
 * links, lists, tables, code, figures, quotes), a comment thread, a sidebar and a footer, as a
 * news or documentation page has. Pure: the same arguments give the same bytes.
 */

const WORDS = (
  "the of and to in a is that for it as was with be by on not he this are or his from at which but have an they " +
  "you were her all she there would their we him been has when who will more no if out so said what up its about " +
  "into than them can only other new some could time these two may then do first any my now such like our over " +
  "man me even most made after also did many before must through back years where much your way well down should " +
  "because each just those people how too little state good very make world still own see men work long get here " +
  "between both life being under never day same another know while last might us great old year off come since " +
  "against go came right used take three system network latency river harbour council measured protocol archive"
).split(" ");

/** A small seeded generator (mulberry32): deterministic and good enough for filler text. */
function generator(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/**
 * An HTML page of about `targetBytes` UTF-8 bytes (within one section's size above it; at least
 * the fixed frame of ~3 KB). `seed` varies the text.
 */
export function generateArticleHtml(targetBytes: number, seed = 1): string {
  const random = generator(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const words = (n: number) => Array.from({ length: n }, () => pick(WORDS)).join(" ");
  const sentence = () => {
    const s = words(8 + Math.floor(random() * 14));
    return `${s.charAt(0).toUpperCase()}${s.slice(1)}.`;
  };
  const paragraph = () => {
    const parts: string[] = [];
    const count = 3 + Math.floor(random() * 4);
    for (let i = 0; i < count; i++) {
      const r = random();
      if (r < 0.15) parts.push(`${sentence()} <a href="/articles/${Math.floor(random() * 9999)}">${words(3)}</a>`);
      else if (r < 0.25) parts.push(`<em>${sentence()}</em>`);
      else if (r < 0.32) parts.push(`<strong>${words(4)}</strong> ${sentence()}`);
      else if (r < 0.36) parts.push(`Use <code>${pick(WORDS)}_${pick(WORDS)}()</code> here. ${sentence()}`);
      else parts.push(sentence());
    }
    return `<p>${parts.join(" ")}</p>`;
  };
  const section = (index: number) => {
    const blocks = [`<h2 id="s${index}">${words(4)}</h2>`, paragraph(), paragraph()];
    const kind = index % 5;
    if (kind === 0) blocks.push(`<ul>${Array.from({ length: 5 }, () => `<li>${sentence()}</li>`).join("")}</ul>`);
    if (kind === 1) {
      const rows = Array.from({ length: 6 }, (_, r) => `<tr><td>${words(2)}</td><td>${r * 17 + index}</td><td>${words(3)}</td></tr>`).join("");
      blocks.push(`<table><thead><tr><th>name</th><th>value</th><th>note</th></tr></thead><tbody>${rows}</tbody></table>`);
    }
    if (kind === 2) blocks.push(`<pre><code class="language-js">const ${pick(WORDS)} = await fetch("/api/${pick(WORDS)}");\nconsole.log(${pick(WORDS)}.status);</code></pre>`);
    if (kind === 3) blocks.push(`<figure><img src="/img/${index}.jpg" alt="${words(4)}" width="640" height="360"><figcaption>${sentence()}</figcaption></figure>`);
    if (kind === 4) blocks.push(`<blockquote><p>${sentence()} ${sentence()}</p></blockquote>`, `<ol>${Array.from({ length: 4 }, () => `<li>${sentence()}</li>`).join("")}</ol>`);
    blocks.push(paragraph());
    return `<section class="article-section">\n${blocks.join("\n")}\n</section>`;
  };
  const comment = (index: number) =>
    `<li class="comment"><div class="meta"><a href="/users/${index}" class="author">${pick(WORDS)}${index}</a> <time>2 hours ago</time></div><p>${sentence()}</p><button class="reply">Reply</button></li>`;

  const head = [
    "<!DOCTYPE html>",
    '<html lang="en"><head><meta charset="utf-8">',
    `<title>${words(6)} | The Bench Gazette</title>`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<meta name="description" content="${words(20)}">`,
    '<link rel="stylesheet" href="/static/site.css"><link rel="canonical" href="https://bench.example/article">',
    '<script>window.dataLayer = window.dataLayer || []; function gtag(){ dataLayer.push(arguments); } gtag("js", new Date());</script>',
    "<style>body { font-family: serif; } .comment { margin: 1em; } nav a { padding: 4px; }</style>",
    "</head><body>",
    `<header class="site-header"><a href="/" class="logo">The Bench Gazette</a><nav><ul>${["News", "World", "Tech", "Science", "Opinion", "Sport"].map((n) => `<li><a href="/${n.toLowerCase()}">${n}</a></li>`).join("")}</ul></nav></header>`,
    '<main><article class="story">',
    `<h1>${words(8)}</h1>`,
    `<p class="byline">By <a href="/authors/bench">${words(2)}</a>, <time datetime="2026-01-02">2 January 2026</time></p>`,
  ].join("\n");
  const tail = [
    "</article>",
    `<aside class="related"><h3>Related</h3><ul>${Array.from({ length: 6 }, (_, i) => `<li><a href="/related/${i}">${words(5)}</a></li>`).join("")}</ul></aside>`,
    "</main>",
    `<footer><p>&copy; 2026 The Bench Gazette. ${words(12)}</p><form action="/subscribe"><input name="email"><button>Subscribe</button></form></footer>`,
    '<script src="/static/app.js" defer></script>',
    "</body></html>",
    "",
  ].join("\n");

  // Three quarters article, one quarter comment thread: a typical news page's share.
  const budget = targetBytes - Buffer.byteLength(head) - Buffer.byteLength(tail);
  const articleParts: string[] = [];
  let size = 0;
  for (let i = 0; size < budget * 0.75; i++) {
    const s = section(i);
    articleParts.push(s);
    size += Buffer.byteLength(s) + 1;
  }
  const comments: string[] = [];
  for (let i = 0; size < budget; i++) {
    const c = comment(i);
    comments.push(c);
    size += Buffer.byteLength(c) + 1;
  }
  const thread = comments.length > 0 ? `\n<section class="comments"><h2>Comments</h2><ul>\n${comments.join("\n")}\n</ul></section>` : "";
  return `${head}\n${articleParts.join("\n")}${thread}\n${tail}`;
}
