import { isAscii, isUtf8, transcode } from "node:buffer";
import { labelToName, legacyHookDecode } from "@exodus/bytes/encoding.js";
import htmlEncodingSniffer from "html-encoding-sniffer";
import { WebgateError } from "../errors";
import { parseContentType } from "./content-type";

/** What the content pipeline does with a body. */
export type BodyKind = "html" | "xml" | "json" | "text";

/** A response body turned into text. */
export interface DecodedBody {
  /** The decoded text, without a byte-order mark. */
  text: string;
  /** WHATWG name of the encoding used, e.g. "UTF-8", "Shift_JIS", "windows-1252", "GBK", "UTF-16LE". */
  charset: string;
  /** The media type used (lower case, no parameters), sniffed when the header gave none. */
  mediaType: string;
  kind: BodyKind;
}

/**
 * Share of the decoded characters that may be U+FFFD (replacement) or C0 control characters other
 * than TAB, LF, FF and CR before the body counts as not text (`decode_failed`). Real text in the
 * right encoding has next to none; binary data or a wrong encoding has many.
 */
export const MAX_GARBAGE_SHARE = 0.1;

const UTF8 = "UTF-8";

/**
 * The encodings webgate decodes, by their WHATWG names (the values of the response's `charset`).
 * A label that resolves to another encoding of the standard (ISO-2022-JP, ISO-8859-8-I,
 * x-mac-cyrillic, "replacement") counts as unknown, as before: the next sniffing step decides.
 */
const SUPPORTED_ENCODINGS: ReadonlySet<string> = new Set([
  "UTF-8", "IBM866", "ISO-8859-2", "ISO-8859-3", "ISO-8859-4", "ISO-8859-5", "ISO-8859-6", "ISO-8859-7",
  "ISO-8859-8", "ISO-8859-10", "ISO-8859-13", "ISO-8859-14", "ISO-8859-15", "ISO-8859-16", "KOI8-R",
  "KOI8-U", "macintosh", "windows-874", "windows-1250", "windows-1251", "windows-1252", "windows-1253",
  "windows-1254", "windows-1255", "windows-1256", "windows-1257", "windows-1258", "GBK", "gb18030", "Big5",
  "EUC-JP", "Shift_JIS", "EUC-KR", "UTF-16BE", "UTF-16LE", "x-user-defined",
]);

/** The WHATWG names of the encodings webgate decodes (docs/content.md, "Decoding"). */
export const SUPPORTED_CHARSETS: readonly string[] = [...SUPPORTED_ENCODINGS];

/** The Encoding standard's BOM sniff: the encoding a byte-order mark names, or null. */
function getBOMEncoding(body: Uint8Array): "UTF-8" | "UTF-16LE" | "UTF-16BE" | null {
  if (body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) return UTF8;
  if (body[0] === 0xfe && body[1] === 0xff) return "UTF-16BE";
  if (body[0] === 0xff && body[1] === 0xfe) return "UTF-16LE";
  return null;
}

/**
 * The Encoding standard's "decode" (BOM sniff, BOM stripped, then the named encoding's decoder in
 * replacement mode), with @exodus/bytes's decoders: JavaScript implementations of the standard's
 * algorithms and indexes that pass the web-platform-tests. Not Node's `TextDecoder`: its legacy
 * decoders are ICU's converters, which differ from the standard on valid text (EUC-KR without
 * the windows-949 syllables, Big5 without HKSCS, windows-1252 as Latin-1 on Node 20.18.3-20.x,
 * ...) and from one Node release to the next (docs/content.md, "Decoding", has the comparison).
 */
function decodeWithEncoding(body: Uint8Array, name: string): string {
  return legacyHookDecode(body, name);
}

/** How many leading bytes the sniffers look at (MIME Sniffing standard: 1,445 bytes). */
const SNIFF_BYTES = 1445;

/** Media types served as text, and the kind each becomes. Suffixes `+xml`/`+json` are handled apart. */
const MEDIA_TYPE_KINDS: Readonly<Record<string, BodyKind>> = {
  "text/html": "html",
  "application/xhtml+xml": "html",
  "text/plain": "text",
  "text/markdown": "text",
  "text/csv": "text",
  "text/xml": "xml",
  "application/xml": "xml",
  "application/json": "json",
};

/**
 * Decodes a response body into text following its `Content-Type` header (or sniffing when the
 * header is absent or has no media type).
 *
 * Charset order, as the HTML standard's encoding sniffing prescribes: a BOM, then the header's
 * `charset`, then (HTML) the `<meta charset>`/`http-equiv` prescan of the first 1,024 bytes or
 * (XML) the `<?xml encoding=…?>` declaration, then (HTML whose bytes are not valid UTF-8) such a
 * `<meta>` later in the head, else UTF-8. JSON is UTF-8 unless a BOM says
 * otherwise. Labels resolve per the WHATWG Encoding standard (`iso-8859-1` → windows-1252);
 * an unknown label is ignored and the next step decides.
 *
 * @throws WebgateError `unsupported_content_type` for a media type outside the supported list or a
 *   body that sniffs as binary; `decode_failed` when the decoded text is mostly garbage
 *   (see {@link MAX_GARBAGE_SHARE}).
 */
export function decodeBody(body: Uint8Array, contentTypeHeader: string | undefined): DecodedBody {
  const header = parseContentType(contentTypeHeader);
  let mediaType = header.mediaType;
  let kind: BodyKind;
  if (mediaType === "") {
    ({ mediaType, kind } = sniffKind(body));
  } else {
    const known = kindOfMediaType(mediaType);
    if (known === null) {
      throw new WebgateError("unsupported_content_type", `Content type ${mediaType} is not supported.`, {
        details: { content_type: mediaType },
      });
    }
    kind = known;
  }

  const charset = chooseCharset(body, kind, header.charset);
  const { text, garbage } = decodeText(body, charset);
  assertLooksLikeText(text, garbage, mediaType, charset);
  return { text, charset: getBOMEncoding(body) ?? charset, mediaType, kind };
}

/**
 * The text and its count of garbage characters (see {@link GARBAGE}).
 *
 * UTF-8 has the BOM stripped. ASCII bytes are copied as Latin-1, which reads them as the same
 * characters without the decoder's work; other valid UTF-8 goes through {@link decodeValidUtf8};
 * invalid UTF-8 through V8's native decoder (Buffer#toString: U+FFFD per maximal invalid
 * subpart, as the Encoding standard says). Every other encoding goes through
 * {@link decodeWithEncoding}.
 *
 * Valid UTF-8 (most bodies; `isUtf8` is a native check) decodes one character per sequence with
 * no U+FFFD of the decoder's own: its garbage characters are exactly its C0 control bytes and its
 * encoded U+FFFDs, counted on the bytes ({@link countUtf8Garbage}) at a fraction of a regex
 * scan over the text. Other text is scanned.
 */
function decodeText(body: Uint8Array, charset: string): { text: string; garbage: number } {
  const bom = getBOMEncoding(body);
  if (charset !== UTF8 || (bom !== null && bom !== UTF8)) {
    const text = decodeWithEncoding(body, charset);
    return { text, garbage: countGarbage(text) };
  }
  const skip = bom === UTF8 ? 3 : 0;
  const bytes = Buffer.from(body.buffer, body.byteOffset + skip, body.byteLength - skip);
  if (isAscii(bytes)) return { text: bytes.toString("latin1"), garbage: countUtf8Garbage(bytes) };
  if (isUtf8(bytes)) return { text: decodeValidUtf8(bytes), garbage: countUtf8Garbage(bytes) };
  const text = bytes.toString("utf8");
  return { text, garbage: countGarbage(text) };
}

/**
 * The text of valid UTF-8 bytes, by way of UTF-16 (`transcode`, then the UTF-16 bytes as a
 * string): about twice as fast as V8's UTF-8 decoder on the corpus, on Node 20 and 22. Valid
 * UTF-8 has one decoding, so the text is the same. `transcode` needs ICU (Node's builds and
 * Lambda's have it); without it, V8's decoder.
 */
function decodeValidUtf8(bytes: Buffer): string {
  let utf16: Buffer;
  try {
    utf16 = transcode(bytes, "utf8", "utf16le");
  } catch {
    return bytes.toString("utf8");
  }
  return utf16.toString("utf16le");
}

function kindOfMediaType(mediaType: string): BodyKind | null {
  const kind = MEDIA_TYPE_KINDS[mediaType];
  if (kind !== undefined) return kind;
  if (mediaType.endsWith("+xml")) return "xml";
  if (mediaType.endsWith("+json")) return "json";
  return null;
}

/** A supported WHATWG encoding name for a label, or null (unknown label, or one webgate does not decode). */
function resolveLabel(label: string | undefined): string | null {
  if (label === undefined) return null;
  const name = labelToName(label);
  return name !== null && SUPPORTED_ENCODINGS.has(name) ? name : null;
}

function chooseCharset(body: Uint8Array, kind: BodyKind, headerLabel: string | undefined): string {
  const bom = getBOMEncoding(body);
  if (bom !== null) return bom;
  if (kind === "json") return UTF8;
  const fromHeader = resolveLabel(headerLabel);
  if (kind === "html") {
    // The sniffer implements BOM → transport label → meta prescan → default. Only a label that
    // resolves is passed on, so an unknown one falls through to the prescan as the standard says.
    const sniffed = htmlEncodingSniffer(body, {
      ...(fromHeader === null ? {} : { transportLayerEncodingLabel: fromHeader }),
      defaultEncoding: "",
    });
    if (sniffed !== "") return SUPPORTED_ENCODINGS.has(sniffed) ? sniffed : UTF8;
    // Nothing declared in the first 1,024 bytes. Bytes that are not UTF-8 are in the encoding a
    // later <meta> of the head names, as the parser's "change the encoding" would find it.
    if (isUtf8(body)) return UTF8;
    return lateMetaCharset(body) ?? UTF8;
  }
  if (fromHeader !== null) return fromHeader;
  if (kind === "xml") return xmlDeclarationEncoding(body) ?? UTF8;
  return UTF8;
}

/** How far into the body {@link lateMetaCharset} looks for the end of the head. */
const LATE_META_SCAN_BYTES = 512 * 1024;

/** Elements of the head whose content is text, not markup: a `<meta` inside them is no tag. */
const RAW_TEXT_IN_HEAD = new Set(["script", "style", "title", "textarea", "noscript", "template", "xmp", "iframe", "noembed", "noframes"]);

/**
 * The supported encoding a `<meta charset>` or `<meta http-equiv="Content-Type">` of the head
 * names beyond the prescan's first 1,024 bytes, or null. The HTML parser changes the encoding
 * when it meets such a `<meta>` while its confidence is tentative ("change the encoding");
 * pages with long scripts, styles or comments at the top of the head put the declaration
 * there (a GBK page at byte 1,180, ISO-8859-1 and -2 and windows-1250 pages past 1,024).
 * Comments and the content of scripts, styles and the other raw-text elements are skipped
 * (`document.write('<meta charset=…>')` declares nothing); the scan stops at `<body` (or past
 * {@link LATE_META_SCAN_BYTES}). One pass: every step moves forward.
 */
function lateMetaCharset(body: Uint8Array): string | null {
  const end = Math.min(body.byteLength, LATE_META_SCAN_BYTES);
  const head = latin1(body, 0, end).toLowerCase();
  const tagName = /<(\/?)([a-z][a-z0-9-]*)/y;
  let i = 0;
  while (i < end) {
    const lt = head.indexOf("<", i);
    if (lt < 0) return null;
    if (head.startsWith("<!--", lt)) {
      const close = head.indexOf("-->", lt + 4);
      if (close < 0) return null;
      i = close + 3;
      continue;
    }
    tagName.lastIndex = lt;
    const m = tagName.exec(head);
    const gt = head.indexOf(">", lt + 1);
    if (gt < 0) return null;
    i = gt + 1;
    if (m === null || m[1] === "/") continue;
    const name = m[2]!;
    if (name === "body") return null;
    if (name === "meta") {
      const label = htmlEncodingSniffer(body.subarray(lt, gt + 1), { defaultEncoding: "" });
      if (label !== "") return SUPPORTED_ENCODINGS.has(label) ? label : null;
    } else if (RAW_TEXT_IN_HEAD.has(name)) {
      const close = head.indexOf(`</${name}`, i);
      if (close < 0) return null;
      i = close + 2;
    }
  }
  return null;
}

/** The encoding named by an ASCII-compatible `<?xml … encoding="…"?>` declaration at the start. */
function xmlDeclarationEncoding(body: Uint8Array): string | null {
  const head = latin1(body, 0, 200);
  const match = /^<\?xml[^>]*?\sencoding\s*=\s*["']([^"']+)["']/.exec(head);
  const name = resolveLabel(match?.[1]);
  // A declaration that names UTF-16 in ASCII bytes contradicts itself; ASCII-compatible is what we read.
  return name === "UTF-16LE" || name === "UTF-16BE" ? null : name;
}

function latin1(body: Uint8Array, from: number, length: number): string {
  return Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString("latin1", from, Math.min(body.byteLength, from + length));
}

/**
 * Tags whose presence at the start marks HTML (MIME Sniffing standard, "rules for identifying an
 * unknown MIME type"): each must be followed by a space or `>`.
 */
const HTML_SNIFF_TAGS = ["!doctype html", "html", "head", "script", "iframe", "h1", "div", "font", "table", "a", "style", "title", "b", "body", "br", "p", "!--"];

/** Kind and media type of a body that came without a usable Content-Type. */
function sniffKind(body: Uint8Array): { mediaType: string; kind: BodyKind } {
  const bom = getBOMEncoding(body);
  // With a UTF-16 BOM the bytes are not ASCII-compatible: look at the decoded start instead.
  const start = bom === "UTF-16LE" || bom === "UTF-16BE" ? decodeWithEncoding(body.subarray(0, SNIFF_BYTES), bom) : latin1(body, bom === null ? 0 : 3, SNIFF_BYTES);
  const lead = start.replace(/^[\t\n\f\r ]+/, "").toLowerCase();

  if (lead.startsWith("<?xml")) {
    // An XHTML document starts with an XML declaration; its root element decides.
    return /^<\?xml[^>]*>\s*(<!--[\s\S]*?-->\s*)*<(!doctype\s+html|html)[\s>]/.test(lead) ? { mediaType: "text/html", kind: "html" } : { mediaType: "text/xml", kind: "xml" };
  }
  if (/^<(rss|feed|rdf:rdf)[\s>]/.test(lead)) return { mediaType: "text/xml", kind: "xml" };
  for (const tag of HTML_SNIFF_TAGS) {
    if (lead.startsWith(`<${tag}`)) {
      const after = lead.charAt(tag.length + 1);
      if (after === ">" || after === " " || after === "\t" || after === "\n" || after === "\r" || after === "\f") return { mediaType: "text/html", kind: "html" };
    }
  }
  if (bom === null && hasBinaryBytes(body)) {
    throw new WebgateError("unsupported_content_type", "Content type application/octet-stream (sniffed: binary data) is not supported.", {
      details: { content_type: "application/octet-stream" },
    });
  }
  if (lead.startsWith("{") || lead.startsWith("[")) {
    try {
      JSON.parse(decodeWithEncoding(body, UTF8));
      return { mediaType: "application/json", kind: "json" };
    } catch {
      // Not JSON after all: plain text.
    }
  }
  return { mediaType: "text/plain", kind: "text" };
}

/** MIME Sniffing's "binary data byte": C0 controls other than TAB, LF, FF, CR and ESC. */
function hasBinaryBytes(body: Uint8Array): boolean {
  const end = Math.min(body.byteLength, SNIFF_BYTES);
  for (let i = 0; i < end; i++) {
    const b = body[i]!;
    if (b <= 0x08 || b === 0x0b || (b >= 0x0e && b <= 0x1a) || (b >= 0x1c && b <= 0x1f)) return true;
  }
  return false;
}

/** U+FFFD and the C0 controls other than TAB, LF, FF, CR: the marks of bytes that are not this text. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const GARBAGE = /[\uFFFD\x00-\x08\x0B\x0E-\x1F]/g;

/** How many characters of `text` {@link GARBAGE} matches. */
export function countGarbage(text: string): number {
  // A native regex scan: real text has next to no matches, so this costs one pass over the string.
  let garbage = 0;
  GARBAGE.lastIndex = 0;
  while (GARBAGE.exec(text) !== null) garbage++;
  return garbage;
}

/** The UTF-8 encoding of U+FFFD. */
const REPLACEMENT_BYTES = Buffer.from([0xef, 0xbf, 0xbd]);

/**
 * Per byte of the 32-bit word `x`, 0x80 where the byte is below `n` (n ≤ 128), else 0 (Bit
 * Twiddling Hacks, "countless"): `bias` is `0x01010101 * (127 + n)`, each of whose bytes is at
 * least each byte of `x & 0x7f7f7f7f`, so the subtraction never borrows across bytes.
 */
function bytesBelow(x: number, bias: number): number {
  return (bias - (x & 0x7f7f7f7f)) & ~x & 0x80808080;
}
const BELOW_9 = Math.imul(0x01010101, 127 + 9);
const BELOW_11 = Math.imul(0x01010101, 127 + 11);
const BELOW_12 = Math.imul(0x01010101, 127 + 12);
const BELOW_14 = Math.imul(0x01010101, 127 + 14);
const BELOW_32 = Math.imul(0x01010101, 127 + 32);

/** The garbage bytes of a word with a byte below 0x20: below 9, or 11, or 14 and up (not TAB, LF, FF, CR). */
function garbageInWord(x: number): number {
  const garbage = bytesBelow(x, BELOW_9) | (bytesBelow(x, BELOW_12) & ~bytesBelow(x, BELOW_11)) | (bytesBelow(x, BELOW_32) & ~bytesBelow(x, BELOW_14));
  // One bit per garbage byte (bit 7 of its byte): move them to bit 0 and sum the bytes.
  return Math.imul(garbage >>> 7, 0x01010101) >>> 24;
}

/** Whether a byte is one of {@link GARBAGE}'s C0 controls (0x00-0x08, 0x0B, 0x0E-0x1F). */
function isGarbageByte(b: number): boolean {
  return b < 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0c && b !== 0x0d;
}

/**
 * The number of characters {@link GARBAGE} matches in the decoding of `bytes`, which must be
 * valid UTF-8 without a BOM: each C0 control is its own byte (no other sequence holds a byte
 * below 0x80) and each U+FFFD is the sequence EF BF BD. Four bytes at a time: a word without a
 * byte below 0x20 (most words) is one test; in the others the garbage bytes are masked out
 * exactly and counted.
 */
export function countUtf8Garbage(bytes: Buffer): number {
  let count = 0;
  const length = bytes.byteLength;
  // Bytes before the first 4-byte boundary of the underlying buffer, then whole words, then the rest.
  const head = (4 - (bytes.byteOffset & 3)) & 3;
  if (length < head + 4) {
    for (let i = 0; i < length; i++) if (isGarbageByte(bytes[i]!)) count++;
    return count + countReplacements(bytes);
  }
  for (let i = 0; i < head; i++) if (isGarbageByte(bytes[i]!)) count++;
  const words = new Int32Array(bytes.buffer, bytes.byteOffset + head, (length - head) >>> 2);
  const n = words.length;
  for (let w = 0; w < n; w++) {
    const x = words[w]! | 0;
    // bytesBelow(x, BELOW_32) written out with int32 literals (0x9f9f9f9f, 0x80808080): the
    // loop's one test for most words, kept in integer arithmetic.
    if ((((-0x60606061 - (x & 0x7f7f7f7f)) | 0) & ~x & -0x7f7f7f80) !== 0) count += garbageInWord(x);
  }
  for (let i = head + words.length * 4; i < length; i++) if (isGarbageByte(bytes[i]!)) count++;
  return count + countReplacements(bytes);
}

/** How many times the UTF-8 encoding of U+FFFD occurs in `bytes` (never overlapping: EF is a lead byte). */
function countReplacements(bytes: Buffer): number {
  let count = 0;
  for (let at = bytes.indexOf(REPLACEMENT_BYTES); at >= 0; at = bytes.indexOf(REPLACEMENT_BYTES, at + 3)) count++;
  return count;
}

function assertLooksLikeText(text: string, garbage: number, mediaType: string, charset: string): void {
  if (text.length === 0) return;
  if (garbage / text.length > MAX_GARBAGE_SHARE) {
    throw new WebgateError("decode_failed", `The ${mediaType} body does not decode as ${charset} text.`, {
      details: { content_type: mediaType, charset },
    });
  }
}
