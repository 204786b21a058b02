/**
 * The /search use case: secret check, provider selection, one failover within the request's
 * time budget, normalization and the domain filter.
 * Adapters (providers, key source) come in through the constructor options.
 */
import { WebgateError, isWebgateError } from "../errors";
import type { ProviderKeySource, ProviderKeys } from "../secrets/provider-keys";
import { domainFilterOf } from "./domain-filter";
import { MIN_ATTEMPT_MS, attemptTimeoutMs, remainingMs, type RequestDeadline } from "./failover-budget";
import { normalizeResults } from "./normalize";
import { PROVIDER_LIMITS, type SearchProvider } from "./provider";
import { providerLabel } from "./provider-http";
import { PROVIDER_NAMES, type ProviderName, type SearchRequest, type SearchResponse } from "./schema";
import { assertQueryIsNotSecret } from "./secret-check";

/** The providers that are configured for one request (a key or URL is present). */
export type ProviderSet = Partial<Record<ProviderName, SearchProvider>>;

/**
 * Chooses the providers to try, in order (pure).
 * - `requested` (from the request): that one only, or `provider_not_configured` (400);
 * - else `defaultProvider` (WEBGATE_SEARCH_PROVIDER), else the first configured provider of
 *   `order` (WEBGATE_SEARCH_ORDER); then the next configured one of `order` as the single failover.
 * - nothing configured, or the default names an unconfigured provider: `search_not_configured` (503).
 */
export function planProviders(
  configured: readonly ProviderName[],
  requested: ProviderName | undefined,
  defaultProvider: ProviderName | undefined,
  order: readonly ProviderName[] = PROVIDER_NAMES,
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
  const eligible = order.filter((name) => configured.includes(name));
  if (configured.length === 0 || (defaultProvider === undefined && eligible.length === 0)) {
    throw new WebgateError(
      "search_not_configured",
      configured.length === 0
        ? "No search provider is configured: set a Brave, Tavily, Ollama or Anthropic key, or SEARXNG_URL."
        : `No configured search provider is in WEBGATE_SEARCH_ORDER (configured: ${configured.join(", ")}); name one in the request or add it to the order.`,
    );
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
    first = eligible[0]!;
  }
  const next = eligible.find((name) => name !== first);
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
  /** WEBGATE_SEARCH_ORDER; defaults to {@link PROVIDER_NAMES}. */
  order?: readonly ProviderName[];
  /** The provider time limit each attempt's budget is capped at (ProviderLimits.timeoutMs). */
  attemptLimitMs?: number;
  /** Attempts with less time than this are not started (default {@link MIN_ATTEMPT_MS}). */
  minAttemptMs?: number;
}

/** What bounds one search: the caller's abort signal and the request's deadline. */
export interface SearchBounds {
  signal?: AbortSignal | undefined;
  deadline?: RequestDeadline | undefined;
}

/** Fields for the request's log line. Never holds the query or a key. */
export interface SearchLogFields {
  provider?: ProviderName;
  providers_tried?: string;
  failover_from?: ProviderName;
  failover_code?: string;
  /** Set when a failover was due but too little of the request's time was left for it. */
  failover_skipped?: "no_time";
  /** Milliseconds each attempt was given, comma-separated, in order. */
  attempt_budgets_ms?: string;
  result_count?: number;
  /** Searches Anthropic billed for this request (only when anthropic was tried). */
  anthropic_billed_searches?: number;
}

/** Hooks the route uses for its log line and metrics. */
export interface SearchObserver {
  log?(fields: SearchLogFields): void;
  /** One call per provider attempt; `outcome` is "ok" or the error code. */
  attempt?(provider: ProviderName, outcome: string): void;
  /** Searches a provider billed (Anthropic), once per request that was billed any. */
  billedSearches?(provider: ProviderName, count: number): void;
}

export interface SearchService {
  /**
   * Runs one search. Throws `query_looks_like_secret` before any key is loaded or provider
   * contacted; then the selection errors of {@link planProviders}, the key source's errors,
   * and the answering provider's provider_* error (with `failover_from` when one failed first).
   */
  search(request: SearchRequest, observer?: SearchObserver, bounds?: SearchBounds): Promise<SearchResponse>;
}

function noTimeLeft(name: ProviderName): WebgateError {
  return new WebgateError("provider_timeout", `The request's time ran out before ${providerLabel(name)} could be asked.`, {
    details: { provider: name },
  });
}

export function createSearchService(options: SearchServiceOptions): SearchService {
  const order = options.order ?? PROVIDER_NAMES;
  const limitMs = options.attemptLimitMs ?? PROVIDER_LIMITS.timeoutMs;
  const minAttemptMs = options.minAttemptMs ?? MIN_ATTEMPT_MS;
  return {
    async search(request, observer = {}, bounds = {}) {
      const log = (fields: SearchLogFields) => observer.log?.(fields);
      assertQueryIsNotSecret(request.query);
      const providers = options.buildProviders(await options.keys.get());
      const configured = PROVIDER_NAMES.filter((name) => providers[name] !== undefined);
      const plan = planProviders(configured, request.provider, options.defaultProvider, order);
      const filter = domainFilterOf(request);
      const billed = new Map<ProviderName, number>();
      const budgets: number[] = [];
      let firstError: WebgateError | undefined;
      try {
        for (const [index, name] of plan.entries()) {
          const provider = providers[name]!;
          const isLast = index === plan.length - 1;
          const remaining = remainingMs(bounds.deadline);
          const timeoutMs = attemptTimeoutMs({ remainingMs: remaining, fallbackFollows: !isLast, limitMs });
          if (remaining !== undefined && timeoutMs < Math.min(minAttemptMs, limitMs)) {
            if (firstError !== undefined) {
              log({ failover_skipped: "no_time" });
              throw firstError;
            }
            throw noTimeLeft(name);
          }
          budgets.push(timeoutMs);
          try {
            const raw = await provider.search({
              query: request.query,
              maxResults: request.max_results,
              ...(filter === undefined ? {} : { filter }),
              signal: bounds.signal,
              timeoutMs,
              onBilledSearches: (count) => billed.set(name, (billed.get(name) ?? 0) + count),
            });
            observer.attempt?.(name, "ok");
            const results = normalizeResults(raw, request.max_results, filter);
            log({ provider: name, providers_tried: plan.slice(0, index + 1).join(","), result_count: results.length });
            return { query: request.query, provider: name, results };
          } catch (error) {
            observer.attempt?.(name, isWebgateError(error) ? error.code : "internal");
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
      } finally {
        // Billed searches are counted whatever the outcome: the money is spent either way.
        if (budgets.length > 0) log({ attempt_budgets_ms: budgets.join(",") });
        for (const [name, count] of billed) {
          observer.billedSearches?.(name, count);
          if (name === "anthropic") log({ anthropic_billed_searches: count });
        }
      }
      // planProviders never returns an empty plan; this keeps the compiler's flow analysis honest.
      throw new WebgateError("internal", "no provider was tried");
    },
  };
}
