/**
 * Pure helpers for how a snapshot's text is laid out in the page store: well-formed text,
 * hashes, chunk boundaries and time-sortable snapshot ids. No I/O, no clock.
 */
import { createHash, randomBytes } from "node:crypto";

/**
 * Default chunk size in UTF-16 code units. The worst case is 3 UTF-8 bytes per code unit (CJK;
 * an astral character is 4 bytes for 2 units), so an incompressible chunk is at most ~96 KiB,
 * far below DynamoDB's 400 KB item limit, while a 30,000-character page touches 1 or 2 chunks.
 */
export const DEFAULT_CHUNK_CHARS = 32_768;

/**
 * Replaces lone UTF-16 surrogates with U+FFFD. The store keeps UTF-8, which cannot carry a lone
 * surrogate, so the text is made well-formed before hashing and storing: the length (and so every
 * character offset) is unchanged, and what a miss serves from memory equals what a hit reads back.
 */
export function toWellFormed(text: string): string {
  // ES2024's String.prototype.toWellFormed (Node.js 20 and 22) does exactly this, natively.
  return text.toWellFormed();
}

/** Lowercase hex SHA-256 of the text's UTF-8 bytes. */
export function sha256Hex(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

/** A chunk's place in the content: `[start, end)` in UTF-16 code units. */
export interface ChunkSpan {
  start: number;
  end: number;
}

/**
 * Splits `[0, length)` into spans of at most `chunkChars` code units, never between the two
 * halves of a surrogate pair, so each chunk is valid UTF-8 on its own. Spans are contiguous and
 * cover the whole text; an empty text has no spans.
 */
export function chunkSpans(text: string, chunkChars: number = DEFAULT_CHUNK_CHARS): ChunkSpan[] {
  if (!Number.isInteger(chunkChars) || chunkChars < 2) throw new RangeError("chunkChars must be an integer ≥ 2");
  const spans: ChunkSpan[] = [];
  let start = 0;
  while (start < text.length) {
    let end = Math.min(start + chunkChars, text.length);
    // Ending right after a high surrogate would split a pair: end one unit earlier instead.
    if (end < text.length && isHighSurrogate(text.charCodeAt(end - 1))) end -= 1;
    spans.push({ start, end });
    start = end;
  }
  return spans;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/** Width of the time part of a snapshot id: base36 epoch ms fits 9 digits until the year 5188. */
const ID_TIME_WIDTH = 9;

/**
 * A new snapshot id: the fetch time in epoch ms as fixed-width base36, then 8 random hex digits.
 * Ids sort by time as strings (`0-9` sort before `a-z` in ASCII), so the latest snapshot of a URL
 * is the first item of a descending Query; the random part keeps two snapshots of the same
 * millisecond apart.
 */
export function newSnapshotId(fetchedAtMs: number, random: string = randomBytes(4).toString("hex")): string {
  return `${Math.max(0, Math.floor(fetchedAtMs)).toString(36).padStart(ID_TIME_WIDTH, "0")}${random}`;
}

/** True when `id` has the shape {@link newSnapshotId} produces (cheap check before a read). */
export function isSnapshotId(id: string): boolean {
  return /^[0-9a-z]{9}[0-9a-f]{8}$/.test(id);
}

/** `expires_at` (epoch seconds) for a snapshot fetched at `fetchedAtMs` that lives `ttlSeconds`. */
export function expiresAtFor(fetchedAtMs: number, ttlSeconds: number): number {
  return Math.floor(fetchedAtMs / 1000) + ttlSeconds;
}

/** True when an item with this `expires_at` (epoch s) counts as absent at `nowMs`. */
export function isExpired(expiresAtS: number, nowMs: number): boolean {
  return expiresAtS * 1000 <= nowMs;
}
