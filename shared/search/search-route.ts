/**
 * Wires /search once per cold start: configuration → key source, provider factory, search
 * service → the middy handler. Tests and the local server call {@link createSearchHandler} with
 * their own Secrets Manager client, resolver, dialer, limits or telemetry; Lambda uses the
 * defaults.
 */
import type { SecretsManagerClient } from "@aws-sdk/client-secrets-manager";
import type { APIGatewayProxyEvent } from "aws-lambda";
import type { WebgateConfig } from "../config";
import type { Resolver } from "../guard/dns-resolver";
import { createTrustedHttpClient } from "../http/trusted-http-client";
import type { Dialer } from "../http/types";
import { createApiHandler, type ApiHandler, type ApiRequestContext } from "../middleware/api-handler";
import { parseJsonBody } from "../middleware/parse-request";
import { DIMENSION, METRIC } from "../observability/metric-names";
import { createPowertoolsTelemetry, type Telemetry } from "../observability/telemetry";
import { SecretsManagerProviderKeys, staticProviderKeys, type ProviderKeySource } from "../secrets/provider-keys";
import { PROVIDER_LIMITS, type ProviderLimits } from "./provider";
import { createProviders } from "./provider-factory";
import { searchRequestSchema, type SearchRequest, type SearchResponse } from "./schema";
import { resolveSearchSettings } from "./search-config";
import { createSearchService } from "./search-service";

export interface SearchRouteDeps {
  config: WebgateConfig;
  /** Required when `config.search.secretArn` is set (keys then come from that secret). */
  secretsManager?: Pick<SecretsManagerClient, "send">;
  /**
   * Resolves provider host names. Provider endpoints are operator configuration, so Lambda
   * passes the guard's plain `systemResolver` (no caller-URL address policy).
   */
  resolver: Resolver;
  dialer?: Dialer;
  limits?: ProviderLimits;
  /** How long fetched keys are used before the next request refetches them. */
  keyCacheTtlMs?: number;
  /** The clock of the key cache; tests pass a fake. */
  now?: () => number;
  telemetry?: Telemetry;
}

/**
 * Builds the /search handler from a loaded configuration (`loadConfig` has already refused a bad
 * SEARXNG_URL, default provider, order or endpoint, with every other problem).
 */
export function createSearchHandler(deps: SearchRouteDeps): ApiHandler {
  const telemetry = deps.telemetry ?? createPowertoolsTelemetry("webgate-search");
  const run = createSearchRunner({ ...deps, telemetry });
  return createApiHandler<SearchRequest>({
    route: "search",
    telemetry,
    parse: (event: APIGatewayProxyEvent) => parseJsonBody(event, searchRequestSchema),
    handle: async (input, ctx) => ({ body: await run(input, ctx) }),
  });
}

/** Runs one validated search; the /search route and the MCP `web_search` tool share it. */
export type SearchRunner = (input: SearchRequest, ctx: Pick<ApiRequestContext, "addLogFields" | "deadline">) => Promise<SearchResponse>;

/**
 * Builds the key source, HTTP client and search service once and returns the function that serves
 * one request with them: the search, its log fields and its provider metrics. Throws ConfigError
 * at cold start for a bad SEARXNG_URL, default provider or endpoint.
 */
export function createSearchRunner(deps: SearchRouteDeps & { telemetry: Telemetry }): SearchRunner {
  const { telemetry } = deps;
  const settings = resolveSearchSettings(deps.config);
  const limits = deps.limits ?? PROVIDER_LIMITS;
  const http = createTrustedHttpClient({ resolver: deps.resolver, dialer: deps.dialer, pool: { idleMs: limits.idleConnectionMs } });
  let keys: ProviderKeySource;
  if (settings.secretArn !== undefined) {
    if (deps.secretsManager === undefined) throw new Error("createSearchHandler: a Secrets Manager client is required when a secret ARN is configured");
    keys = new SecretsManagerProviderKeys({
      client: deps.secretsManager,
      secretId: settings.secretArn,
      ...(deps.keyCacheTtlMs === undefined ? {} : { cacheTtlMs: deps.keyCacheTtlMs }),
      ...(deps.now === undefined ? {} : { now: deps.now }),
    });
  } else {
    keys = staticProviderKeys({
      ...(settings.braveApiKey === undefined ? {} : { braveApiKey: settings.braveApiKey }),
      ...(settings.tavilyApiKey === undefined ? {} : { tavilyApiKey: settings.tavilyApiKey }),
      ...(settings.ollamaApiKey === undefined ? {} : { ollamaApiKey: settings.ollamaApiKey }),
      ...(settings.anthropicApiKey === undefined ? {} : { anthropicApiKey: settings.anthropicApiKey }),
    });
  }
  const service = createSearchService({
    keys,
    buildProviders: (current) => createProviders(settings, current, http, limits),
    defaultProvider: settings.defaultProvider,
    order: settings.order,
    attemptLimitMs: limits.timeoutMs,
  });

  return async (input, ctx) => {
    // The request's deadline (the invocation's remaining time less the answer margin) bounds
    // every provider attempt, and the attempts share it (see failover-budget.ts), so the
    // caller gets a provider_timeout body rather than a gateway error.
    const bounds = { signal: ctx.deadline.signal, deadline: ctx.deadline };
    return service.search(
      input,
      {
        log: (fields) => ctx.addLogFields({ ...fields }),
        attempt: (provider, outcome) => {
          telemetry.metric(METRIC.providerCalls, "Count", 1, { [DIMENSION.provider]: provider, [DIMENSION.code]: outcome });
          if (outcome.startsWith("provider_") || outcome === "internal") {
            telemetry.metric(METRIC.searchProviderFailures, "Count", 1, { [DIMENSION.provider]: provider });
          }
        },
        billedSearches: (provider, count) => {
          if (provider === "anthropic") telemetry.metric(METRIC.anthropicBilledSearches, "Count", count);
        },
      },
      bounds,
    );
  };
}
