/**
 * Answers some messages on an MCP transport before the server sees them: the mechanism behind
 * request-params.ts (invalid params, -32602) and tool-arguments.ts (tool arguments the input
 * schema refuses). Call after the server's `connect`, which installs the transport's `onmessage`;
 * each call wraps the handler installed before it, so the last one installed screens first.
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

/** `answer` returns the reply for a message it handles itself, `undefined` to pass it on unchanged. */
export function answerEarly(transport: Transport, answer: (message: JSONRPCMessage) => JSONRPCMessage | undefined): void {
  const deliver = transport.onmessage;
  if (deliver === undefined) throw new Error("answerEarly: connect the server to the transport first");
  transport.onmessage = (message, extra) => {
    const reply = answer(message);
    if (reply === undefined) return deliver(message, extra);
    // The transport holds the HTTP answer until every request of the POST has its response.
    transport.send(reply).catch((error: unknown) => transport.onerror?.(error instanceof Error ? error : new Error(String(error))));
  };
}
