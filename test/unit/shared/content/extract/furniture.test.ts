import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { opensLikeFurniture, textStart } from "../../../../../shared/content/extract/furniture";
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

describe("metadata fields between separators, and a byline written as a label", () => {
  const line = (name: string, text: string) => opensLikeFurniture(name, text.replace(/\s/g, "").length, text, () => ({ text, whole: true }));

  it.each([
    // Fields between bars or dots, one of them a date: page metadata.
    ["P", "Freitag | 14. Juni 2019 | 15:49 von Ann Example in Mode | 0 Kommentare", true],
    ["DIV", "2021-10-16 | Botschaft", true],
    ["P", "May 4, 2021 · 5 comments · Politics", true],
    ["P", "Verfasst von: examplesite | 31. Dezember 2008", true],
    // No date among the fields, a field that is a phrase, one field only, a heading, a table's cell.
    ["P", "Home | News | Sport", false],
    ["P", "12.03.2020 | The harbour opened its new quay and the first ships came in", false],
    ["P", "| 14. Juni 2019 |", false],
    ["H3", "Konzert | 12.03.2020", false],
    ["TD", "Konzert | 12.03.2020", false],
    // A byline's word as a label, the names capitalized as a byline's are.
    ["P", "Von: Ann Example", true],
    ["DIV", "By: Ann Example | May 4, 2021", true],
    ["P", "Von: den Anfängen bis heute", false],
    ["P", "By: the end of the week", false],
  ])("%s %j is furniture: %s", (name, text, expected) => {
    expect(line(name, text)).toBe(expected);
  });
});
