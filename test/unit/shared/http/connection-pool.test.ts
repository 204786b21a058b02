import { once } from "node:events";
import { Duplex } from "node:stream";
import { describe, expect, it } from "vitest";
import { IDLE_CONNECTION_MS, createConnectionPool, idleTime } from "../../../../shared/http/connection-pool";
import { codeOf } from "../../../helpers/expect-error";

/** A stream standing in for a socket: the pool only needs a Duplex that can be destroyed. */
const stream = () => new Duplex({ read() {}, write(_chunk, _encoding, callback) { callback(); } });

describe("idleTime: how long a connection handed back may stay idle", () => {
  it.each([
    [undefined, 4_000],
    ["", 4_000],
    ["max=100", 4_000],
    ["timeout=5", 4_000],
    ["timeout=5, max=100", 4_000],
    ["max=100, timeout=3", 2_000],
    ["TIMEOUT = 2", 1_000],
    ["timeout=1", 0],
    ["timeout=0", 0],
    ["timeout=600", 4_000],
    ["timeout=abc", 4_000],
    ["keeptimeout=2", 4_000],
  ])("Keep-Alive: %s → %i ms", (header, expected) => {
    expect(idleTime(IDLE_CONNECTION_MS, header)).toBe(expected);
  });
});

describe("createConnectionPool", () => {
  it("reuses a connection handed back, and dials anew for a fresh acquire", async () => {
    const pool = createConnectionPool();
    const dialed: Duplex[] = [];
    const dial = () => {
      const s = stream();
      dialed.push(s);
      return Promise.resolve(s);
    };
    const signal = new AbortController().signal;
    const first = await pool.acquire("k", dial, signal);
    expect(first.reused).toBe(false);
    first.release();
    expect(pool.stats("k")).toEqual({ open: 1, idle: 1, waiting: 0 });
    const again = await pool.acquire("k", dial, signal);
    expect(again.socket).toBe(first.socket);
    expect(again.reused).toBe(true);
    again.release();
    const fresh = await pool.acquire("k", dial, signal, { fresh: true });
    expect(fresh.socket).not.toBe(first.socket);
    expect(dialed).toHaveLength(2);
    pool.closeIdle();
    expect(first.socket.destroyed).toBe(true);
    expect(fresh.socket.destroyed).toBe(false);
  });

  it("closes instead of reusing a connection whose idle time ran out before its timer fired (a Lambda thawed after a freeze)", async () => {
    let clock = 1_000;
    const pool = createConnectionPool({ idleMs: 4_000, now: () => clock });
    const dial = () => Promise.resolve(stream());
    const signal = new AbortController().signal;
    const first = await pool.acquire("k", dial, signal);
    first.release("timeout=60");
    clock += 3_999;
    const kept = await pool.acquire("k", dial, signal);
    expect(kept.socket).toBe(first.socket);
    kept.release();
    const other = await pool.acquire("k", dial, signal, { fresh: true });
    other.release();
    expect(pool.stats("k").idle).toBe(2);
    // Frozen: no timer ran, and the wall clock went on past both idle times.
    clock += 4_000;
    const after = await pool.acquire("k", dial, signal);
    expect(after.reused).toBe(false);
    expect(first.socket.destroyed).toBe(true);
    expect(other.socket.destroyed).toBe(true);
    await Promise.all([once(first.socket, "close"), once(other.socket, "close")]);
    expect(pool.stats("k")).toEqual({ open: 1, idle: 0, waiting: 0 });
  });

  it("never keeps a connection that was destroyed before it was handed back", async () => {
    const pool = createConnectionPool();
    const lease = await pool.acquire("k", () => Promise.resolve(stream()), new AbortController().signal);
    lease.socket.destroy();
    lease.release();
    expect(pool.stats("k").idle).toBe(0);
  });

  it("refuses at once, without queueing, a request whose signal already aborted when every slot is taken", async () => {
    const pool = createConnectionPool({ maxSocketsPerEndpoint: 1 });
    await pool.acquire("k", () => Promise.resolve(stream()), new AbortController().signal);
    const aborted = new AbortController();
    aborted.abort();
    expect(await codeOf(pool.acquire("k", () => Promise.resolve(stream()), aborted.signal))).toBe("upstream_timeout");
    expect(pool.stats("k").waiting).toBe(0);
  });

  it("hands a connection back to a waiting request before keeping it idle, but not to a fresh one", async () => {
    const pool = createConnectionPool({ maxSocketsPerEndpoint: 1 });
    const signal = new AbortController().signal;
    const first = await pool.acquire("k", () => Promise.resolve(stream()), signal);
    const fresh = pool.acquire("k", () => Promise.resolve(stream()), signal, { fresh: true });
    const waiting = pool.acquire("k", () => Promise.resolve(stream()), signal);
    expect(pool.stats("k").waiting).toBe(2);
    first.release();
    const second = await waiting;
    expect(second.socket).toBe(first.socket);
    expect(second.reused).toBe(true);
    expect(pool.stats("k")).toEqual({ open: 1, idle: 0, waiting: 1 });
    // Its close frees the slot: the fresh request dials into it.
    second.socket.destroy();
    const third = await fresh;
    expect(third.reused).toBe(false);
    expect(third.socket).not.toBe(first.socket);
  });
});
