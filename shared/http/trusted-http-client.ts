/**
 * The HTTP client for endpoints the operator configured (the search providers' APIs), kept apart
 * from the guarded client that caller-supplied URLs go through. Their names are operator
 * configuration, not caller input, so it resolves them itself (through the given
 * {@link Resolver}: c-ares in production, never libuv's thread pool) without the address policy.
 * Every exchange has the same bounds, decompression and error codes as the guarded client's (it
 * shares {@link exchange}); redirects are never followed. One connection per exchange for now:
 * a keep-alive pool (built and tried) let a request be sent twice when a server closed an idle
 * connection as it was reused, so it waits for a retry rule that never repeats a POST.
 *
 * AWS services (DynamoDB, Secrets Manager, Lambda) are trusted endpoints too: their SDK clients
 * bring their own keep-alive handler (shared/cache/dynamo-client.ts and its siblings).
 */
import net from "node:net";
import { WebgateError } from "../errors";
import type { Resolver } from "../guard/dns-resolver";
import { decompressionSlots, dialPoint, exchange, type SlotLimiter } from "./http-client";
import { createNetDialer, timeoutError } from "./net-dialer";
import type { Dialer, HttpExchange, HttpResponse, TrustedHttpClient } from "./types";

export interface TrustedHttpClientOptions {
  resolver: Resolver;
  dialer?: Dialer;
  decompression?: SlotLimiter;
}

export function createTrustedHttpClient(options: TrustedHttpClientOptions): TrustedHttpClient {
  const dialer = options.dialer ?? createNetDialer();
  const decompression = options.decompression ?? decompressionSlots;
  return {
    async request(request: HttpExchange): Promise<HttpResponse> {
      if (request.signal.aborted) throw timeoutError(request.signal);
      const point = dialPoint(request.url);
      const addresses = await resolveEndpoint(options.resolver, point.hostname, request.signal);
      const socket = await dialer.dial({ ...point, addresses, connectTimeoutMs: request.connectTimeoutMs, signal: request.signal });
      return exchange({ socket }, request, decompression);
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
