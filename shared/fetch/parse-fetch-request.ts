/**
 * The /fetch request out of an API Gateway event: the same schema for both forms, so POST and GET
 * accept exactly the same requests.
 */
import type { APIGatewayProxyEvent } from "aws-lambda";
import { parseJsonBody, queryObject, validate } from "../middleware/parse-request";
import { fetchRequestSchema, fromQuery, type FetchRequest } from "./schema";

/**
 * POST takes a JSON body; GET takes the same fields as query parameters.
 *
 * @throws WebgateError `invalid_request` (with the offending field) or `request_too_large`, as
 *   the shared request parsing reports them.
 */
export function parseFetchRequest(event: APIGatewayProxyEvent): FetchRequest {
  if (event.httpMethod === "GET") return validate(fetchRequestSchema, fromQuery(queryObject(event)));
  return parseJsonBody(event, fetchRequestSchema);
}
