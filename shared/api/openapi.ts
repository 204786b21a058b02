/**
 * The OpenAPI 3.1 document of the API, generated from the same zod schemas that validate
 * requests and describe responses, so the document cannot drift from the code. A test feeds
 * real responses through the document's own schemas.
 */
import * as z from "zod";
import { ERROR_TABLE, type ErrorCode } from "../errors";
import { fetchRequestSchema, fetchResponseSchema } from "../fetch/schema";
import { searchRequestSchema, searchResponseSchema } from "../search/schema";
import { errorBodySchema, forbiddenBodySchema } from "./error-schema";

type JsonObject = Record<string, unknown>;

const FETCH_ERRORS: ErrorCode[] = [
  "invalid_request", "request_too_large", "rate_limited", "url_not_allowed", "host_not_allowed", "address_not_allowed", "dns_failed",
  "too_many_redirects", "redirect_without_location", "connect_failed", "upstream_timeout",
  "upstream_too_large", "upstream_status", "unsupported_content_type", "decode_failed",
  "snapshot_expired", "store_unavailable", "internal",
];

const SEARCH_ERRORS: ErrorCode[] = [
  "invalid_request", "request_too_large", "rate_limited", "query_looks_like_secret", "provider_not_configured", "search_not_configured",
  "provider_auth_failed", "provider_rate_limited", "provider_timeout", "provider_error",
  "provider_bad_response", "internal",
];

function schemaOf(schema: z.ZodType, io: "input" | "output"): JsonObject {
  const json = z.toJSONSchema(schema, { target: "draft-2020-12", io, unrepresentable: "any" }) as JsonObject;
  delete json.$schema;
  return json;
}

/** Error responses grouped by status, each listing the codes it can carry. */
function errorResponses(codes: ErrorCode[]): JsonObject {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) {
    const status = ERROR_TABLE[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const responses: JsonObject = {
    "403": {
      description: `Missing or wrong API key (API Gateway's own answer), or ${(byStatus.get(403) ?? []).join(", ")}.`,
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

const FETCH_QUERY_PARAMETERS = ["url", "start", "max_chars", "max_age", "snapshot_id", "main_content"] as const;

/** Where the API is served: `npm start` by default; the CDK passes the stage's relative URL. */
export interface OpenApiOptions {
  servers?: Array<{ url: string; description: string }>;
}

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
    servers: options.servers ?? [{ url: "http://127.0.0.1:8787", description: "npm start" }],
    security: [{ apiKey: [] }],
    paths: {
      "/fetch": {
        post: {
          operationId: "fetchPost",
          summary: "Read one web page as Markdown, a page of characters at a time.",
          requestBody: { required: true, content: { "application/json": { schema: { $ref: "#/components/schemas/FetchRequest" } } } },
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
          requestBody: { required: true, content: { "application/json": { schema: { $ref: "#/components/schemas/SearchRequest" } } } },
          responses: {
            "200": {
              description: "Results from the provider that answered.",
              content: { "application/json": { schema: { $ref: "#/components/schemas/SearchResponse" } } },
            },
            ...errorResponses(SEARCH_ERRORS),
          },
        },
      },
    },
    components: {
      securitySchemes: { apiKey: { type: "apiKey", in: "header", name: "x-api-key" } },
      schemas: {
        FetchRequest: fetchInput,
        FetchResponse: schemaOf(fetchResponseSchema, "output"),
        SearchRequest: schemaOf(searchRequestSchema, "input"),
        SearchResponse: schemaOf(searchResponseSchema, "output"),
        Error: schemaOf(errorBodySchema, "output"),
        Forbidden: schemaOf(forbiddenBodySchema, "output"),
      },
    },
  };
}
