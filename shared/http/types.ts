/**
 * The one outbound HTTP client of webgate (Node's http/https with a socket we dial ourselves).
 * Every outbound request of the product goes through {@link HttpClient}: caller URLs through the
 * guard (`shared/guard/guarded-get.ts`), which resolves and checks addresses before dialing;
 * provider calls through the same client with the operator-trusted resolver.
 */
import type { Duplex } from "node:stream";

/** Resolves a host name to every address (A and AAAA together). Tests fake this. */
export interface Resolver {
  resolve(hostname: string, signal: AbortSignal): Promise<string[]>;
}

export interface DialTarget {
  /** Host name from the URL (used for SNI and certificate verification). */
  hostname: string;
  /** Already checked addresses, tried in order. The dialer never resolves `hostname` again. */
  addresses: string[];
  port: number;
  tls: boolean;
  connectTimeoutMs: number;
  signal: AbortSignal;
}

/** Opens the connection to one of the checked addresses (TCP, then TLS when asked). */
export interface Dialer {
  dial(target: DialTarget): Promise<Duplex>;
}

export interface HttpRequest {
  url: URL;
  method?: "GET" | "POST";
  headers?: Record<string, string>;
  body?: string;
  /** Checked addresses to dial for `url`'s host; when absent the client's resolver is used. */
  addresses?: string[];
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

export interface HttpResponse {
  status: number;
  /** Header names in lower case; repeated headers joined with ", ". */
  headers: Record<string, string>;
  /** Decompressed body (gzip, deflate, br), at most `maxBytes`. Empty for 3xx. */
  body: Buffer;
  /** True when `overLimit: "truncate"` cut the body at `maxBytes`. */
  truncated?: boolean;
}

export interface HttpClient {
  request(request: HttpRequest): Promise<HttpResponse>;
}
