import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { answerInvalidArguments, checkToolArguments } from "../../../../shared/mcp/tool-arguments";
import { fakeTransport } from "../../../helpers/fake-transport";

const call = (name: unknown, args?: unknown, id: string | number = 1): JSONRPCMessage =>
  ({ jsonrpc: "2.0", id, method: "tools/call", params: args === undefined ? { name } : { name, arguments: args } });

describe("checkToolArguments", () => {
  it.each([
    ["web_fetch", { url: 42 }, "url", /^Field "url": /],
    ["web_fetch", { url: "" }, "url", /^Field "url": must not be empty$/],
    ["web_fetch", {}, "url", /^Field "url": /],
    ["web_fetch", { url: "https://example.com/", bogus: 1 }, "bogus", /^Unknown field: "bogus"\.$/],
    ["web_fetch", { url: "https://example.com/", start: -1 }, "start", /^Field "start": /],
    ["web_fetch", { url: "https://example.com/", max_chars: 5 }, "max_chars", /^Field "max_chars": /],
    ["web_fetch", { url: "https://example.com/", format: "html" }, "format", /^Field "format": /],
    ["web_fetch", { url: "https://example.com/", main_content: "false" }, "main_content", /^Field "main_content": /],
    ["web_search", { query: "a" }, "query", /^Field "query": /],
    ["web_search", undefined, "query", /^Field "query": /],
    ["web_search", { query: "rust", allowed_domains: ["a.com"], blocked_domains: ["b.com"] }, "blocked_domains", /blocked_domains/],
  ])("refuses %s %j with invalid_request naming %s, as the REST route does", (tool, args, field, message) => {
    const invalid = checkToolArguments(call(tool, args, "x"), "req-1");
    expect(invalid).toMatchObject({ id: "x", tool, result: { isError: true } });
    expect(invalid!.result.structuredContent).toMatchObject({ code: "invalid_request", field, retryable: false, request_id: "req-1" });
    expect((invalid!.result.structuredContent as { message: string }).message).toMatch(message);
    expect(invalid!.result.content).toEqual([{ type: "text", text: expect.stringMatching(/^Error invalid_request: .+ Fix the argument the message names and call again\.$/) }]);
  });

  it.each<[string, JSONRPCMessage]>([
    ["valid arguments", call("web_fetch", { url: "https://example.com/" })],
    ["valid search arguments", call("web_search", { query: "rust borrow checker" })],
    ["an unknown tool (the SDK answers it)", call("web_crawl", { url: 1 })],
    ["params that are not a tools/call (request-params.ts answers them)", call(5, {})],
    ["another method", { jsonrpc: "2.0", id: 1, method: "tools/list" }],
    ["a notification", { jsonrpc: "2.0", method: "notifications/initialized" }],
  ])("lets %s through", (_name, message) => {
    expect(checkToolArguments(message, "req-1")).toBeUndefined();
  });
});

describe("answerInvalidArguments", () => {
  it("answers a call with invalid arguments on the transport and passes everything else on", () => {
    const { transport, sent, delivered } = fakeTransport();
    const refused: string[] = [];
    answerInvalidArguments(transport, "req-2", (tool) => refused.push(tool));
    transport.onmessage!(call("web_fetch", { url: "" }, "a"));
    transport.onmessage!(call("web_fetch", { url: "https://example.com/" }, "b"));
    expect(sent).toEqual([{ jsonrpc: "2.0", id: "a", result: expect.objectContaining({ isError: true, structuredContent: expect.objectContaining({ code: "invalid_request", field: "url", request_id: "req-2" }) }) }]);
    expect(delivered).toEqual([call("web_fetch", { url: "https://example.com/" }, "b")]);
    expect(refused).toEqual(["web_fetch"]);
  });

  it("reports a failed send to the transport's onerror", async () => {
    const { transport } = fakeTransport();
    const errors: string[] = [];
    transport.send = () => Promise.reject(new Error("closed"));
    transport.onerror = (error) => errors.push(error.message);
    answerInvalidArguments(transport, "req-3");
    transport.onmessage!(call("web_search", { query: "" }));
    await new Promise((resolve) => setImmediate(resolve));
    expect(errors).toEqual(["closed"]);
  });

  it("must come after the server's connect", () => {
    const { transport } = fakeTransport();
    delete transport.onmessage;
    expect(() => answerInvalidArguments(transport, "req-4")).toThrow(/connect the server/);
  });
});
