import { describe, expect, it } from "vitest";
import { joinLines, layoutPdf, type PdfPageText, type PdfTextRun } from "../../../../shared/content/pdf-layout";

const run = (str: string, x: number, y: number, size = 11): PdfTextRun => ({ str, x, y, width: str.length * size * 0.5, size });
const page = (runs: PdfTextRun[]): PdfPageText => ({ width: 612, height: 792, runs });
const layout = (pages: PdfPageText[], extra: Partial<Parameters<typeof layoutPdf>[0]> = {}) =>
  layoutPdf({ pages, pageCount: pages.length, metadataTitle: "", format: "markdown", ...extra });

describe("joinLines", () => {
  it.each([
    [["infor-", "mation"], "information"],
    [["well-", "Known"], "well- Known"],
    [["1990-", "1995"], "1990- 1995"],
    [["one", "two"], "one two"],
    [["Ende-", "ungen"], "Endeungen"],
  ])("%j → %s", (lines, expected) => expect(joinLines(lines)).toBe(expected));
});

describe("layoutPdf", () => {
  it("marks pages, joins paragraph lines and hyphenation, and splits paragraphs at larger gaps", () => {
    const result = layout([
      page([run("A first line of a para-", 72, 700), run("graph that goes on.", 72, 686), run("A new paragraph.", 72, 650)]),
      page([run("Second page text.", 72, 700)]),
    ]);
    expect(result.content).toBe("<!-- page 1 -->\n\nA first line of a paragraph that goes on.\n\nA new paragraph.\n\n<!-- page 2 -->\n\nSecond page text.\n");
    expect(result.truncated).toBe(false);
  });

  it("uses text markers and no heading marks in text format", () => {
    const result = layout([page([run("Big Title", 72, 740, 24), run("Body text here.", 72, 700), run("More body text.", 72, 686)])], { format: "text" });
    expect(result.content).toBe("[page 1]\n\nBig Title\n\nBody text here. More body text.\n");
    expect(result.title).toBe("Big Title");
  });

  it("turns larger lines into headings and takes the first one as title without metadata", () => {
    const result = layout([page([run("Big Title", 72, 740, 24), run("Section", 72, 715, 14), run("Body text here.", 72, 700), run("More body text.", 72, 686)])]);
    expect(result.content).toContain("# Big Title\n\n## Section\n\nBody text here. More body text.");
    expect(result.title).toBe("Big Title");
    expect(layout([page([run("Big Title", 72, 740, 24), run("x", 72, 700)])], { metadataTitle: "  Meta\n title " }).title).toBe("Meta title");
  });

  it("reads two columns left first even when the runs interleave", () => {
    const runs: PdfTextRun[] = [];
    for (let i = 0; i < 6; i++) {
      runs.push(run(`left ${i}`, 72, 700 - i * 14), run(`right ${i}`, 330, 700 - i * 14));
    }
    const text = layout([page(runs)]).content;
    expect(text).toContain("left 0 left 1 left 2 left 3 left 4 left 5");
    expect(text.indexOf("left 5")).toBeLessThan(text.indexOf("right 0"));
    expect(text).toContain("right 0 right 1 right 2 right 3 right 4 right 5");
  });

  it("keeps a centred title that spans the gutter before the columns", () => {
    const runs: PdfTextRun[] = [run("A Title Across Both Columns", 200, 740, 20)];
    for (let i = 0; i < 8; i++) runs.push(run(`left ${i}`, 72, 700 - i * 14), run(`right ${i}`, 330, 700 - i * 14));
    const text = layout([page(runs)]).content;
    expect(text.indexOf("A Title Across")).toBeLessThan(text.indexOf("left 0"));
    expect(text.indexOf("left 7")).toBeLessThan(text.indexOf("right 0"));
  });

  it("reads one column with words on one baseline as one line", () => {
    const text = layout([page([run("Hello", 72, 700), run("world", 110, 700), run("again", 72, 686)])]).content;
    expect(text).toContain("Hello world again");
  });

  it("drops running headers, footers and page numbers repeated across pages", () => {
    const pages = [1, 2, 3, 4].map((n) =>
      page([run("ACME Annual Report 2026", 72, 760, 9), run(`Body of page ${n}.`, 72, 700), run(`Page ${n} of 4`, 280, 40, 9)]),
    );
    const text = layout(pages).content;
    expect(text).not.toContain("ACME Annual Report");
    expect(text).not.toMatch(/Page \d of 4/);
    for (const n of [1, 2, 3, 4]) expect(text).toContain(`<!-- page ${n} -->\n\nBody of page ${n}.`);
  });

  it("keeps edge lines that do not repeat, and leaves two-page documents alone", () => {
    const pages = [1, 2, 3].map((n) => page([run(`Chapter ${"ABC"[n - 1]} intro`, 72, 760), run(`Body ${n}.`, 72, 700)]));
    expect(layout(pages).content).toContain("Chapter B intro");
    const two = [1, 2].map((n) => page([run("Same header", 72, 760), run(`Body ${n}.`, 72, 700)]));
    expect(layout(two).content.match(/Same header/g)).toHaveLength(2);
  });

  it("keeps repeating first and last body lines that are not set apart from the text", () => {
    const pages = [1, 2, 3].map((n) => page([run(`Section ${n} opens here`, 72, 700), run("and goes on", 72, 686), run(`Section ${n} closes`, 72, 672)]));
    const text = layout(pages).content;
    for (const n of [1, 2, 3]) expect(text).toContain(`Section ${n} opens here and goes on Section ${n} closes`);
  });

  it("says when the page cap cut the document", () => {
    const result = layout([page([run("one", 72, 700)])], { pageCount: 9 });
    expect(result.truncated).toBe(true);
    expect(result.content).toContain("<!-- truncated: pages 1-1 of 9; the rest is over the page limit -->");
  });

  it("counts no text for pages without runs or with blank runs only", () => {
    expect(layout([page([]), page([run("   ", 72, 700)])]).textChars).toBe(0);
  });
});
