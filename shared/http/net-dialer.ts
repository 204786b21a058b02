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
  /**
   * Where the TCP connection for a checked address really goes. Production leaves this unset
   * (identity). Tests route public test addresses to loopback servers with it, the same way a
   * test network would, while asserting which checked address was asked for.
   */
  routeTo?: (address: string, port: number) => { host: string; port: number };
  /** Opens one TCP connection (default `net.connect`); tests pass one whose connect never completes. */
  connect?: (host: string, port: number) => net.Socket;
}

/** RFC 8305 §5's recommended Connection Attempt Delay. */
export const CONNECTION_ATTEMPT_DELAY_MS = 250;

export function createNetDialer(options: NetDialerOptions = {}): Dialer {
  const ca = options.ca === undefined ? undefined : [...tls.rootCertificates, ...[options.ca].flat()];
  return {
    async dial(target: DialTarget): Promise<Duplex> {
      const socket = await connectFirst(target, options);
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
function connectFirst(target: DialTarget, options: NetDialerOptions): Promise<net.Socket> {
  const order = interleaveFamilies(target.addresses);
  const open = options.connect ?? ((host: string, port: number) => net.connect({ host, port, noDelay: true }));
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
      const destination = options.routeTo ? options.routeTo(address, target.port) : { host: address, port: target.port };
      const socket = open(destination.host, destination.port);
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
