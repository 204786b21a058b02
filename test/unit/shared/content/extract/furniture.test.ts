import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { opensLikeFurniture, textStart } from "../../../../../shared/content/extract/furniture";
import { htmlToMarkdown } from "../../../../../shared/content/html-to-markdown";
import { LightElement, LightText } from "../../../../../shared/content/light-dom";

/** `<p>` holding `text`, and with `tail` an empty `<span>` after it: the same text, read by textStart's walk over several nodes. */
function block(text: string, tail: boolean): LightElement {
  const p = new LightElement("p", {});
  p.appendChild(new LightText(text));
  if (tail) p.appendChild(new LightElement("span", {}));
  return p;
}

// Every character that `\s` matches, and some that it does not.
const CHARS = [" ", "  ", "\t", "\n", "\r", "\v", "\f", "\u00a0", "\u1680", "\u2000", "\u200a", "\u2028", "\u2029", "\u202f", "\u205f", "\u3000", "\ufeff", "\u200b", "\u180e", "a", "Z", "é", "字", "©", ".", ":"];

describe("textStart on a block of one text node", () => {
  it.each([
    ["Related stories", 80, "Related stories"],
    ["  Related \n\t stories  ", 80, "Related stories"],
    ["\u00a0\u3000", 80, ""],
    ["abcdef", 3, "abc"],
    ["ab cdef", 3, "ab"],
    ["By\u00a0Ann Example", 160, "By Ann Example"],
    ["", 80, ""],
  ])("%j with limit %d is %j", (text, limit, expected) => {
    expect(textStart(block(text, false), limit)).toBe(expected);
    expect(textStart(block(text, true), limit)).toBe(expected);
  });

  it("reads what the walk over several nodes reads, at every limit", () => {
    const text = fc.array(fc.constantFrom(...CHARS), { maxLength: 40 }).map((parts) => parts.join(""));
    fc.assert(
      fc.property(text, fc.integer({ min: 1, max: 50 }), fc.boolean(), (t, limit, untilLink) => {
        expect(textStart(block(t, false), limit, untilLink)).toBe(textStart(block(t, true), limit, untilLink));
      }),
      { numRuns: 2000 },
    );
  });
});

describe("opensLikeFurniture's memory of its last answer", () => {
  // Lines that some test takes for furniture, and lines none does; with sizes that do and do not match them.
  const LINES = ["Photo: Ann Example", "© 2024 Example News", "By Ann Example", "Autor: Ann Example", "Subscribe now", "x", "A plain sentence of the text.", "Quelle: dpa"];
  const call = fc.record({
    name: fc.constantFrom("P", "TD", "DIV"),
    line: fc.constantFrom(...LINES),
    extra: fc.constantFrom(0, 0, 3, 200),
    tail: fc.constantFrom("", " | © Agency", " (Foto: Bo Beispiel)"),
  });

  it("answers every call in a run as a fresh call with the same arguments would", () => {
    fc.assert(
      fc.property(fc.array(call, { minLength: 1, maxLength: 12 }), (calls) => {
        for (const { name, line, extra, tail } of calls) {
          const chars = line.replace(/\s/g, "").length + tail.replace(/\s/g, "").length + extra;
          const tailOf = () => ({ text: `${line}${tail}`, whole: extra === 0 });
          const answer = opensLikeFurniture(name, chars, line, tailOf);
          // A different start in between forgets the last answer: the fresh call's own.
          opensLikeFurniture("P", 1, "\u0000", tailOf);
          expect(answer).toBe(opensLikeFurniture(name, chars, line, tailOf));
        }
      }),
    );
  });

  it("reads the tail again for a block whose start is not all of its text", () => {
    let asked = 0;
    const tail = () => {
      asked++;
      return { text: "a caption | © Agency", whole: false };
    };
    expect(opensLikeFurniture("P", 40, "a caption", tail)).toBe(true);
    expect(opensLikeFurniture("P", 40, "a caption", () => ({ text: "a caption of more words", whole: false }))).toBe(false);
    expect(opensLikeFurniture("P", 40, "a caption", tail)).toBe(true);
    expect(asked).toBe(2);
  });
});

describe("a byline written as a label", () => {
  const line = (text: string) => opensLikeFurniture("P", text.replace(/\s/g, "").length, text, () => ({ text, whole: true }));

  it.each([
    ["Von: Ann Example", true],
    ["By: Ann Example | May 4, 2021", true],
    ["Written by: Ann Example", true],
    ["Posted by Ann Example and Bo Beispiel", true],
    ["Geschrieben von Ann Example", true],
    ["Courtesy of Example News", true],
    ["Courtesy of Reuters", true],
    // An agency's lower-case name after the names, the date after "on", a column's or an interview's label.
    ["Von Ann Example, dpa", true],
    ["Von Ann Example, epd/kna", true],
    ["Written by Ann Example on November 7, 2023", true],
    ["Eine Kolumne von Ann Example", true],
    ["Von Ann Example, die uns schreibt", false],
    ["By Ann Example on the way home", false],
    // The names must be capitalized as a byline's are.
    ["Von: den Anfängen bis heute", false],
    ["By: the end of the week", false],
    ["Posted by the council on the notice board", false],
    ["Courtesy of the family", false],
  ])("%j is furniture: %s", (text, expected) => {
    expect(line(text)).toBe(expected);
  });
});

describe("metadata fields between separators", () => {
  const text = (html: string) => htmlToMarkdown(html, { baseUrl: "https://news.example/story.html", mainContent: true, format: "text" }).markdown;
  const sentence = (i: number) => `The harbour report, paragraph ${i}, explains what happened, who was there, and why it matters to readers.`;
  const body = Array.from({ length: 5 }, (_, i) => `<p>${sentence(i)} ${sentence(i + 100)}</p>`).join("");

  it("drops a line of fields with a date among them; keeps lines without a date, phrases, headings and cells", () => {
    const html = `<html><head><title>Harbour</title></head><body><article><h1>Harbour</h1>
      <div class="x"><p>Freitag | 14. Juni 2019 | 15:49 von Ann Example in <a href="/c/mode">Mode</a> | 0 Kommentare</p></div>${body}
      <p>2021-10-16 | Botschaft</p><p>Tickets | Programm | Anfahrt</p><p>12.03.2020 | The harbour opened its new quay and the first ships came in</p>
      <h3>Konzert | 12.03.2020</h3>${body}<table><tr><th>Event</th><th>Place</th></tr><tr><td>Konzert | 14.03.2020</td><td>Hall</td></tr><tr><td>Lesung | 15.03.2020</td><td>Library</td></tr></table></article></body></html>`;
    const out = text(html);
    expect(out).toContain("The harbour report, paragraph 4");
    expect(out).not.toContain("14. Juni 2019");
    expect(out).not.toContain("Botschaft");
    for (const kept of ["Tickets | Programm | Anfahrt", "The harbour opened its new quay", "Konzert | 12.03.2020", "Konzert | 14.03.2020"]) expect(out).toContain(kept);
  });

  it("keeps a run of such lines: a calendar is the page's content", () => {
    const calendar = ["02.11.2026 | Example Band | City Hall", "03.11.2026 | Sample Trio | Club", "04.11.2026 | Demo Choir | Arena"].map((l) => `<p>${l}</p>`).join("\n");
    const html = `<html><head><title>Concerts</title></head><body><article><h1>Concerts</h1>${body}<h2>Calendar</h2>${calendar}</article></body></html>`;
    const out = text(html);
    for (const kept of ["02.11.2026 | Example Band", "03.11.2026 | Sample Trio", "04.11.2026 | Demo Choir"]) expect(out).toContain(kept);
  });
});

describe("textStart over several text nodes", () => {
  /** `<p>` holding one `<span>` per part, with `between` as a text node between them. */
  function spans(parts: string[], between: string): LightElement {
    const p = new LightElement("p", {});
    parts.forEach((part, i) => {
      if (i > 0 && between !== "") p.appendChild(new LightText(between));
      const span = new LightElement("span", {});
      span.appendChild(new LightText(part));
      p.appendChild(span);
    });
    return p;
  }

  it.each([
    [["Enlarge ", " Image"], "\n   ", "Enlarge Image"],
    [["Bild anzeigen   ", "Bild schließen"], "\n\t ", "Bild anzeigen Bild schließen"],
    [["  Follow us", "on Instagram "], " ", "Follow us on Instagram"],
    [["Read", "more"], "", "Readmore"],
    [["   ", "  ", "Related"], "\n", "Related"],
  ])("%j joined by %j reads %j", (parts, between, expected) => {
    expect(textStart(spans(parts, between), 80)).toBe(expected);
  });

  it("never holds a run of spaces, nor a space at either end", () => {
    const part = fc.array(fc.constantFrom(...CHARS), { maxLength: 12 }).map((p) => p.join(""));
    fc.assert(
      fc.property(fc.array(part, { minLength: 1, maxLength: 6 }), fc.constantFrom("", " ", "\n  "), fc.integer({ min: 1, max: 60 }), (parts, between, limit) => {
        const out = textStart(spans(parts, between), limit);
        expect(out).not.toMatch(/\s\s|^\s|\s$/);
      }),
      { numRuns: 1000 },
    );
  });
});
