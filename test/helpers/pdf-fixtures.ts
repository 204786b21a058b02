/**
 * PDFs for the tests, written with pdf-lib (a maintained PDF writer), so each test states what
 * its PDF holds. The encrypted one is a checked-in file (pdf-lib cannot encrypt; see
 * test/fixtures/pdf/README.md).
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { PDFDocument, PDFName, StandardFonts, rgb } from "pdf-lib";

export const ENCRYPTED_PDF = (): Buffer => readFileSync(path.resolve(__dirname, "../fixtures/pdf/encrypted-aes256.pdf"));

export interface TextPage {
  lines: Array<{ text: string; x?: number; y: number; size?: number }>;
}

/** A PDF of text pages (Helvetica), with an optional title in the Info dictionary. */
export async function textPdf(pages: TextPage[], options: { title?: string; width?: number; height?: number } = {}): Promise<Buffer> {
  const doc = await PDFDocument.create();
  if (options.title !== undefined) doc.setTitle(options.title);
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (const page of pages) {
    const p = doc.addPage([options.width ?? 612, options.height ?? 792]);
    for (const line of page.lines) p.drawText(line.text, { x: line.x ?? 72, y: line.y, size: line.size ?? 11, font });
  }
  return Buffer.from(await doc.save());
}

/** Body lines at 11 pt, 14 pt apart, from y = 700 down. */
export function bodyLines(texts: string[], x = 72, top = 700): TextPage["lines"] {
  return texts.map((text, i) => ({ text, x, y: top - i * 14 }));
}

/**
 * A two-column page whose content stream interleaves the columns (left line 1, right line 1,
 * left line 2, …), so only real column detection reads the left column first.
 */
export async function twoColumnPdf(left: string[], right: string[], heading: string): Promise<Buffer> {
  const lines: TextPage["lines"] = [{ text: heading, x: 200, y: 740, size: 20 }];
  for (let i = 0; i < Math.max(left.length, right.length); i++) {
    if (left[i] !== undefined) lines.push({ text: left[i]!, x: 72, y: 700 - i * 14 });
    if (right[i] !== undefined) lines.push({ text: right[i]!, x: 330, y: 700 - i * 14 });
  }
  return textPdf([{ lines }]);
}

/** A page with only vector graphics: no text layer, as a scanned page has none. */
export async function noTextPdf(): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([612, 792]);
  page.drawRectangle({ x: 100, y: 100, width: 300, height: 400, color: rgb(0.2, 0.3, 0.8) });
  page.drawCircle({ x: 300, y: 600, size: 50, color: rgb(0.9, 0.1, 0.1) });
  return Buffer.from(await doc.save());
}

/** `pages` pages of one short line each ("Page N body"). */
export async function manyPagesPdf(pages: number): Promise<Buffer> {
  return textPdf(Array.from({ length: pages }, (_, i) => ({ lines: [{ text: `Page ${i + 1} body`, y: 700 }] })));
}

/**
 * A zlib stream that inflates to `megabytes` MiB of spaces, built in milliseconds: one MiB is
 * deflated once with a full flush (which resets the window, so the block never refers back), the
 * block is repeated, a final empty block and the Adler-32 of the whole follow (RFC 1950/1951).
 */
export function spacesZlibStream(megabytes: number): Buffer {
  const mib = 1 << 20;
  const block = zlib.deflateRawSync(Buffer.alloc(mib, 0x20), { level: 9, finishFlush: zlib.constants.Z_FULL_FLUSH });
  // Adler-32 of n bytes of value c: a = 1 + n·c, b = n + c·n(n+1)/2, both mod 65521.
  const n = BigInt(megabytes) * BigInt(mib);
  const a = (1n + n * 32n) % 65521n;
  const b = (n + (32n * n * (n + 1n)) / 2n) % 65521n;
  const adler = Buffer.alloc(4);
  adler.writeUInt32BE(Number((b << 16n) | a));
  return Buffer.concat([Buffer.from([0x78, 0xda]), ...Array.from({ length: megabytes }, () => block), Buffer.from([0x03, 0x00]), adler]);
}

/** A PDF whose one page's content stream inflates to `megabytes` MiB of spaces (a stream bomb). */
export async function streamBombPdf(megabytes: number): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([612, 792]);
  const stream = doc.context.stream(spacesZlibStream(megabytes), { Filter: "FlateDecode" });
  page.node.set(PDFName.of("Contents"), doc.context.register(stream));
  return Buffer.from(await doc.save({ useObjectStreams: false }));
}

/** A page whose content stream opens `depth` nested arrays (deep object nesting). */
export async function deepNestingPdf(depth: number): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const page = doc.addPage([612, 792]);
  page.drawText("Visible text before the nesting", { x: 72, y: 700, size: 11, font });
  const nested = Buffer.from(`${"[".repeat(depth)}${"]".repeat(depth)} pop\n`);
  const stream = doc.context.flateStream(nested);
  const contents = page.node.get(PDFName.of("Contents"));
  page.node.set(PDFName.of("Contents"), doc.context.obj([contents!, doc.context.register(stream)]));
  return Buffer.from(await doc.save({ useObjectStreams: false }));
}

/** A page tree that claims `count` pages while holding one. */
export async function lyingPageCountPdf(count: number): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  doc.addPage([612, 792]).drawText("The only real page", { x: 72, y: 700, size: 11, font });
  const pdf = Buffer.from(await doc.save({ useObjectStreams: false })).toString("latin1");
  return Buffer.from(pdf.replace("/Count 1", `/Count ${count}`), "latin1");
}

/** Starts like a PDF, then is garbage. */
export function corruptPdf(): Buffer {
  return Buffer.concat([Buffer.from("%PDF-1.7\n%\u00e2\u00e3\u00cf\u00d3\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R", "latin1"), Buffer.alloc(2000, 0x07)]);
}
