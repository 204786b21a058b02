/**
 * JSON-RPC 2.0 envelopes as the OpenAPI document describes POST /mcp (documentation only: the MCP
 * SDK parses and answers the messages itself).
 */
import * as z from "../zod-mini";

const id = z.described(z.union([z.string(), z.number().check(z.int())]), "The request id; absent on notifications.");

/** A request or notification sent to /mcp (e.g. initialize, tools/list, tools/call). */
export const jsonRpcMessageSchema = z.object({
  jsonrpc: z.literal("2.0"),
  id: z.optional(id),
  method: z.described(z.string(), "initialize, ping, tools/list, tools/call, notifications/initialized…"),
  params: z.optional(z.record(z.string(), z.unknown())),
});

const rpcError = z.object({
  code: z.described(
    z.number().check(z.int()),
    "JSON-RPC error code: -32700 parse error, -32601 unknown method, -32602 bad params, -32000 transport refusal, -32001 timeout.",
  ),
  message: z.string(),
  data: z.optional(z.unknown()),
});

/** The answer to one request: a result or an error, with the request's id. */
export const jsonRpcResponseSchema = z.union([
  z.object({ jsonrpc: z.literal("2.0"), id, result: z.record(z.string(), z.unknown()) }),
  z.object({ jsonrpc: z.literal("2.0"), id: z.nullable(id), error: rpcError }),
]);

/** An HTTP-level refusal of the transport (id null): bad JSON, wrong headers, too large, Origin. */
export const jsonRpcErrorAnswerSchema = z.object({ jsonrpc: z.literal("2.0"), id: z.null(), error: rpcError });
