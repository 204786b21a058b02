/**
 * Handles to read pages of one snapshot from: a stored one (read by range from the page store)
 * or one held in memory (a fresh fetch answered before, or instead of, its store write).
 */
import type { SnapshotMeta } from "../snapshot/snapshot-meta";
import type { PageStore, SnapshotManifest } from "./page-store";
import { expiresAtFor, newSnapshotId, sha256Hex } from "./snapshot-layout";

/** A snapshot to read pages from. */
export interface SnapshotHandle {
  manifest: SnapshotManifest;
  /**
   * The content in `[start, end)`, clamped to the content. A stored snapshot whose chunks turn out
   * missing or corrupt throws `SnapshotCorruptError` (never wrong content); the caller then asks
   * the cache again with `maxAgeS: 0`, which `SnapshotCache.getPage` does for it.
   */
  read(start: number, end: number): Promise<string>;
}

/** A stored snapshot, read by range from `store`. */
export function storedHandle(store: PageStore, manifest: SnapshotManifest): SnapshotHandle {
  return { manifest, read: (start, end) => store.readRange(manifest, start, end) };
}

/** `content` (already well formed) as a snapshot in memory, under a fresh id that no store holds. */
export function memoryHandle(urlKey: string, content: string, meta: SnapshotMeta, fetchedAt: number, ttlSeconds: number): SnapshotHandle {
  const sha256 = sha256Hex(content);
  const manifest: SnapshotManifest = {
    urlKey,
    id: newSnapshotId(fetchedAt),
    sha256,
    totalChars: content.length,
    fetchedAt,
    expiresAt: expiresAtFor(fetchedAt, ttlSeconds),
    meta,
    // One in-memory chunk: the layout invariant (chunks tile the content) still holds.
    chunks: content.length === 0 ? [] : [{ start: 0, end: content.length, sha256 }],
  };
  return savedHandle(manifest, content);
}

/** A snapshot just saved as `manifest`, served from memory: no need to read back what was written. */
export function savedHandle(manifest: SnapshotManifest, content: string): SnapshotHandle {
  return {
    manifest,
    read: (start, end) => {
      const from = Math.min(Math.max(Math.floor(start), 0), content.length);
      const to = Math.min(Math.max(Math.floor(end), from), content.length);
      return Promise.resolve(content.slice(from, to));
    },
  };
}
