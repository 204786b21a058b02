/**
 * The page store: snapshots of fetched pages, stored compressed in chunks, read back by range.
 *
 * {@link PageStore} is the interface the cache policy uses. {@link BasePageStore} holds all the
 * logic (layout, compression, hashes, expiry, verification) in the powertools-idempotency shape:
 * a storage subclass only implements a few get/put/query/delete primitives, and must turn every
 * storage error into {@link StoreUnavailableError}.
 */
import { deflateSync, inflateSync } from "node:zlib";
import * as z from "../zod-mini";
import {
  DEFAULT_CHUNK_CHARS,
  chunkSpans,
  expiresAtFor,
  isExpired,
  newSnapshotId,
  sha256Hex,
  toWellFormed,
} from "./snapshot-layout";
import { snapshotMetaSchema, type SnapshotMeta } from "../snapshot/snapshot-meta";

/** A chunk of the content: `[start, end)` in UTF-16 code units and the SHA-256 of its UTF-8 bytes. */
export interface ChunkRef {
  start: number;
  end: number;
  sha256: string;
}

/** The manifest of one stored snapshot. */
export interface SnapshotManifest {
  urlKey: string;
  /** Time-sortable id (see `newSnapshotId`). */
  id: string;
  /** Lowercase hex SHA-256 of the whole content's UTF-8 bytes. */
  sha256: string;
  /** Length of the content in UTF-16 code units (JavaScript string length). */
  totalChars: number;
  /** Epoch ms. */
  fetchedAt: number;
  /** Epoch s; the snapshot counts as absent from this instant on. */
  expiresAt: number;
  meta: SnapshotMeta;
  /** Contiguous chunks covering `[0, totalChars)`, in order. */
  chunks: ChunkRef[];
}

/** Input of {@link PageStore.save}. */
export interface SaveSnapshotInput {
  urlKey: string;
  content: string;
  meta: SnapshotMeta;
  fetchedAt: number;
  ttlSeconds: number;
}

/**
 * Storage of snapshots and fetch leases. Every method either resolves or rejects with
 * {@link StoreUnavailableError} or {@link SnapshotCorruptError}; no storage SDK error escapes.
 */
export interface PageStore {
  /** The newest snapshot of `urlKey`; an expired one (`expiresAt` ≤ now) counts as absent. */
  findLatest(urlKey: string, now: number): Promise<SnapshotManifest | undefined>;
  /** Exactly snapshot `id` of `urlKey`, unless absent or expired. */
  findById(urlKey: string, id: string, now: number): Promise<SnapshotManifest | undefined>;
  /**
   * The content in `[start, end)` (clamped to the content), reading only the chunks that cover
   * it. Throws {@link SnapshotCorruptError} if a chunk is missing, undecodable or has a wrong hash.
   */
  readRange(manifest: SnapshotManifest, start: number, end: number): Promise<string>;
  /** Stores a snapshot: all chunks first, the manifest last. Lone surrogates become U+FFFD. */
  save(input: SaveSnapshotInput): Promise<SnapshotManifest>;
  /** Takes the fetch lease of `urlKey` if it is free, expired or already `holder`'s. */
  tryAcquireLease(urlKey: string, holder: string, ttlMs: number, now: number): Promise<boolean>;
  /** Gives the lease back if `holder` still holds it; otherwise does nothing. */
  releaseLease(urlKey: string, holder: string): Promise<void>;
}

/** Why the store could not answer; for logs and metrics. */
export type StoreFailureReason = "unreachable" | "timeout" | "throttled" | "rejected";

/** The table is unreachable, throttled, timed out or refused the request. */
export class StoreUnavailableError extends Error {
  override readonly name = "StoreUnavailableError";
  constructor(
    readonly reason: StoreFailureReason,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** A stored snapshot cannot be trusted: a chunk is missing, undecodable or has a wrong hash. */
export class SnapshotCorruptError extends Error {
  override readonly name = "SnapshotCorruptError";
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** A manifest as the storage layer holds it (plain JSON values), validated by the base on read. */
export interface StoredManifest {
  id: string;
  sha256: string;
  total_chars: number;
  fetched_at: number;
  expires_at: number;
  /** JSON of {@link SnapshotMeta}. */
  meta: string;
  /** JSON of `[start, end, sha256][]`: compact, and small next to the 400 KB limit. */
  chunks: string;
}

/** A compressed chunk as stored. */
export interface StoredChunk {
  index: number;
  data: Uint8Array;
}

const hex64 = z.string().check(z.regex(/^[0-9a-f]{64}$/));
const wholeAtLeast0 = () => z.number().check(z.int(), z.gte(0));
const storedManifestSchema = z.object({
  id: z.string().check(z.minLength(1)),
  sha256: hex64,
  total_chars: wholeAtLeast0(),
  fetched_at: z.number(),
  expires_at: z.number(),
  meta: z.string(),
  chunks: z.string(),
});
const chunksSchema = z.array(z.tuple([wholeAtLeast0(), wholeAtLeast0(), hex64]));

// Fatal: a chunk that is not valid UTF-8 is corrupt, never silently repaired.
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * The page store's logic. Subclasses provide storage primitives only; each must reject with
 * {@link StoreUnavailableError} on any storage failure (and never with anything else).
 */
export abstract class BasePageStore implements PageStore {
  protected readonly chunkChars: number;

  protected constructor(options: { chunkChars?: number } = {}) {
    this.chunkChars = options.chunkChars ?? DEFAULT_CHUNK_CHARS;
  }

  /** The newest manifest of `urlKey` (expired or not), or undefined. */
  protected abstract queryLatestManifest(urlKey: string): Promise<Record<string, unknown> | undefined>;
  /** Manifest `id` of `urlKey` (expired or not), or undefined. */
  protected abstract getManifest(urlKey: string, id: string): Promise<Record<string, unknown> | undefined>;
  /** The chunks asked for that exist; absent ones are simply not in the map. */
  protected abstract getChunks(urlKey: string, id: string, indexes: number[]): Promise<Map<number, Uint8Array>>;
  /** Writes every chunk durably, or rejects. */
  protected abstract putChunks(urlKey: string, id: string, chunks: StoredChunk[], expiresAt: number): Promise<void>;
  /** Writes the manifest; called only after {@link putChunks} resolved. */
  protected abstract putManifest(urlKey: string, manifest: StoredManifest): Promise<void>;
  /** Conditional write: succeeds if no lease, an expired one (`until` ≤ now) or one held by `holder`. */
  protected abstract putLeaseIfFree(
    urlKey: string,
    lease: { holder: string; untilMs: number; expiresAt: number },
    nowMs: number,
  ): Promise<boolean>;
  /** Conditional delete by holder; a lease held by someone else (or none) is left alone. */
  protected abstract deleteLeaseIfHeld(urlKey: string, holder: string): Promise<void>;

  async findLatest(urlKey: string, now: number): Promise<SnapshotManifest | undefined> {
    const raw = await this.queryLatestManifest(urlKey);
    // Ids sort by fetch time, so if the newest snapshot has expired every older one has too.
    return this.liveManifest(urlKey, raw, now);
  }

  async findById(urlKey: string, id: string, now: number): Promise<SnapshotManifest | undefined> {
    const raw = await this.getManifest(urlKey, id);
    return this.liveManifest(urlKey, raw, now);
  }

  async readRange(manifest: SnapshotManifest, start: number, end: number): Promise<string> {
    const from = clamp(start, 0, manifest.totalChars);
    const to = clamp(end, from, manifest.totalChars);
    if (to === from) return "";
    const needed: number[] = [];
    manifest.chunks.forEach((chunk, index) => {
      if (chunk.start < to && chunk.end > from) needed.push(index);
    });
    const found = await this.getChunks(manifest.urlKey, manifest.id, needed);
    let text = "";
    for (const index of needed) {
      const ref = manifest.chunks[index];
      const data = found.get(index);
      if (ref === undefined || data === undefined) {
        throw new SnapshotCorruptError(`snapshot ${manifest.id}: chunk ${index} is missing`);
      }
      text += decodeChunk(manifest.id, index, ref, data);
    }
    // A whole read can also check the whole-content hash that callers rely on.
    if (needed.length === manifest.chunks.length && sha256Hex(text) !== manifest.sha256) {
      throw new SnapshotCorruptError(`snapshot ${manifest.id}: content fails its hash check`);
    }
    const first = manifest.chunks[needed[0] ?? 0];
    const offset = first?.start ?? 0;
    return text.slice(from - offset, to - offset);
  }

  async save(input: SaveSnapshotInput): Promise<SnapshotManifest> {
    const content = toWellFormed(input.content);
    const id = newSnapshotId(input.fetchedAt);
    const expiresAt = expiresAtFor(input.fetchedAt, input.ttlSeconds);
    const spans = chunkSpans(content, this.chunkChars);
    const refs: ChunkRef[] = [];
    const stored: StoredChunk[] = [];
    spans.forEach((span, index) => {
      const text = content.slice(span.start, span.end);
      refs.push({ ...span, sha256: sha256Hex(text) });
      stored.push({ index, data: deflateSync(Buffer.from(text, "utf8")) });
    });
    const manifest: SnapshotManifest = {
      urlKey: input.urlKey,
      id,
      sha256: sha256Hex(content),
      totalChars: content.length,
      fetchedAt: input.fetchedAt,
      expiresAt,
      meta: input.meta,
      chunks: refs,
    };
    // Write order is the consistency guarantee: a manifest is only ever visible once every chunk
    // it names has been written, so a save that fails midway leaves nothing servable.
    await this.putChunks(input.urlKey, id, stored, expiresAt);
    await this.putManifest(input.urlKey, {
      id,
      sha256: manifest.sha256,
      total_chars: manifest.totalChars,
      fetched_at: manifest.fetchedAt,
      expires_at: expiresAt,
      meta: JSON.stringify(input.meta),
      chunks: JSON.stringify(refs.map((r) => [r.start, r.end, r.sha256])),
    });
    return manifest;
  }

  tryAcquireLease(urlKey: string, holder: string, ttlMs: number, now: number): Promise<boolean> {
    const untilMs = now + ttlMs;
    // expires_at only lets DynamoDB's TTL sweep old leases; `untilMs` decides who holds one.
    return this.putLeaseIfFree(urlKey, { holder, untilMs, expiresAt: Math.ceil(untilMs / 1000) + 60 }, now);
  }

  releaseLease(urlKey: string, holder: string): Promise<void> {
    return this.deleteLeaseIfHeld(urlKey, holder);
  }

  private liveManifest(urlKey: string, raw: Record<string, unknown> | undefined, now: number): SnapshotManifest | undefined {
    if (raw === undefined) return undefined;
    const manifest = parseManifest(urlKey, raw);
    // DynamoDB deletes expired items up to days late, and the emulator never does.
    return isExpired(manifest.expiresAt, now) ? undefined : manifest;
  }
}

function parseManifest(urlKey: string, raw: Record<string, unknown>): SnapshotManifest {
  const stored = storedManifestSchema.safeParse(raw);
  if (!stored.success) throw new SnapshotCorruptError("manifest has an invalid shape");
  const s = stored.data;
  let meta: SnapshotMeta;
  let chunks: ChunkRef[];
  try {
    meta = snapshotMetaSchema.parse(JSON.parse(s.meta));
    chunks = chunksSchema.parse(JSON.parse(s.chunks)).map(([start, end, sha256]) => ({ start, end, sha256 }));
  } catch (cause) {
    throw new SnapshotCorruptError(`snapshot ${s.id}: manifest metadata is undecodable`, { cause });
  }
  // The chunks must tile [0, total_chars) exactly, or offsets would map to the wrong text.
  let expected = 0;
  for (const chunk of chunks) {
    if (chunk.start !== expected || chunk.end <= chunk.start) {
      throw new SnapshotCorruptError(`snapshot ${s.id}: chunk layout is inconsistent`);
    }
    expected = chunk.end;
  }
  if (expected !== s.total_chars) throw new SnapshotCorruptError(`snapshot ${s.id}: chunk layout is inconsistent`);
  return {
    urlKey,
    id: s.id,
    sha256: s.sha256,
    totalChars: s.total_chars,
    fetchedAt: s.fetched_at,
    expiresAt: s.expires_at,
    meta,
    chunks,
  };
}

function decodeChunk(id: string, index: number, ref: ChunkRef, data: Uint8Array): string {
  let text: string;
  try {
    text = utf8.decode(inflateSync(data));
  } catch (cause) {
    throw new SnapshotCorruptError(`snapshot ${id}: chunk ${index} is undecodable`, { cause });
  }
  if (text.length !== ref.end - ref.start || sha256Hex(text) !== ref.sha256) {
    throw new SnapshotCorruptError(`snapshot ${id}: chunk ${index} fails its hash check`);
  }
  return text;
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(Math.max(Number.isNaN(value) ? min : Math.floor(value), min), max);
}
