/**
 * The search provider interface (adapters: brave.ts, tavily.ts, searxng.ts, ollama.ts,
 * anthropic.ts) and the limits every provider call shares.
 */
import type { DomainFilter } from "./domain-filter";
import type { ProviderName } from "./schema";

/** One result as a provider gave it, before normalization (may hold HTML and entities). */
export interface RawResult {
  title: string;
  url: string;
  snippet: string;
  age?: string;
}

/** One provider call: what to search and how long this attempt may take. */
export interface SearchCall {
  query: string;
  maxResults: number;
  /** Passed to the provider natively where it can filter; the service filters results again. */
  filter?: DomainFilter;
  /** Aborts the call (the request's deadline); seen as `provider_timeout`. */
  signal?: AbortSignal;
  /**
   * This attempt's share of the request's remaining time (see failover-budget.ts); the call
   * takes at most the smaller of this and {@link ProviderLimits.timeoutMs}.
   */
  timeoutMs?: number;
  /** Searches the provider billed for this call (Anthropic), reported even when it then fails. */
  onBilledSearches?: (count: number) => void;
}

/**
 * A search backend. `search` resolves to raw results or throws a WebgateError with one of
 * `provider_auth_failed`, `provider_rate_limited`, `provider_timeout`, `provider_error`,
 * `provider_bad_response` (and `invalid_request` when the provider refuses the query itself as
 * too long); never an SDK or socket error, never a message holding the key.
 */
export interface SearchProvider {
  readonly name: ProviderName;
  search(call: SearchCall): Promise<RawResult[]>;
}

/** Limits of one provider call. */
export interface ProviderLimits {
  /** Whole exchange, connect to last byte. */
  timeoutMs: number;
  connectTimeoutMs: number;
  /** Answer size, declared and counted after decompression. */
  maxBytes: number;
  /**
   * How long a kept-alive provider connection may sit idle before it is closed (default: the
   * pool's `IDLE_CONNECTION_MS`, 4 s; tests that check nothing stays open pass less).
   */
  idleConnectionMs?: number;
}

/** 20 s and 2 MB, as issue 4 fixes them; tests pass shorter limits. */
export const PROVIDER_LIMITS: ProviderLimits = {
  timeoutMs: 20_000,
  connectTimeoutMs: 5_000,
  maxBytes: 2 * 1024 * 1024,
};
