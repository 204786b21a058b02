/**
 * An MCP transport that records what is sent on it and what reaches the server's handler: for
 * the unit tests of the early answers (shared/mcp/answer-early.ts and its two users).
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

export function fakeTransport(): { transport: Transport; sent: JSONRPCMessage[]; delivered: JSONRPCMessage[] } {
  const sent: JSONRPCMessage[] = [];
  const delivered: JSONRPCMessage[] = [];
  const transport = {
    start: () => Promise.resolve(),
    close: () => Promise.resolve(),
    send: (message: JSONRPCMessage) => (sent.push(message), Promise.resolve()),
    onmessage: (message: JSONRPCMessage) => void delivered.push(message),
  } as Transport;
  return { transport, sent, delivered };
}
