import { existsSync } from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { Parser, type Handler } from "htmlparser2";
import { describe, expect, it } from "vitest";
import { AttributeList, HEADING_END_REACH, LinearParser, NO_ATTRIBUTES } from "../../../../shared/content/linear-parser";
import { loadCorpus } from "../../../../scripts/lib/corpus";
import { ORDINARY_SHAPE, PATHOLOGICAL_SHAPES } from "../../../../scripts/lib/cost-shapes";
import { findSharedDir } from "../../../../scripts/lib/shared-dir";

const SHARED = findSharedDir();
const CORPUS = SHARED === null ? "" : path.join(SHARED, "corpus/readability");

interface EventOptions {
  xmlMode?: boolean;
  decodeEntities?: boolean;
  /** Feed the input in pieces of this many characters (write, write, …, end). */
  chunk?: number;
}

/**
 * Every event htmlparser2 reports, in order, as one string per event, with the positions it
 * reports (startIndex, endIndex): the tokenizer's index must be where htmlparser2's own is.
 */
function events(ParserClass: typeof Parser, html: string, options: EventOptions | boolean = {}): string[] {
  const { xmlMode = false, decodeEntities = true, chunk } = typeof options === "boolean" ? { xmlMode: options } : options;
  const out: string[] = [];
  const at = () => `@${parser.startIndex},${parser.endIndex}`;
  const handler: Partial<Handler> = {
    onopentag: (name, attribs, implied) => out.push(`<${name} ${JSON.stringify(attribs)} ${implied}${at()}`),
    onclosetag: (name, implied) => out.push(`</${name} ${implied}${at()}`),
    ontext: (text) => out.push(`#${text}${at()}`),
    oncomment: (text) => out.push(`!${text}${at()}`),
    oncdatastart: () => out.push(`cdata${at()}`),
    oncdataend: () => out.push(`/cdata${at()}`),
    onattribute: (name, value, quote) => out.push(`@${name}=${value} ${String(quote)}`),
    onprocessinginstruction: (name, data) => out.push(`?${name} ${data}${at()}`),
  };
  const parser = new ParserClass(handler, { decodeEntities, lowerCaseTags: true, lowerCaseAttributeNames: true, recognizeSelfClosing: false, xmlMode, recognizeCDATA: xmlMode });
  if (chunk === undefined) parser.end(html);
  else {
    for (let i = 0; i < html.length; i += chunk) parser.write(html.slice(i, i + chunk));
    parser.end();
  }
  return out;
}

/** Markup made of the pieces the tokenizer's states turn on: tags, quotes, entities, raw text, comments. */
const MARKUP_PIECES = [
  "<", ">", "/", "</", "=", '"', "'", "&", ";", "-", "!", "?", "]", " ", "\n", "\t", "a", "text ", "é", "\u{1F600}",
  "&amp;", "&lt;", "&amp", "&#60;", "&#x3c;", "&notin;", "&not", "&unknown;", "&#", "&#x",
  "<p>", "</p>", "<div class=", "<a href=\"", "<a href='", "<img src=x alt=\"a&amp;b\">", "<br/>", "<input disabled>",
  "<script>", "</script>", "</script ", "</SCRIPT>", "<style>", "</style>", "<title>", "</title>", "<textarea>", "</textarea>",
  "<!--", "-->", "--!>", "<!---->", "<![CDATA[", "]]>", "<!DOCTYPE html>", "<?xml", "?>", "<svg>", "</svg>", "<math>",
];
const markup = fc.array(fc.constantFrom(...MARKUP_PIECES), { maxLength: 40 }).map((pieces) => pieces.join(""));

const CASES = [
  "<p>one<p>two<div>three</p></div>",
  "<ul><li>a<li>b<ul><li>c</ul></ul><table><tr><td>1<td>2<tr><td>3</table>",
  "<form><form><input></form></form><p>after</p>",
  "<svg viewBox='0 0 1 1'><foreignObject><p>in<svg><clipPath/></svg></p></foreignObject><linearGradient/></svg>",
  "<math><mi>x</mi><annotation-xml><div>y</div></annotation-xml></math><br></br></p>",
  "<div><span><b>unclosed</div></span>stray</b></i>",
  "<select><option>a<option>b<optgroup><option>c</select>",
  `${"<div>".repeat(2_000)}deep${"</span>".repeat(50)}${"</div>".repeat(1_000)}`,
  `${"<table><tr><td>".repeat(500)}x`,
  // Known names in any case (read as shared strings), `<image>`, SVG's case adjustments, names it does not know.
  "<DIV><Table><TR><Td>a</TD></tr></TABLE><IMAGE src=x><H1>h</h1></Div><x-Widget>w</X-WIDGET><abcdefghijklm>l</ABCDEFGHIJKLM>",
  "<svg><ForeignObject><P>p</p><Image href=i></foreignobject><LINEARGRADIENT></lineargradient></SVG><image>",
  // Attributes: the first one gives a tag its own object; a tag without any shares an empty one.
  "<p><p a=1 A=2 b><p><br><input disabled><p c='3'>",
];

describe("LinearParser", () => {
  it.each(CASES)("reports exactly htmlparser2's events: %s", (html) => {
    expect(events(LinearParser, html)).toEqual(events(Parser, html));
  });

  it("reports the same events when the input arrives in pieces", () => {
    const html = CASES.join("");
    const chunked = (ParserClass: typeof Parser): string[] => {
      const out: string[] = [];
      const parser = new ParserClass({ onopentag: (name, attribs) => out.push(`<${name} ${JSON.stringify(attribs)}`), onclosetag: (name) => out.push(`</${name}`) }, { decodeEntities: true });
      for (let i = 0; i < html.length; i += 7) parser.write(html.slice(i, i + 7));
      parser.end();
      return out;
    };
    expect(chunked(LinearParser)).toEqual(chunked(Parser));
    expect(Object.keys(NO_ATTRIBUTES)).toEqual([]);
  });

  it("reports exactly htmlparser2's events, at the same positions, on random markup, whole and in pieces", () => {
    fc.assert(
      fc.property(markup, fc.constantFrom(undefined, 1, 3, 16), fc.boolean(), (html, chunk, decodeEntities) => {
        expect(events(LinearParser, html, { chunk, decodeEntities })).toEqual(events(Parser, html, { chunk, decodeEntities }));
      }),
      { numRuns: 2_000 },
    );
  });

  // The tokenizer's own path for `<name>` and `</name>` in text: what it must take (any case,
  // names that only start like a raw-text tag) and leave to htmlparser2's states (attributes,
  // `/` or space after the name, raw-text tags, a tag the buffer cuts, `<` that starts no tag).
  const SIMPLE_TAG_PIECES = [
    "<p>", "</p>", "<P>", "</P>", "<td>", "<TR>", "<h3>", "</H3>", "<li>", "<x-a>", "<pé>", "</pé>", "<p/>", "<p >", "<p\n>", "</p >", "</p\t>",
    "<p a>", "<p a=1>", "<script>", "</script>", "<SCRIPT>", "<scripts>", "<scr>", "<sty>", "<style>", "<Title>", "</title>", "<textarea>",
    "<textareas>", "<plaintext>", "<plain>", "<xmp>", "<xm>", "<iframe>", "<iframes>", "<noembed>", "<noframes>", "<nobr>", "<svg>", "</svg>",
    "<math>", "<1>", "< p>", "</ p>", "</>", "<>", "<!x>", "<?x>", "<", "</", "<p", "</p", "x", " ", "a<b", "&amp;", "&lt;p&gt;", "&", "<!--", "-->",
  ];
  it("takes tags without attributes with htmlparser2's events and positions, whole and in pieces", () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...SIMPLE_TAG_PIECES), { maxLength: 30 }), fc.constantFrom(undefined, 1, 2, 5), (pieces, chunk) => {
        const html = pieces.join("");
        expect(events(LinearParser, html, { chunk })).toEqual(events(Parser, html, { chunk }));
      }),
      { numRuns: 3_000 },
    );
    for (const html of ["<p>x<p>y</p>", "<SVG><script>a<b></script><p>c</p></svg><script>d<e></script>", "<title><p>t</p></title><p>", "<plaintext><p>x</p>", "<xmp><b></xmp><b>"]) {
      expect(events(LinearParser, html)).toEqual(events(Parser, html));
    }
  });

  /** Names read one at a time besides the tag's own: absent ones, and ones Object.prototype answers. */
  const PROBED_NAMES = ["class", "missing", "__proto__", "toString"];

  it("with attributeLists, lists exactly the attributes htmlparser2 reports (first value of each name, __proto__ and the like included)", () => {
    const listed = (html: string): string[] => {
      const out: string[] = [];
      const parser = new LinearParser(
        {
          onopentag: (name, attribs) => {
            const list = attribs as unknown as AttributeList | Record<string, string>;
            const record = list instanceof AttributeList ? list.toRecord() : list;
            // What a reader of single names sees, for every name the tag has and a few it has not.
            const names = [...Object.keys(record), ...PROBED_NAMES];
            const single = names.map((n) => (list instanceof AttributeList && !(n in Object.prototype) ? list.get(n) : record[n]));
            out.push(`<${name} ${JSON.stringify(record)} ${JSON.stringify(Object.keys(record))} ${JSON.stringify(single)}`);
          },
        },
        { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true, recognizeSelfClosing: false },
        { attributeLists: true },
      );
      parser.end(html);
      return out;
    };
    const plain = (html: string): string[] => {
      const out: string[] = [];
      new Parser(
        {
          onopentag: (name, attribs) => {
            const names = [...Object.keys(attribs), ...PROBED_NAMES];
            out.push(`<${name} ${JSON.stringify(attribs)} ${JSON.stringify(Object.keys(attribs))} ${JSON.stringify(names.map((n) => attribs[n]))}`);
          },
        },
        { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true, recognizeSelfClosing: false },
      ).end(html);
      return out;
    };
    const fixed = '<p CLASS=a class=b Class=c id=1 2=two 1=one __proto__=x constructor=y HREF="h&amp;" data-X=\'q\'></br><div>';
    expect(listed(fixed)).toEqual(plain(fixed));
    fc.assert(
      fc.property(markup, (html) => {
        expect(listed(html)).toEqual(plain(html));
      }),
      { numRuns: 1_000 },
    );
    expect(() => new LinearParser({ onattribute: () => undefined }, {}, { attributeLists: true })).toThrow(TypeError);
  });

  it("reports exactly htmlparser2's events on the cost shapes", () => {
    for (const shape of [ORDINARY_SHAPE, ...PATHOLOGICAL_SHAPES]) {
      const html = shape.make(100_000);
      expect(JSON.stringify(events(LinearParser, html)), shape.name).toBe(JSON.stringify(events(Parser, html)));
    }
  });

  it("is htmlparser2's Parser in XML mode too", () => {
    const xml = "<?xml version='1.0'?><rss><channel><title>T</title><item><title><![CDATA[a]]></title></item></channel></rss><a><b></a>";
    expect(events(LinearParser, xml, true)).toEqual(events(Parser, xml, true));
  });

  // The whole corpus through both parsers: seconds on an idle machine, far more on a loaded one
  // (it once ran out the 20 s default there), so the limit is the corpus suites'. The event lists
  // are compared as JSON text: the same exact check, without deep-equality's cost on long lists.
  it.skipIf(CORPUS === "" || !existsSync(CORPUS))("reports exactly htmlparser2's events on every corpus page", { timeout: 120_000 }, () => {
    for (const page of loadCorpus(CORPUS)) expect(JSON.stringify(events(LinearParser, page.html)), page.name).toBe(JSON.stringify(events(Parser, page.html)));
  });
});

/** LinearParser with HTML's rule for heading end tags. */
class HeadingEndParser extends LinearParser {
  constructor(cbs: Partial<Handler>, options?: ConstructorParameters<typeof Parser>[1]) {
    super(cbs, options, { headingEndTags: true });
  }
}
/** The open and close events only, as `<name`, `</name` and `</name*` (implied). */
const tags = (html: string, ParserClass: typeof Parser = HeadingEndParser) =>
  events(ParserClass, html)
    .filter((e) => e.startsWith("<"))
    .map((e) => {
      const [name, flag] = e.split(" ");
      return e.startsWith("</") && flag!.startsWith("true") ? `${name}*` : name!;
    });

describe("LinearParser's headingEndTags", () => {
  it("closes the open heading at a heading end tag of another level, as HTML does (htmlparser2 ignores it)", () => {
    expect(tags("<h2>Title</h3><p>Body</p>")).toEqual(["<h2", "</h2", "<p", "</p"]);
    expect(tags("<h2>Title</h3><p>Body</p>", Parser)).toEqual(["<h2", "<p", "</p", "</h2*"]);
    // Elements left open inside the heading close with it (implied), the heading itself not.
    expect(tags("<h1><a href=x><b>T</h4>after")).toEqual(["<h1", "<a", "<b", "</b*", "</a*", "</h1"]);
    // A heading that a later heading's start tag closed: the end tag closes the one open (HTML's tree too).
    expect(tags("<h2>a<h3>b</h2>c")).toEqual(["<h2", "</h2*", "<h3", "</h3"]);
  });

  it("leaves end tags whose own element is open, and other end tags, to htmlparser2", () => {
    for (const html of ["<h2>a</h2></h3>b", "<div><p>a</div></span></h9>", "</h2>stray", "<h3>x</h3>", "<p>a</p></br>"]) {
      expect(events(HeadingEndParser, html)).toEqual(events(Parser, html));
    }
  });

  it("looks no further than a table cell or table, and no deeper than HEADING_END_REACH open elements", () => {
    const inCell = "<h2><table><tr><td>x</h3>y</td></tr></table>z</h2>";
    expect(events(HeadingEndParser, inCell)).toEqual(events(Parser, inCell));
    const within = `<h2>${"<span>".repeat(HEADING_END_REACH - 1)}t</h3>after`;
    expect(tags(within).slice(-2)).toEqual(["</span*", "</h2"]);
    const beyond = `<h2>${"<span>".repeat(HEADING_END_REACH)}t</h3>after`;
    expect(events(HeadingEndParser, beyond)).toEqual(events(Parser, beyond));
  });

  it("gives htmlparser2's events where no other heading is open at a heading's end tag", () => {
    // One heading level only: each </h2> either closes its own heading (htmlparser2's path) or finds none open.
    const withHeadings = fc.array(fc.constantFrom(...MARKUP_PIECES, "<h2>", "</h2>", "<H2 id=x>", "</H2 >"), { maxLength: 40 }).map((p) => p.join(""));
    fc.assert(
      fc.property(withHeadings, (html) => {
        expect(events(HeadingEndParser, html)).toEqual(events(Parser, html));
      }),
      { numRuns: 300 },
    );
  });
});
