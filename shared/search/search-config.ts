/**
 * The /search settings (pure core), taken from the configuration once per cold start. The
 * values were checked by `loadConfig` (shared/config.ts) together with every other variable,
 * so a bad deployment fails loudly at init, with all its problems, instead of on the first search.
 */
import type { WebgateConfig } from "../config";
import type { ProviderName } from "./schema";

/** The validated /search settings. Keys are absent here when they come from Secrets Manager. */
export interface SearchSettings {
  defaultProvider: ProviderName | undefined;
  /**
   * The providers taken for the default choice and the failover, in this order
   * (`WEBGATE_SEARCH_ORDER`); a provider left out is used only when a request names it.
   */
  order: ProviderName[];
  /** When set, keys come from this secret only (the *_API_KEY variables are ignored). */
  secretArn: string | undefined;
  braveApiKey: string | undefined;
  tavilyApiKey: string | undefined;
  ollamaApiKey: string | undefined;
  anthropicApiKey: string | undefined;
  searxngUrl: URL | undefined;
  braveEndpoint: URL;
  tavilyEndpoint: URL;
  ollamaEndpoint: URL;
  anthropicEndpoint: URL;
  anthropicModel: string;
}

/**
 * The /search settings of a loaded configuration. Validation happened in `loadConfig` with the
 * rest of the environment (one pass, every problem at once), so this cannot fail: it only
 * applies the rule that a secret ARN makes the secret the one source of keys.
 */
export function resolveSearchSettings(config: WebgateConfig): SearchSettings {
  const { search } = config;
  const fromSecret = search.secretArn !== undefined;
  return {
    defaultProvider: search.defaultProvider,
    order: search.order,
    secretArn: search.secretArn,
    braveApiKey: fromSecret ? undefined : search.braveApiKey,
    tavilyApiKey: fromSecret ? undefined : search.tavilyApiKey,
    ollamaApiKey: fromSecret ? undefined : search.ollamaApiKey,
    anthropicApiKey: fromSecret ? undefined : search.anthropicApiKey,
    searxngUrl: search.searxngUrl,
    braveEndpoint: search.braveEndpoint,
    tavilyEndpoint: search.tavilyEndpoint,
    ollamaEndpoint: search.ollamaEndpoint,
    anthropicEndpoint: search.anthropicEndpoint,
    anthropicModel: search.anthropicModel,
  };
}
