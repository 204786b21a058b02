/**
 * The /mcp Lambda handler as tests drive it: the whole middy handler on a real page store
 * (dynalite), fed API Gateway events. `fetchViaEvents` lets the MCP SDK's own client talk to it:
 * each HTTP request the client makes becomes an API Gateway event, and the proxy result becomes
 * the client's Response.
 */
import type { APIGatewayProxyResult } from "aws-lambda";
import type { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { loadConfig } from "../../shared/config";
import type { Resolver } from "../../shared/guard/dns-resolver";
import type { Dialer } from "../../shared/http/types";
import { createMcpHandler, type McpRouteDeps } from "../../shared/mcp/mcp-route";
import { createMemoryTelemetry } from "../../shared/observability/telemetry";
import { apiGatewayEvent, lambdaContext, type EventInput } from "./apigw-event";

export interface McpLambdaOptions {
  dynamo: DynamoDBClient;
  tableName: string;
  env?: Record<string, string>;
  resolver: Resolver;
  dialer?: Dialer;
  providerResolver: Resolver;
  extra?: Partial<McpRouteDeps>;
}

export function createMcpLambda(options: McpLambdaOptions) {
  const telemetry = createMemoryTelemetry();
  // The fetch limit at its 30 s default, as in test/helpers/fetch-app.ts: a wall-clock budget that
  // a loaded machine must not run out of in a test that is not about it.
  const config = loadConfig({ WEBGATE_TABLE_NAME: options.tableName, ...options.env });
  const handler = createMcpHandler({
    config,
    dynamo: options.dynamo,
    resolver: options.resolver,
    dialer: options.dialer,
    providerResolver: options.providerResolver,
    telemetry,
    ...options.extra,
  });
  const invoke = (input: Omit<EventInput, "path">): Promise<APIGatewayProxyResult> => handler(apiGatewayEvent({ path: "/mcp", ...input }), lambdaContext());

  /** A `fetch` for StreamableHTTPClientTransport that goes through API Gateway events. */
  const fetchViaEvents = async (url: string | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(url, init);
    const headers: Record<string, string> = {};
    request.headers.forEach((value, name) => {
      headers[name] = value;
    });
    const body = request.method === "POST" ? await request.text() : undefined;
    const result = await invoke({ method: request.method as EventInput["method"], headers, ...(body === undefined ? {} : { body }) });
    const responseHeaders = new Headers();
    for (const [name, value] of Object.entries(result.headers ?? {})) responseHeaders.set(name, String(value));
    return new Response(result.body === "" ? null : result.body, { status: result.statusCode, headers: responseHeaders });
  };
  return { handler, invoke, fetchViaEvents, telemetry };
}

/** The headers a Streamable HTTP client sends with a POST. */
export const MCP_POST_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" } as const;
