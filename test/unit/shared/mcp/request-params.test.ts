import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { answerInvalidParams, checkRequestParams } from "../../../../shared/mcp/request-params";
import { fakeTransport } from "../../../helpers/fake-transport";

const request = (method: string, params?: unknown, id: number | string = 1) =>
  ({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) }) as JSONRPCMessage;

describe("checkRequestParams", () => {
  it.each([
    ["tools/call", undefined, "Invalid params for tools/call: params: expected object, received undefined"],
    ["tools/call", {}, "Invalid params for tools/call: params.name: expected string, received undefined"],
    ["tools/call", { name: 5 }, "Invalid params for tools/call: params.name: expected string, received number"],
    ["tools/call", { name: "web_fetch", arguments: "x" }, "Invalid params for tools/call: params.arguments: expected record, received string"],
    ["tools/list", { cursor: 5 }, "Invalid params for tools/list: params.cursor: expected string, received number"],
    ["initialize", undefined, "Invalid params for initialize: params: expected object, received undefined"],
    [
      "initialize",
      { protocolVersion: 1, capabilities: 2, clientInfo: {} },
      "Invalid params for initialize: params.protocolVersion: expected string, received number; params.capabilities: expected object, received number; params.clientInfo.name: expected string, received undefined (and 1 more)",
    ],
  ])("%s with params %j → -32602: %s", (method, params, message) => {
    expect(checkRequestParams(request(method, params, 7))).toEqual({ id: 7, method, message });
  });

  it.each([
    ["a valid tools/call (its arguments are the tool's business)", request("tools/call", { name: "web_fetch", arguments: { url: 42 } })],
    ["a tools/call without arguments", request("tools/call", { name: "web_fetch" })],
    ["a valid tools/list", request("tools/list")],
    ["a valid ping", request("ping")],
    ["a method the server does not serve, whatever its params (the SDK answers -32601)", request("resources/list", { cursor: 5 })],
    ["a notification", { jsonrpc: "2.0", method: "notifications/initialized", params: { x: 1 } } satisfies JSONRPCMessage],
    ["a response", { jsonrpc: "2.0", id: 3, result: {} } satisfies JSONRPCMessage],
  ])("leaves %s to the SDK", (_label, message) => {
    expect(checkRequestParams(message)).toBeUndefined();
  });

  it("keeps the message short whatever the input, and never echoes a value", () => {
    const long = "k".repeat(5_000);
    const invalid = checkRequestParams(request("tools/call", { name: { [long]: "secret-value-123" } }));
    expect(invalid!.message.length).toBeLessThanOrEqual(300);
    expect(invalid!.message).not.toContain("secret-value-123");
  });
});

describe("answerInvalidParams", () => {
  it("answers a request with invalid params on the transport and passes everything else on", () => {
    const { transport, sent, delivered } = fakeTransport();
    const refused: string[] = [];
    answerInvalidParams(transport, (method) => refused.push(method));
    transport.onmessage!(request("tools/call", undefined, "a"));
    transport.onmessage!(request("tools/list", undefined, "b"));
    expect(sent).toEqual([{ jsonrpc: "2.0", id: "a", error: { code: -32602, message: "Invalid params for tools/call: params: expected object, received undefined" } }]);
    expect(delivered).toEqual([request("tools/list", undefined, "b")]);
    expect(refused).toEqual(["tools/call"]);
  });

  it("must come after the server's connect", () => {
    const { transport } = fakeTransport();
    delete transport.onmessage;
    expect(() => answerInvalidParams(transport)).toThrow(/connect the server/);
  });
});
