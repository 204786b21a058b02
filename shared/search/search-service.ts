/**
 * The /search use case: secret check, provider selection, one failover, normalization.
 * Adapters (providers, key source) come in through the constructor options.
 */
import { WebgateError, isWebgateError } from "../errors";
import type { ProviderKeySource, ProviderKeys } from "../secrets/provider-keys";
import { normalizeResults } from "./normalize";
import type { SearchProvider } from "./provider";
import { PROVIDER_NAMES, type ProviderName, type SearchRequest, type SearchResponse } from "./schema";
import { assertQueryIsNotSecret } from "./secret-check";

/** The providers that are configured for one request (a key or URL is present). */
export type ProviderSet = Partial<Record<ProviderName, SearchProvider>>;

/**
 * Chooses the providers to try, in order (pure).
 * - `requested` (from the request): that one only, or `provider_not_configured` (400);
 * - else `defaultProvider` (WEBGATE_SEARCH_PROVIDER), else the first configured of
 *   brave, tavily, searxng; then the next configured one as the single failover.
 * - nothing configured, or the default names an unconfigured provider: `search_not_configured` (503).
 */
export function planProviders(
  configured: readonly ProviderName[],
  requested: ProviderName | undefined,
  defaultProvider: ProviderName | undefined,
): ProviderName[] {
  if (requested !== undefined) {
    if (!configured.includes(requested)) {
      throw new WebgateError(
        "provider_not_configured",
        `The provider ${requested} is not configured on this server${configured.length > 0 ? `; configured: ${configured.join(", ")}` : ""}.`,
        { details: { provider: requested } },
      );
    }
    return [requested];
  }
  if (configured.length === 0) {
    throw new WebgateError("search_not_configured", "No search provider is configured: set a Brave or Tavily key, or SEARXNG_URL.");
  }
  let first: ProviderName;
  if (defaultProvider !== undefined) {
    if (!configured.includes(defaultProvider)) {
      // The operator chose this provider explicitly; silently using another would hide the
      // misconfiguration (and send queries to a provider they did not pick).
      throw new WebgateError("search_not_configured", `The default search provider ${defaultProvider} is not configured (no key or URL for it).`);
    }
    first = defaultProvider;
  } else {
    first = PROVIDER_NAMES.find((name) => configured.includes(name)) ?? configured[0]!;
  }
  const next = PROVIDER_NAMES.find((name) => name !== first && configured.includes(name));
  return next === undefined ? [first] : [first, next];
}

const FAILOVER_CODES = new Set(["provider_rate_limited", "provider_auth_failed", "provider_timeout"]);

/**
 * True when the next provider may be tried: a rate limit, an auth failure, a timeout, or a
 * retryable provider_error (5xx, unreachable). A bad answer or a 4xx refusal is not: the same
 * query would most likely fail the same way, or the fault is ours to see.
 */
export function shouldFailOver(error: unknown): boolean {
  if (!isWebgateError(error)) return false;
  return FAILOVER_CODES.has(error.code) || (error.code === "provider_error" && error.retryable);
}

export interface SearchServiceOptions {
  keys: ProviderKeySource;
  /** Builds the configured providers for the current keys (cheap; called per request). */
  buildProviders: (keys: ProviderKeys) => ProviderSet;
  defaultProvider: ProviderName | undefined;
}

/** Fields for the request's log line. Never holds the query or a key. */
export interface SearchLogFields {
  provider?: ProviderName;
  providers_tried?: string;
  failover_from?: ProviderName;
  failover_code?: string;
  result_count?: number;
}

/** Hooks the route uses for its log line and metrics. */
export interface SearchObserver {
  log?(fields: SearchLogFields): void;
  /** One call per provider attempt; `outcome` is "ok" or the error code. */
  attempt?(provider: ProviderName, outcome: string): void;
}

export interface SearchService {
  /**
   * Runs one search. Throws `query_looks_like_secret` before any key is loaded or provider
   * contacted; then the selection errors of {@link planProviders}, the key source's errors,
   * and the answering provider's provider_* error (with `failover_from` when one failed first).
   */
  search(request: SearchRequest, observer?: SearchObserver, signal?: AbortSignal): Promise<SearchResponse>;
}

export function createSearchService(options: SearchServiceOptions): SearchService {
  return {
    async search(request, observer = {}, signal) {
      const log = (fields: SearchLogFields) => observer.log?.(fields);
      assertQueryIsNotSecret(request.query);
      const providers = options.buildProviders(await options.keys.get());
      const configured = PROVIDER_NAMES.filter((name) => providers[name] !== undefined);
      const plan = planProviders(configured, request.provider, options.defaultProvider);
      let firstError: WebgateError | undefined;
      for (const [index, name] of plan.entries()) {
        const provider = providers[name]!;
        try {
          const raw = await provider.search(request.query, request.max_results, signal);
          observer.attempt?.(name, "ok");
          const results = normalizeResults(raw, request.max_results);
          log({ provider: name, providers_tried: plan.slice(0, index + 1).join(","), result_count: results.length });
          return { query: request.query, provider: name, results };
        } catch (error) {
          observer.attempt?.(name, isWebgateError(error) ? error.code : "internal");
          const isLast = index === plan.length - 1;
          if (firstError === undefined && !isLast && shouldFailOver(error)) {
            firstError = error as WebgateError;
            log({ failover_from: name, failover_code: firstError.code });
            continue;
          }
          if (firstError !== undefined && isWebgateError(error)) {
            throw new WebgateError(error.code, `${error.message} (${firstError.details.provider ?? "the first provider"} failed first: ${firstError.code})`, {
              cause: error,
              retryable: error.retryable,
              details: { ...error.details, failover_from: plan[0]!, failover_code: firstError.code },
              headers: error.headers,
            });
          }
          throw error;
        }
      }
      // planProviders never returns an empty plan; this keeps the compiler's flow analysis honest.
      throw new WebgateError("internal", "no provider was tried");
    },
  };
}
