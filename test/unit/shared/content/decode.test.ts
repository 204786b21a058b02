import { describe, expect, it } from "vitest";
import iconv from "iconv-lite";
import { decodeBody, parseContentType } from "../../../../shared/content/decode";
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

  it("a meta charset beyond the first 1024 bytes is not seen", () => {
    const html = `<!--${"x".repeat(1100)}--><meta charset="windows-1252"><p>café</p>`;
    expect(decodeBody(utf8(html), "text/html").charset).toBe("UTF-8");
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
