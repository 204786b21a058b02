/**
 * webgate's outbound HTTP clients (Node's http over a socket we dial ourselves), two of them:
 * - the guarded {@link HttpClient}, for caller-supplied URLs: it dials only the
 *   {@link CheckedAddresses} the guard resolved and checked (`shared/guard/guarded-get.ts`), never
 *   resolves a name, and uses one connection per exchange;
 * - the {@link TrustedHttpClient}, for endpoints the operator configured (search providers): it
 *   resolves them itself and keeps connections alive between requests (a bounded pool; a request
 *   on a connection the server closed is sent again only when it is a GET, see
 *   trusted-http-client.ts).
 * AWS services are reached through the SDK's own clients, never through either.
 */
import type { Duplex } from "node:stream";
import type { CheckedAddresses } from "../guard/guarded-lookup";

export interface DialTarget {
  /** Host name from the URL (used for SNI and certificate verification). */
  hostname: string;
  /**
   * The addresses to connect to, raced in Happy Eyeballs order. The dialer never resolves
   * `hostname` again: for a caller's URL these are the guard's {@link CheckedAddresses}.
   */
  addresses: readonly string[];
  port: number;
  tls: boolean;
  connectTimeoutMs: number;
  signal: AbortSignal;
}

/** Opens the connection to one of the given addresses (TCP, then TLS when asked). */
export interface Dialer {
  dial(target: DialTarget): Promise<Duplex>;
}

/** One exchange, as either client takes it. */
export interface HttpExchange {
  url: URL;
  method?: "GET" | "POST";
  headers?: Record<string, string>;
  body?: string;
  /** Aborts the whole exchange; the client maps an abort to a timeout error. */
  signal: AbortSignal;
  connectTimeoutMs: number;
  /** Limit on the body, both as declared and as counted after decompression. */
  maxBytes: number;
  /**
   * A body over `maxBytes`: `"fail"` (the default) answers `upstream_too_large`; `"truncate"`
   * keeps its first `maxBytes` bytes, stops reading and marks the answer `truncated` (robots.txt,
   * whose first 500 KiB RFC 9309 §2.5 says to parse whatever its size).
   */
  overLimit?: "fail" | "truncate";
}

/** An exchange with a caller-supplied URL: the guard's checked addresses for its host come with it. */
export interface HttpRequest extends HttpExchange {
  /** What `resolveChecked` returned for `url`'s host; the only addresses the client connects to. */
  addresses: CheckedAddresses;
}

export interface HttpResponse {
  status: number;
  /** Header names in lower case; repeated headers joined with ", ". */
  headers: Record<string, string>;
  /** Decompressed body (gzip, deflate, br), at most `maxBytes`. Empty for 3xx. */
  body: Buffer;
  /** True when `overLimit: "truncate"` cut the body at `maxBytes`. */
  truncated?: boolean;
}

/** The guarded client: dials the checked addresses of each request, one connection per exchange. */
export interface HttpClient {
  request(request: HttpRequest): Promise<HttpResponse>;
}

/** The client for operator-configured endpoints: resolves their names, keeps connections alive. */
export interface TrustedHttpClient {
  request(request: HttpExchange): Promise<HttpResponse>;
}
