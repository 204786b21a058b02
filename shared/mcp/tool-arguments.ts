/**
 * Arguments of a `web_fetch` or `web_search` call that fail the tool's input schema answer the
 * same tool error as any other refusal: `isError: true`, the text an agent reads, and
 * `structuredContent` = the REST error object `{ code: "invalid_request", field, message,
 * retryable, request_id }`, with the REST route's own message (`Field "url": must not be empty`).
 *
 * Why here and not in the SDK: the SDK validates tool arguments itself and answers a tool result
 * whose only content is `MCP error -32602: Input validation error: …`, with no code an agent can
 * branch on, where /fetch and /search answer 400 `invalid_request` with a `field`. The check
 * uses the tools' own input schemas, so a call it lets through is one the SDK accepts.
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { CallToolRequestSchema, isJSONRPCRequest, type CallToolResult, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { toErrorBody } from "../errors";
import { invalidRequest } from "../middleware/parse-request";
import * as z from "../zod-mini";
import { answerEarly } from "./answer-early";
import { errorText } from "./tool-text";
import { webFetchInputSchema, webSearchInputSchema } from "./tool-schemas";

const TOOL_INPUTS: ReadonlyMap<string, z.core.$ZodType> = new Map<string, z.core.$ZodType>([
  ["web_fetch", webFetchInputSchema],
  ["web_search", webSearchInputSchema],
]);

/** A call refused for its arguments: the request's id, the tool, and the tool error result. */
export interface InvalidArguments {
  id: string | number;
  tool: string;
  result: CallToolResult;
}

/**
 * The refusal of a `tools/call` of a webgate tool whose arguments fail that tool's input schema;
 * undefined for valid arguments, any other message, an unknown tool, or params that are not a
 * valid `tools/call` (request-params.ts answers those -32602).
 */
export function checkToolArguments(message: JSONRPCMessage, requestId: string): InvalidArguments | undefined {
  if (!isJSONRPCRequest(message) || message.method !== "tools/call") return undefined;
  const call = CallToolRequestSchema.safeParse(message);
  if (!call.success) return undefined;
  const { name, arguments: args } = call.data.params;
  const schema = TOOL_INPUTS.get(name);
  if (schema === undefined) return undefined;
  const parsed = z.safeParse(schema, args ?? {});
  if (parsed.success) return undefined;
  const { body } = toErrorBody(invalidRequest(parsed.error), requestId);
  return { id: message.id, tool: name, result: { isError: true, content: [{ type: "text", text: errorText(body.error) }], structuredContent: body.error } };
}

/**
 * Puts {@link checkToolArguments} in front of the server on `transport` (call after the server's
 * `connect`, and before answerInvalidParams so that invalid params are answered first): a call
 * with invalid arguments is answered on the transport and never reaches the server.
 * `onInvalid` hears the tool of each call refused (for the log line).
 */
export function answerInvalidArguments(transport: Transport, requestId: string, onInvalid: (tool: string) => void = () => undefined): void {
  answerEarly(transport, (message) => {
    const invalid = checkToolArguments(message, requestId);
    if (invalid === undefined) return undefined;
    onInvalid(invalid.tool);
    return { jsonrpc: "2.0", id: invalid.id, result: invalid.result };
  });
}
