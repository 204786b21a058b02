/**
 * Compares, sequence by sequence, the decoders webgate could use for its legacy encodings:
 * @exodus/bytes (what shared/content/decode.ts uses: the Encoding standard's algorithms and
 * indexes), Node's own `TextDecoder` (ICU's converters) and iconv-lite behind whatwg-encoding
 * (webgate's decoder until 2026-12-01; a devDependency now). Exhaustive: every byte of the
 * single-byte code pages, every 2-byte sequence of the CJK and UTF-16 encodings, every EUC-JP
 * 3-byte sequence, every gb18030 3-byte prefix and all 1,587,600 4-byte sequences, each at the
 * end of the input (so truncated sequences are covered); sequences that start with a byte-order
 * mark are left out.
 *
 * `npx tsx scripts/compare-decoders.ts [encoding]` prints, per encoding, how many sequences
 * decode differently from @exodus/bytes, split into valid text (the standard gives no U+FFFD)
 * and invalid input, with a few examples. Run it under another Node (`/path/to/node --import tsx
 * scripts/compare-decoders.ts`) to see what that runtime's TextDecoder does. docs/content.md
 * ("Decoding") has the figures for Node 20.20.2 and 22.23.5.
 */
import { legacyHookDecode } from "@exodus/bytes/encoding.js";
import { decode as whatwgDecode } from "whatwg-encoding";
import { SUPPORTED_CHARSETS } from "../shared/content/decode";

const MULTI_BYTE = new Set(["GBK", "gb18030", "Big5", "EUC-JP", "Shift_JIS", "EUC-KR"]);

const hex = (bytes: Uint8Array) => [...bytes].map((b) => b.toString(16).padStart(2, "0")).join(" ");
const codePoints = (s: string) => [...s].map((c) => `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`).join(" ");

interface Tally {
  valid: number;
  invalid: number;
  examples: string[];
}

/** Every input sequence of the comparison for one encoding, as a generator of byte arrays. */
function* sequences(name: string): Generator<Uint8Array> {
  for (let a = 0; a < 256; a++) yield Uint8Array.of(a);
  if (!MULTI_BYTE.has(name) && !name.startsWith("UTF-16")) return;
  for (let x = 0; x < 65536; x++) yield Uint8Array.of(x >> 8, x & 255);
  if (name.startsWith("UTF-16")) {
    const le = name === "UTF-16LE";
    const unit = (u: number) => (le ? [u & 255, u >> 8] : [u >> 8, u & 255]);
    for (let h = 0xd800; h < 0xdc00; h += 7) for (let l = 0xdc00; l < 0xe000; l += 5) yield Uint8Array.from([...unit(h), ...unit(l)]);
    for (let x = 0; x < 65536; x++) yield Uint8Array.from([...unit(x), 0x41]);
  }
  if (name === "EUC-JP") for (let x = 0; x < 65536; x++) yield Uint8Array.of(0x8f, x >> 8, x & 255);
  if (name === "GBK" || name === "gb18030") {
    for (let a = 0x81; a <= 0xfe; a++) for (let b = 0x30; b <= 0x39; b++) for (let c = 0; c < 256; c++) yield Uint8Array.of(a, b, c);
    for (let a = 0x81; a <= 0xfe; a++) for (let b = 0x30; b <= 0x39; b++) for (let c = 0x81; c <= 0xfe; c++) for (let d = 0x30; d <= 0x39; d++) yield Uint8Array.of(a, b, c, d);
  }
}

function compare(name: string): void {
  let native: InstanceType<typeof TextDecoder> | null = null;
  let nativeNote = "";
  try {
    native = new TextDecoder(name, { ignoreBOM: true });
  } catch (e) {
    nativeNote = ` (not supported: ${(e as { code?: string }).code ?? String(e)})`;
  }
  const tallies = { "TextDecoder": { valid: 0, invalid: 0, examples: [] } as Tally, "whatwg-encoding": { valid: 0, invalid: 0, examples: [] } as Tally };
  const note = (tally: Tally, bytes: Uint8Array, got: string, standard: string) => {
    if (standard.includes("\uFFFD")) tally.invalid++;
    else tally.valid++;
    if (tally.examples.length < 4) tally.examples.push(`[${hex(bytes)}] ${codePoints(got)} (standard: ${codePoints(standard)})`);
  };
  let count = 0;
  for (const bytes of sequences(name)) {
    // A body that starts with a byte-order mark is decoded by the BOM's encoding (decode.ts
    // picks it before any decoder runs), so those sequences are not part of the comparison.
    if ((bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) || (bytes[0] === 0xfe && bytes[1] === 0xff) || (bytes[0] === 0xff && bytes[1] === 0xfe)) continue;
    count++;
    const standard = legacyHookDecode(bytes, name);
    if (native) {
      const got = native.decode(bytes);
      if (got !== standard) note(tallies.TextDecoder, bytes, got, standard);
    }
    const old = whatwgDecode(bytes, name);
    if (old !== standard) note(tallies["whatwg-encoding"], bytes, old, standard);
  }
  console.log(`${name}: ${count.toLocaleString("en")} sequences`);
  for (const [decoder, t] of Object.entries(tallies)) {
    if (decoder === "TextDecoder" && !native) {
      console.log(`  ${decoder} ${process.version}${nativeNote}`);
      continue;
    }
    console.log(`  ${decoder}${decoder === "TextDecoder" ? ` ${process.version}` : ""}: ${t.valid} valid-text and ${t.invalid} invalid-input sequences differ`);
    for (const e of t.examples) console.log(`    ${e}`);
  }
}

const only = process.argv[2];
for (const name of SUPPORTED_CHARSETS) {
  if (name === "UTF-8" || (only !== undefined && name !== only)) continue;
  compare(name);
}
