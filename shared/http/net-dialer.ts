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
}

export function createNetDialer(options: NetDialerOptions = {}): Dialer {
  const ca = options.ca === undefined ? undefined : [...tls.rootCertificates, ...[options.ca].flat()];
  return {
    async dial(target: DialTarget): Promise<Duplex> {
      const socket = await connectFirst(target, options.routeTo);
      if (!target.tls) return socket;
      return handshake(socket, target, ca);
    },
  };
}

async function connectFirst(target: DialTarget, routeTo: NetDialerOptions["routeTo"]): Promise<net.Socket> {
  let lastError: unknown;
  for (const address of target.addresses) {
    if (target.signal.aborted) break;
    const destination = routeTo ? routeTo(address, target.port) : { host: address, port: target.port };
    try {
      return await connectOne(destination.host, destination.port, target);
    } catch (error) {
      lastError = error;
    }
  }
  if (target.signal.aborted) throw timeoutError(target.signal);
  // The message names neither the host's addresses nor the port's owner: only that it failed.
  throw new WebgateError("connect_failed", "Could not connect to the origin server.", { cause: lastError });
}

async function connectOne(host: string, port: number, target: DialTarget): Promise<net.Socket> {
  const socket = net.connect({ host, port, noDelay: true });
  await settleOn(socket, "connect", target, "connect timeout");
  return socket;
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
