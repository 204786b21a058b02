import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { DynamoPageStore } from "../../../shared/cache/dynamo-page-store";
import { FetchLease, type FetchLeaseDeps } from "../../../shared/cache/fetch-lease";
import type { SnapshotManifest } from "../../../shared/cache/page-store";
import { createDeadline } from "../../../shared/deadline";
import { createTestTable, startTestDynamo, type LocalDynamo } from "../../helpers/dynalite";
import { TestTime } from "../../helpers/test-time";

const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);
let dynamo: LocalDynamo;
let store: DynamoPageStore;
let sleeps: number;

beforeAll(async () => {
  dynamo = await startTestDynamo();
});
afterAll(async () => {
  await dynamo.close();
});
beforeEach(async () => {
  store = new DynamoPageStore({ client: dynamo.client, tableName: await createTestTable(dynamo.client) });
  sleeps = 0;
});

function lease(over: Partial<FetchLeaseDeps> = {}): FetchLease {
  return new FetchLease({
    store,
    clock: { now: () => T0 },
    logger: { warn: () => undefined },
    leaseMs: 1_000,
    waitPollMs: 100,
    instanceId: "test",
    sleep: () => {
      sleeps += 1;
      return Promise.resolve();
    },
    ...over,
  });
}

const MANIFEST = { id: "saved-meanwhile" } as SnapshotManifest;

describe("FetchLease", () => {
  it("takes a free lease: the caller fetches, and holds it until it releases", async () => {
    const outcome = await lease().takeOrAwait("k", undefined, () => Promise.resolve(undefined));
    expect(outcome.found).toBeUndefined();
    expect(await store.tryAcquireLease("k", "other", 1_000, T0)).toBe(false);
    if (outcome.found === undefined) await outcome.release();
    expect(await store.tryAcquireLease("k", "other", 1_000, T0)).toBe(true);
    expect(sleeps).toBe(0);
  });

  it("a lease taken while a snapshot appeared is given back, and the snapshot is the answer", async () => {
    const outcome = await lease().takeOrAwait("k", undefined, () => Promise.resolve(MANIFEST));
    expect(outcome.found).toBe(MANIFEST);
    expect(await store.tryAcquireLease("k", "other", 1_000, T0)).toBe(true);
  });

  it("waits for the holder's snapshot while another instance holds the lease", async () => {
    await store.tryAcquireLease("k", "holder", 60_000, T0);
    let checks = 0;
    const outcome = await lease().takeOrAwait("k", undefined, () => Promise.resolve(++checks === 3 ? MANIFEST : undefined));
    expect(outcome.found).toBe(MANIFEST);
    expect(sleeps).toBe(2);
  });

  it("stops waiting after leaseMs worth of polls; its release then leaves the holder's lease alone", async () => {
    await store.tryAcquireLease("k", "holder", 60_000, T0);
    const outcome = await lease().takeOrAwait("k", undefined, () => Promise.resolve(undefined));
    expect(outcome.found).toBeUndefined();
    expect(sleeps).toBe(10);
    if (outcome.found === undefined) await outcome.release();
    expect(await store.tryAcquireLease("k", "other", 1_000, T0)).toBe(false);
  });

  it("with a deadline, waits only until half of the time left is used up", async () => {
    await store.tryAcquireLease("k", "holder", 60_000, T0);
    // Monotonic time that only the polls' sleeps move; the deadline's timer runs on it too, so
    // slow store calls on a loaded machine spend none of its 200 ms.
    const time = new TestTime();
    const deadline = createDeadline(200, { now: time.now, setTimer: time.setTimer });
    const sleep = (ms: number) => {
      sleeps += 1;
      time.advance(ms);
      return Promise.resolve();
    };
    const outcome = await lease({ leaseMs: 60_000, waitPollMs: 20, sleep }).takeOrAwait("k", deadline, () => Promise.resolve(undefined));
    expect(outcome.found).toBeUndefined();
    // 200 ms left at the start: polls stop once another 20 ms pause would leave 100 ms or less.
    expect(sleeps).toBe(4);
    expect(deadline.remainingMs()).toBe(120);
    expect(deadline.signal.aborted).toBe(false);
    // The time left is the deadline's own: it aborts once its 200 ms have passed on that time.
    time.advance(119);
    expect(deadline.signal.aborted).toBe(false);
    time.advance(1);
    expect(deadline.signal.aborted).toBe(true);
    deadline.dispose();
  });

  it("a failing lookup after the lease was taken gives the lease back and rejects with its error", async () => {
    const failure = new Error("lookup failed");
    await expect(lease().takeOrAwait("k", undefined, () => Promise.reject(failure))).rejects.toBe(failure);
    expect(await store.tryAcquireLease("k", "other", 1_000, T0)).toBe(true);
  });
});
