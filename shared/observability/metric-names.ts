/**
 * Metric names and dimensions shared by the handlers (Powertools Metrics, EMF) and the CDK
 * dashboard and alarms, so the two cannot drift.
 */
export const METRICS_NAMESPACE = "Webgate";

export const METRIC = {
  /** Count, dimensions: route, status (HTTP status code as a string). */
  requests: "Requests",
  /** Count of /fetch answers by cache outcome. */
  cacheHit: "CacheHit",
  cacheMiss: "CacheMiss",
  cacheBypass: "CacheBypass",
  /** Count, dimensions: route, code (a guard refusal or other 4xx code), reason (the exact rule, "none" without one). */
  refusals: "Refusals",
  /**
   * Count of 5xx answers, dimensions: route, code. Splits webgate's own faults
   * ({@link OWN_FAULT_CODES}, alarmed) from origin and provider failures (dashboard only).
   */
  serverErrors: "ServerErrors",
  /** Milliseconds from the first byte sent to the origin to the last byte read. */
  originLatency: "OriginLatencyMs",
  /** Bytes read from the origin after decompression. */
  originBytes: "OriginBytes",
  /** Count of search calls by provider and outcome. */
  providerCalls: "ProviderCalls",
  /**
   * Count of failed search provider attempts (a provider_* code, whether or not a failover
   * followed), dimension: provider only, so an alarm can watch one provider exactly.
   */
  searchProviderFailures: "SearchProviderFailures",
  /** Count of web searches Anthropic billed (usage.server_tool_use.web_search_requests); no dimension. */
  anthropicBilledSearches: "AnthropicBilledSearches",
} as const;

export const DIMENSION = {
  route: "route",
  status: "status",
  code: "code",
  reason: "reason",
  provider: "provider",
} as const;

/**
 * 5xx codes that are webgate's own fault, not the origin's or a provider's: these page the
 * operator. Origin problems (502/504 such as `connect_failed`, `upstream_timeout`) are what
 * callers' dead links produce, so they stay on the dashboard: alarming on them would let any key
 * holder page the operator by fetching broken URLs.
 */
export const OWN_FAULT_CODES = ["internal", "store_unavailable", "search_not_configured", "render_unavailable"] as const;
