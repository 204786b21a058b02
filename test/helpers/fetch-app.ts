import type http from "node:http";
import type { APIGatewayProxyResult } from "aws-lambda";
import { loadConfig } from "../../shared/config";
import { createFetchHandler } from "../../shared/fetch/fetch-route";
import { createMemoryTelemetry, type MemoryTelemetry } from "../../shared/observability/telemetry";
import type { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { afterAll, beforeAll } from "vitest";
import { createTestTable, startTestDynamo, type LocalDynamo } from "./dynalite";
import { apiGatewayEvent, lambdaContext, type EventInput } from "./apigw-event";
import { startOrigin, type Origin } from "./origin";
import { MapResolver, RoutingDialer } from "./test-network";

/** A clock tests move by hand. */
export class ManualClock {
  constructor(public ms = Date.parse("2026-11-29T12:00:00Z")) {}
  now(): number {
    return this.ms;
  }
  advance(seconds: number): void {
    this.ms += seconds * 1000;
  }
}

export interface Site {
  [path: string]: (req: http.IncomingMessage, res: http.ServerResponse) => void;
}

/**
 * The /fetch handler on a real page store, in front of a scripted origin that public-looking
 * names resolve to (through the fake resolver) and that the routing dialer reaches on loopback.
 */
export async function startFetchApp(options: { dynamo: DynamoDBClient; tableName: string; env?: Record<string, string> }) {
  let site: Site = {};
  const origin: Origin = await startOrigin((req, res) => {
    const route = site[req.url ?? ""];
    if (route) route(req, res);
    else res.writeHead(404, { "content-type": "text/html" }).end("<title>missing</title>not here");
  });
  const resolver = new MapResolver({ "site.example.com": ["93.184.215.14"], "other.example.org": ["93.184.215.34"], "private.example.net": ["10.1.2.3"] });
  const dialer = new RoutingDialer({ plain: origin.port });
  const clock = new ManualClock();
  const telemetry: MemoryTelemetry = createMemoryTelemetry();
  // robots.txt is off unless a test asks for it: its own request per origin would change what the
  // other tests count (origin requests, dials); test/integration/fetch/robots.test.ts covers it.
  // The fetch limit stays at its 30 s default: it is a wall-clock budget for the origin and for
  // reading a PDF (pdf.js starting in a worker), and a loaded machine took more than 5 s for a
  // small PDF. Tests about the limit set their own WEBGATE_FETCH_TIMEOUT_MS.
  const config = loadConfig({ WEBGATE_TABLE_NAME: options.tableName, WEBGATE_ROBOTS: "ignore", ...options.env });
  const handler = createFetchHandler({ config, dynamo: options.dynamo, resolver, dialer, clock, telemetry });
  const call = async (input: Omit<EventInput, "path"> & { path?: string }): Promise<{ res: APIGatewayProxyResult; json: any }> => {
    const res = await handler(apiGatewayEvent({ path: "/fetch", ...input }), lambdaContext());
    return { res, json: JSON.parse(res.body) };
  };
  return {
    origin,
    resolver,
    dialer,
    clock,
    telemetry,
    setSite: (next: Site) => (site = next),
    post: (body: object | string) => call({ method: "POST", body }),
    get: (query: Record<string, string | string[]>) => call({ method: "GET", query }),
    close: () => origin.close(),
  };
}

export type FetchApp = Awaited<ReturnType<typeof startFetchApp>>;

export interface FetchAppFixture {
  /** The app of the current test (after {@link FetchAppFixture.restart}). */
  readonly app: FetchApp;
  readonly dynamo: LocalDynamo;
  /** The current app's table. */
  readonly tableName: string;
  /** Closes the current app and starts another on a fresh table, with `env` over the defaults. */
  restart(env?: Record<string, string>): Promise<FetchApp>;
}

/**
 * One DynamoDB emulator per test file, and a /fetch app on a fresh table whenever the file
 * calls `restart` (typically in its `beforeEach`, and again in a test that needs another
 * environment). Closed after the file.
 */
export function useFetchApp(): FetchAppFixture {
  let dynamo: LocalDynamo | undefined;
  let app: FetchApp | undefined;
  let tableName = "";
  beforeAll(async () => {
    dynamo = await startTestDynamo();
  });
  afterAll(async () => {
    await app?.close();
    await dynamo?.close();
  });
  return {
    get app() {
      if (app === undefined) throw new Error("useFetchApp: call restart() first (e.g. in beforeEach)");
      return app;
    },
    get dynamo() {
      if (dynamo === undefined) throw new Error("useFetchApp: the emulator starts in beforeAll");
      return dynamo;
    },
    get tableName() {
      return tableName;
    },
    async restart(env = {}) {
      await app?.close();
      app = undefined;
      tableName = await createTestTable(this.dynamo.client);
      app = await startFetchApp({ dynamo: this.dynamo.client, tableName, env });
      return app;
    },
  };
}

/** A handler answering `body` with `status` and a content type (none when undefined). */
export function respond(type: string | undefined, body: string | Buffer, headers: Record<string, string> = {}, status = 200) {
  return (_req: http.IncomingMessage, res: http.ServerResponse) => {
    res.writeHead(status, { ...(type === undefined ? {} : { "content-type": type }), ...headers });
    res.end(body);
  };
}

export function html(body: string, headers: Record<string, string> = {}) {
  return (_req: http.IncomingMessage, res: http.ServerResponse) => {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8", ...headers });
    res.end(body);
  };
}
