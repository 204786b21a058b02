/**
 * The /fetch request out of an API Gateway event: the same schema for both forms, so POST and GET
 * accept exactly the same requests.
 */
import type { APIGatewayProxyEvent } from "aws-lambda";
import { WebgateError, isWebgateError } from "../errors";
import { parseJsonBody, queryObject, validate } from "../middleware/parse-request";
import { fetchRequestSchema, fromQuery, type FetchRequest } from "./schema";

/**
 * POST takes a JSON body; GET takes the same fields as query parameters.
 *
 * @throws WebgateError `invalid_request` (with the offending field) or `request_too_large`, as
 *   the shared request parsing reports them.
 */
export function parseFetchRequest(event: APIGatewayProxyEvent): FetchRequest {
  if (event.httpMethod !== "GET") return parseJsonBody(event, fetchRequestSchema);
  const query = queryObject(event);
  try {
    return validate(fetchRequestSchema, fromQuery(query));
  } catch (error) {
    throw withQueryHint(error, query);
  }
}

/**
 * `GET /fetch?url=https://example.com/?a=1&b=2` splits the page's own query at its `&`: `b` then
 * looks like an unknown field of /fetch. When the url parameter has a query of its own, the
 * message says how to send it whole.
 */
function withQueryHint(error: unknown, query: Record<string, string>): unknown {
  if (!isWebgateError(error) || error.code !== "invalid_request" || !error.message.startsWith("Unknown field")) return error;
  if (!(query.url ?? "").includes("?")) return error;
  return new WebgateError("invalid_request", `${error.message} If it belongs to the page's own URL, percent-encode that URL in the url parameter (its & as %26).`, {
    cause: error,
    details: error.details,
  });
}
