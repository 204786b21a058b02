/**
 * Request parsing shared by the routes: JSON bodies and query strings validated by a zod schema.
 * Every failure is `invalid_request` (400) with a message that names the field, and a `field`
 * detail a program can read, except a body over {@link MAX_REQUEST_BODY_BYTES}, which is
 * `request_too_large` (413) as API Gateway's and WAF's size refusals are. Nothing here ever
 * produces a 500 for bad input.
 */
import type { APIGatewayProxyEvent } from "aws-lambda";
import { WebgateError } from "../errors";
import * as z from "../zod-mini";

/** Request bodies are small JSON objects; anything larger is refused before parsing. */
export const MAX_REQUEST_BODY_BYTES = 16_384;

export function parseJsonBody<T>(event: APIGatewayProxyEvent, schema: z.core.$ZodType<T>): T {
  const contentType = headerOf(event, "content-type");
  const mediaType = contentType?.split(";")[0]?.trim().toLowerCase();
  if (mediaType !== "application/json" && !(mediaType?.endsWith("+json") ?? false)) {
    throw new WebgateError("invalid_request", "The request body must be JSON, sent with Content-Type: application/json.", {
      details: { field: "content-type" },
    });
  }
  const raw = event.body ?? "";
  const text = event.isBase64Encoded ? Buffer.from(raw, "base64").toString("utf8") : raw;
  if (Buffer.byteLength(text, "utf8") > MAX_REQUEST_BODY_BYTES) {
    throw new WebgateError("request_too_large", `The request body is larger than ${MAX_REQUEST_BODY_BYTES} bytes.`, {
      details: { field: "body" },
    });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new WebgateError("invalid_request", "The request body is not valid JSON.", { details: { field: "body" } });
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new WebgateError("invalid_request", "The request body must be a JSON object.", { details: { field: "body" } });
  }
  return validate(schema, value);
}

/**
 * Query-string parameters as a plain object. A parameter given twice is refused: silently
 * picking one would hide a caller's mistake.
 */
export function queryObject(event: APIGatewayProxyEvent): Record<string, string> {
  const multi = event.multiValueQueryStringParameters ?? {};
  for (const [name, values] of Object.entries(multi)) {
    if (values && values.length > 1) {
      throw new WebgateError("invalid_request", `The query parameter "${name}" is given more than once.`, { details: { field: name } });
    }
  }
  const single = event.queryStringParameters ?? {};
  return Object.fromEntries(Object.entries(single).filter((entry): entry is [string, string] => entry[1] !== undefined));
}

/** `value` parsed by `schema` (a schema of either zod API, classic or mini), or `invalid_request`. */
export function validate<T>(schema: z.core.$ZodType<T>, value: unknown): T {
  const result = z.safeParse(schema, value);
  if (result.success) return result.data;
  throw invalidRequest(result.error);
}

/** The first zod issue, phrased for a caller: which field, and what is wrong with it. */
export function invalidRequest(error: z.core.$ZodError): WebgateError {
  const issue = error.issues[0];
  if (!issue) return new WebgateError("invalid_request", "The request is invalid.");
  if (issue.code === "unrecognized_keys") {
    const keys = issue.keys.map((k) => `"${k}"`).join(", ");
    return new WebgateError("invalid_request", `Unknown field${issue.keys.length > 1 ? "s" : ""}: ${keys}.`, {
      details: { field: issue.keys[0] ?? null },
    });
  }
  const field = issue.path.map(String).join(".");
  const name = field === "" ? "request" : `"${field}"`;
  return new WebgateError("invalid_request", `Field ${name}: ${issue.message}`, { details: { field: field === "" ? null : field } });
}

export function headerOf(event: APIGatewayProxyEvent, name: string): string | undefined {
  const headers = event.headers ?? {};
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === wanted && value !== undefined) return value;
  }
  return undefined;
}
