/**
 * The search provider interface (adapters: brave.ts, tavily.ts, searxng.ts) and the limits
 * every provider call shares.
 */
import type { ProviderName } from "./schema";

/** One result as a provider gave it, before normalization (may hold HTML and entities). */
export interface RawResult {
  title: string;
  url: string;
  snippet: string;
  age?: string;
}

/**
 * A search backend. `search` resolves to raw results or throws a WebgateError with one of
 * `provider_auth_failed`, `provider_rate_limited`, `provider_timeout`, `provider_error`,
 * `provider_bad_response`; never an SDK or socket error, never a message holding the key.
 */
export interface SearchProvider {
  readonly name: ProviderName;
  search(query: string, maxResults: number, signal?: AbortSignal): Promise<RawResult[]>;
}

/** Limits of one provider call. */
export interface ProviderLimits {
  /** Whole exchange, connect to last byte. */
  timeoutMs: number;
  connectTimeoutMs: number;
  /** Answer size, declared and counted after decompression. */
  maxBytes: number;
}

/** 20 s and 2 MB, as issue 4 fixes them; tests pass shorter limits. */
export const PROVIDER_LIMITS: ProviderLimits = {
  timeoutMs: 20_000,
  connectTimeoutMs: 5_000,
  maxBytes: 2 * 1024 * 1024,
};
