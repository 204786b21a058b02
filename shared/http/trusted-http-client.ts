/**
 * The HTTP client for endpoints the operator configured (the search providers' APIs), kept apart
 * from the guarded client that caller-supplied URLs go through. Their names are operator
 * configuration, not caller input, so it resolves them itself (through the given
 * {@link Resolver}: c-ares in production, never libuv's thread pool) without the address policy,
 * and it keeps connections alive between requests (one pool per cold start), saving a TCP and
 * TLS handshake per provider call. Every exchange has the same bounds, decompression and error
 * codes as the guarded client's (it shares {@link exchange}); redirects are never followed.
 *
 * AWS services (DynamoDB, Secrets Manager, Lambda) are trusted endpoints too: their SDK clients
 * bring their own keep-alive handler (shared/cache/dynamo-client.ts and its siblings).
 */
import http from "node:http";
import net from "node:net";
import type { Duplex } from "node:stream";
import { WebgateError } from "../errors";
import type { Resolver } from "../guard/dns-resolver";
import { STALE_CONNECTION, decompressionSlots, dialPoint, exchange, type SlotLimiter } from "./http-client";
import { createNetDialer, timeoutError } from "./net-dialer";
import type { Dialer, HttpExchange, HttpResponse, TrustedHttpClient } from "./types";

export interface TrustedHttpClientOptions {
  resolver: Resolver;
  dialer?: Dialer;
  decompression?: SlotLimiter;
  /** Default {@link IDLE_CONNECTION_MS}. */
  idleConnectionMs?: number | undefined;
}

/**
 * How long a pooled connection may sit idle before it is closed. Below the 5 s idle timeout of
 * Node's and many other servers, so the pool drops a connection before its server does; a
 * connection a server closed anyway is caught by the one retry below.
 */
export const IDLE_CONNECTION_MS = 4_000;

/** What one request hands its agent for a new connection (see {@link exchange}'s `dial`). */
interface DialRequest {
  hostname: string;
  port: number;
  tls: boolean;
  signal: AbortSignal;
  connectTimeoutMs: number;
}

/** A keep-alive agent whose new connections are resolved and dialed by webgate's own parts. */
class DialingAgent extends http.Agent {
  constructor(
    private readonly open: (request: DialRequest) => Promise<Duplex>,
    idleMs: number,
  ) {
    // `timeout` is what the agent sets on a socket it takes back into its pool, and a pooled
    // socket that times out is destroyed. On a socket in use again nothing acts on it (no one
    // listens for the request's "timeout"): the request's own signal bounds the exchange.
    super({ keepAlive: true, timeout: idleMs });
  }

  // Node's agent always passes the callback; a connection handed to it later is documented use.
  override createConnection(options: http.ClientRequestArgs, callback: (err: Error | null, stream?: Duplex) => void): undefined {
    const { dial } = options as { dial: DialRequest };
    // The resolver and dialer reject with Errors only (WebgateError for every failure they know).
    this.open(dial).then(
      (socket) => callback(null, socket),
      (error: unknown) => callback(error as Error),
    );
    return undefined;
  }
}

export function createTrustedHttpClient(options: TrustedHttpClientOptions): TrustedHttpClient {
  const dialer = options.dialer ?? createNetDialer();
  const decompression = options.decompression ?? decompressionSlots;
  const open = async (dial: DialRequest): Promise<Duplex> => {
    const addresses = await resolveEndpoint(options.resolver, dial.hostname, dial.signal);
    return dialer.dial({ ...dial, addresses });
  };
  // One pool per scheme, so a plaintext and a TLS connection to the same host and port never mix.
  const idleMs = options.idleConnectionMs ?? IDLE_CONNECTION_MS;
  const agents = { plain: new DialingAgent(open, idleMs), tls: new DialingAgent(open, idleMs) };
  const send = (request: HttpExchange): Promise<HttpResponse> => {
    const point = dialPoint(request.url);
    const dial: DialRequest = { ...point, signal: request.signal, connectTimeoutMs: request.connectTimeoutMs };
    return exchange({ agent: point.tls ? agents.tls : agents.plain, hostname: point.hostname, port: point.port, dial }, request, decompression);
  };
  return {
    async request(request) {
      if (request.signal.aborted) throw timeoutError(request.signal);
      try {
        return await send(request);
      } catch (error) {
        // Once, on a new connection (the pool has just dropped the stale one): the request
        // never reached the server.
        if ((error as { [STALE_CONNECTION]?: boolean })[STALE_CONNECTION] === true) return send(request);
        throw error;
      }
    },
  };
}

async function resolveEndpoint(resolver: Resolver, hostname: string, signal: AbortSignal): Promise<string[]> {
  if (net.isIP(hostname) !== 0) return [hostname];
  let addresses: string[];
  try {
    addresses = await resolver.resolve(hostname, signal);
  } catch (error) {
    if (signal.aborted) throw timeoutError(signal);
    throw new WebgateError("dns_failed", "The host name could not be resolved.", { cause: error });
  }
  if (addresses.length === 0) throw new WebgateError("dns_failed", "The host name has no addresses.");
  return addresses;
}
