/**
 * The providers webgate speaks to, in the default order "first configured" is taken and failover
 * goes (`WEBGATE_SEARCH_ORDER` changes the order). A module of its own, without zod, so that the
 * configuration (which every function loads) names the providers without building the /search
 * request and response schemas (shared/search/schema.ts, which re-exports these).
 */
export const PROVIDER_NAMES = ["brave", "tavily", "searxng", "ollama", "anthropic"] as const;

export type ProviderName = (typeof PROVIDER_NAMES)[number];
