/**
 * One provider exchange over the product's HTTP client, and the mapping of its outcomes to the
 * provider_* error codes. Shared by the provider adapters; each adapter may handle
 * provider-specific statuses first (SearXNG's 403, Brave's 422) and then call
 * {@link throwForStatus}.
 */
import { WebgateError, isWebgateError } from "../errors";
import type { HttpResponse, TrustedHttpClient } from "../http/types";
import type { ProviderLimits } from "./provider";
import type { ProviderName } from "./schema";

export interface ProviderRequest {
  url: URL;
  method: "GET" | "POST";
  headers: Record<string, string>;
  body?: string;
}

const LABEL: Record<ProviderName, string> = { brave: "Brave", tavily: "Tavily", searxng: "SearXNG", ollama: "Ollama", anthropic: "Anthropic" };

/** How long one exchange may take and what aborts it early. */
export interface ExchangeBounds {
  signal?: AbortSignal | undefined;
  /** This exchange's time, at most the provider limit's (see {@link exchangeTimeoutMs}). */
  timeoutMs?: number | undefined;
}

/** The time one exchange may take: the attempt's budget when given, never more than the limit. */
export function exchangeTimeoutMs(limits: ProviderLimits, timeoutMs: number | undefined): number {
  return Math.max(1, Math.min(limits.timeoutMs, timeoutMs ?? limits.timeoutMs));
}

function formatSeconds(ms: number): string {
  return ms >= 10_000 ? `${Math.round(ms / 1000)} s` : `${(ms / 1000).toFixed(1)} s`;
}

/** The human name of a provider for messages. */
export function providerLabel(name: ProviderName): string {
  return LABEL[name];
}

/**
 * Sends one request with the provider limits. Never follows a redirect (the client does not).
 * Maps client failures: timeout/abort → `provider_timeout`; connect and DNS failures →
 * `provider_error` (retryable); an answer over the size limit or one that cannot be
 * decompressed → `provider_bad_response`.
 */
export async function sendProviderRequest(
  http: TrustedHttpClient,
  name: ProviderName,
  request: ProviderRequest,
  limits: ProviderLimits,
  bounds: ExchangeBounds = {},
): Promise<HttpResponse> {
  const { signal } = bounds;
  const timeoutMs = exchangeTimeoutMs(limits, bounds.timeoutMs);
  const timeout = AbortSignal.timeout(timeoutMs);
  const combined = signal === undefined ? timeout : AbortSignal.any([signal, timeout]);
  const label = providerLabel(name);
  try {
    return await http.request({
      url: request.url,
      method: request.method,
      headers: request.headers,
      ...(request.body === undefined ? {} : { body: request.body }),
      signal: combined,
      connectTimeoutMs: limits.connectTimeoutMs,
      maxBytes: limits.maxBytes,
    });
  } catch (error) {
    // Either signal firing is a timeout from the caller's point of view: the answer did not
    // come within the time we were willing to wait.
    if (combined.aborted || (isWebgateError(error) && error.code === "upstream_timeout")) {
      throw new WebgateError("provider_timeout", `${label} did not answer within ${formatSeconds(timeoutMs)}.`, {
        cause: error,
        details: { provider: name },
      });
    }
    if (isWebgateError(error) && error.code === "upstream_too_large") {
      throw new WebgateError("provider_bad_response", `${label} answered with more than ${limits.maxBytes} bytes.`, {
        cause: error,
        details: { provider: name },
      });
    }
    if (isWebgateError(error) && error.code === "decode_failed") {
      throw new WebgateError("provider_bad_response", `${label} answered with a body that could not be decompressed.`, {
        cause: error,
        details: { provider: name },
      });
    }
    // connect_failed, dns_failed and anything the socket threw: the provider is unreachable.
    throw new WebgateError("provider_error", `${label} could not be reached.`, {
      cause: error,
      retryable: true,
      details: { provider: name },
    });
  }
}

/**
 * Reads `Retry-After` (delta-seconds, RFC 9110 §10.2.3) or, when absent, an optional fallback
 * value in seconds. An HTTP-date form is passed on as a header but gives no `retry_after_s`
 * (turning it into seconds would need the clock, and the caller can read the header).
 */
function retryAfter(headers: Record<string, string>, fallbackSeconds?: number): { header?: string; seconds?: number } {
  const raw = headers["retry-after"]?.trim();
  if (raw !== undefined && raw !== "") {
    if (/^\d{1,9}$/.test(raw)) return { header: raw, seconds: Number(raw) };
    if (raw.length <= 64 && !Number.isNaN(Date.parse(raw))) return { header: raw };
  }
  if (fallbackSeconds !== undefined) return { header: String(fallbackSeconds), seconds: fallbackSeconds };
  return {};
}

/** The provider_rate_limited error, passing on the provider's retry hint when it gave one. */
export function rateLimitedError(name: ProviderName, response: HttpResponse, fallbackSeconds?: number, why = "rate limit"): WebgateError {
  const hint = retryAfter(response.headers, fallbackSeconds);
  const label = providerLabel(name);
  return new WebgateError(
    "provider_rate_limited",
    `${label} refused the search: ${why} reached.${hint.seconds === undefined ? "" : ` Retry after ${hint.seconds} s.`}`,
    {
      details: { provider: name, upstream_status: response.status, ...(hint.seconds === undefined ? {} : { retry_after_s: hint.seconds }) },
      ...(hint.header === undefined ? {} : { headers: { "Retry-After": hint.header } }),
    },
  );
}

/** The provider_auth_failed error. Never names or hints at the key's value. */
export function authFailedError(name: ProviderName, status: number): WebgateError {
  return new WebgateError(
    "provider_auth_failed",
    `${providerLabel(name)} refused the API key (HTTP ${status}): check the API key configured for ${name}.`,
    { details: { provider: name, upstream_status: status } },
  );
}

/**
 * Throws for any non-2xx status with the common mapping: 401/403 → auth, 429 → rate limited,
 * 3xx → provider_error (redirects are not followed: an API endpoint that redirects is
 * misconfigured), 5xx → provider_error (retryable), other 4xx → provider_error (not retryable:
 * the same request would fail again).
 */
export function throwForStatus(name: ProviderName, response: HttpResponse): void {
  const { status } = response;
  if (status >= 200 && status < 300) return;
  const label = providerLabel(name);
  const details = { provider: name, upstream_status: status };
  if (status === 401 || status === 403) throw authFailedError(name, status);
  if (status === 429) throw rateLimitedError(name, response);
  if (status >= 300 && status < 400) {
    throw new WebgateError("provider_error", `${label} answered with a redirect (HTTP ${status}); redirects are not followed, check the configured endpoint.`, {
      retryable: false,
      details,
    });
  }
  if (status >= 500) {
    throw new WebgateError("provider_error", `${label} failed with HTTP ${status}.`, { retryable: true, details });
  }
  throw new WebgateError("provider_error", `${label} refused the request with HTTP ${status}.`, { retryable: false, details });
}

/**
 * Parses a JSON body. Anything that is not JSON (an HTML error page, a captive portal, an
 * empty body) → `provider_bad_response` with `hint` appended to the message.
 */
export function parseJsonBody(name: ProviderName, response: HttpResponse, hint = ""): unknown {
  const label = providerLabel(name);
  try {
    return JSON.parse(response.body.toString("utf8")) as unknown;
  } catch (error) {
    // The provider chose this header: echo a bounded, printable form of it, never all of it.
    const declared = response.headers["content-type"]?.split(";")[0]?.trim().replace(/[^\x21-\x7e]/g, "").slice(0, 60);
    const type = declared || "no content type";
    throw new WebgateError("provider_bad_response", `${label} answered with something that is not JSON (${type}).${hint}`, {
      cause: error,
      details: { provider: name, upstream_status: response.status },
    });
  }
}

/** The provider_bad_response error for JSON of the wrong shape. */
export function wrongShapeError(name: ProviderName, what: string, cause?: unknown): WebgateError {
  return new WebgateError("provider_bad_response", `${providerLabel(name)} answered with JSON of an unexpected shape: ${what}.`, {
    cause,
    details: { provider: name },
  });
}
