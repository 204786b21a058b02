/**
 * Keep-alive connections for the trusted client (operator-configured endpoints only; the guarded
 * client never pools). One pool per client holds, per endpoint (scheme, host name, port), the
 * connections in use and the idle ones, with bounds on both:
 * - at most `maxSocketsPerEndpoint` connections (in use, idle, or being dialed) at once; more
 *   requests wait, in order, for a connection handed back or a slot freed by a close, until their
 *   signal aborts;
 * - at most `maxIdlePerEndpoint` idle connections; one handed back beyond that is closed;
 * - an idle connection is closed after `idleMs`, or sooner when the server announced a shorter
 *   `Keep-Alive: timeout` (RFC 9112 §9.3 leaves the idle time to each side: closing a second
 *   before the server does, as Node's own agent does, makes a reuse of a socket the server has
 *   just closed rare; the trusted client's retry rule covers the rest).
 * An idle connection that ends, fails or receives bytes nobody asked for is closed and dropped,
 * so it is never handed out. Idle sockets are unref'd: they never keep a process (a Lambda, a
 * test run) alive.
 */
import net from "node:net";
import type { Duplex } from "node:stream";
import { timeoutError } from "./net-dialer";

export interface ConnectionPoolOptions {
  /** Default {@link MAX_SOCKETS_PER_ENDPOINT}. */
  maxSocketsPerEndpoint?: number | undefined;
  /** Default {@link MAX_IDLE_PER_ENDPOINT}. */
  maxIdlePerEndpoint?: number | undefined;
  /** Default {@link IDLE_CONNECTION_MS}. */
  idleMs?: number | undefined;
  /** Milliseconds of a monotonic clock; default `performance.now`. Tests pass a fake one. */
  now?: (() => number) | undefined;
}

/**
 * Connections per endpoint. A search request calls each provider once or twice (a failover, a
 * pause_turn continuation); this leaves room for the local server's concurrent requests while
 * bounding the sockets and TLS sessions one provider can cost.
 */
export const MAX_SOCKETS_PER_ENDPOINT = 16;
export const MAX_IDLE_PER_ENDPOINT = 4;
/**
 * How long a connection may sit idle before the pool closes it: below the 5 s idle timeout of
 * Node's and many other servers, so the pool usually drops a connection before its server does.
 */
export const IDLE_CONNECTION_MS = 4_000;
/** Node's agent closes this long before a server's announced keep-alive timeout. */
const KEEP_ALIVE_HINT_MARGIN_MS = 1_000;

/** A connection lent to one exchange. */
export interface Lease {
  socket: Duplex;
  /** True when the connection served an earlier exchange (it came from the idle set). */
  reused: boolean;
  /**
   * Takes the connection back for another exchange; called once Node's http freed the socket (the
   * response was read to its end, the request was written whole, neither side asked to close).
   * `keepAlive` is the response's `Keep-Alive` header. Called at most once; a lease that is never
   * released is over when its socket closes.
   */
  readonly release: (keepAlive?: string) => void;
}

export interface ConnectionPool {
  /**
   * An idle connection to `key`, or a new one from `dial` when there is none (or when `fresh`: a
   * retry must not land on another connection of the same, possibly dead, set). Rejects with the
   * timeout error when `signal` aborts while waiting for a slot, or with `dial`'s error.
   */
  acquire(key: string, dial: () => Promise<Duplex>, signal: AbortSignal, options?: { fresh?: boolean }): Promise<Lease>;
  /** Connections to `key` now: open (in use, idle or being dialed) and idle. */
  stats(key: string): { open: number; idle: number; waiting: number };
  /** Closes every idle connection (in-use ones close when their exchange ends). */
  closeIdle(): void;
}

interface Idle {
  socket: Duplex;
  timer: ReturnType<typeof setTimeout>;
  /** When its idle time runs out, on the pool's clock. */
  expires: number;
  drop: () => void;
}

interface Waiter {
  fresh: boolean;
  /** A connection handed back (reused) or, with undefined, a freed slot to dial into. */
  grant(socket: Duplex | undefined): void;
}

interface Endpoint {
  open: number;
  idle: Idle[];
  waiters: Waiter[];
}

export function createConnectionPool(options: ConnectionPoolOptions = {}): ConnectionPool {
  const maxSockets = options.maxSocketsPerEndpoint ?? MAX_SOCKETS_PER_ENDPOINT;
  const maxIdle = options.maxIdlePerEndpoint ?? MAX_IDLE_PER_ENDPOINT;
  const idleMs = options.idleMs ?? IDLE_CONNECTION_MS;
  const now = options.now ?? (() => performance.now());
  const endpoints = new Map<string, Endpoint>();

  const endpointOf = (key: string): Endpoint => {
    let endpoint = endpoints.get(key);
    if (endpoint === undefined) {
      endpoint = { open: 0, idle: [], waiters: [] };
      endpoints.set(key, endpoint);
    }
    return endpoint;
  };

  const forget = (key: string, endpoint: Endpoint) => {
    if (endpoint.open === 0 && endpoint.waiters.length === 0) endpoints.delete(key);
  };

  /** A slot became free (a connection closed or a dial failed): the first waiter dials into it. */
  const slotFreed = (key: string, endpoint: Endpoint) => {
    endpoint.open -= 1;
    const waiter = endpoint.waiters.shift();
    if (waiter === undefined) return forget(key, endpoint);
    endpoint.open += 1;
    waiter.grant(undefined);
  };

  const lease = (key: string, endpoint: Endpoint, socket: Duplex, reused: boolean): Lease => {
    setRef(socket, true);
    return { socket, reused, release: (keepAlive) => handBack(key, endpoint, socket, keepAlive) };
  };

  const handBack = (key: string, endpoint: Endpoint, socket: Duplex, keepAlive: string | undefined) => {
    if (socket.destroyed) return;
    const ttl = idleTime(idleMs, keepAlive);
    if (ttl === 0) return void socket.destroy();
    const index = endpoint.waiters.findIndex((waiter) => !waiter.fresh);
    if (index !== -1) {
      const [waiter] = endpoint.waiters.splice(index, 1);
      return waiter!.grant(socket);
    }
    if (endpoint.idle.length >= maxIdle) return void socket.destroy();
    setRef(socket, false);
    // While idle, anything the server sends (an unasked-for answer, a TLS alert) or its closing
    // means the connection is no longer in a state another request may start from. It leaves the
    // idle set at once: its 'close' (which frees the slot) comes only after the handle closed.
    const idle: Idle = {
      socket,
      timer: setTimeout(() => idle.drop(), ttl),
      expires: now() + ttl,
      drop: () => {
        unlist(endpoint, idle);
        socket.destroy();
      },
    };
    idle.timer.unref();
    socket.on("data", idle.drop);
    socket.on("end", idle.drop);
    endpoint.idle.push(idle);
  };

  /**
   * Takes the most recently used idle connection: the least likely one to have been closed. One
   * whose idle time has run out is closed instead, though its timer has not fired yet: a Lambda
   * frozen between invocations runs no timers, and its next request comes before they catch up,
   * while the server's own idle timeout went on running.
   */
  const takeIdle = (endpoint: Endpoint): Duplex | undefined => {
    for (let idle = endpoint.idle.at(-1); idle !== undefined; idle = endpoint.idle.at(-1)) {
      if (now() < idle.expires) {
        unlist(endpoint, idle);
        return idle.socket;
      }
      idle.drop();
    }
    return undefined;
  };

  const dialNew = async (key: string, endpoint: Endpoint, dial: () => Promise<Duplex>): Promise<Lease> => {
    let socket: Duplex;
    try {
      socket = await dial();
    } catch (error) {
      slotFreed(key, endpoint);
      throw error;
    }
    // Kept for the socket's life: an error while it is idle, or between Node's http letting go of
    // it and the pool taking it back, must not become an uncaught exception; the socket is
    // destroyed by it either way and its close frees the slot.
    socket.on("error", () => undefined);
    socket.once("close", () => {
      const idle = endpoint.idle.find((entry) => entry.socket === socket);
      if (idle !== undefined) unlist(endpoint, idle);
      slotFreed(key, endpoint);
    });
    return lease(key, endpoint, socket, false);
  };

  return {
    acquire(key, dial, signal, acquireOptions = {}) {
      const fresh = acquireOptions.fresh === true;
      const endpoint = endpointOf(key);
      if (!fresh) {
        const socket = takeIdle(endpoint);
        if (socket !== undefined) return Promise.resolve(lease(key, endpoint, socket, true));
      }
      if (endpoint.open < maxSockets) {
        endpoint.open += 1;
        return dialNew(key, endpoint, dial);
      }
      if (signal.aborted) return Promise.reject(timeoutError(signal));
      return new Promise<Lease>((resolve, reject) => {
        const waiter: Waiter = {
          fresh,
          grant(socket) {
            signal.removeEventListener("abort", onAbort);
            if (socket === undefined) dialNew(key, endpoint, dial).then(resolve, reject);
            else resolve(lease(key, endpoint, socket, true));
          },
        };
        const onAbort = () => {
          endpoint.waiters.splice(endpoint.waiters.indexOf(waiter), 1);
          reject(timeoutError(signal));
        };
        endpoint.waiters.push(waiter);
        signal.addEventListener("abort", onAbort, { once: true });
      });
    },
    stats(key) {
      const endpoint = endpoints.get(key);
      return { open: endpoint?.open ?? 0, idle: endpoint?.idle.length ?? 0, waiting: endpoint?.waiters.length ?? 0 };
    },
    closeIdle() {
      for (const endpoint of endpoints.values()) {
        for (const idle of [...endpoint.idle]) idle.drop();
      }
    },
  };
}

/** Takes `idle` out of the idle set: its timer and its idle-time listeners go with it. */
function unlist(endpoint: Endpoint, idle: Idle): void {
  endpoint.idle.splice(endpoint.idle.indexOf(idle), 1);
  clearTimeout(idle.timer);
  idle.socket.removeListener("data", idle.drop);
  idle.socket.removeListener("end", idle.drop);
}

/**
 * How long a connection handed back may stay idle: `idleMs`, or less when the server's
 * `Keep-Alive: timeout=<seconds>` leaves less; 0 (close it now) when the server's timeout is
 * within the margin.
 */
export function idleTime(idleMs: number, keepAlive: string | undefined): number {
  const hint = /(?:^|[,\s])timeout\s*=\s*(\d{1,9})/i.exec(keepAlive ?? "")?.[1];
  if (hint === undefined) return idleMs;
  return Math.max(0, Math.min(idleMs, Number(hint) * 1000 - KEEP_ALIVE_HINT_MARGIN_MS));
}

/** Idle sockets must not keep the process alive; sockets in use must. */
function setRef(socket: Duplex, ref: boolean): void {
  if (socket instanceof net.Socket) {
    if (ref) socket.ref();
    else socket.unref();
  }
}
