/**
 * The whole product on a laptop: the DynamoDB emulator in process (unless
 * `WEBGATE_DYNAMODB_ENDPOINT` names another endpoint), the page table, the /fetch and /search
 * handlers exactly as Lambda runs them, and the HTTP frontend. Used by `npm start`, the tests and
 * the benchmarks.
 */
import { createDynamoClient } from "../../shared/cache/dynamo-client";
import { ENV, loadConfig } from "../../shared/config";
import { createWorkerConverter } from "../../shared/content/worker-converter";
import type { DocumentConverter } from "../../shared/content/converter";
import { createFetchHandler, fetchPolicy } from "../../shared/fetch/fetch-route";
import { createMcpHandler } from "../../shared/mcp/mcp-route";
import { createLocalRenderer, type LocalRenderer } from "../../shared/render/local-renderer";
import { systemResolver } from "../../shared/guard/guarded-lookup";
import { createSearchHandler } from "../../shared/search/search-route";
import { createSecretsManagerClient } from "../../shared/secrets/secrets-manager-client";
import type { Clock } from "../../shared/clock";
import type { Resolver } from "../../shared/guard/dns-resolver";
import type { Dialer } from "../../shared/http/types";
import { createPowertoolsTelemetry, type Telemetry } from "../../shared/observability/telemetry";
import { buildOpenApiDocument } from "../../shared/api/openapi";
import { ensureTable, startLocalDynamo, type LocalDynamo } from "./local-dynamo";
import { StartupError, startHttpFrontend, type RunningServer } from "./local-server";

export interface LocalApiOptions {
  env: Record<string, string | undefined>;
  /** Overrides PORT; 0 picks a free port. */
  port?: number;
  /** DNS for /fetch's caller URLs (the guard checks every answer). */
  resolver?: Resolver;
  dialer?: Dialer;
  /** Rendering (`render`); default: this machine's Chromium, or `render_unavailable` without one. */
  renderer?: LocalRenderer;
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
  /** Requests handled at once (local-server.ts's `maxConcurrentRequests`); default its cap of 32. */
  maxConcurrentRequests?: number;
  /**
   * Where /fetch and web_fetch convert pages. Default: worker threads (worker-converter.ts), so
   * that one long conversion does not hold up the other requests on this one event loop.
   */
  converter?: DocumentConverter;
  /** Start every conversion worker at start-up, in the background (one is always loaded before the server listens). */
  warmConverter?: boolean;
}

export interface LocalApi extends RunningServer {
  dynamoEndpoint: string;
  /** The Chromium `render` uses, or undefined when none was found. */
  chromium: string | undefined;
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
  if (!emulator) {
    try {
      await ensureTable(dynamo, config.store.tableName);
    } catch (error) {
      dynamo.destroy();
      throw unreachableStore(endpoint, error);
    }
  }

  const renderer =
    options.renderer ??
    createLocalRenderer({ config, policy: fetchPolicy(config), resolver: options.resolver ?? systemResolver, dialer: options.dialer });
  const workers = options.converter === undefined ? createWorkerConverter() : undefined;
  const converter = options.converter ?? workers!;
  // One worker loaded before the server listens (from source a cold one takes a second or two,
  // which a short request limit would spend); `warmConverter` starts the others too.
  await workers?.warm(1);
  if (options.warmConverter === true) void workers?.warm();
  const fetchHandler = createFetchHandler({
    config,
    dynamo,
    converter,
    resolver: options.resolver,
    dialer: options.dialer,
    renderer,
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
  // The MCP endpoint takes requests from pages of its own origin only (the MCP transport
  // specification: a page elsewhere, e.g. after DNS rebinding, must not reach a local server).
  let origins: string[] = [];
  const mcpHandler = createMcpHandler({
    config,
    dynamo,
    resolver: options.resolver,
    dialer: options.dialer,
    providerResolver: options.providerResolver ?? systemResolver,
    providerDialer: options.providerDialer,
    clock: options.clock,
    renderer,
    converter,
    telemetry: options.telemetry ?? createPowertoolsTelemetry("webgate-mcp", { metrics: false }),
    allowedOrigins: () => origins,
    ...(config.search.secretArn === undefined ? {} : { secretsManager: createSecretsManagerClient() }),
  });
  let server: RunningServer;
  try {
    server = await startHttpFrontend({
      routes: [
        { method: "POST", path: "/fetch", handler: fetchHandler },
        { method: "GET", path: "/fetch", handler: fetchHandler },
        { method: "POST", path: "/search", handler: searchHandler },
        // GET and DELETE reach the handler too, which answers 405 as the transport allows (and as
        // the function does behind API Gateway).
        { method: "POST", path: "/mcp", handler: mcpHandler },
        { method: "GET", path: "/mcp", handler: mcpHandler },
        { method: "DELETE", path: "/mcp", handler: mcpHandler },
      ],
      documents: { "/openapi.json": (serverUrl) => buildOpenApiDocument({ servers: [{ url: serverUrl, description: "npm start" }] }) },
      apiKeys: config.local.apiKeys,
      port: options.port ?? config.local.port,
      log: options.log,
      invocationTimeoutMs: options.invocationTimeoutMs ?? config.fetch.timeoutMs,
      ...(options.maxConcurrentRequests === undefined ? {} : { maxConcurrentRequests: options.maxConcurrentRequests }),
    });
  } catch (error) {
    // The emulator (or the client) must not keep the process alive after a failed start.
    await workers?.close();
    if (emulator) await emulator.close();
    else dynamo.destroy();
    throw error;
  }
  origins = ["127.0.0.1", "localhost", "[::1]"].map((host) => `http://${host}:${server.port}`);
  return {
    ...server,
    dynamoEndpoint: endpoint,
    chromium: renderer.executable,
    close: async () => {
      await server.close();
      await renderer.close();
      await workers?.close();
      if (emulator) await emulator.close();
      else dynamo.destroy();
    },
  };
}

/** The endpoint's origin only (never a path or credentials), and the network error's code. */
function unreachableStore(endpoint: string, error: unknown): StartupError {
  let where = "the configured endpoint";
  try {
    where = new URL(endpoint).origin;
  } catch {
    // An endpoint that is not a URL is named by the variable alone.
  }
  const code = findCode(error);
  return new StartupError(
    `The DynamoDB endpoint in ${ENV.DYNAMODB_ENDPOINT} (${where}) cannot be used${code === undefined ? "" : ` (${code})`}. Start it, or unset ${ENV.DYNAMODB_ENDPOINT} to use the in-process emulator.`,
    { cause: error },
  );
}

function findCode(error: unknown): string | undefined {
  for (let current = error, depth = 0; current instanceof Error && depth < 5; current = current.cause, depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string") return code;
    if (current.name !== "Error" && current.name !== "StartupError") return current.name;
  }
  return undefined;
}
