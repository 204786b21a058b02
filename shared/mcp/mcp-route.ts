/**
 * Wires POST /mcp once per cold start: the /fetch and /search runners (same guard, cache,
 * providers and error table) → the MCP server → the SDK's Web-standard Streamable HTTP transport,
 * stateless and answering plain JSON. The same middy handler serves Lambda (API Gateway events)
 * and the local server, which turns its HTTP requests into the same events.
 *
 * Per request: the API Gateway event becomes a Web `Request`, a fresh server and transport
 * (stateless transports cannot be reused) answer it, and their `Response` becomes the proxy
 * result. Everything JSON-RPC (parse errors, unknown methods, tool argument failures, batches,
 * notifications) is the SDK's, except invalid params of a served method (request-params.ts:
 * -32602, where the SDK answers -32603 with its validator's dump); this file only adds what sits
 * around the transport:
 * - methods other than POST answer 405 (stateless, JSON only: no SSE stream on GET, no session
 *   to DELETE), before the transport could open a stream that would hold the function;
 * - an `Origin` check where the caller configures one (the local server: a browser page on
 *   another origin, e.g. after DNS rebinding, must not reach it; MCP transport specification);
 * - a deadline: a request whose answer never comes (e.g. a batch whose notification cancels its
 *   own request) is answered with a JSON-RPC error before the function's time runs out;
 * - an empty batch (`[]`), which the SDK answers 202 as if it held only notifications, answers
 *   400 with -32600 Invalid Request, as JSON-RPC 2.0 says.
 */
import type { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import type { SecretsManagerClient } from "@aws-sdk/client-secrets-manager";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { APIGatewayProxyEvent } from "aws-lambda";
import type { Clock } from "../clock";
import type { WebgateConfig } from "../config";
import { createFetchRunner } from "../fetch/fetch-route";
import type { Renderer } from "../render/renderer";
import type { DocumentConverter } from "../content/converter";
import type { Resolver } from "../guard/dns-resolver";
import type { Dialer } from "../http/types";
import { createApiHandler, type ApiHandler, type ApiResult } from "../middleware/api-handler";
import { headerOf } from "../middleware/parse-request";
import { createPowertoolsTelemetry, type Telemetry } from "../observability/telemetry";
import { createSearchRunner } from "../search/search-route";
import { createMcpServer } from "./mcp-server";
import { answerInvalidArguments } from "./tool-arguments";
import { answerInvalidParams } from "./request-params";

/** Largest JSON-RPC body read; tool calls are a few hundred bytes. Larger bodies get 413. */
export const MAX_MCP_BODY_BYTES = 65_536;

/** Time kept back from the request's deadline to write the deadline answer. */
const DEADLINE_MARGIN_MS = 250;

/** JSON-RPC's "server error" range, as the SDK's transport uses it for HTTP-level refusals. */
const TRANSPORT_ERROR_CODE = -32000;
/** The SDK's ErrorCode.RequestTimeout. */
const REQUEST_TIMEOUT_CODE = -32001;
/** JSON-RPC's Invalid Request. */
const INVALID_REQUEST_CODE = -32600;

export interface McpRouteDeps {
  config: WebgateConfig;
  dynamo: DynamoDBClient;
  /** Required when `config.search.secretArn` is set. */
  secretsManager?: Pick<SecretsManagerClient, "send">;
  /** DNS for caller URLs (web_fetch; the guard checks every answer). */
  resolver?: Resolver;
  dialer?: Dialer;
  /** DNS and dialer for the search providers (operator-configured endpoints). */
  providerResolver: Resolver;
  providerDialer?: Dialer;
  clock?: Clock;
  telemetry?: Telemetry;
  /** Renders pages for web_fetch's `render`, as for /fetch; without one, `render_unavailable`. */
  renderer?: Renderer;
  /** Where web_fetch converts pages, as for /fetch; default: in process. */
  converter?: DocumentConverter;
  /**
   * When set, a request whose `Origin` header is present and not in this list is refused with
   * 403 (browsers send Origin on every POST). A function so the local server can name its port
   * once it is listening. Unset in AWS: API Gateway requires the key and answers no CORS.
   */
  allowedOrigins?: () => readonly string[];
  /** Upper bound on one request's time, below the invocation's own deadline (tests shorten it). */
  deadlineMs?: number;
}

export function createMcpHandler(deps: McpRouteDeps): ApiHandler {
  const telemetry = deps.telemetry ?? createPowertoolsTelemetry("webgate-mcp");
  const runFetch = createFetchRunner({
    config: deps.config,
    dynamo: deps.dynamo,
    resolver: deps.resolver,
    dialer: deps.dialer,
    clock: deps.clock,
    telemetry,
    ...(deps.renderer === undefined ? {} : { renderer: deps.renderer }),
    ...(deps.converter === undefined ? {} : { converter: deps.converter }),
  });
  const runSearch = createSearchRunner({
    config: deps.config,
    resolver: deps.providerResolver,
    dialer: deps.providerDialer,
    telemetry,
    ...(deps.secretsManager === undefined ? {} : { secretsManager: deps.secretsManager }),
  });
  const maxRequestMs = deps.deadlineMs ?? Number.POSITIVE_INFINITY;

  return createApiHandler<APIGatewayProxyEvent>({
    route: "mcp",
    telemetry,
    parse: (event) => event,
    handle: async (event, ctx) => {
      if (event.httpMethod !== "POST") {
        return rpcError(405, TRANSPORT_ERROR_CODE, "Method not allowed: this stateless endpoint takes POST only (no SSE stream, no session).", { allow: "POST" });
      }
      const origin = headerOf(event, "origin");
      if (origin !== undefined && deps.allowedOrigins !== undefined && !deps.allowedOrigins().includes(origin)) {
        ctx.addLogFields({ refused: "origin" });
        return rpcError(403, TRANSPORT_ERROR_CODE, "Forbidden: this Origin may not use the endpoint.");
      }
      const server = createMcpServer(
        {
          fetch: (input) => runFetch(input, ctx),
          search: (input) => runSearch(input, ctx),
        },
        { requestId: ctx.requestId, addLogFields: (fields) => ctx.addLogFields(fields) },
      );
      const transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
        maxRequestBodySize: MAX_MCP_BODY_BYTES,
      });
      // The transport reports protocol-level problems (bad JSON, bad Accept…) here as well as in
      // its answer; only their kind goes to the log line, never the body.
      transport.onerror = (error) => ctx.addLogFields({ rpc_error: error.message.slice(0, 120) });
      await server.connect(transport);
      // Arguments a tool's schema refuses: the tool error with invalid_request and its field, as
      // /fetch and /search answer them, not the SDK's text-only "Input validation error".
      answerInvalidArguments(transport, ctx.requestId, (tool) => ctx.addLogFields({ tool, tool_code: "invalid_request" }));
      // Invalid params of a served method: -32602 with a short message, not the SDK's -32603.
      // Installed last, so it sees each message first.
      answerInvalidParams(transport, (method) => ctx.addLogFields({ rpc_error: `invalid params (${method})` }));
      // Inside the request's own deadline (shared/deadline.ts), with time kept to answer.
      const deadline = ctx.deadline.within({ reserveMs: DEADLINE_MARGIN_MS, maxMs: maxRequestMs });
      try {
        const expired = new Promise<"deadline">((resolve) => {
          if (deadline.signal.aborted) resolve("deadline");
          deadline.signal.addEventListener("abort", () => resolve("deadline"), { once: true });
        });
        const response = await Promise.race([transport.handleRequest(toRequest(event)), expired]);
        if (response === "deadline") {
          ctx.addLogFields({ refused: "deadline" });
          return rpcError(504, REQUEST_TIMEOUT_CODE, "The request did not complete in time.");
        }
        // The transport takes an empty batch for a batch of notifications only and answers 202;
        // JSON-RPC 2.0 makes it an Invalid Request, answered with one error object.
        if (response.status === 202 && isEmptyBatch(event)) {
          ctx.addLogFields({ rpc_error: "empty batch" });
          return rpcError(400, INVALID_REQUEST_CODE, "Invalid Request: an empty batch.");
        }
        return await fromResponse(response);
      } finally {
        deadline.dispose();
        await server.close();
      }
    },
  });
}

/**
 * The API Gateway event as the Web Request the transport reads. The URL is informational only
 * (the transport does not route), so a fixed origin is used: a Host header is caller-controlled.
 * A header value the Fetch API refuses is left out rather than failing the request.
 */
function toRequest(event: APIGatewayProxyEvent): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(event.headers ?? {})) {
    if (value === undefined) continue;
    try {
      headers.set(name, value);
    } catch {
      // Not a valid header name or value for the Fetch API: the transport would not read it.
    }
  }
  const raw = event.body ?? "";
  const body = event.isBase64Encoded ? Buffer.from(raw, "base64") : raw;
  return new Request("http://webgate.invalid/mcp", { method: "POST", headers, body });
}

/** Whether the request's body is the JSON array `[]` (the transport has already read it as JSON). */
function isEmptyBatch(event: APIGatewayProxyEvent): boolean {
  const raw = event.body ?? "";
  const text = event.isBase64Encoded ? Buffer.from(raw, "base64").toString("utf8") : raw;
  return /^\s*\[\s*\]\s*$/.test(text);
}

async function fromResponse(response: Response): Promise<ApiResult> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  return { body: undefined, headers, raw: { statusCode: response.status, body: await response.text() } };
}

/** A JSON-RPC error answer for a refusal that happens before the transport reads the request. */
function rpcError(statusCode: number, code: number, message: string, headers: Record<string, string> = {}): ApiResult {
  return {
    body: undefined,
    headers: { "content-type": "application/json", ...headers },
    raw: { statusCode, body: JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }) },
  };
}
