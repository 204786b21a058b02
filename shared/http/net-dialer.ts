/**
 * The default {@link Dialer}: TCP to one of the already checked addresses, then TLS when the URL
 * is https. It never resolves a name: the addresses it is given are the ones the guard checked,
 * so a DNS answer that changes between check and connect (rebinding) cannot redirect it.
 */
import net from "node:net";
import tls from "node:tls";
import type { Duplex } from "node:stream";
import { WebgateError } from "../errors";
import type { DialTarget, Dialer } from "./types";

export interface NetDialerOptions {
  /** Extra trusted CA certificates (PEM), e.g. a test CA. The system roots stay trusted. */
  ca?: string | Buffer | Array<string | Buffer>;
}

/**
 * Opens one TCP connection to `address` (an IP address) and `port`, not yet connected. Production
 * uses `net.connect`; a test network passes its own (see test/helpers/test-dialer.ts), which
 * routes the public test addresses to loopback servers.
 */
export type OpenSocket = (address: string, port: number) => net.Socket;

/** RFC 8305 §5's recommended Connection Attempt Delay. */
export const CONNECTION_ATTEMPT_DELAY_MS = 250;

const openTcp: OpenSocket = (address, port) => net.connect({ host: address, port, noDelay: true });

/** The production dialer: TCP with `net.connect` to exactly the given addresses, then TLS. */
export function createNetDialer(options: NetDialerOptions = {}): Dialer {
  return createDialer(openTcp, options);
}

/**
 * The dialer's logic (Happy Eyeballs over the given addresses, then TLS verified against the
 * URL's host name) over any way of opening a TCP connection.
 */
export function createDialer(open: OpenSocket, options: NetDialerOptions = {}): Dialer {
  const ca = options.ca === undefined ? undefined : [...tls.rootCertificates, ...[options.ca].flat()];
  return {
    async dial(target: DialTarget): Promise<Duplex> {
      const socket = await connectFirst(target, open);
      if (!target.tls) return socket;
      return handshake(socket, target, ca);
    },
  };
}

/**
 * Happy Eyeballs (RFC 8305 §5) over the checked list: the addresses are interleaved by family
 * (§4: the first address's family first, then alternating), one attempt starts, and the next
 * starts {@link CONNECTION_ATTEMPT_DELAY_MS} later or as soon as the latest attempt fails,
 * whichever is first; earlier attempts keep running. The first connection wins and every other
 * attempt is destroyed. Each attempt is bounded by `connectTimeoutMs`, the whole by the signal.
 *
 * Not Node's `autoSelectFamily`: it abandons an attempt when the next one starts (a path slower
 * than the attempt timeout can then never win), and it dials what a lookup function returns, where
 * this dials exactly the checked addresses through the same code in tests and production.
 */
function connectFirst(target: DialTarget, open: OpenSocket): Promise<net.Socket> {
  const order = interleaveFamilies(target.addresses);
  return new Promise<net.Socket>((resolve, reject) => {
    const live = new Set<net.Socket>();
    let next = 0;
    let failed = 0;
    let done = false;
    let lastError: unknown;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const finish = (settle: () => void) => {
      done = true;
      clearTimeout(timer);
      target.signal.removeEventListener("abort", onAbort);
      for (const socket of live) socket.destroy();
      live.clear();
      settle();
    };
    const onAbort = () => finish(() => reject(timeoutError(target.signal)));
    const startNext = () => {
      clearTimeout(timer);
      if (done || next >= order.length) return;
      const address = order[next]!;
      next += 1;
      const socket = open(address, target.port);
      live.add(socket);
      settleOn(socket, "connect", target, "connect timeout").then(
        () => {
          live.delete(socket);
          if (done) return void socket.destroy();
          finish(() => resolve(socket));
        },
        (error: unknown) => {
          live.delete(socket);
          if (done) return;
          lastError = error;
          failed += 1;
          // The message names neither the host's addresses nor the port's owner: only that it failed.
          if (failed === order.length) finish(() => reject(new WebgateError("connect_failed", "Could not connect to the origin server.", { cause: lastError })));
          else startNext();
        },
      );
      if (next < order.length) timer = setTimeout(startNext, CONNECTION_ATTEMPT_DELAY_MS);
    };
    if (target.signal.aborted) return reject(timeoutError(target.signal));
    if (order.length === 0) return reject(new WebgateError("connect_failed", "Could not connect to the origin server."));
    target.signal.addEventListener("abort", onAbort, { once: true });
    startNext();
  });
}

/** RFC 8305 §4: alternate address families, starting with the family of the first (preferred) address. */
export function interleaveFamilies(addresses: readonly string[]): string[] {
  const first = addresses[0];
  if (first === undefined) return [];
  const preferred = net.isIPv6(first);
  const same = addresses.filter((a) => net.isIPv6(a) === preferred);
  const other = addresses.filter((a) => net.isIPv6(a) !== preferred);
  const out: string[] = [];
  for (let i = 0; i < Math.max(same.length, other.length); i += 1) {
    if (i < same.length) out.push(same[i]!);
    if (i < other.length) out.push(other[i]!);
  }
  return out;
}

async function handshake(socket: net.Socket, target: DialTarget, ca: Array<string | Buffer> | undefined): Promise<tls.TLSSocket> {
  const isLiteral = net.isIP(target.hostname) !== 0;
  // The certificate is verified against the URL's host name, not the address we dialed
  // (RFC 6125). SNI carries names only (RFC 6066 §3), so an IP-literal host sends none.
  const secure = tls.connect({
    socket,
    host: target.hostname,
    servername: isLiteral ? undefined : target.hostname,
    ca,
    ALPNProtocols: ["http/1.1"],
  });
  try {
    await settleOn(secure, "secureConnect", target, "TLS handshake timeout");
  } catch (error) {
    socket.destroy();
    if (target.signal.aborted) throw timeoutError(target.signal);
    const code = (error as { code?: unknown }).code;
    const reason = typeof code === "string" ? ` (${code})` : "";
    throw new WebgateError("connect_failed", `The TLS handshake with the origin failed${reason}.`, { cause: error });
  }
  return secure;
}

/**
 * Waits for `event` on `socket`, failing on its `error`, after `connectTimeoutMs`, or when the
 * exchange is aborted. On failure the socket is destroyed; every listener and timer is removed
 * either way, so nothing outlives the attempt.
 */
function settleOn(socket: net.Socket, event: string, target: DialTarget, timeoutMessage: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error(timeoutMessage)), target.connectTimeoutMs);
    const onAbort = () => fail(new Error("aborted"));
    target.signal.addEventListener("abort", onAbort, { once: true });
    function cleanup() {
      clearTimeout(timer);
      target.signal.removeEventListener("abort", onAbort);
      socket.removeListener("error", fail);
      socket.removeListener(event, done);
    }
    function fail(error: Error) {
      cleanup();
      socket.destroy();
      reject(error);
    }
    function done() {
      cleanup();
      resolve();
    }
    socket.once("error", fail);
    socket.once(event, done);
  });
}

/** The error for an aborted exchange: the overall time limit ran out. */
export function timeoutError(signal: AbortSignal): WebgateError {
  return new WebgateError("upstream_timeout", "The origin did not answer within the time limit.", { cause: signal.reason });
}
