/**
 * The whole product on a laptop: the DynamoDB emulator in process (unless
 * `WEBGATE_DYNAMODB_ENDPOINT` names another endpoint), the page table, the /fetch and /search
 * handlers exactly as Lambda runs them, and the HTTP frontend. Used by `npm start`, the tests and
 * the benchmarks.
 */
import { createDynamoClient } from "../../shared/cache/dynamo-client";
import { loadConfig } from "../../shared/config";
import { createFetchHandler } from "../../shared/fetch/fetch-route";
import { systemResolver } from "../../shared/guard/guarded-lookup";
import { createSearchHandler } from "../../shared/search/search-route";
import { createSecretsManagerClient } from "../../shared/secrets/secrets-manager-client";
import type { Clock } from "../../shared/cache/snapshot-cache";
import type { Dialer, Resolver } from "../../shared/http/types";
import { createPowertoolsTelemetry, type Telemetry } from "../../shared/observability/telemetry";
import { buildOpenApiDocument } from "../../shared/api/openapi";
import { ensureTable, startLocalDynamo, type LocalDynamo } from "./local-dynamo";
import { startHttpFrontend, type RunningServer } from "./local-server";

export interface LocalApiOptions {
  env: Record<string, string | undefined>;
  /** Overrides PORT; 0 picks a free port. */
  port?: number;
  /** DNS for /fetch's caller URLs (the guard checks every answer). */
  resolver?: Resolver;
  dialer?: Dialer;
  /** DNS and dialer for the search providers (operator-configured endpoints). */
  providerResolver?: Resolver;
  providerDialer?: Dialer;
  clock?: Clock;
  telemetry?: Telemetry;
  log?: (line: Record<string, unknown>) => void;
  /**
   * Each request's time limit, as the Lambda timeout is in AWS. Default: the configured fetch
   * limit (`WEBGATE_FETCH_TIMEOUT_MS`), so every answer, a timeout included, comes within it.
   */
  invocationTimeoutMs?: number;
}

export interface LocalApi extends RunningServer {
  dynamoEndpoint: string;
  /** Stops the server, then the emulator. */
  close(): Promise<void>;
}

export async function startLocalApi(options: LocalApiOptions): Promise<LocalApi> {
  const config = loadConfig(options.env);
  let emulator: LocalDynamo | undefined;
  let endpoint = config.store.endpoint;
  if (endpoint === undefined) {
    emulator = await startLocalDynamo({ tableName: config.store.tableName });
    endpoint = emulator.endpoint;
  }
  const dynamo = emulator?.client ?? createDynamoClient({ endpoint });
  if (!emulator) await ensureTable(dynamo, config.store.tableName);

  const fetchHandler = createFetchHandler({
    config,
    dynamo,
    resolver: options.resolver,
    dialer: options.dialer,
    clock: options.clock,
    // Locally: the same JSON log line per request as in Lambda, without EMF metric documents.
    telemetry: options.telemetry ?? createPowertoolsTelemetry("webgate-fetch", { metrics: false }),
  });
  const searchHandler = createSearchHandler({
    config,
    resolver: options.providerResolver ?? systemResolver,
    dialer: options.providerDialer,
    telemetry: options.telemetry ?? createPowertoolsTelemetry("webgate-search", { metrics: false }),
    ...(config.search.secretArn === undefined ? {} : { secretsManager: createSecretsManagerClient() }),
  });
  const server = await startHttpFrontend({
    routes: [
      { method: "POST", path: "/fetch", handler: fetchHandler },
      { method: "GET", path: "/fetch", handler: fetchHandler },
      { method: "POST", path: "/search", handler: searchHandler },
    ],
    documents: { "/openapi.json": (serverUrl) => buildOpenApiDocument({ servers: [{ url: serverUrl, description: "npm start" }] }) },
    apiKeys: config.local.apiKeys,
    port: options.port ?? config.local.port,
    log: options.log,
    invocationTimeoutMs: options.invocationTimeoutMs ?? config.fetch.timeoutMs,
  });
  return {
    ...server,
    dynamoEndpoint: endpoint,
    close: async () => {
      await server.close();
      if (emulator) await emulator.close();
      else dynamo.destroy();
    },
  };
}
