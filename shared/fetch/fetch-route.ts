/**
 * The composition root of /fetch: wires it once per cold start, configuration → guard, HTTP
 * client, page store, cache, robots.txt, renderer → the middy handler. Tests and the local server
 * call {@link createFetchHandler} with their own resolver, dialer, clock or telemetry; Lambda uses
 * the defaults. Parsing (parse-fetch-request.ts), the log line and metrics (fetch-metrics.ts) and
 * the render's time split (render-budget.ts) live beside it.
 */
import type { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { systemClock, type Clock } from "../clock";
import type { WebgateConfig } from "../config";
import { DynamoPageStore } from "../cache/dynamo-page-store";
import { SnapshotCache } from "../cache/snapshot-cache";
import { createGuardedClient } from "../guard/guarded-get";
import { systemResolver } from "../guard/guarded-lookup";
import { resolvePolicy, type GuardPolicy } from "../guard/policy";
import { createHttpClient } from "../http/http-client";
import type { DocumentConverter } from "../content/converter";
import type { Resolver } from "../guard/dns-resolver";
import type { Dialer } from "../http/types";
import { unavailableRenderer, type Renderer } from "../render/renderer";
import { createApiHandler, type ApiHandler, type ApiRequestContext } from "../middleware/api-handler";
import { createPowertoolsTelemetry, hostOf, type Telemetry } from "../observability/telemetry";
import { RobotsChecker } from "../robots/robots-checker";
import { ROBOTS_PARSE_LIMIT_BYTES } from "../robots/robots-policy";
import { DynamoRobotsStore } from "../robots/robots-store";
import { recordFetch } from "./fetch-metrics";
import { fetchPage } from "./fetch-service";
import { parseFetchRequest } from "./parse-fetch-request";
import { renderBudget } from "./render-budget";
import type { FetchRequest, FetchResponse } from "./schema";

export interface FetchRouteDeps {
  config: WebgateConfig;
  dynamo: DynamoDBClient;
  resolver?: Resolver;
  dialer?: Dialer;
  clock?: Clock;
  telemetry?: Telemetry;
  /**
   * Renders pages for `render` (the browser in process, or the render function in AWS). Without
   * one, a render answers `render_unavailable`.
   */
  renderer?: Renderer;
  /** Where pages are converted (the local server: worker threads); default: in process, as in Lambda. */
  converter?: DocumentConverter;
}

/** Time a conversion and a store write may add to the fetch's own limit before a lease lapses. */
const LEASE_MARGIN_MS = 5_000;
/** The whole robots.txt exchange, redirects included. */
const ROBOTS_TIMEOUT_MS = 10_000;

/** The guard policy of /fetch (and of a renderer beside it) from the configuration. */
export function fetchPolicy(config: WebgateConfig): GuardPolicy {
  return resolvePolicy({
    allowLocalhost: config.fetch.allowLocalhost,
    allowedPorts: config.fetch.allowedPorts,
    allowedDomains: config.fetch.allowedDomains,
    blockedDomains: config.fetch.blockedDomains,
    blockedCidrs: config.fetch.blockedCidrs,
  });
}

/** Reads one page for a validated request; the /fetch route and the MCP `web_fetch` tool share it. */
export type FetchRunner = (input: FetchRequest, ctx: Pick<ApiRequestContext, "addLogFields" | "deadline">) => Promise<FetchResponse>;

export function createFetchHandler(deps: FetchRouteDeps): ApiHandler {
  const telemetry = deps.telemetry ?? createPowertoolsTelemetry("webgate-fetch");
  const run = createFetchRunner({ ...deps, telemetry });
  return createApiHandler<FetchRequest>({
    route: "fetch",
    telemetry,
    parse: parseFetchRequest,
    handle: async (input, ctx) => ({ body: await run(input, ctx) }),
  });
}

/**
 * Builds the guard, HTTP client, renderer, robots checker and snapshot cache once and returns the
 * function that serves one request with them: the fetch itself, its log fields and its metrics.
 */
export function createFetchRunner(deps: FetchRouteDeps & { telemetry: Telemetry }): FetchRunner {
  const { config, telemetry } = deps;
  const clock = deps.clock ?? systemClock;
  const resolver = deps.resolver ?? systemResolver;
  const policy = fetchPolicy(config);
  const http = createHttpClient({ dialer: deps.dialer });
  const guarded = createGuardedClient({
    http,
    resolver,
    policy,
    limits: {
      timeoutMs: config.fetch.timeoutMs,
      connectTimeoutMs: config.fetch.connectTimeoutMs,
      maxBytes: config.fetch.maxResponseBytes,
      maxRedirects: config.fetch.maxRedirects,
    },
  });
  const pageStore = new DynamoPageStore({ client: deps.dynamo, tableName: config.store.tableName });
  const cache = new SnapshotCache({
    store: pageStore,
    clock,
    logger: { warn: (message, fields) => telemetry.warn(message, fields) },
    ttlSeconds: config.store.ttlSeconds,
    // A render may follow a whole plain fetch ("auto"), and waits for the page after loading it.
    leaseMs: 2 * config.fetch.timeoutMs + config.render.waitMs + LEASE_MARGIN_MS,
  });
  const renderer = deps.renderer ?? unavailableRenderer("Rendering is not configured on this server.");
  const render = (url: string, budgetMs: number | undefined, signal?: AbortSignal) => renderer.render(renderBudget(url, budgetMs, config), { signal });

  const robots = new RobotsChecker({
    mode: config.fetch.robots,
    // Its own client: robots.txt follows at most 5 redirects whatever WEBGATE_MAX_REDIRECTS says
    // (RFC 9309 §2.3.1.2), gets a shorter time limit than a page, and reads the first 500 KiB of
    // the file whatever its size (§2.5: a crawler MUST parse at least that much; past the page
    // size limit a longer file used to fail the request and count as "allow everything").
    guarded: createGuardedClient({
      http,
      resolver,
      policy,
      limits: {
        timeoutMs: Math.min(config.fetch.timeoutMs, ROBOTS_TIMEOUT_MS),
        connectTimeoutMs: config.fetch.connectTimeoutMs,
        maxBytes: ROBOTS_PARSE_LIMIT_BYTES,
        overLimit: "truncate",
        maxRedirects: 5,
      },
    }),
    store: new DynamoRobotsStore({ client: deps.dynamo, tableName: config.store.tableName, leases: pageStore }),
    clock,
    logger: { warn: (message, fields) => telemetry.warn(message, fields) },
    leaseMs: ROBOTS_TIMEOUT_MS + LEASE_MARGIN_MS,
  });
  const service = { guarded, render, cache, clock, policy, robots, converter: deps.converter, timeoutMs: config.fetch.timeoutMs, pdfMaxPages: config.fetch.pdfMaxPages, urlSecretCheck: config.fetch.urlSecretCheck };

  return async (input, ctx) => {
    // The requested host as written, logged before anything can fail (never path, query,
    // userinfo or a resolved address).
    ctx.addLogFields({ host: hostOf(input.url) });
    const { body, observation } = await fetchPage(input, { ...service, deadline: ctx.deadline });
    recordFetch(telemetry, ctx, body, observation);
    return body;
  };
}
