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
  /** Count, dimension: code (a guard refusal or other error code). */
  refusals: "Refusals",
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
  provider: "provider",
} as const;
