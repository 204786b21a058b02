/**
 * The HTTP client for endpoints the operator configured (the search providers' APIs), kept apart
 * from the guarded client that caller-supplied URLs go through. Their names are operator
 * configuration, not caller input, so it resolves them itself (through the given
 * {@link Resolver}: c-ares in production, never libuv's thread pool) without the address policy.
 * Every exchange has the same bounds, decompression and error codes as the guarded client's (it
 * shares {@link exchange}); redirects are never followed.
 *
 * Connections are kept alive between requests (one {@link ConnectionPool} per client, so one per
 * cold start; bounded per endpoint, idle ones closed after a few seconds), saving a TCP and TLS
 * handshake per provider call. A kept connection can be closed by its server just as it is reused,
 * and the request then fails before any answer. Whether it may be sent again (RFC 9112 §9.3.1:
 * never automatically for a non-idempotent method unless the request is known not to have been
 * applied):
 * - GET (and HEAD): sent once more, on a new connection, when a reused connection broke with
 *   ECONNRESET, EPIPE or "socket hang up" before the response's status line and within the time
 *   limit. Repeating an idempotent request is harmless by definition (RFC 9110 §9.2.2).
 * - POST: never sent again. Once its bytes were handed to a socket, the server may have read and
 *   acted on it (a paid Anthropic or Tavily search) whatever the socket did next: a server that
 *   reads a request and then drops the connection looks, from here, exactly like one that closed
 *   an idle connection. The only POST that provably never reached a server is one whose socket was
 *   found closed before the request was written, and the pool never hands such a socket out (it
 *   drops an idle socket on its end, error or close). So a POST on a connection that broke fails
 *   with connect_failed (a retryable provider_error to the caller), and the pool's idle timeout,
 *   kept under the server's, makes that rare.
 *
 * AWS services (DynamoDB, Secrets Manager, Lambda) are trusted endpoints too: their SDK clients
 * bring their own keep-alive handler (shared/cache/dynamo-client.ts and its siblings).
 */
import net from "node:net";
import { WebgateError } from "../errors";
import type { Resolver } from "../guard/dns-resolver";
import { createConnectionPool, type ConnectionPool, type ConnectionPoolOptions } from "./connection-pool";
import { decompressionSlots, dialPoint, exchange, isStaleConnectionFailure, type SlotLimiter } from "./http-client";
import { createNetDialer, timeoutError } from "./net-dialer";
import type { Dialer, HttpExchange, HttpResponse, TrustedHttpClient } from "./types";

export interface TrustedHttpClientOptions {
  resolver: Resolver;
  dialer?: Dialer | undefined;
  decompression?: SlotLimiter | undefined;
  /** Bounds and idle time of the keep-alive pool; see {@link ConnectionPoolOptions}. */
  pool?: ConnectionPoolOptions | undefined;
}

/** Methods a failed exchange on a stale connection may be repeated for (RFC 9110 §9.2.2). */
const IDEMPOTENT = new Set(["GET", "HEAD"]);

export function createTrustedHttpClient(options: TrustedHttpClientOptions): TrustedHttpClient & { readonly pool: ConnectionPool } {
  const dialer = options.dialer ?? createNetDialer();
  const decompression = options.decompression ?? decompressionSlots;
  const pool = createConnectionPool(options.pool);

  const send = async (request: HttpExchange, fresh: boolean): Promise<HttpResponse> => {
    const point = dialPoint(request.url);
    // Scheme, name and port: a TLS session is verified for the name, so two names on one
    // address never share a connection, and plaintext never mixes with TLS.
    const key = `${point.tls ? "https" : "http"}://${point.hostname}:${point.port}`;
    const dial = async () => {
      const addresses = await resolveEndpoint(options.resolver, point.hostname, request.signal);
      return dialer.dial({ ...point, addresses, connectTimeoutMs: request.connectTimeoutMs, signal: request.signal });
    };
    const lease = await pool.acquire(key, dial, request.signal, { fresh });
    return exchange({ socket: lease.socket, release: lease.release, reused: lease.reused }, request, decompression);
  };

  return {
    pool,
    async request(request: HttpExchange): Promise<HttpResponse> {
      if (request.signal.aborted) throw timeoutError(request.signal);
      try {
        return await send(request, false);
      } catch (error) {
        // Once, and on a new connection: the other idle ones may be as stale as this one was.
        if (isStaleConnectionFailure(error) && IDEMPOTENT.has(request.method ?? "GET")) return send(request, true);
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
