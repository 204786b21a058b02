/**
 * The guarded GET for caller-supplied URLs: every hop is checked by the URL policy, its host
 * name resolved once and every answer checked by the address policy, and the connection goes to
 * exactly the checked addresses. Redirects are followed by hand, at most `maxRedirects` hops,
 * each hop re-checked from scratch (scheme changes included, CVE-2023-28155).
 *
 * Requests carry a fixed set of headers: no cookies, no Authorization, nothing the caller chose,
 * and no proxy from the environment (the dialer connects directly).
 */
import { WebgateError, isWebgateError } from "../errors";
import type { HttpClient } from "../http/types";
import type { RedirectHop } from "../snapshot/snapshot-meta";
import type { Resolver } from "./dns-resolver";
import { resolveChecked } from "./guarded-lookup";
import { resolvePolicy, type GuardPolicy } from "./policy";
import { bareHostname, checkUrl, isCheckedUnder, refuseLoopbackHop, refuseWrittenUserinfo, requestPolicy, type CheckedUrl } from "./url-policy";

export const WEBGATE_USER_AGENT = "webgate/0.1 (guarded web reader for AI agents)";

/** The only request headers webgate sends to an origin. */
export const ORIGIN_REQUEST_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  "User-Agent": WEBGATE_USER_AGENT,
  // Markdown first: agent-aware sites answer it instead of HTML (docs/content.md); PDFs are read too.
  Accept:
    "text/markdown,text/html;q=0.9,application/xhtml+xml;q=0.9,application/pdf;q=0.8,text/plain;q=0.8,application/json;q=0.7,application/xml;q=0.7,text/xml;q=0.7",
  "Accept-Encoding": "gzip, deflate, br",
});

export interface GuardLimits {
  /** The whole exchange, all hops, DNS and body included. */
  timeoutMs: number;
  /** Each DNS lookup, TCP connect and TLS handshake. */
  connectTimeoutMs: number;
  /** Response body, as declared and as counted after decompression. */
  maxBytes: number;
  /** Redirects followed; one more is `too_many_redirects`. */
  maxRedirects: number;
  /** A body over `maxBytes`: fail (the default) or keep its head, marked `truncated` (see HttpRequest). */
  overLimit?: "fail" | "truncate";
}

export const DEFAULT_GUARD_LIMITS: GuardLimits = {
  timeoutMs: 30_000,
  connectTimeoutMs: 5_000,
  maxBytes: 5_242_880,
  maxRedirects: 5,
};

/** One redirect followed; `location` is resolved against `url`, before the URL policy normalized it. */
export type { RedirectHop };

export interface GuardedResponse {
  /** The requested URL after the URL policy normalized it. */
  url: string;
  finalUrl: string;
  redirects: RedirectHop[];
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  /** True when the body is the first `maxBytes` of a longer one (`overLimit: "truncate"`). */
  truncated?: boolean;
  /** Wall time of the whole exchange, all hops. */
  elapsedMs: number;
}

export interface GuardedGetOptions {
  signal?: AbortSignal;
  /**
   * Runs before each hop (the URL itself, then every redirect) is requested, once the guard has
   * accepted its URL and its addresses, so a guard refusal always comes first (webgate's
   * robots.txt check); a rejection stops the fetch with that error.
   */
  beforeRequest?: (url: URL, hop: number) => Promise<void>;
}

export interface GuardedClient {
  /**
   * GETs `input`: a string is checked by the URL policy first; a {@link CheckedUrl} the caller
   * already checked under this client's policy (and has not changed) is not checked twice.
   */
  get(input: string | CheckedUrl, options?: GuardedGetOptions): Promise<GuardedResponse>;
}

export interface GuardedClientDeps {
  http: HttpClient;
  resolver: Resolver;
  policy?: Partial<GuardPolicy>;
  limits?: Partial<GuardLimits>;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

export function createGuardedClient(deps: GuardedClientDeps): GuardedClient {
  const policy = resolvePolicy(deps.policy);
  const limits: GuardLimits = { ...DEFAULT_GUARD_LIMITS, ...deps.limits };
  return {
    async get(input, options = {}) {
      const started = performance.now();
      let url = typeof input !== "string" && isCheckedUnder(input, policy) ? input : checkUrl(typeof input === "string" ? input : input.href, policy);
      const requested = url.href;
      // The dev switch covers a request only when its own URL names this machine; any other
      // request, its DNS answers and its redirects included, runs under the strict policy.
      const hopPolicy = requestPolicy(url, policy);
      const deadline = AbortSignal.timeout(limits.timeoutMs);
      const signal = options.signal ? AbortSignal.any([deadline, options.signal]) : deadline;
      const visited = new Set([url.href]);
      const redirects: RedirectHop[] = [];

      for (;;) {
        const host = bareHostname(url);
        const addresses = await atHop(redirects.length, () =>
          resolveChecked(host, { resolver: deps.resolver, policy: hopPolicy, signal, timeoutMs: limits.connectTimeoutMs }),
        );
        if (options.beforeRequest !== undefined) await options.beforeRequest(url, redirects.length);
        const response = await deps.http.request({
          url,
          method: "GET",
          headers: { ...ORIGIN_REQUEST_HEADERS },
          addresses,
          signal,
          connectTimeoutMs: limits.connectTimeoutMs,
          maxBytes: limits.maxBytes,
          overLimit: limits.overLimit,
        });
        if (!REDIRECT_STATUSES.has(response.status)) {
          return {
            url: requested,
            finalUrl: url.href,
            redirects,
            status: response.status,
            headers: response.headers,
            body: response.body,
            truncated: response.truncated === true,
            elapsedMs: Math.round(performance.now() - started),
          };
        }
        const next = nextHop(url, response.status, response.headers.location, redirects, limits.maxRedirects, hopPolicy);
        if (visited.has(next.href)) {
          throw new WebgateError("too_many_redirects", `Redirect ${redirects.length} leads back to a URL already visited (a redirect loop).`, {
            details: { redirects: redirects.length },
          });
        }
        visited.add(next.href);
        url = next;
      }
    },
  };
}

function nextHop(
  current: CheckedUrl,
  status: number,
  location: string | undefined,
  redirects: RedirectHop[],
  maxRedirects: number,
  policy: GuardPolicy,
): CheckedUrl {
  if (location === undefined || location.trim() === "") {
    throw new WebgateError("redirect_without_location", `The origin answered ${status} without a Location header.`, {
      details: { upstream_status: status },
    });
  }
  let target: URL;
  try {
    // Resolved against the current URL with WHATWG rules, so "//host", "/\\host" and
    // "http:host" mean what a browser would make of them, before anything is checked.
    target = new URL(location, current);
  } catch (error) {
    throw new WebgateError("url_not_allowed", `Redirect ${redirects.length + 1} has a Location that is not a valid URL.`, { cause: error });
  }
  redirects.push({ url: current.href, status, location: target.href });
  if (redirects.length > maxRedirects) {
    throw new WebgateError("too_many_redirects", `The origin redirected more than ${maxRedirects} times.`, {
      details: { redirects: redirects.length, limit: maxRedirects },
    });
  }
  return atHopSync(redirects.length, () => {
    // The Location as sent: `https://@host/` parses to a URL without the "@", which checkUrl on
    // the resolved href could no longer see.
    refuseWrittenUserinfo(location);
    const checked = checkUrl(target.href, policy);
    refuseLoopbackHop(current, checked, policy);
    return checked;
  });
}

/**
 * Runs a check for redirect hop `hop` (0 is the requested URL). A refusal keeps its code; on a
 * redirect hop its message says which hop was refused, so the caller can tell a refused
 * redirect from a refused request.
 */
async function atHop<T>(hop: number, check: () => Promise<T>): Promise<T> {
  try {
    return await check();
  } catch (error) {
    throw hopError(hop, error);
  }
}

function atHopSync<T>(hop: number, check: () => T): T {
  try {
    return check();
  } catch (error) {
    throw hopError(hop, error);
  }
}

function hopError(hop: number, error: unknown): unknown {
  if (hop === 0 || !isWebgateError(error) || error.code === "upstream_timeout") return error;
  return new WebgateError(error.code, `Redirect ${hop} refused: ${error.message}`, {
    cause: error,
    details: { ...error.details, redirect: hop },
    logReason: error.logReason,
  });
}
