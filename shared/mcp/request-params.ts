/**
 * Invalid params of the MCP methods webgate serves answer JSON-RPC's -32602 "Invalid params"
 * (JSON-RPC 2.0 §5.1) with a short message naming the fields, before the SDK sees the request.
 *
 * Why here and not in the SDK: its Protocol validates a request's params inside the method's
 * handler wrapper and answers any throw there as -32603 "Internal error" with the thrown message,
 * which for a validation failure is the validator's whole issue list as JSON (a `tools/call`
 * without `params`, an `initialize` with `params: {}`). A caller's mistake is not an internal
 * error, and the answer should not show the validator. The check uses the SDK's own request
 * schemas, so a request it lets through is one the SDK's handler accepts.
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  InitializeRequestSchema,
  ListToolsRequestSchema,
  PingRequestSchema,
  isJSONRPCRequest,
  type JSONRPCMessage,
  type JSONRPCRequest,
} from "@modelcontextprotocol/sdk/types.js";
import type { ZodType } from "zod";
import { answerEarly } from "./answer-early";

/**
 * The requests the server answers (the McpServer's tools, and the protocol's own initialize and
 * ping). Other methods are left to the SDK, which answers -32601 "Method not found" whatever
 * their params.
 */
const SERVED_REQUESTS: ReadonlyMap<string, ZodType> = new Map<string, ZodType>([
  ["initialize", InitializeRequestSchema],
  ["ping", PingRequestSchema],
  ["tools/list", ListToolsRequestSchema],
  ["tools/call", CallToolRequestSchema],
]);

/** At most this many problems are named; the message stays short whatever the input. */
const MAX_ISSUES = 3;
const MAX_MESSAGE_CHARS = 300;

/** A request refused for its params: its id and method, and the -32602 message. */
export interface InvalidParams {
  id: JSONRPCRequest["id"];
  method: string;
  message: string;
}

/**
 * The refusal of a request to a served method whose params fail its schema, with a message such
 * as `Invalid params for tools/call: params: expected object, received undefined`; undefined for
 * a valid request, a notification, a response, or a method the server does not serve.
 */
export function checkRequestParams(message: JSONRPCMessage): InvalidParams | undefined {
  if (!isJSONRPCRequest(message)) return undefined;
  const schema = SERVED_REQUESTS.get(message.method);
  if (schema === undefined) return undefined;
  const parsed = schema.safeParse(message);
  if (parsed.success) return undefined;
  const { issues } = parsed.error;
  const problems = issues.slice(0, MAX_ISSUES).map((issue) => `${issue.path.map(String).join(".")}: ${issue.message.replace(/^Invalid input: /, "")}`);
  const more = issues.length > MAX_ISSUES ? ` (and ${issues.length - MAX_ISSUES} more)` : "";
  const text = `Invalid params for ${message.method}: ${problems.join("; ")}${more}`;
  return { id: message.id, method: message.method, message: text.length > MAX_MESSAGE_CHARS ? `${text.slice(0, MAX_MESSAGE_CHARS - 1)}…` : text };
}

/**
 * Puts {@link checkRequestParams} in front of the server on `transport` (call after the server's
 * `connect`, which installs its `onmessage`): a request with invalid params is answered -32602 on
 * the transport and never reaches the server; every other message goes on unchanged.
 * `onInvalid` hears the method of each request refused (for the log line).
 */
export function answerInvalidParams(transport: Transport, onInvalid: (method: string) => void = () => undefined): void {
  answerEarly(transport, (message) => {
    const invalid = checkRequestParams(message);
    if (invalid === undefined) return undefined;
    onInvalid(invalid.method);
    return { jsonrpc: "2.0", id: invalid.id, error: { code: ErrorCode.InvalidParams, message: invalid.message } };
  });
}
