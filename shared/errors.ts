/**
 * The one error type of webgate. Every failure a caller can see carries a stable `code` from
 * {@link ERROR_TABLE}; the HTTP status and the retry hint come from that table alone, so a code
 * means the same thing on every route.
 *
 * `expose` follows middy's rule: a 4xx message is written for the caller and goes out as is; a
 * 5xx message is replaced by a generic one (the detail goes to the log line instead), except for
 * the upstream/provider codes whose messages are written for callers too (see `exposeMessage`).
 */

export const ERROR_TABLE = {
  // Request validation.
  invalid_request: { status: 400, retryable: false, exposeMessage: true },
  request_too_large: { status: 413, retryable: false, exposeMessage: true },
  // Guard (shared/guard): policy refusals.
  url_not_allowed: { status: 400, retryable: false, exposeMessage: true },
  host_not_allowed: { status: 403, retryable: false, exposeMessage: true },
  address_not_allowed: { status: 403, retryable: false, exposeMessage: true },
  // Guard: network outcomes.
  dns_failed: { status: 502, retryable: true, exposeMessage: true },
  too_many_redirects: { status: 502, retryable: false, exposeMessage: true },
  redirect_without_location: { status: 502, retryable: false, exposeMessage: true },
  connect_failed: { status: 502, retryable: true, exposeMessage: true },
  upstream_timeout: { status: 504, retryable: true, exposeMessage: true },
  upstream_too_large: { status: 502, retryable: false, exposeMessage: true },
  // /fetch.
  upstream_status: { status: 502, retryable: false, exposeMessage: true },
  unsupported_content_type: { status: 415, retryable: false, exposeMessage: true },
  decode_failed: { status: 502, retryable: false, exposeMessage: true },
  // The HTML (or PDF) has no readable text in the requested mode; `details.reason` says why.
  no_readable_content: { status: 422, retryable: false, exposeMessage: true },
  // Converting the page did not finish within the request's time budget.
  content_too_complex: { status: 502, retryable: false, exposeMessage: true },
  pdf_encrypted: { status: 422, retryable: false, exposeMessage: true },
  // The origin answered a bot-protection challenge or block page instead of the content.
  blocked_by_bot_protection: { status: 502, retryable: false, exposeMessage: true },
  // robots.txt (RFC 9309).
  robots_disallowed: { status: 403, retryable: false, exposeMessage: true },
  robots_unavailable: { status: 503, retryable: true, exposeMessage: true },
  // The headless browser for `render` cannot be started.
  render_unavailable: { status: 503, retryable: true, exposeMessage: true },
  // The URL carries what looks like a key or token (exfiltration guard).
  url_looks_like_secret: { status: 400, retryable: false, exposeMessage: true },
  snapshot_expired: { status: 410, retryable: false, exposeMessage: true },
  // The page store cannot be read while a caller asks for one exact snapshot.
  store_unavailable: { status: 503, retryable: true, exposeMessage: true },
  // /search.
  query_looks_like_secret: { status: 400, retryable: false, exposeMessage: true },
  provider_not_configured: { status: 400, retryable: false, exposeMessage: true },
  search_not_configured: { status: 503, retryable: false, exposeMessage: true },
  provider_auth_failed: { status: 502, retryable: false, exposeMessage: true },
  provider_rate_limited: { status: 429, retryable: true, exposeMessage: true },
  provider_timeout: { status: 504, retryable: true, exposeMessage: true },
  provider_error: { status: 502, retryable: true, exposeMessage: true },
  provider_bad_response: { status: 502, retryable: false, exposeMessage: true },
  // Routing (local server and API Gateway shapes).
  not_found: { status: 404, retryable: false, exposeMessage: true },
  method_not_allowed: { status: 405, retryable: false, exposeMessage: true },
  // API Gateway's stage throttling or usage-plan quota (answered by the gateway itself).
  rate_limited: { status: 429, retryable: true, exposeMessage: true },
  // Anything unexpected. Its message never leaves the process.
  internal: { status: 500, retryable: true, exposeMessage: false },
} as const satisfies Record<string, { status: number; retryable: boolean; exposeMessage: boolean }>;

export type ErrorCode = keyof typeof ERROR_TABLE;

export const ERROR_CODES = Object.keys(ERROR_TABLE) as ErrorCode[];

/** Extra machine-readable fields that go into the error body beside `code` and `message`. */
export type ErrorDetails = Record<string, string | number | boolean | null>;

export interface WebgateErrorOptions {
  cause?: unknown;
  /** Overrides the table's retry hint for this instance (e.g. an origin's 503 is retryable). */
  retryable?: boolean;
  /** Fields added to the error body, e.g. `{ upstream_status: 404 }`. */
  details?: ErrorDetails;
  /** Response headers, e.g. `Retry-After` passed on from a provider. */
  headers?: Record<string, string>;
  /**
   * The exact rule that refused, for the log line and the `Refusals` metric only; never in the
   * response body (e.g. the address class a host name resolved to, which callers see coarser).
   */
  logReason?: string;
}

export class WebgateError extends Error {
  override readonly name = "WebgateError";
  readonly code: ErrorCode;
  readonly status: number;
  readonly retryable: boolean;
  readonly expose: boolean;
  readonly details: ErrorDetails;
  readonly headers: Record<string, string>;
  readonly logReason: string | undefined;

  constructor(code: ErrorCode, message: string, options: WebgateErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    const row = ERROR_TABLE[code];
    this.code = code;
    this.status = row.status;
    this.retryable = options.retryable ?? row.retryable;
    this.expose = row.exposeMessage;
    this.details = options.details ?? {};
    this.headers = options.headers ?? {};
    this.logReason = options.logReason;
  }
}

export function isWebgateError(value: unknown): value is WebgateError {
  return value instanceof WebgateError;
}

export const GENERIC_INTERNAL_MESSAGE = "Internal error. The request id identifies it in the logs.";

/** The JSON error body every route answers with. */
export interface ErrorBody {
  error: { code: ErrorCode; message: string; retryable: boolean; request_id: string } & ErrorDetails;
}

/** Turns any thrown value into the public error body; unknown errors become `internal`. */
export function toErrorBody(error: unknown, requestId: string): { status: number; body: ErrorBody; headers: Record<string, string> } {
  const err = isWebgateError(error) ? error : new WebgateError("internal", GENERIC_INTERNAL_MESSAGE, { cause: error });
  const message = err.expose ? err.message : GENERIC_INTERNAL_MESSAGE;
  return {
    status: err.status,
    headers: err.headers,
    body: { error: { ...err.details, code: err.code, message, retryable: err.retryable, request_id: requestId } },
  };
}
