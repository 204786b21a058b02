import fc from "fast-check";
import { describe, expect, it } from "vitest";
import iconv from "iconv-lite";
import { MAX_GARBAGE_SHARE, countGarbage, countUtf8Garbage, decodeBody, SUPPORTED_CHARSETS } from "../../../../shared/content/decode";
import { parseContentType } from "../../../../shared/content/content-type";
import { WebgateError } from "../../../../shared/errors";

const utf8 = (s: string) => new TextEncoder().encode(s);

function errorOf(fn: () => unknown): WebgateError {
  try {
    fn();
  } catch (e) {
    if (e instanceof WebgateError) return e;
    throw e;
  }
  throw new Error("expected a WebgateError");
}

describe("decodeBody content types", () => {
  it.each([
    ["text/html", "html"],
    ["application/xhtml+xml", "html"],
    ["text/plain", "text"],
    ["text/markdown", "text"],
    ["text/csv", "text"],
    ["text/xml", "xml"],
    ["application/xml", "xml"],
    ["application/rss+xml", "xml"],
    ["application/atom+xml", "xml"],
    ["application/json", "json"],
    ["application/ld+json", "json"],
    ["TEXT/HTML; charset=utf-8", "html"],
  ])("%s → %s", (type, kind) => {
    const out = decodeBody(utf8("héllo"), type);
    expect(out.kind).toBe(kind);
    expect(out.mediaType).toBe(type.split(";")[0]!.toLowerCase());
    expect(out.text).toBe("héllo");
  });

  it.each(["image/png", "application/pdf", "application/octet-stream", "video/mp4", "application/javascript"])("refuses %s naming it", (type) => {
    const err = errorOf(() => decodeBody(utf8("x"), type));
    expect(err.code).toBe("unsupported_content_type");
    expect(err.message).toContain(type);
    expect(err.details.content_type).toBe(type);
  });
});

describe("decodeBody sniffing without a header", () => {
  it.each([
    ["<!DOCTYPE html><html><body>x</body></html>", "html", "text/html"],
    ["  \n<html lang=en>", "html", "text/html"],
    ["<div>hi</div>", "html", "text/html"],
    ["<p>para", "html", "text/html"],
    ["<!-- c --><b>x</b>", "html", "text/html"],
    ['<?xml version="1.0"?><rss version="2.0"></rss>', "xml", "text/xml"],
    ['<?xml version="1.0"?>\n<!DOCTYPE html><html></html>', "html", "text/html"],
    ['<rss version="2.0"><channel/></rss>', "xml", "text/xml"],
    ['<feed xmlns="http://www.w3.org/2005/Atom"></feed>', "xml", "text/xml"],
    ['{"a": [1, 2]}', "json", "application/json"],
    ["[1, 2, 3]", "json", "application/json"],
    ["{not json", "text", "text/plain"],
    ["just some words", "text", "text/plain"],
    ["<paragraph>not a known tag", "text", "text/plain"],
  ])("%j → %s", (body, kind, mediaType) => {
    for (const header of [undefined, "", "   "]) {
      const out = decodeBody(utf8(body), header);
      expect(out.kind).toBe(kind);
      expect(out.mediaType).toBe(mediaType);
    }
  });

  it("refuses binary data", () => {
    const err = errorOf(() => decodeBody(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]), undefined));
    expect(err.code).toBe("unsupported_content_type");
    expect(err.message).toContain("application/octet-stream");
  });

  it("sniffs HTML behind a UTF-16LE BOM", () => {
    const body = Buffer.concat([Buffer.from([0xff, 0xfe]), iconv.encode("<html><p>Grüße</p></html>", "utf16le")]);
    const out = decodeBody(body, undefined);
    expect(out).toMatchObject({ kind: "html", charset: "UTF-16LE" });
    expect(out.text).toBe("<html><p>Grüße</p></html>");
  });
});

describe("decodeBody charsets", () => {
  it("UTF-8 by default, BOM stripped", () => {
    expect(decodeBody(utf8("<p>é</p>"), "text/html")).toMatchObject({ charset: "UTF-8", text: "<p>é</p>" });
    expect(decodeBody(new Uint8Array([0xef, 0xbb, 0xbf, ...utf8("é")]), "text/plain")).toMatchObject({ charset: "UTF-8", text: "é" });
  });

  it("a BOM wins over the header charset", () => {
    const body = new Uint8Array([0xef, 0xbb, 0xbf, ...utf8("<p>é</p>")]);
    expect(decodeBody(body, "text/html; charset=iso-8859-1")).toMatchObject({ charset: "UTF-8", text: "<p>é</p>" });
  });

  it("UTF-16BE and UTF-16LE with BOM", () => {
    const be = Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(iconv.encode("snow ☃ 𝄞", "utf16-be"))]);
    expect(decodeBody(be, "text/plain")).toMatchObject({ charset: "UTF-16BE", text: "snow ☃ 𝄞" });
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), iconv.encode("snow ☃ 𝄞", "utf16le")]);
    expect(decodeBody(le, "text/html")).toMatchObject({ charset: "UTF-16LE", text: "snow ☃ 𝄞" });
  });

  it("iso-8859-1 in the header means windows-1252", () => {
    const body = new Uint8Array([0x80, 0x20, 0xe9, 0x93, 0x94]); // € é “ ”
    expect(decodeBody(body, "text/html; charset=ISO-8859-1")).toMatchObject({ charset: "windows-1252", text: "€ é“”" });
    expect(decodeBody(body, 'text/plain; charset="latin1"')).toMatchObject({ charset: "windows-1252", text: "€ é“”" });
  });

  it("Shift_JIS from the header (label sjis)", () => {
    const body = iconv.encode("<p>日本語のテキスト</p>", "Shift_JIS");
    expect(decodeBody(body, "text/html; charset=sjis")).toMatchObject({ charset: "Shift_JIS", text: "<p>日本語のテキスト</p>" });
  });

  it("GBK from gb2312 in a meta charset", () => {
    const html = '<html><head><meta charset="gb2312"><title>中文</title></head><body>简体中文页面</body></html>';
    const out = decodeBody(iconv.encode(html, "gbk"), "text/html");
    expect(out).toMatchObject({ charset: "GBK", text: html });
  });

  it("meta http-equiv content-type", () => {
    const html = '<html><head><meta http-equiv="Content-Type" content="text/html; charset=Shift_JIS"></head><body>東京</body></html>';
    expect(decodeBody(iconv.encode(html, "Shift_JIS"), "text/html")).toMatchObject({ charset: "Shift_JIS", text: html });
  });

  it("the header charset beats the meta charset", () => {
    const html = '<meta charset="shift_jis"><p>café</p>';
    expect(decodeBody(iconv.encode(html, "windows-1252"), "text/html; charset=windows-1252")).toMatchObject({ charset: "windows-1252", text: html });
  });

  it("an unknown header label is ignored: the meta prescan decides", () => {
    const html = '<meta charset="windows-1252"><p>café</p>';
    expect(decodeBody(iconv.encode(html, "windows-1252"), "text/html; charset=x-no-such-thing")).toMatchObject({ charset: "windows-1252", text: html });
    expect(decodeBody(utf8("<p>café</p>"), "text/html; charset=bogus")).toMatchObject({ charset: "UTF-8" });
  });

  it("a meta charset beyond the first 1024 bytes does not override bytes that are valid UTF-8", () => {
    const html = `<!--${"x".repeat(1100)}--><meta charset="windows-1252"><p>café</p>`;
    expect(decodeBody(utf8(html), "text/html").charset).toBe("UTF-8");
  });

  it("a meta charset of the head beyond the first 1024 bytes decodes bytes that are not UTF-8", () => {
    // Long scripts at the top of the head push the declaration past the prescan (a GBK news page).
    const html = `<html><head><script>var a = "${"x".repeat(1100)}";</script><meta http-equiv="Content-Type" content="text/html; charset=gb2312"/><title>新闻</title></head><body><p>简体中文页面</p></body></html>`;
    expect(decodeBody(iconv.encode(html, "gbk"), "text/html")).toMatchObject({ charset: "GBK", text: html });
    const latin = `<!DOCTYPE html><html lang="de"><head>${"<!-- Werbung -->\n".repeat(80)}<meta http-equiv="Content-Type" content="text/html; charset=iso-8859-1"><title>Straße</title></head><body><p>Grüße</p></body></html>`;
    expect(decodeBody(iconv.encode(latin, "windows-1252"), undefined)).toMatchObject({ charset: "windows-1252", text: latin });
  });

  it("a late meta inside a script or a comment, or after <body>, declares nothing", () => {
    const pad = "x".repeat(1100);
    const latin = (html: string) => decodeBody(iconv.encode(html, "windows-1252"), "text/html").charset;
    expect(latin(`<head><script>${pad}document.write('<meta charset="gbk">')</script></head><body>Grüße</body>`)).toBe("UTF-8");
    expect(latin(`<head><!-- ${pad} <meta charset="gbk"> --></head><body>Grüße</body>`)).toBe("UTF-8");
    expect(latin(`<head><style>${pad}</style></head><body><meta charset="gbk">Grüße</body>`)).toBe("UTF-8");
    expect(latin(`<head><style>${pad}</style><meta charset="gbk"></head><body>Grüße</body>`)).toBe("GBK");
    expect(latin(`<head><style>${pad}</style><meta charset="no-such-label"></head><body>Grüße</body>`)).toBe("UTF-8");
  });

  it("XML honours its encoding declaration, the header beats it", () => {
    const xml = '<?xml version="1.0" encoding="ISO-8859-1"?><rss><title>café</title></rss>';
    const body = iconv.encode(xml, "windows-1252");
    expect(decodeBody(body, "application/rss+xml")).toMatchObject({ charset: "windows-1252", text: xml, kind: "xml" });
    expect(decodeBody(utf8(xml), "text/xml; charset=utf-8")).toMatchObject({ charset: "UTF-8", text: xml });
  });

  it("meta charset is not read for XML or text", () => {
    const doc = '<meta charset="shift_jis"><p>café</p>';
    expect(decodeBody(utf8(doc), "text/plain").charset).toBe("UTF-8");
  });

  it("JSON ignores a header charset and reads UTF-8", () => {
    expect(decodeBody(utf8('{"k":"é"}'), "application/json; charset=iso-8859-1")).toMatchObject({ charset: "UTF-8", text: '{"k":"é"}' });
  });
});

/** Code points of a string, "U+XXXX" each: a failing row then says which character differs. */
const codePoints = (s: string) => [...s].map((c) => `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`).join(" ");

describe("decodeBody follows the Encoding standard's decoders and indexes", () => {
  // Each row: bytes at the end of a body (after 60 ASCII characters, so one U+FFFD stays under the
  // decode_failed share), what the Encoding standard's decoder gives (checked against the
  // standard's index files and algorithms), and what the decoders webgate did not choose give:
  // iconv-lite 0.6.3 (behind whatwg-encoding 3.1.1, webgate's decoder until 2026-12-01) and Node's
  // ICU TextDecoder (20.20.2 / 22.23.5). docs/content.md, "Decoding", has the exhaustive counts.
  it.each([
    // Single-byte: the standard's indexes map every byte; iconv-lite left the C1 holes unmapped.
    ["windows-1252", [0x80], "U+20AC", "iconv U+20AC; ICU on Node 20.18.3-20.x U+0080 (Latin-1)"],
    ["windows-1252", [0x81], "U+0081", "iconv U+FFFD"],
    ["windows-1253", [0xaa], "U+FFFD", "ICU U+00AA"],
    ["windows-1255", [0xca], "U+05BA", "ICU U+FFFD"],
    ["windows-874", [0xdb], "U+FFFD", "ICU U+F8C1 (private use)"],
    ["windows-874", [0x81], "U+0081", "iconv U+FFFD"],
    ["KOI8-U", [0xae], "U+045E", "iconv and ICU U+255D (the standard's KOI8-U has ў, Ў at 0xAE, 0xBE)"],
    ["KOI8-U", [0xbe], "U+040E", "iconv and ICU U+256C"],
    ["macintosh", [0xbd], "U+03A9", "iconv U+2126"],
    ["macintosh", [0xdb], "U+20AC", "iconv U+00A4"],
    ["macintosh", [0xf0], "U+F8FF", "iconv U+FFFD"],
    ["IBM866", [0x7f], "U+007F", "ICU U+001A"],
    // gb18030 family: GBK's decoder is gb18030's; 4-byte pointers outside the ranges are errors.
    ["GBK", [0x81, 0x30, 0x81, 0x30], "U+0080", "iconv and ICU on Node 20 U+FFFD U+0030 U+FFFD U+0030"],
    ["GBK", [0x81, 0x30], "U+FFFD", "iconv U+FFFD U+0030 (a truncated sequence is one error)"],
    ["gb18030", [0x84, 0x31, 0xa5, 0x30], "U+FFFD", "iconv U+10000"],
    ["gb18030", [0xe3, 0x32, 0x9a, 0x36], "U+FFFD", "iconv U+DC00 U+DC00 (lone surrogates)"],
    ["gb18030", [0x90, 0x30, 0x81, 0x30], "U+10000", "all agree"],
    ["gb18030", [0xa6, 0xd9], "U+FE10", "iconv U+E78D (GB18030-2005's private-use mapping)"],
    // Big5 (with HKSCS), EUC-KR (windows-949), EUC-JP, Shift_JIS (with the EUDC area).
    ["Big5", [0x87, 0x40], "U+43F0", "ICU U+F266 (no HKSCS)"],
    ["Big5", [0x88, 0x62], "U+00CA U+0304", "ICU U+F325"],
    ["Big5", [0x83, 0x5c], "U+FFFD U+005C", "ICU U+F00E (an ASCII trail byte is given back)"],
    ["Big5", [0x80], "U+FFFD", "ICU U+0080"],
    ["EUC-KR", [0x81, 0x41], "U+AC02", "ICU U+0081 U+0041 (no windows-949 syllables)"],
    ["EUC-KR", [0x80], "U+FFFD", "ICU U+0080"],
    ["EUC-JP", [0x8e, 0x8e], "U+FFFD", "iconv and ICU U+FFFD U+FFFD (a non-ASCII trail byte is consumed)"],
    ["EUC-JP", [0x8f, 0xa2, 0xaf], "U+02D8", "all agree (JIS X 0212)"],
    ["Shift_JIS", [0xf9, 0x41], "U+E69D", "iconv U+FFFD U+0041 (the EUDC area maps to private use)"],
    ["Shift_JIS", [0x80], "U+0080", "ICU U+FFFD"],
    ["Shift_JIS", [0x1a], "U+001A", "ICU U+001C"],
    // UTF-16: a lone surrogate or an odd last byte is an error, not passed through or dropped.
    ["UTF-16LE", [0x00, 0xd8, 0x41, 0x00], "U+FFFD U+0041", "iconv U+D800 U+0041"],
    ["UTF-16BE", [0xdc, 0x00, 0x00, 0x41], "U+FFFD U+0041", "iconv U+DC00 U+0041"],
    ["UTF-16LE", [0x41, 0x00, 0x42], "U+0041 U+FFFD", "iconv U+0041 (the odd byte dropped)"],
  ] satisfies Array<[string, number[], string, string]>)("%s %j → %s (%s)", (charset, bytes, expected) => {
    const prefix = "0123456789 abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVW";
    const body = new Uint8Array([...iconv.encode(prefix, charset), ...bytes]);
    const out = decodeBody(body, `text/plain; charset=${charset}`);
    expect(out.charset).toBe(charset);
    expect(out.text.startsWith(prefix)).toBe(true);
    expect(codePoints(out.text.slice(prefix.length))).toBe(expected);
  });

  it("names every supported encoding by its WHATWG name, as before", () => {
    for (const name of SUPPORTED_CHARSETS) {
      // Plain ASCII reads the same in each (UTF-16 apart, which needs its own bytes).
      const body = name.startsWith("UTF-16") ? iconv.encode("plain text", name) : utf8("plain text");
      expect(decodeBody(body, `text/plain; charset=${name.toLowerCase()}`)).toMatchObject({ charset: name, text: "plain text" });
    }
    expect(SUPPORTED_CHARSETS).toHaveLength(36);
  });

  it.each(["iso-2022-jp", "csiso2022kr", "hz-gb-2312", "iso-8859-8-i", "logical", "x-mac-cyrillic", "replacement"])(
    "%s: an encoding of the standard webgate does not decode counts as unknown (UTF-8, as before)",
    (label) => {
      expect(decodeBody(utf8("café"), `text/plain; charset=${label}`)).toMatchObject({ charset: "UTF-8", text: "café" });
      expect(decodeBody(utf8(`<meta charset="${label}"><p>café</p>`), "text/html").charset).toBe("UTF-8");
    },
  );
});

describe("decodeBody decode_failed", () => {
  it("binary bytes in a text type", () => {
    const body = new Uint8Array(200).map((_, i) => (i % 3 === 0 ? 0 : 0xff));
    const err = errorOf(() => decodeBody(body, "text/html"));
    expect(err.code).toBe("decode_failed");
  });

  it("a few stray bytes are tolerated", () => {
    const body = new Uint8Array([...utf8("a".repeat(100)), 0xff, 0x00]);
    expect(decodeBody(body, "text/plain").text.startsWith("a".repeat(100))).toBe(true);
  });

  it("an empty body is fine", () => {
    expect(decodeBody(new Uint8Array(0), "text/html")).toMatchObject({ text: "", charset: "UTF-8" });
  });

  // Characters around the garbage share's edge: every C0 control, U+FFFD, and the characters a
  // byte count could mistake for them (multi-byte sequences, U+FFFC/U+FFFE beside U+FFFD).
  const charPool = fc.constantFrom(
    ..."\u0000\u0001\u0008\u0009\u000a\u000b\u000c\u000d\u000e\u001b\u001f\u0020\u007f\u0080\u00ff\u0100\ufffc\ufffd\ufffe\uffff".split(""),
    "a", "é", "€", "日", "\u{1F600}", "<p>", "\r\n",
  );
  const text = fc.array(charPool, { maxLength: 60 }).map((chars) => chars.join(""));

  it("counts the garbage of valid UTF-8 on its bytes exactly as the regex does on its text, at any alignment", () => {
    fc.assert(
      fc.property(text, fc.nat(7), (t, shift) => {
        // Start the bytes at every offset of a word in a larger buffer.
        const encoded = utf8(t);
        const host = Buffer.alloc(encoded.length + 8);
        host.set(encoded, shift);
        const bytes = host.subarray(shift, shift + encoded.length);
        expect(countUtf8Garbage(bytes)).toBe(countGarbage(t));
      }),
      { numRuns: 3_000 },
    );
  });

  it("decodes any valid UTF-8 as the Encoding standard's decoder does (ASCII, Latin-1, BMP, astral; BOM or none)", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 80 }), fc.constantFrom("", "\ufeff"), fc.constantFrom("a", "é", "日本", "\u{1F600}"), (t, bom, tail) => {
        // Enough plain text that even a string of control characters stays under the garbage share.
        const bytes = utf8(bom + "x".repeat(800) + t + tail);
        expect(decodeBody(bytes, "text/plain; charset=utf-8").text).toBe(new TextDecoder().decode(bytes));
      }),
      { numRuns: 2_000 },
    );
  });

  it("refuses a body exactly when its share of garbage characters is over the limit (valid UTF-8, ASCII, invalid UTF-8, a BOM)", () => {
    const invalid = fc.constantFrom([0xff], [0xc3], [0xe2, 0x82], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xc0, 0xaf]);
    const body = fc.tuple(fc.boolean(), fc.array(fc.oneof(text.map(utf8), invalid.map((b) => new Uint8Array(b))), { maxLength: 8 })).map(([bom, parts]) => {
      const all = [...(bom ? [0xef, 0xbb, 0xbf] : [])];
      for (const part of parts) all.push(...part);
      return new Uint8Array(all);
    });
    fc.assert(
      fc.property(body, (bytes) => {
        const bom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
        const reference = new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes.subarray(bom));
        const refused = reference.length > 0 && countGarbage(reference) / reference.length > MAX_GARBAGE_SHARE;
        let out: string | null = null;
        try {
          out = decodeBody(bytes, "text/plain; charset=utf-8").text;
        } catch (e) {
          expect((e as WebgateError).code).toBe("decode_failed");
        }
        expect(out === null).toBe(refused);
        if (out !== null) expect(out).toBe(reference);
      }),
      { numRuns: 3_000 },
    );
  });
});

describe("parseContentType", () => {
  it.each([
    [undefined, "", undefined],
    ["text/html", "text/html", undefined],
    ['Text/HTML ; Charset="Shift_JIS"', "text/html", "Shift_JIS"],
    ["text/html;foo=bar;charset=utf-8", "text/html", "utf-8"],
    ["; charset=utf-8", "", "utf-8"],
    ["html", "", undefined],
  ])("%j", (header, mediaType, charset) => {
    expect(parseContentType(header)).toEqual({ mediaType, charset });
  });
});
