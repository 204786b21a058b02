/**
 * The page shapes of issue 17's "cost against size": ordinary article HTML, the shapes that made
 * the conversion superlinear (deep nesting, huge tables), and two that are costly per byte (a
 * table the cleaning must take apart, elements as dense as text allows), each generated at a
 * given size.
 * Used by `npm run bench` (scripts/lib/bench-cost.ts) and by the tests that need a page that is
 * costly to convert.
 */

export interface CostShape {
  name: string;
  /** What the issue calls it (the shape at its own size). */
  description: string;
  /** An HTML page of about `bytes` bytes (UTF-8, ASCII only: bytes = characters). */
  make(bytes: number): string;
}

const WORDS = ["river", "valley", "water", "current", "stone", "bank", "delta", "source", "flood", "bridge", "meadow", "channel"];

/** One paragraph of prose-like text with a link and emphasis, varied by `i`. */
function paragraph(i: number): string {
  const words: string[] = [];
  for (let w = 0; w < 40; w++) words.push(WORDS[(i * 7 + w * 3) % WORDS.length]!);
  words[5] = `<a href="/article/${i}">${words[5]}</a>`;
  words[17] = `<em>${words[17]}</em>`;
  return `<p>${words.join(" ")}.</p>\n`;
}

/** Article HTML as sites serve it: a head, a header and nav, an article of sections, a footer. */
function ordinary(bytes: number): string {
  const head = `<!doctype html><html><head><meta charset="utf-8"><title>Rivers of the world</title><link rel="stylesheet" href="/s.css"></head><body><header><a href="/">Home</a><nav><ul><li><a href="/a">News</a></li><li><a href="/b">Sport</a></li><li><a href="/c">Culture</a></li></ul></nav></header><main><article><h1>Rivers of the world</h1>\n`;
  const tail = `</article></main><footer><p>Copyright</p><a href="/privacy">Privacy</a></footer></body></html>`;
  const parts = [head];
  let size = head.length + tail.length;
  for (let i = 0; size < bytes; i++) {
    const part = (i % 12 === 0 ? `<h2>Section ${i / 12 + 1}</h2>\n` : "") + (i % 9 === 4 ? `<ul><li>${WORDS[i % 12]} one</li><li>${WORDS[(i + 1) % 12]} two</li></ul>\n` : "") + paragraph(i);
    parts.push(part);
    size += part.length;
  }
  parts.push(tail);
  return parts.join("");
}

/** `n` nested copies of `open` around one word, closed in order. */
function nested(open: string, close: string, bytes: number): string {
  const n = Math.max(1, Math.floor((bytes - 5) / (open.length + close.length)));
  return `${open.repeat(n)}deep${close.repeat(n)}`;
}

/** A table of one-cell rows. */
function rows(bytes: number): string {
  const parts = ["<table>"];
  let size = 15;
  for (let i = 0; size < bytes; i++) {
    const row = `<tr><td>row ${i}</td></tr>`;
    parts.push(row);
    size += row.length;
  }
  parts.push("</table>");
  return parts.join("");
}

/** A table 300 cells wide, as many rows as the size allows. */
function wide(bytes: number): string {
  const parts = ["<table>"];
  let size = 15;
  for (let r = 0; size < bytes; r++) {
    let row = "<tr>";
    for (let c = 0; c < 300; c++) row += `<td>${r}.${c}</td>`;
    row += "</tr>";
    parts.push(row);
    size += row.length;
  }
  parts.push("</table>");
  return parts.join("");
}

/** Short paragraphs of one word each: the most elements per byte that still reads as text. */
function shortParagraphs(bytes: number): string {
  const parts = ["<html><body>"];
  let size = 26;
  for (let i = 0; size < bytes; i++) {
    const p = `<p>line ${i}</p>`;
    parts.push(p);
    size += p.length;
  }
  parts.push("</body></html>");
  return parts.join("");
}

export const ORDINARY_SHAPE: CostShape = { name: "ordinary article", description: "article HTML (header, nav, sections of paragraphs, lists, footer)", make: ordinary };

/** The pathological shapes, in issue 17's order. */
export const PATHOLOGICAL_SHAPES: readonly CostShape[] = [
  { name: "nested div", description: "128,000 nested <div> (1.4 MB; 1 KB gzipped)", make: (b) => nested("<div>", "</div>", b) },
  { name: "nested table", description: "32,000 nested <table><tr><td> (1 MB)", make: (b) => nested("<table><tr><td>", "</td></tr></table>", b) },
  { name: "one-cell rows", description: "a table of 12,000 one-cell rows (0.3 MB)", make: rows },
  { name: "1,600 x 300 table", description: "a 1,600 x 300 table (4.8 MB)", make: wide },
  // Not in the list. A table whose parts one cleaning rule may remove is built and judged
  // part by part in main-content mode, where a table with none stays packed.
  { name: "rows + a credit", description: "the one-cell rows with one photo credit row, which the main-content cleaning removes", make: (b) => rows(b).replace("</table>", "<tr><td>Photo: AP</td></tr></table>") },
  // Cost per byte follows elements per byte: this is the most of them that is still text.
  { name: "short paragraphs", description: "one-word paragraphs (<p>line 1</p>), about 90,000 elements per MB", make: shortParagraphs },
];

/** The sizes of the cost section (bytes). */
export const COST_SIZES = [10_000, 100_000, 1_000_000, 5_000_000] as const;
