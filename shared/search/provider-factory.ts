/**
 * Builds the configured providers from the validated settings and the current keys.
 */
import type { TrustedHttpClient } from "../http/types";
import type { ProviderKeys } from "../secrets/provider-keys";
import { createAnthropicProvider } from "./anthropic";
import { createBraveProvider } from "./brave";
import { createOllamaProvider } from "./ollama";
import { PROVIDER_LIMITS, type ProviderLimits } from "./provider";
import type { SearchSettings } from "./search-config";
import type { ProviderSet } from "./search-service";
import { createSearxngProvider } from "./searxng";
import { createTavilyProvider } from "./tavily";

/** A provider is configured when it has a key (Brave, Tavily, Ollama, Anthropic) or a URL (SearXNG). */
export function createProviders(
  settings: SearchSettings,
  keys: ProviderKeys,
  http: TrustedHttpClient,
  limits: ProviderLimits = PROVIDER_LIMITS,
): ProviderSet {
  const set: ProviderSet = {};
  if (keys.braveApiKey !== undefined) {
    set.brave = createBraveProvider({ http, endpoint: settings.braveEndpoint.href, apiKey: keys.braveApiKey, limits });
  }
  if (keys.tavilyApiKey !== undefined) {
    set.tavily = createTavilyProvider({ http, endpoint: settings.tavilyEndpoint.href, apiKey: keys.tavilyApiKey, limits });
  }
  if (settings.searxngUrl !== undefined) {
    set.searxng = createSearxngProvider({ http, baseUrl: settings.searxngUrl, limits });
  }
  if (keys.ollamaApiKey !== undefined) {
    set.ollama = createOllamaProvider({ http, endpoint: settings.ollamaEndpoint.href, apiKey: keys.ollamaApiKey, limits });
  }
  if (keys.anthropicApiKey !== undefined) {
    set.anthropic = createAnthropicProvider({
      http,
      endpoint: settings.anthropicEndpoint.href,
      apiKey: keys.anthropicApiKey,
      model: settings.anthropicModel,
      limits,
    });
  }
  return set;
}
