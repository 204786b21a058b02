import { deflateSync } from "node:zlib";
import { DeleteItemCommand, GetItemCommand, QueryCommand, UpdateItemCommand } from "@aws-sdk/client-dynamodb";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { DynamoPageStore } from "../../../shared/cache/dynamo-page-store";
import { SnapshotCorruptError, StoreUnavailableError } from "../../../shared/cache/page-store";
import type { SnapshotMeta } from "../../../shared/snapshot/snapshot-meta";
import { sha256Hex } from "../../../shared/cache/snapshot-layout";
import { createTestTable, recordingClient, startTestDynamo } from "../../helpers/dynalite";
import type { LocalDynamo } from "../../helpers/dynalite";

const META: SnapshotMeta = {
  url: "https://example.test/a?token=secret",
  finalUrl: "https://example.test/b",
  redirects: [{ url: "https://example.test/a?token=secret", status: 301, location: "/b" }],
  status: 200,
  contentType: "text/html",
  charset: "utf-8",
  title: "Tïtle 😀",
  extractor: "readability",
  format: "markdown",
};
const T0 = Date.UTC(2026, 0, 1, 12, 0, 0, 123);

/** ~1 MB (in UTF-16 units) of mixed ASCII, accented, CJK and astral text, not trivially repetitive. */
function bigContent(units = 1_000_000): string {
  const parts = ["word ", "Ünïcödé ", "漢字かな交じり文 ", "😀🎉𝄞 ", "𠜎𠜱 ", "\n\n## Heading\n"];
  let seed = 7;
  let text = "";
  while (text.length < units) {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    text += parts[seed % parts.length]! + String(seed % 1000);
  }
  return text;
}

let dynamo: LocalDynamo;
let tableName: string;

beforeAll(async () => {
  dynamo = await startTestDynamo();
});
afterAll(async () => {
  await dynamo.close();
});
beforeEach(async () => {
  tableName = await createTestTable(dynamo.client);
});

function chunkKey(urlKey: string, id: string, index: number) {
  return { pk: { S: urlKey }, sk: { S: `chunk#${id}#${String(index).padStart(5, "0")}` } };
}

describe("DynamoPageStore on dynalite", () => {
  it("round-trips a snapshot: save, findLatest, readRange of every part", async () => {
    const store = new DynamoPageStore({ client: dynamo.client, tableName });
    const content = "Hello, 世界! 😀 " + "x".repeat(100);
    const saved = await store.save({ urlKey: "k1", content, meta: META, fetchedAt: T0, ttlSeconds: 3600 });
    expect(saved.sha256).toBe(sha256Hex(content));
    expect(saved.totalChars).toBe(content.length);
    expect(saved.expiresAt).toBe(Math.floor(T0 / 1000) + 3600);

    const found = await store.findLatest("k1", T0 + 1000);
    expect(found).toEqual(saved);
    expect(await store.readRange(found!, 0, content.length)).toBe(content);
    expect(await store.readRange(found!, 7, 9)).toBe("世界");
    expect(await store.readRange(found!, 5, 5)).toBe("");
    expect(await store.readRange(found!, -10, 1e9)).toBe(content);
    expect(await store.findLatest("other", T0)).toBeUndefined();

    const empty = await store.save({ urlKey: "empty", content: "", meta: { ...META, extractor: null }, fetchedAt: T0, ttlSeconds: 3600 });
    expect(empty.chunks).toEqual([]);
    const emptyFound = await store.findLatest("empty", T0);
    expect(emptyFound?.meta.extractor).toBeNull();
    expect(await store.readRange(emptyFound!, 0, 100)).toBe("");
  });

  it("checks the whole-content hash on a whole read", async () => {
    const store = new DynamoPageStore({ client: dynamo.client, tableName, chunkChars: 4 });
    const saved = await store.save({ urlKey: "k", content: "abcdefgh", meta: META, fetchedAt: T0, ttlSeconds: 3600 });
    await expect(store.readRange({ ...saved, sha256: sha256Hex("other") }, 0, 8)).rejects.toThrow(/content fails its hash/);
    expect(await store.readRange(saved, 0, 8)).toBe("abcdefgh");
  });

  it("stores 1 MB in many chunks under the item limit and reads a page from the covering chunks only", async () => {
    const rec = recordingClient(dynamo.endpoint);
    const store = new DynamoPageStore({ client: rec.client, tableName });
    const content = bigContent();
    const saved = await store.save({ urlKey: "big", content, meta: META, fetchedAt: T0, ttlSeconds: 3600 });
    expect(saved.chunks.length).toBeGreaterThan(20);
    // Each chunk is a whole number of code points: no chunk ends inside a surrogate pair.
    for (const chunk of saved.chunks) {
      const code = content.charCodeAt(chunk.end - 1);
      expect(code >= 0xd800 && code <= 0xdbff).toBe(false);
    }

    const start = 500_000;
    const end = start + 30_000;
    const covering = saved.chunks.map((c, i) => ({ ...c, i })).filter((c) => c.start < end && c.end > start).map((c) => c.i);
    expect(covering.length).toBeLessThanOrEqual(2);

    rec.calls.length = 0;
    expect(await store.readRange(saved, start, end)).toBe(content.slice(start, end));
    const gets = rec.calls.filter((c) => c.command === "BatchGetItem" || c.command === "GetItem");
    expect(gets).toHaveLength(1);
    const requested = Object.values(gets[0]!.input["RequestItems"] as Record<string, { Keys: unknown[] }>)[0]!.Keys;
    expect(requested).toEqual(covering.map((i) => chunkKey("big", saved.id, i)));

    // And without the other chunks the page still reads: nothing else was needed.
    for (let i = 0; i < saved.chunks.length; i += 1) {
      if (!covering.includes(i)) await dynamo.client.send(new DeleteItemCommand({ TableName: tableName, Key: chunkKey("big", saved.id, i) }));
    }
    expect(await store.readRange(saved, start, end)).toBe(content.slice(start, end));
    await expect(store.readRange(saved, 0, 10)).rejects.toBeInstanceOf(SnapshotCorruptError);
  });

  it("finds a snapshot by id and the latest one by time", async () => {
    const store = new DynamoPageStore({ client: dynamo.client, tableName });
    const older = await store.save({ urlKey: "k", content: "old", meta: META, fetchedAt: T0, ttlSeconds: 3600 });
    const newer = await store.save({ urlKey: "k", content: "new", meta: META, fetchedAt: T0 + 5, ttlSeconds: 3600 });
    expect((await store.findLatest("k", T0 + 10))?.id).toBe(newer.id);
    const byId = await store.findById("k", older.id, T0 + 10);
    expect(byId?.id).toBe(older.id);
    expect(await store.readRange(byId!, 0, 3)).toBe("old");
    expect(await store.findById("k", "000000000deadbeef", T0)).toBeUndefined();
    expect(await store.findById("other", older.id, T0)).toBeUndefined();
  });

  it("treats an expired snapshot as absent although the emulator still holds it", async () => {
    const store = new DynamoPageStore({ client: dynamo.client, tableName });
    const saved = await store.save({ urlKey: "k", content: "abc", meta: META, fetchedAt: T0, ttlSeconds: 60 });
    const expiry = saved.expiresAt * 1000;
    expect(await store.findLatest("k", expiry - 1)).toBeDefined();
    expect(await store.findLatest("k", expiry)).toBeUndefined();
    expect(await store.findById("k", saved.id, expiry + 1)).toBeUndefined();
    const raw = await dynamo.client.send(new GetItemCommand({ TableName: tableName, Key: { pk: { S: "k" }, sk: { S: `snap#${saved.id}` } } }));
    expect(raw.Item?.["expires_at"]?.N).toBe(String(saved.expiresAt));
    // Chunks carry the same TTL so DynamoDB sweeps them with the manifest.
    const chunk = await dynamo.client.send(new GetItemCommand({ TableName: tableName, Key: chunkKey("k", saved.id, 0) }));
    expect(chunk.Item?.["expires_at"]?.N).toBe(String(saved.expiresAt));
  });

  it("never serves a snapshot with a missing chunk", async () => {
    const store = new DynamoPageStore({ client: dynamo.client, tableName, chunkChars: 10 });
    const content = "0123456789abcdefghijABCDEFGHIJ";
    const saved = await store.save({ urlKey: "k", content, meta: META, fetchedAt: T0, ttlSeconds: 3600 });
    await dynamo.client.send(new DeleteItemCommand({ TableName: tableName, Key: chunkKey("k", saved.id, 1) }));
    await expect(store.readRange(saved, 5, 15)).rejects.toThrow(/chunk 1 is missing/);
    await expect(store.readRange(saved, 0, 30)).rejects.toBeInstanceOf(SnapshotCorruptError);
    expect(await store.readRange(saved, 20, 30)).toBe("ABCDEFGHIJ");
  });

  it("never serves a tampered chunk: wrong text with valid compression, or garbage bytes", async () => {
    const store = new DynamoPageStore({ client: dynamo.client, tableName, chunkChars: 10 });
    const saved = await store.save({ urlKey: "k", content: "0123456789abcdefghij", meta: META, fetchedAt: T0, ttlSeconds: 3600 });
    const tamper = (index: number, data: Uint8Array) =>
      dynamo.client.send(
        new UpdateItemCommand({
          TableName: tableName,
          Key: chunkKey("k", saved.id, index),
          UpdateExpression: "SET #d = :d",
          ExpressionAttributeNames: { "#d": "data" },
          ExpressionAttributeValues: { ":d": { B: data } },
        }),
      );
    await tamper(0, deflateSync(Buffer.from("0123456780", "utf8")));
    await expect(store.readRange(saved, 0, 5)).rejects.toThrow(/hash/);
    await tamper(1, Buffer.from([1, 2, 3, 4]));
    await expect(store.readRange(saved, 12, 15)).rejects.toThrow(/undecodable/);
    // Valid deflate of bytes that are not UTF-8 is corrupt too, never repaired with U+FFFD.
    await tamper(1, deflateSync(Buffer.from([0x61, 0xff, 0x62])));
    await expect(store.readRange(saved, 12, 15)).rejects.toBeInstanceOf(SnapshotCorruptError);
  });

  it("rejects a manifest with a broken shape or layout as corrupt", async () => {
    const store = new DynamoPageStore({ client: dynamo.client, tableName, chunkChars: 10 });
    const saved = await store.save({ urlKey: "k", content: "0123456789abcdefghij", meta: META, fetchedAt: T0, ttlSeconds: 3600 });
    const key = { pk: { S: "k" }, sk: { S: `snap#${saved.id}` } };
    await dynamo.client.send(
      new UpdateItemCommand({ TableName: tableName, Key: key, UpdateExpression: "SET total_chars = :n", ExpressionAttributeValues: { ":n": { N: "25" } } }),
    );
    await expect(store.findLatest("k", T0)).rejects.toThrow(/layout/);
    await dynamo.client.send(
      new UpdateItemCommand({ TableName: tableName, Key: key, UpdateExpression: "SET meta = :m", ExpressionAttributeValues: { ":m": { S: "{not json" } } }),
    );
    await expect(store.findById("k", saved.id, T0)).rejects.toBeInstanceOf(SnapshotCorruptError);
  });

  it("writes every chunk before the manifest, so a save failing midway leaves nothing servable", async () => {
    const rec = recordingClient(dynamo.endpoint);
    const store = new DynamoPageStore({ client: rec.client, tableName, chunkChars: 4 });
    const content = "x".repeat(4 * 60); // 60 chunks: three BatchWriteItem calls
    const ok = await store.save({ urlKey: "order", content, meta: META, fetchedAt: T0, ttlSeconds: 3600 });
    const commands = rec.calls.map((c) => c.command);
    expect(commands).toEqual(["BatchWriteItem", "BatchWriteItem", "BatchWriteItem", "PutItem"]);
    expect(ok.chunks).toHaveLength(60);

    // Fail the second chunk batch: the save rejects and no manifest exists.
    rec.calls.length = 0;
    let batches = 0;
    rec.failWhen((call) => call.command === "BatchWriteItem" && ++batches === 2);
    const failed = store.save({ urlKey: "midway", content, meta: META, fetchedAt: T0, ttlSeconds: 3600 });
    await expect(failed).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(rec.calls.some((c) => c.command === "PutItem")).toBe(false);
    rec.failWhen(undefined);
    expect(await store.findLatest("midway", T0)).toBeUndefined();
    const items = await dynamo.client.send(
      new QueryCommand({ TableName: tableName, KeyConditionExpression: "pk = :pk", ExpressionAttributeValues: { ":pk": { S: "midway" } } }),
    );
    expect(items.Items!.length).toBeGreaterThan(0); // orphan chunks from the first batch, swept by TTL
    expect(items.Items!.every((item) => item["sk"]!.S!.startsWith("chunk#"))).toBe(true);

    // Fail the manifest write itself: same outcome.
    rec.failWhen((call) => call.command === "PutItem");
    await expect(store.save({ urlKey: "last", content, meta: META, fetchedAt: T0, ttlSeconds: 3600 })).rejects.toBeInstanceOf(StoreUnavailableError);
    rec.failWhen(undefined);
    expect(await store.findLatest("last", T0)).toBeUndefined();
  });

  it("keeps chunk and lease items out of the latest-manifest query", async () => {
    const rec = recordingClient(dynamo.endpoint);
    const store = new DynamoPageStore({ client: rec.client, tableName, chunkChars: 2 });
    // Chunks and a lease exist, the manifest never got written: the query must find nothing
    // (matching a chunk or the lease would surface as a corrupt manifest instead).
    rec.failWhen((call) => call.command === "PutItem" && (call.input["Item"] as Record<string, { S?: string }>)["sk"]?.S?.startsWith("snap#") === true);
    await expect(store.save({ urlKey: "k", content: "abcdef", meta: META, fetchedAt: T0, ttlSeconds: 3600 })).rejects.toBeInstanceOf(StoreUnavailableError);
    rec.failWhen(undefined);
    expect(await store.tryAcquireLease("k", "h", 1000, T0)).toBe(true);
    expect(await store.findLatest("k", T0)).toBeUndefined();
    const saved = await store.save({ urlKey: "k", content: "abcdef", meta: META, fetchedAt: T0 + 1, ttlSeconds: 3600 });
    expect((await store.findLatest("k", T0))?.id).toBe(saved.id);
  });

  it("grants the lease to one holder until it is released or expires", async () => {
    const store = new DynamoPageStore({ client: dynamo.client, tableName });
    expect(await store.tryAcquireLease("k", "a", 1000, T0)).toBe(true);
    expect(await store.tryAcquireLease("k", "b", 1000, T0 + 999)).toBe(false);
    expect(await store.tryAcquireLease("k", "a", 1000, T0 + 10)).toBe(true); // re-entrant
    await store.releaseLease("k", "b"); // not b's: no effect
    expect(await store.tryAcquireLease("k", "b", 1000, T0 + 20)).toBe(false);
    expect(await store.tryAcquireLease("k", "b", 1000, T0 + 1010)).toBe(true); // a's lease expired
    await store.releaseLease("k", "a"); // a lost it: no effect, no error
    expect(await store.tryAcquireLease("k", "a", 1000, T0 + 1020)).toBe(false);
    await store.releaseLease("k", "b");
    expect(await store.tryAcquireLease("k", "a", 1000, T0 + 1030)).toBe(true);
    expect(await store.tryAcquireLease("other", "b", 1000, T0)).toBe(true);
  });

  it("turns every SDK error into StoreUnavailableError (a missing table too)", async () => {
    const store = new DynamoPageStore({ client: dynamo.client, tableName: "no-such-table" });
    const outcomes = await Promise.allSettled([
      store.findLatest("k", T0),
      store.findById("k", "000000000deadbeef", T0),
      store.save({ urlKey: "k", content: "abc", meta: META, fetchedAt: T0, ttlSeconds: 60 }),
      store.tryAcquireLease("k", "a", 1000, T0),
      store.releaseLease("k", "a"),
    ]);
    for (const outcome of outcomes) {
      expect(outcome.status).toBe("rejected");
      const reason = (outcome as PromiseRejectedResult).reason as StoreUnavailableError;
      expect(reason).toBeInstanceOf(StoreUnavailableError);
      expect(reason.reason).toBe("rejected");
      expect(reason.message).not.toContain("no-such-table");
    }
  });
});
