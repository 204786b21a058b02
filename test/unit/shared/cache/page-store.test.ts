/**
 * BasePageStore's logic (layout, compression, hashes, expiry, write order, verification, leases)
 * over an in-memory subclass: the same primitives the DynamoDB subclass implements, so what is
 * checked here holds for every storage backend.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BasePageStore, SnapshotCorruptError, StoreUnavailableError, type StoredChunk, type StoredManifest } from "../../../../shared/cache/page-store";
import type { SnapshotMeta } from "../../../../shared/snapshot/snapshot-meta";

const META: SnapshotMeta = {
  url: "https://example.com/a",
  finalUrl: "https://example.com/a",
  redirects: [],
  status: 200,
  contentType: "text/html",
  charset: "UTF-8",
  title: "A",
  extractor: "full",
  format: "markdown",
};
const NOW = Date.UTC(2026, 11, 1);

class MemoryPageStore extends BasePageStore {
  readonly manifests = new Map<string, Record<string, unknown>>();
  readonly chunks = new Map<string, Uint8Array>();
  readonly leases = new Map<string, { holder: string; untilMs: number }>();
  failChunkWrites = false;
  failManifestWrites = false;

  constructor(chunkChars: number) {
    super({ chunkChars });
  }
  protected queryLatestManifest(urlKey: string) {
    const ids = [...this.manifests.keys()].filter((k) => k.startsWith(`${urlKey}#`)).sort();
    return Promise.resolve(ids.length === 0 ? undefined : this.manifests.get(ids.at(-1)!));
  }
  protected getManifest(urlKey: string, id: string) {
    return Promise.resolve(this.manifests.get(`${urlKey}#${id}`));
  }
  protected getChunks(urlKey: string, id: string, indexes: number[]) {
    const found = new Map<number, Uint8Array>();
    for (const index of indexes) {
      const data = this.chunks.get(`${urlKey}#${id}#${index}`);
      if (data !== undefined) found.set(index, data);
    }
    return Promise.resolve(found);
  }
  protected putChunks(urlKey: string, id: string, chunks: StoredChunk[]) {
    if (this.failChunkWrites) return Promise.reject(new StoreUnavailableError("timeout", "chunk write timed out"));
    for (const chunk of chunks) this.chunks.set(`${urlKey}#${id}#${chunk.index}`, chunk.data);
    return Promise.resolve();
  }
  protected putManifest(urlKey: string, manifest: StoredManifest) {
    if (this.failManifestWrites) return Promise.reject(new StoreUnavailableError("throttled", "manifest write throttled"));
    this.manifests.set(`${urlKey}#${manifest.id}`, { ...manifest });
    return Promise.resolve();
  }
  protected putLeaseIfFree(urlKey: string, lease: { holder: string; untilMs: number }, nowMs: number) {
    const held = this.leases.get(urlKey);
    if (held !== undefined && held.untilMs > nowMs && held.holder !== lease.holder) return Promise.resolve(false);
    this.leases.set(urlKey, { holder: lease.holder, untilMs: lease.untilMs });
    return Promise.resolve(true);
  }
  protected deleteLeaseIfHeld(urlKey: string, holder: string) {
    if (this.leases.get(urlKey)?.holder === holder) this.leases.delete(urlKey);
    return Promise.resolve();
  }
}

const save = (store: MemoryPageStore, content: string, fetchedAt = NOW, ttlSeconds = 3_600) => store.save({ urlKey: "u", content, meta: META, fetchedAt, ttlSeconds });

describe("BasePageStore", () => {
  it("saves in chunks and reads any range back, across chunk borders", async () => {
    const store = new MemoryPageStore(10);
    const content = "abcdefghij".repeat(5) + "xyz";
    const manifest = await save(store, content);
    expect(manifest.chunks.map((c) => [c.start, c.end])).toEqual([[0, 10], [10, 20], [20, 30], [30, 40], [40, 50], [50, 53]]);
    const found = await store.findLatest("u", NOW);
    expect(found).toEqual(manifest);
    expect(await store.readRange(found!, 5, 27)).toBe(content.slice(5, 27));
    expect(await store.readRange(found!, 0, 1_000)).toBe(content);
    expect(await store.readRange(found!, 60, 70)).toBe("");
  });

  it("pages read one after another join back to the whole (any content, any page size)", async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: "binary", maxLength: 300 }), fc.integer({ min: 1, max: 40 }), fc.integer({ min: 2, max: 64 }), async (content, page, chunkChars) => {
        const store = new MemoryPageStore(chunkChars);
        const manifest = await save(store, content);
        let joined = "";
        for (let start = 0; start < manifest.totalChars; start += page) joined += await store.readRange(manifest, start, start + page);
        expect(joined).toBe(content.toWellFormed());
        expect(manifest.totalChars).toBe(content.length);
      }),
      { numRuns: 100, seed: 20261201 },
    );
  });

  it("writes every chunk before the manifest: a failed save leaves nothing servable", async () => {
    const store = new MemoryPageStore(8);
    store.failManifestWrites = true;
    await expect(save(store, "chunks written, manifest not")).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(store.chunks.size).toBeGreaterThan(0);
    expect(await store.findLatest("u", NOW)).toBeUndefined();

    const other = new MemoryPageStore(8);
    other.failChunkWrites = true;
    await expect(save(other, "nothing written")).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(other.manifests.size).toBe(0);
  });

  it("treats an expired snapshot as absent, by id and as the latest", async () => {
    const store = new MemoryPageStore(8);
    const manifest = await save(store, "short-lived", NOW, 60);
    expect(await store.findById("u", manifest.id, NOW + 59_000)).toBeDefined();
    expect(await store.findById("u", manifest.id, NOW + 60_000)).toBeUndefined();
    expect(await store.findLatest("u", NOW + 60_000)).toBeUndefined();
  });

  it("refuses a missing, altered or undecodable chunk instead of serving it", async () => {
    const store = new MemoryPageStore(4);
    const manifest = await save(store, "0123456789");
    const key = (i: number) => `u#${manifest.id}#${i}`;

    store.chunks.delete(key(1));
    await expect(store.readRange(manifest, 0, 10)).rejects.toThrow(/chunk 1 is missing/);

    const swapped = new MemoryPageStore(4);
    const m2 = await save(swapped, "0123456789");
    // A valid chunk of other text under this chunk's name: decodes, fails the hash.
    swapped.chunks.set(`u#${m2.id}#0`, swapped.chunks.get(`u#${m2.id}#2`)!);
    await expect(swapped.readRange(m2, 0, 3)).rejects.toBeInstanceOf(SnapshotCorruptError);
    swapped.chunks.set(`u#${m2.id}#1`, new Uint8Array([1, 2, 3]));
    await expect(swapped.readRange(m2, 5, 6)).rejects.toThrow(/undecodable/);
  });

  it("refuses a manifest whose shape, metadata or chunk layout is wrong", async () => {
    const store = new MemoryPageStore(4);
    const manifest = await save(store, "0123456789");
    const stored = store.manifests.get(`u#${manifest.id}`)!;
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ ...stored, sha256: "nothex" }, /invalid shape/],
      [{ ...stored, meta: "{not json" }, /undecodable/],
      [{ ...stored, chunks: JSON.stringify([[0, 4, "a".repeat(64)], [5, 10, "b".repeat(64)]]) }, /inconsistent/],
      [{ ...stored, total_chars: 11 }, /inconsistent/],
    ];
    for (const [bad, message] of cases) {
      store.manifests.set(`u#${manifest.id}`, bad);
      await expect(store.findById("u", manifest.id, NOW)).rejects.toThrow(message);
    }
  });

  it("holds a lease for one holder until it expires or is released", async () => {
    const store = new MemoryPageStore(8);
    expect(await store.tryAcquireLease("u", "a", 1_000, NOW)).toBe(true);
    expect(await store.tryAcquireLease("u", "b", 1_000, NOW + 500)).toBe(false);
    expect(await store.tryAcquireLease("u", "a", 1_000, NOW + 500)).toBe(true);
    expect(await store.tryAcquireLease("u", "b", 1_000, NOW + 1_600)).toBe(true);
    await store.releaseLease("u", "a");
    expect(store.leases.get("u")?.holder).toBe("b");
    await store.releaseLease("u", "b");
    expect(await store.tryAcquireLease("u", "c", 1_000, NOW + 1_700)).toBe(true);
  });
});
