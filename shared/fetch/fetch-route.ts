/**
 * Wires /fetch once per cold start: configuration → guard, HTTP client, page store, cache →
 * the middy handler. Tests and the local server call {@link createFetchHandler} with their own
 * resolver, dialer, clock or telemetry; Lambda uses the defaults.
 */
import type { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import type { APIGatewayProxyEvent } from "aws-lambda";
import type { WebgateConfig } from "../config";
import { DynamoPageStore } from "../cache/dynamo-page-store";
import { SnapshotCache, type Clock } from "../cache/snapshot-cache";
import { createGuardedClient } from "../guard/guarded-get";
import { systemResolver } from "../guard/guarded-lookup";
import { resolvePolicy } from "../guard/policy";
import { createHttpClient } from "../http/http-client";
import type { Dialer, Resolver } from "../http/types";
import { createApiHandler, type ApiHandler } from "../middleware/api-handler";
import { parseJsonBody, queryObject, validate } from "../middleware/parse-request";
import { METRIC } from "../observability/metric-names";
import { createPowertoolsTelemetry, type Telemetry } from "../observability/telemetry";
import { RobotsChecker } from "../robots/robots-checker";
import { DynamoRobotsStore } from "../robots/robots-store";
import { fetchPage } from "./fetch-service";
import { fetchRequestSchema, fromQuery, type FetchRequest } from "./schema";

export interface FetchRouteDeps {
  config: WebgateConfig;
  dynamo: DynamoDBClient;
  resolver?: Resolver;
  dialer?: Dialer;
  clock?: Clock;
  telemetry?: Telemetry;
}

/** Time a conversion and a store write may add to the fetch's own limit before a lease lapses. */
const LEASE_MARGIN_MS = 5_000;
/** The whole robots.txt exchange, redirects included. */
const ROBOTS_TIMEOUT_MS = 10_000;

export const systemClock: Clock = { now: () => Date.now() };

export function createFetchHandler(deps: FetchRouteDeps): ApiHandler {
  const { config } = deps;
  const telemetry = deps.telemetry ?? createPowertoolsTelemetry("webgate-fetch");
  const clock = deps.clock ?? systemClock;
  const resolver = deps.resolver ?? systemResolver;
  const policy = resolvePolicy({
    allowLocalhost: config.fetch.allowLocalhost,
    allowedPorts: config.fetch.allowedPorts,
    allowedDomains: config.fetch.allowedDomains,
    blockedDomains: config.fetch.blockedDomains,
    blockedCidrs: config.fetch.blockedCidrs,
  });
  const http = createHttpClient({ resolver, dialer: deps.dialer });
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
    leaseMs: config.fetch.timeoutMs + LEASE_MARGIN_MS,
  });

  const robots = new RobotsChecker({
    mode: config.fetch.robots,
    // Its own client: robots.txt follows at most 5 redirects whatever WEBGATE_MAX_REDIRECTS says
    // (RFC 9309 §2.3.1.2), and gets a shorter time limit than a page.
    guarded: createGuardedClient({
      http,
      resolver,
      policy,
      limits: {
        timeoutMs: Math.min(config.fetch.timeoutMs, ROBOTS_TIMEOUT_MS),
        connectTimeoutMs: config.fetch.connectTimeoutMs,
        maxBytes: config.fetch.maxResponseBytes,
        maxRedirects: 5,
      },
    }),
    store: new DynamoRobotsStore({ client: deps.dynamo, tableName: config.store.tableName, leases: pageStore }),
    clock,
    logger: { warn: (message, fields) => telemetry.warn(message, fields) },
    leaseMs: ROBOTS_TIMEOUT_MS + LEASE_MARGIN_MS,
  });
  const service = { guarded, cache, clock, policy, robots, timeoutMs: config.fetch.timeoutMs, pdfMaxPages: config.fetch.pdfMaxPages };

  return createApiHandler<FetchRequest>({
    route: "fetch",
    telemetry,
    parse: parseFetchRequest,
    handle: async (input, ctx) => {
      const { body, observation } = await fetchPage(input, { ...service, deadline: ctx.deadline });
      ctx.addLogFields({ cache: observation.cache, bytes: observation.bytes, final_host: observation.finalHost });
      const cacheMetric = { hit: METRIC.cacheHit, miss: METRIC.cacheMiss, bypass: METRIC.cacheBypass }[observation.cache];
      telemetry.metric(cacheMetric, "Count", 1);
      if (observation.originMs !== undefined) telemetry.metric(METRIC.originLatency, "Milliseconds", observation.originMs);
      if (observation.originBytes !== undefined) telemetry.metric(METRIC.originBytes, "Bytes", observation.originBytes);
      return { body };
    },
  });
}

/** POST takes a JSON body; GET takes the same fields as query parameters. */
export function parseFetchRequest(event: APIGatewayProxyEvent): FetchRequest {
  if (event.httpMethod === "GET") return validate(fetchRequestSchema, fromQuery(queryObject(event)));
  return parseJsonBody(event, fetchRequestSchema);
}
