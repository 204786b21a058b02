import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { LINK_LIST_HEADING, NEGATIVE, READ_MORE_LINK, READER_PROMPT, UNLIKELY_CANDIDATE, hasClassWord } from "../../../../../shared/content/extract/patterns";

describe("hasClassWord: furniture words in class and id values", () => {
  it.each([
    // Substrings count, as in Readability: a word inside a longer lowercase token.
    [UNLIKELY_CANDIDATE, "leftsidebar", true],
    [UNLIKELY_CANDIDATE, "mainmenu-wrap", true],
    [UNLIKELY_CANDIDATE, "SideBar", true],
    [UNLIKELY_CANDIDATE, "siteFooter", true],
    [UNLIKELY_CANDIDATE, "nocomments", true],
    [UNLIKELY_CANDIDATE, "no-comments", false],
    // A word assembled across a camelCase boundary is not the word.
    [UNLIKELY_CANDIDATE, "APageRoot__Wrapper", false],
    [UNLIKELY_CANDIDATE, "APageRoot pagination", true],
    [NEGATIVE, "tagStyle_z4kq", false],
    [NEGATIVE, "post-tags", true],
    // A negated word is not the word.
    [UNLIKELY_CANDIDATE, "row non-paywall", false],
    [UNLIKELY_CANDIDATE, "site__main--no-sidebar", false],
    [UNLIKELY_CANDIDATE, "layout without_sidebar", false],
    [UNLIKELY_CANDIDATE, "row non-paywall paywall-box", true],
    [UNLIKELY_CANDIDATE, "intro has-sharing", false],
    [UNLIKELY_CANDIDATE, "layout with-sidebar", false],
    [UNLIKELY_CANDIDATE, "sharing-bar", true],
    [UNLIKELY_CANDIDATE, "", false],
  ])("%s on %j is %s", (pattern, value, expected) => {
    expect(hasClassWord(pattern, value)).toBe(expected);
  });

  it("never matches what the plain pattern does not match", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 60 }), (value) => {
        if (!UNLIKELY_CANDIDATE.test(value)) expect(hasClassWord(UNLIKELY_CANDIDATE, value)).toBe(false);
      }),
    );
  });
});

describe("READER_PROMPT: listing controls, like widgets and link lines that point on", () => {
  it.each([
    ["Es werden die Weine 1 bis 10 von insgesamt 19 angezeigt!", true],
    ["Showing 1–10 of 19 results", true],
    ["Seite 2 von 5", true],
    ["%d Bloggern gefällt das:", true],
    ["Bild anzeigen Bild schließen", true],
    ["View image", true],
    ["Hier geht es zur neuen Vorstandsstruktur", true],
    // The same words that go on as the text's sentence
    ["Seite 2 von 5 des Berichts zeigt, was die Stadt plant.", false],
    ["Hier geht es zum Beispiel um die Frage, wer zahlt", false],
    ["Hier geht es zur Sache. Der Rat hat entschieden.", false],
    ["Bild anzeigen lassen konnte sie sich nicht mehr, sagte sie.", false],
    ["Showing the film to 19 classes took a week", false],
  ])("%j is %s", (line, expected) => {
    expect(READER_PROMPT.test(line)).toBe(expected);
  });
});

describe("READ_MORE_LINK: the whole text of a teaser's closing link", () => {
  it.each([
    ["Weiterlesen", true],
    ["Link zum Artikel", true],
    ["Read more »", true],
    ["Czytaj więcej", true],
    ["mehr erfahren", true],
    ["Read more about the study", false],
    ["Weiterlesen lohnt sich", false],
  ])("%j is %s", (line, expected) => {
    expect(READ_MORE_LINK.test(line)).toBe(expected);
  });
});

describe("LINK_LIST_HEADING: titles of link lists and next-post boxes", () => {
  it.each([
    ["Audios et vidéos sur le sujet", true],
    ["Articles sur le même sujet", true],
    ["Vorschau auf den nächsten Artikel", true],
    ["Vidéos de la semaine", false],
    ["Vorschau auf die Saison", false],
  ])("%j is %s", (line, expected) => {
    expect(LINK_LIST_HEADING.test(line)).toBe(expected);
  });
});
