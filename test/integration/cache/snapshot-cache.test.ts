import { createServer } from "node:http";
import type { IncomingHttpHeaders, Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { DeleteItemCommand } from "@aws-sdk/client-dynamodb";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createDynamoClient } from "../../../shared/cache/dynamo-client";
import { DynamoPageStore } from "../../../shared/cache/dynamo-page-store";
import { SnapshotCorruptError } from "../../../shared/cache/page-store";
import type { PageStore } from "../../../shared/cache/page-store";
import type { SnapshotMeta } from "../../../shared/snapshot/snapshot-meta";
import { SnapshotCache } from "../../../shared/cache/snapshot-cache";
import type { ProducedPage } from "../../../shared/cache/snapshot-cache";
import type { CacheLogger } from "../../../shared/cache/cache-logger";
import { sha256Hex } from "../../../shared/cache/snapshot-layout";
import { WebgateError } from "../../../shared/errors";
import { createTestTable, recordingClient, startTestDynamo } from "../../helpers/dynalite";
import type { LocalDynamo } from "../../helpers/dynalite";

const META: SnapshotMeta = {
  url: "https://example.test/page?api_key=SECRET123",
  finalUrl: "https://example.test/page?api_key=SECRET123",
  redirects: [],
  status: 200,
  contentType: "text/html",
  charset: "utf-8",
  title: "Page",
  extractor: "readability",
  format: "markdown",
};
const CONTENT = "# Page\n\nSome text with 漢字 and 😀, page content marker QWERTY.\n".repeat(50);
const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);

class FakeClock {
  constructor(public t: number) {}
  now(): number {
    return this.t;
  }
}

class MemoryLogger implements CacheLogger {
  readonly lines: { message: string; fields: Record<string, string | number | boolean> }[] = [];
  warn(message: string, fields: Record<string, string | number | boolean>): void {
    this.lines.push({ message, fields });
  }
  /** Everything logged, as one string, to check that no content or URL leaks into logs. */
  text(): string {
    return JSON.stringify(this.lines);
  }
}

/** A produce() that counts its calls and can be slowed down or made to fail. */
function producer(options: { content?: string; delayMs?: number; fail?: Error; onStart?: () => void } = {}) {
  const counter = {
    calls: 0,
    produce: async (): Promise<ProducedPage> => {
      counter.calls += 1;
      options.onStart?.();
      await new Promise((resolve) => setTimeout(resolve, options.delayMs ?? 0));
      if (options.fail) throw options.fail;
      return { content: options.content ?? CONTENT, meta: META };
    },
  };
  return counter;
}

let dynamo: LocalDynamo;
let tableName: string;
let store: DynamoPageStore;
let clock: FakeClock;
let logger: MemoryLogger;

function cacheOn(pageStore: PageStore, extra: Partial<ConstructorParameters<typeof SnapshotCache>[0]> = {}): SnapshotCache {
  return new SnapshotCache({ store: pageStore, clock, logger, ttlSeconds: 3600, leaseMs: 5000, waitPollMs: 5, ...extra });
}

/** An HTTP server on 127.0.0.1 that answers every request with `handler`; closes its sockets on close. */
async function standIn(handler: (headers: IncomingHttpHeaders, respond: (status: number, headers: Record<string, string>, body: string) => void) => void) {
  const sockets = new Set<Socket>();
  const requests: IncomingHttpHeaders[] = [];
  const server: Server = createServer((req, res) => {
    requests.push(req.headers);
    req.resume();
    handler(req.headers, (status, headers, body) => {
      res.writeHead(status, headers);
      res.end(body);
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** An endpoint nobody listens on: a port that was free a moment ago. */
async function deadEndpoint(): Promise<string> {
  const probe = await standIn(() => undefined);
  await probe.close();
  return probe.endpoint;
}

beforeAll(async () => {
  dynamo = await startTestDynamo();
});
afterAll(async () => {
  await dynamo.close();
});
beforeEach(async () => {
  tableName = await createTestTable(dynamo.client);
  store = new DynamoPageStore({ client: dynamo.client, tableName, chunkChars: 256 });
  clock = new FakeClock(T0);
  logger = new MemoryLogger();
});

describe("SnapshotCache: hits, misses and age", () => {
  it("misses, then hits while the snapshot is young enough; max age 0 forces a fetch", async () => {
    const cache = cacheOn(store);
    const p = producer();
    const first = await cache.get("k", { maxAgeS: 600, produce: p.produce });
    expect(first.cache).toBe("miss");
    expect(await first.snapshot.read(0, 40)).toBe(CONTENT.slice(0, 40));
    expect(first.snapshot.manifest.sha256).toBe(sha256Hex(CONTENT));

    clock.t = T0 + 600_000; // exactly max_age old: still a hit
    const second = await cache.get("k", { maxAgeS: 600, produce: p.produce });
    expect(second.cache).toBe("hit");
    expect(second.snapshot.manifest.id).toBe(first.snapshot.manifest.id);
    expect(await second.snapshot.read(1000, 1500)).toBe(CONTENT.slice(1000, 1500));
    expect(p.calls).toBe(1);

    clock.t = T0 + 601_000;
    const third = await cache.get("k", { maxAgeS: 600, produce: p.produce });
    expect(third.cache).toBe("miss");
    expect(third.snapshot.manifest.id).not.toBe(first.snapshot.manifest.id);

    const forced = await cache.get("k", { maxAgeS: 0, produce: p.produce });
    expect(forced.cache).toBe("miss");
    expect(p.calls).toBe(3);
  });

  it("serves a miss from memory and a later hit from the store with identical text (lone surrogates made U+FFFD)", async () => {
    const cache = cacheOn(store);
    const content = "a\uD800b😀c\uDC00";
    const miss = await cache.get("s", { maxAgeS: 600, produce: producer({ content }).produce });
    const hit = await cache.get("s", { maxAgeS: 600, produce: producer().produce });
    expect(hit.cache).toBe("hit");
    const fromMemory = await miss.snapshot.read(0, 100);
    expect(fromMemory).toBe("a\uFFFDb😀c\uFFFD");
    expect(await hit.snapshot.read(0, 100)).toBe(fromMemory);
    expect(hit.snapshot.manifest.sha256).toBe(sha256Hex(fromMemory));
  });
});

describe("SnapshotCache: single flight", () => {
  it("20 concurrent misses in one instance make one produce call", async () => {
    const cache = cacheOn(store);
    const p = producer({ delayMs: 30 });
    const results = await Promise.all(Array.from({ length: 20 }, () => cache.get("k", { maxAgeS: 600, produce: p.produce })));
    expect(p.calls).toBe(1);
    expect(new Set(results.map((r) => r.snapshot.manifest.id)).size).toBe(1);
    for (const r of results) expect(await r.snapshot.read(0, 10)).toBe(CONTENT.slice(0, 10));
  });

  it("hands what produce returned to the caller whose produce ran, and to none of the callers that shared its fill", async () => {
    const cache = cacheOn(store);
    let calls = 0;
    const produce = async () => {
      calls += 1;
      await new Promise((resolve) => setTimeout(resolve, 20));
      return { content: CONTENT, meta: META, origin: { ms: 7, bytes: 1234 } };
    };
    const results = await Promise.all(Array.from({ length: 5 }, () => cache.get("k", { maxAgeS: 600, produce })));
    expect(calls).toBe(1);
    expect(results.map((r) => r.produced?.origin)).toEqual([{ ms: 7, bytes: 1234 }, undefined, undefined, undefined, undefined]);
    const hit = await cache.getPage("k", { maxAgeS: 600, produce, start: 0, end: 10 });
    expect(hit).toMatchObject({ cache: "hit", content: CONTENT.slice(0, 10) });
    expect(hit.produced).toBeUndefined();
    const fresh = await cache.getPage("k", { maxAgeS: 0, produce, start: 0, end: 10 });
    expect(fresh).toMatchObject({ cache: "miss", produced: { origin: { ms: 7, bytes: 1234 } } });
  });

  it("two instances on one table, 20 concurrent misses each, make one produce call", async () => {
    const a = cacheOn(new DynamoPageStore({ client: dynamo.client, tableName }), { instanceId: "a" });
    const b = cacheOn(new DynamoPageStore({ client: dynamo.client, tableName }), { instanceId: "b" });
    const p = producer({ delayMs: 60 });
    const calls = [a, b].flatMap((cache) => Array.from({ length: 20 }, () => cache.get("k", { maxAgeS: 600, produce: p.produce })));
    const results = await Promise.all(calls);
    expect(p.calls).toBe(1);
    expect(new Set(results.map((r) => r.snapshot.manifest.id)).size).toBe(1);
    expect(results.filter((r) => r.cache === "miss")).toHaveLength(20);
    expect(results.filter((r) => r.cache === "hit")).toHaveLength(20);
    for (const r of results) expect(await r.snapshot.read(100, 200)).toBe(CONTENT.slice(100, 200));
    // The lease was released after the save.
    expect(await store.tryAcquireLease("k", "someone-else", 1000, clock.now())).toBe(true);
  });

  it.each([false, true])("with max age 0 on both instances (stale snapshot present: %s) concurrent misses make one produce call", async (stale) => {
    if (stale) await cacheOn(store).get("k", { maxAgeS: 600, produce: producer({ content: "stale" }).produce });
    clock.t += 10_000;
    const a = cacheOn(new DynamoPageStore({ client: dynamo.client, tableName }), { instanceId: "a" });
    const b = cacheOn(new DynamoPageStore({ client: dynamo.client, tableName }), { instanceId: "b" });
    const p = producer({ delayMs: 60 });
    const results = await Promise.all([a, b].flatMap((cache) => Array.from({ length: 10 }, () => cache.get("k", { maxAgeS: 0, produce: p.produce }))));
    expect(p.calls).toBe(1);
    expect(new Set(results.map((r) => r.snapshot.manifest.id)).size).toBe(1);
    for (const r of results) expect(await r.snapshot.read(0, 6)).toBe("# Page");
  });

  it("a produce failure reaches every waiter with the same error, and releases the lease", async () => {
    const cache = cacheOn(store);
    const boom = new WebgateError("upstream_timeout", "origin too slow");
    const p = producer({ delayMs: 20, fail: boom });
    const outcomes = await Promise.allSettled(Array.from({ length: 20 }, () => cache.get("k", { maxAgeS: 600, produce: p.produce })));
    expect(p.calls).toBe(1);
    for (const outcome of outcomes) {
      expect(outcome.status).toBe("rejected");
      expect((outcome as PromiseRejectedResult).reason).toBe(boom);
    }
    expect(await store.tryAcquireLease("k", "someone-else", 1000, clock.now())).toBe(true);
    await store.releaseLease("k", "someone-else");
    const retry = await cache.get("k", { maxAgeS: 600, produce: producer().produce });
    expect(retry.cache).toBe("miss");
  });

  it("a waiting instance takes over when the lease holder fails", async () => {
    const a = cacheOn(store, { instanceId: "a" });
    const b = cacheOn(store, { instanceId: "b" });
    let holding!: () => void;
    const leaseHeld = new Promise<void>((resolve) => (holding = resolve));
    // produce runs once the lease is held: b starts only then, however slow the machine is.
    const failing = producer({ delayMs: 40, fail: new Error("origin broke"), onStart: () => holding() });
    const working = producer();
    const holder = a.get("k", { maxAgeS: 600, produce: failing.produce });
    await leaseHeld;
    const waiter = b.get("k", { maxAgeS: 600, produce: working.produce });
    await expect(holder).rejects.toThrow("origin broke");
    const result = await waiter;
    expect(result.cache).toBe("miss");
    expect(working.calls).toBe(1);
    expect(await result.snapshot.read(0, 6)).toBe("# Page");
  });

  it("waits at most leaseMs for a holder that never finishes, then fetches itself", async () => {
    const sleeps: number[] = [];
    const cache = cacheOn(store, { leaseMs: 50, waitPollMs: 10, sleep: (ms) => (sleeps.push(ms), Promise.resolve()) });
    // A crashed instance's lease, still valid by the (frozen) clock.
    expect(await store.tryAcquireLease("k", "crashed", 60_000, clock.now())).toBe(true);
    const p = producer();
    const result = await cache.get("k", { maxAgeS: 600, produce: p.produce });
    expect(result.cache).toBe("miss");
    expect(p.calls).toBe(1);
    expect(sleeps).toEqual([10, 10, 10, 10, 10]);
    expect(await store.findLatest("k", clock.now())).toBeDefined();
  });
});

/** A deadline whose remaining time the test sets by hand (the cache only reads it). */
function manualDeadline(remaining: number) {
  const controller = new AbortController();
  const deadline = {
    left: remaining,
    signal: controller.signal,
    remainingMs: () => deadline.left,
    expired: () => deadline.left <= 0,
    within: () => deadline,
    dispose: () => undefined,
    abort: () => controller.abort(),
  };
  return deadline;
}

describe("SnapshotCache: every wait is bounded by the request's deadline", () => {
  it("a lease lasts only as long as its holder's request may still run", async () => {
    const leases: number[] = [];
    const recording: PageStore = Object.assign(Object.create(store) as PageStore, {
      tryAcquireLease: (urlKey: string, holder: string, leaseMs: number, now: number) => {
        leases.push(leaseMs);
        return store.tryAcquireLease(urlKey, holder, leaseMs, now);
      },
    });
    const cache = cacheOn(recording, { leaseMs: 30_000 });
    const result = await cache.get("k", { maxAgeS: 600, produce: producer().produce, deadline: manualDeadline(7_250) });
    expect(result.cache).toBe("miss");
    expect(leases).toEqual([7_250]);
  });

  it("waits for a holder that never delivers for half the time left, then fetches itself", async () => {
    const deadline = manualDeadline(1_000);
    const sleeps: number[] = [];
    // leaseMs alone would allow 6,000 polls: the deadline, not the lease, ends the wait.
    const cache = cacheOn(store, { leaseMs: 60_000, waitPollMs: 10, sleep: (ms) => ((deadline.left -= ms), sleeps.push(ms), Promise.resolve()) });
    expect(await store.tryAcquireLease("k", "crashed", 60_000, clock.now())).toBe(true);
    const p = producer();
    const result = await cache.get("k", { maxAgeS: 600, produce: p.produce, deadline });
    expect(result.cache).toBe("miss");
    expect(p.calls).toBe(1);
    expect(sleeps.length).toBe(49);
    expect(deadline.left).toBeGreaterThanOrEqual(500);
  });

  it("a caller sharing another caller's fill stops at its own deadline with upstream_timeout", async () => {
    const cache = cacheOn(store);
    let release: () => void = () => undefined;
    let started: () => void = () => undefined;
    const producing = new Promise<void>((resolve) => (started = resolve));
    const slow = {
      produce: () =>
        new Promise<ProducedPage>((resolve) => {
          release = () => resolve({ content: CONTENT, meta: META });
          started();
        }),
    };
    const first = cache.get("k", { maxAgeS: 600, produce: slow.produce });
    await producing;
    const short = manualDeadline(100);
    const second = cache.get("k", { maxAgeS: 600, produce: slow.produce, deadline: short });
    short.abort();
    await expect(second).rejects.toMatchObject({ code: "upstream_timeout" });
    release();
    expect((await first).cache).toBe("miss");
  });

  it("a page produced with too little time left is answered without the store write", async () => {
    const deadline = manualDeadline(5_000);
    const cache = cacheOn(store);
    const produce = (): Promise<ProducedPage> => {
      deadline.left = 50;
      return Promise.resolve({ content: CONTENT, meta: META });
    };
    const result = await cache.get("k", { maxAgeS: 600, produce, deadline });
    expect(result.cache).toBe("bypass");
    expect(await result.snapshot.read(0, 6)).toBe("# Page");
    expect(await store.findLatest("k", clock.now())).toBeUndefined();
    expect(logger.lines.some((l) => l.message.includes("no time left"))).toBe(true);
  });
});

describe("SnapshotCache: store faults become bypass", () => {
  it("table down (nobody listening): produces once for 20 callers, answers bypass and logs without content or URL", async () => {
    const client = createDynamoClient({ endpoint: await deadEndpoint(), region: "us-east-1" });
    const cache = cacheOn(new DynamoPageStore({ client, tableName }));
    const p = producer({ delayMs: 10 });
    const results = await Promise.all(Array.from({ length: 20 }, () => cache.get("k", { maxAgeS: 600, produce: p.produce })));
    client.destroy();
    expect(p.calls).toBe(1);
    for (const r of results) {
      expect(r.cache).toBe("bypass");
      expect(await r.snapshot.read(0, 50)).toBe(CONTENT.slice(0, 50));
    }
    expect(results[0]!.snapshot.manifest.sha256).toBe(sha256Hex(CONTENT));
    expect(logger.lines.some((l) => l.fields["reason"] === "unreachable" && l.fields["operation"] === "lookup")).toBe(true);
    expect(logger.text()).not.toContain("SECRET123");
    expect(logger.text()).not.toContain("QWERTY");
  });

  it("table stalls (accepts, never answers): bypass after the client's request timeout", async () => {
    const stall = await standIn(() => undefined);
    const client = createDynamoClient({ endpoint: stall.endpoint, region: "us-east-1", requestTimeoutMs: 150, maxAttempts: 1 });
    const cache = cacheOn(new DynamoPageStore({ client, tableName }));
    const result = await cache.get("k", { maxAgeS: 600, produce: producer().produce });
    client.destroy();
    await stall.close();
    expect(result.cache).toBe("bypass");
    expect(logger.lines.some((l) => l.fields["reason"] === "timeout")).toBe(true);
  });

  it("table throttling (ProvisionedThroughputExceededException on the wire): bypass, logged as throttled", async () => {
    const throttle = await standIn((_headers, respond) =>
      respond(
        400,
        { "content-type": "application/x-amz-json-1.0", "x-amzn-ErrorType": "ProvisionedThroughputExceededException" },
        JSON.stringify({
          __type: "com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException",
          message: "The level of configured provisioned throughput for the table was exceeded.",
        }),
      ),
    );
    const client = createDynamoClient({ endpoint: throttle.endpoint, region: "us-east-1" });
    const cache = cacheOn(new DynamoPageStore({ client, tableName }));
    const p = producer();
    const result = await cache.get("k", { maxAgeS: 600, produce: p.produce });
    client.destroy();
    await throttle.close();
    expect(result.cache).toBe("bypass");
    expect(p.calls).toBe(1);
    expect(throttle.requests.length).toBeGreaterThanOrEqual(1);
    expect(throttle.requests.length).toBeLessThanOrEqual(2); // maxAttempts: the bypass is not delayed by long retries
    expect(throttle.requests[0]!["x-amz-target"]).toBe("DynamoDB_20120810.Query");
    expect(logger.lines.some((l) => l.fields["reason"] === "throttled")).toBe(true);
  });

  it("a failed save answers bypass from memory, logs it, and releases the lease", async () => {
    const rec = recordingClient(dynamo.endpoint);
    const cache = cacheOn(new DynamoPageStore({ client: rec.client, tableName }));
    rec.failWhen((call) => call.command === "BatchWriteItem");
    const result = await cache.get("k", { maxAgeS: 600, produce: producer().produce });
    expect(result.cache).toBe("bypass");
    expect(await result.snapshot.read(0, 6)).toBe("# Page");
    expect(logger.lines.some((l) => l.fields["operation"] === "save")).toBe(true);
    expect(await store.findLatest("k", clock.now())).toBeUndefined();
    expect(await store.tryAcquireLease("k", "someone-else", 1000, clock.now())).toBe(true);
  });
});

describe("SnapshotCache: corrupt snapshots are never served", () => {
  it("a chunk deleted between manifest read and chunk read: read throws, getPage refetches", async () => {
    const cache = cacheOn(store);
    await cache.get("k", { maxAgeS: 600, produce: producer().produce });
    const hit = await cache.get("k", { maxAgeS: 600, produce: producer().produce });
    expect(hit.cache).toBe("hit");
    const id = hit.snapshot.manifest.id;
    await dynamo.client.send(new DeleteItemCommand({ TableName: tableName, Key: { pk: { S: "k" }, sk: { S: `chunk#${id}#00002` } } }));
    await expect(hit.snapshot.read(0, CONTENT.length)).rejects.toBeInstanceOf(SnapshotCorruptError);

    const p = producer();
    const page = await cache.getPage("k", { maxAgeS: 600, produce: p.produce, start: 500, end: 900 });
    expect(p.calls).toBe(1);
    expect(page.cache).toBe("miss");
    expect(page.content).toBe(CONTENT.slice(500, 900));
    expect(page.manifest.id).not.toBe(id);
    expect(logger.lines.some((l) => l.message.includes("corrupt") && l.fields["snapshotId"] === id)).toBe(true);
    // The replacement is now the latest and reads whole.
    const after = await cache.getPage("k", { maxAgeS: 600, produce: p.produce, start: 0, end: CONTENT.length });
    expect(after.cache).toBe("hit");
    expect(after.content).toBe(CONTENT);
  });

  it("getPage answers bypass when the store dies between lookup and chunk read", async () => {
    const rec = recordingClient(dynamo.endpoint);
    const cache = cacheOn(new DynamoPageStore({ client: rec.client, tableName }));
    await cache.get("k", { maxAgeS: 600, produce: producer().produce });
    rec.failWhen((call) => call.command === "BatchGetItem");
    const page = await cache.getPage("k", { maxAgeS: 600, produce: producer().produce, start: 0, end: 20 });
    expect(page.cache).toBe("bypass");
    expect(page.content).toBe(CONTENT.slice(0, 20));
  });
});

describe("SnapshotCache.getById", () => {
  it("reads exactly the requested snapshot even after a newer one exists", async () => {
    const cache = cacheOn(store);
    const old = await cache.get("k", { maxAgeS: 600, produce: producer({ content: "old content" }).produce });
    clock.t += 1000;
    await cache.get("k", { maxAgeS: 0, produce: producer({ content: "new content" }).produce });
    const handle = await cache.getById("k", old.snapshot.manifest.id);
    expect(await handle.read(0, 100)).toBe("old content");
  });

  it("expired, unknown, malformed or corrupt → snapshot_expired (410)", async () => {
    const cache = cacheOn(store);
    const saved = await cache.get("k", { maxAgeS: 600, produce: producer().produce });
    const id = saved.snapshot.manifest.id;
    const codeOf = async (p: Promise<unknown>) => ((await p.then(() => undefined, (e: unknown) => e)) as WebgateError | undefined)?.code;

    expect(await codeOf(cache.getById("k", "000000000deadbeef"))).toBe("snapshot_expired");
    expect(await codeOf(cache.getById("k", "../../etc"))).toBe("snapshot_expired");
    expect(await codeOf(cache.getById("other", id))).toBe("snapshot_expired");

    const handle = await cache.getById("k", id);
    await dynamo.client.send(new DeleteItemCommand({ TableName: tableName, Key: { pk: { S: "k" }, sk: { S: `chunk#${id}#00000` } } }));
    const readError = await handle.read(0, 10).catch((e: unknown) => e);
    expect(readError).toBeInstanceOf(WebgateError);
    expect((readError as WebgateError).code).toBe("snapshot_expired");
    expect((readError as WebgateError).status).toBe(410);

    clock.t = saved.snapshot.manifest.expiresAt * 1000;
    expect(await codeOf(cache.getById("k", id))).toBe("snapshot_expired");
  });

  it("store down → store_unavailable (503)", async () => {
    const client = createDynamoClient({ endpoint: await deadEndpoint(), region: "us-east-1" });
    const cache = cacheOn(new DynamoPageStore({ client, tableName }));
    const error = await cache.getById("k", "000000000deadbeef").catch((e: unknown) => e);
    client.destroy();
    expect(error).toBeInstanceOf(WebgateError);
    expect((error as WebgateError).code).toBe("store_unavailable");
    expect((error as WebgateError).status).toBe(503);
  });
});
