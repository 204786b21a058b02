/**
 * The OpenAPI 3.1 document of the API, generated from the same zod schemas that validate
 * requests and describe responses, so the document cannot drift from the code. A test feeds
 * real responses through the document's own schemas.
 */
import * as z from "../zod-mini";
import { ERROR_TABLE, type ErrorCode } from "../errors";
import { fetchRequestSchema, fetchResponseSchema } from "../fetch/schema";
import { searchRequestSchema, searchResponseSchema } from "../search/schema";
import { errorBodySchema, forbiddenBodySchema } from "./error-schema";
import { jsonRpcErrorAnswerSchema, jsonRpcMessageSchema, jsonRpcResponseSchema } from "./json-rpc-schema";

type JsonObject = Record<string, unknown>;

/**
 * Codes every route can answer besides its own: the gateway's (or the local server's) size limit,
 * routing and throttling answers, and the catch-all.
 */
const COMMON_ERRORS: ErrorCode[] = ["request_too_large", "not_found", "method_not_allowed", "rate_limited", "internal"];

const FETCH_ERRORS: ErrorCode[] = [
  "invalid_request", "url_not_allowed", "host_not_allowed", "address_not_allowed", "dns_failed",
  "too_many_redirects", "redirect_without_location", "connect_failed", "upstream_timeout",
  "upstream_too_large", "upstream_status", "unsupported_content_type", "decode_failed",
  "no_readable_content", "snapshot_expired", "store_unavailable", "render_unavailable",
];

const SEARCH_ERRORS: ErrorCode[] = [
  "invalid_request", "query_looks_like_secret", "provider_not_configured", "search_not_configured",
  "provider_auth_failed", "provider_rate_limited", "provider_timeout", "provider_error",
  "provider_bad_response",
];

function schemaOf(schema: z.core.$ZodType, io: "input" | "output"): JsonObject {
  const json = z.toJSONSchema(schema, { target: "draft-2020-12", io, unrepresentable: "any" }) as JsonObject;
  delete json.$schema;
  return json;
}

/** Error responses grouped by status, each listing the codes it can carry. */
function errorResponses(routeCodes: ErrorCode[]): JsonObject {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of [...routeCodes, ...COMMON_ERRORS]) {
    const status = ERROR_TABLE[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const forbiddenCodes = byStatus.get(403) ?? [];
  const responses: JsonObject = {
    "403": {
      description: `Missing or wrong API key (API Gateway's own answer)${forbiddenCodes.length > 0 ? `, or error codes: ${forbiddenCodes.join(", ")}` : ""}.`,
      content: {
        "application/json": {
          schema: { oneOf: [{ $ref: "#/components/schemas/Forbidden" }, { $ref: "#/components/schemas/Error" }] },
        },
      },
    },
  };
  for (const [status, list] of [...byStatus].sort((a, b) => a[0] - b[0])) {
    if (status === 403) continue;
    responses[String(status)] = {
      description: `Error codes: ${list.join(", ")}.`,
      content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
    };
  }
  return responses;
}

const FETCH_QUERY_PARAMETERS = ["url", "start", "max_chars", "max_age", "snapshot_id", "main_content", "format", "render"] as const;

export interface OpenApiOptions {
  /** Where the API is served: the local server passes its own URL, a deployment its stage URL. */
  servers?: Array<{ url: string; description: string }>;
}

/** The document's `servers` when the caller names none: `npm start` on its default port. */
export const DEFAULT_SERVERS = [{ url: "http://127.0.0.1:8787", description: "npm start" }];

export function buildOpenApiDocument(options: OpenApiOptions = {}): JsonObject {
  const fetchInput = schemaOf(fetchRequestSchema, "input");
  const fetchProperties = (fetchInput.properties ?? {}) as Record<string, JsonObject>;
  const fetchOk = {
    description: "A page of the snapshot's content.",
    content: { "application/json": { schema: { $ref: "#/components/schemas/FetchResponse" } } },
  };
  return {
    openapi: "3.1.0",
    info: {
      title: "webgate",
      version: "0.1.0",
      description:
        "Guarded web reader and web search for AI agents. Every route needs an API key in the x-api-key header when keys are configured.",
    },
    servers: options.servers ?? DEFAULT_SERVERS,
    security: [{ apiKey: [] }],
    paths: {
      "/fetch": {
        post: {
          operationId: "fetchPost",
          summary: "Read one web page as Markdown, a page of characters at a time.",
          requestBody: { $ref: "#/components/requestBodies/FetchRequest" },
          responses: { "200": fetchOk, ...errorResponses(FETCH_ERRORS) },
        },
        get: {
          operationId: "fetchGet",
          summary: "The same as POST /fetch, with the fields as query parameters.",
          parameters: FETCH_QUERY_PARAMETERS.map((name) => ({
            name,
            in: "query",
            required: name === "url",
            schema: fetchProperties[name] ?? {},
          })),
          responses: { "200": fetchOk, ...errorResponses(FETCH_ERRORS) },
        },
      },
      "/search": {
        post: {
          operationId: "search",
          summary: "Search the web through the configured provider.",
          requestBody: { $ref: "#/components/requestBodies/SearchRequest" },
          responses: {
            "200": {
              description: "Results from the provider that answered.",
              content: { "application/json": { schema: { $ref: "#/components/schemas/SearchResponse" } } },
            },
            ...errorResponses(SEARCH_ERRORS),
          },
        },
      },
      "/mcp": mcpPath(),
    },
    components: {
      securitySchemes: { apiKey: { type: "apiKey", in: "header", name: "x-api-key" } },
      // Request bodies live under requestBodies, not schemas: a field with a default is optional
      // to send, and generators (openapi-typescript's defaultNonNullable) make a defaulted field
      // required in a schema component but not in a request body.
      requestBodies: {
        FetchRequest: { required: true, content: { "application/json": { schema: fetchInput } } },
        SearchRequest: { required: true, content: { "application/json": { schema: schemaOf(searchRequestSchema, "input") } } },
      },
      schemas: {
        FetchResponse: schemaOf(fetchResponseSchema(), "output"),
        SearchResponse: schemaOf(searchResponseSchema, "output"),
        Error: schemaOf(errorBodySchema, "output"),
        Forbidden: schemaOf(forbiddenBodySchema, "output"),
        JsonRpcMessage: schemaOf(jsonRpcMessageSchema, "input"),
        JsonRpcResponse: schemaOf(jsonRpcResponseSchema, "output"),
        JsonRpcError: schemaOf(jsonRpcErrorAnswerSchema, "output"),
      },
    },
  };
}

/**
 * POST /mcp: the MCP Streamable HTTP transport (stateless, JSON answers). Its messages are
 * JSON-RPC 2.0; what the tools take and return is listed by the endpoint itself (`tools/list`),
 * derived from the FetchRequest/FetchResponse and SearchRequest/SearchResponse schemas here.
 */
function mcpPath(): JsonObject {
  const rpc = (ref: string) => ({ "application/json": { schema: { $ref: `#/components/schemas/${ref}` } } });
  const rpcOrBatch = (ref: string) => ({
    "application/json": { schema: { oneOf: [{ $ref: `#/components/schemas/${ref}` }, { type: "array", items: { $ref: `#/components/schemas/${ref}` } }] } },
  });
  const notOffered = {
    summary: "Not offered: the endpoint is stateless and answers in JSON (no SSE stream, no session).",
    responses: withGatewayAnswers({ "405": { description: "Method not allowed (Allow: POST).", content: rpc("JsonRpcError") } }),
  };
  return {
    post: {
      operationId: "mcp",
      summary: "MCP endpoint (Streamable HTTP, stateless, JSON answers) with the tools web_fetch and web_search.",
      description:
        "Send JSON-RPC 2.0 messages with `Accept: application/json, text/event-stream`. No session: every request stands alone (initialize is optional). " +
        "A refused or failed tool call is a result with isError true whose structuredContent is the error object of the error table.",
      requestBody: { required: true, content: rpcOrBatch("JsonRpcMessage") },
      responses: withGatewayAnswers({
        "200": { description: "The JSON-RPC answer(s): a result or a JSON-RPC error (unknown method, bad params).", content: rpcOrBatch("JsonRpcResponse") },
        "202": { description: "Accepted: the body held only notifications or responses; no content." },
        "400": { description: "Not JSON, not a JSON-RPC message, or an unsupported MCP-Protocol-Version header.", content: rpc("JsonRpcError") },
        "403": { description: "On the local server: an Origin that is not the server's own.", content: rpc("JsonRpcError") },
        "406": { description: "The Accept header does not list both application/json and text/event-stream.", content: rpc("JsonRpcError") },
        "413": { description: "The body is larger than 64 KiB.", content: rpc("JsonRpcError") },
        "415": { description: "The Content-Type is not application/json.", content: rpc("JsonRpcError") },
        "504": { description: "The request did not complete within the function's time.", content: rpc("JsonRpcError") },
      }),
    },
    get: { operationId: "mcpGet", ...notOffered },
    delete: { operationId: "mcpDelete", ...notOffered },
  };
}

type ResponseObject = { description: string; content?: { "application/json": { schema: JsonObject } } };

/**
 * The endpoint's own answers merged with the ones given before the function runs (API Gateway's
 * or the local server's key check, size limit, routing, throttling and catch-all, in the REST
 * error shape): where both can answer a status, either body is documented.
 */
function withGatewayAnswers(own: Record<string, ResponseObject>): Record<string, ResponseObject> {
  const gateway = errorResponses([]) as Record<string, ResponseObject>;
  const merged: Record<string, ResponseObject> = { ...gateway };
  const schemasOf = (r: ResponseObject): JsonObject[] => {
    const schema = r.content?.["application/json"].schema;
    if (schema === undefined) return [];
    return Array.isArray(schema.oneOf) ? (schema.oneOf as JsonObject[]) : [schema];
  };
  for (const [status, answer] of Object.entries(own)) {
    const before = gateway[status];
    if (before === undefined || answer.content === undefined) {
      merged[status] = answer;
      continue;
    }
    merged[status] = {
      description: `${answer.description} Before the function runs: ${before.description}`,
      content: { "application/json": { schema: { oneOf: [...schemasOf(before), ...schemasOf(answer)] } } },
    };
  }
  return Object.fromEntries(Object.entries(merged).sort(([a], [b]) => Number(a) - Number(b)));
}
