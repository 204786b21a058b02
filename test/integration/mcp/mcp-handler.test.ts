/**
 * The /mcp Lambda handler fed API Gateway events: the MCP SDK's own client through a fetch that
 * turns its requests into events, plus raw events for what a client would never send.
 */
import { createHash } from "node:crypto";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema, ErrorCode, McpError, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { systemResolver } from "../../../shared/guard/guarded-lookup";
import { createTestTable, startTestDynamo, type LocalDynamo } from "../../helpers/dynalite";
import { createMcpLambda, MCP_POST_HEADERS } from "../../helpers/mcp-lambda";
import { startOrigin, type Origin } from "../../helpers/origin";
import { startStandIn, type StandIn } from "../../helpers/provider-stand-in";
import { MapResolver, RoutingDialer } from "../../helpers/test-network";

let dynamo: LocalDynamo;
let origin: Origin;
let searxng: StandIn;
let lambda: ReturnType<typeof createMcpLambda>;
let client: Client;

const ARTICLE = `<!doctype html><html><head><title>Rivers</title></head><body><article><h1>Rivers</h1>${Array.from(
  { length: 900 },
  (_, i) => `<p>Paragraph ${i}: a river is a natural flowing watercourse, usually freshwater, flowing towards an ocean.</p>`,
).join("")}</article></body></html>`;
const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");

beforeAll(async () => {
  dynamo = await startTestDynamo();
  origin = await startOrigin((req, res) => {
    if (req.url === "/rivers") res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(ARTICLE);
    else res.writeHead(404, { "content-type": "text/plain" }).end("missing");
  });
  searxng = await startStandIn(() => ({ status: 200, body: { results: [{ title: "Nile", url: "https://example.com/nile", content: "The longest river." }] } }));
  lambda = createMcpLambda({
    dynamo: dynamo.client,
    tableName: await createTestTable(dynamo.client),
    env: { SEARXNG_URL: searxng.origin },
    resolver: new MapResolver({ "site.example.com": ["93.184.215.14"], "private.example.net": ["10.1.2.3"] }),
    dialer: new RoutingDialer({ plain: origin.port }),
    providerResolver: systemResolver,
  });
  client = new Client({ name: "lambda-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL("https://api.example.com/v1/mcp"), { fetch: lambda.fetchViaEvents }));
});
afterAll(async () => {
  await client.close();
  await origin.close();
  await searxng.close();
  await dynamo.close();
});

const call = (name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args }) as Promise<CallToolResult>;
const textOf = (result: CallToolResult) => result.content.map((c) => (c.type === "text" ? c.text : "")).join("");

describe("the /mcp Lambda handler with the SDK client over API Gateway events", () => {
  it("initializes and lists the tools", async () => {
    expect(client.getServerVersion()?.name).toBe("webgate");
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(["web_fetch", "web_search"]);
    for (const tool of tools) expect(tool.outputSchema).toMatchObject({ type: "object", anyOf: [expect.any(Object), expect.any(Object)] });
  });

  it("reads a long page through the More lines with the snapshot id; the parts join to the sha256", async () => {
    const url = "https://site.example.com/rivers";
    const parts: string[] = [];
    let args: Record<string, unknown> = { url, max_chars: 20_000 };
    let last: { snapshot: { sha256: string; id: string }; total_chars: number } | undefined;
    const ids = new Set<string>();
    for (let i = 0; i < 20; i++) {
      const result = await call("web_fetch", args);
      expect(result.isError).toBeFalsy();
      const body = result.structuredContent as { content: string; next_start: number | null; total_chars: number; snapshot: { id: string; sha256: string } };
      parts.push(body.content);
      ids.add(body.snapshot.id);
      last = body;
      const more = /\[More: call web_fetch again with start=(\d+) and snapshot_id="([^"]+)"\]\n<\/web_result>$/.exec(textOf(result));
      if (more === null) {
        expect(body.next_start).toBeNull();
        break;
      }
      args = { url, max_chars: 20_000, start: Number(more[1]), snapshot_id: more[2] };
    }
    expect(parts.length).toBeGreaterThan(2);
    expect(ids.size).toBe(1);
    const joined = parts.join("");
    expect(joined.length).toBe(last!.total_chars);
    expect(sha256(joined)).toBe(last!.snapshot.sha256);
    expect(joined).toContain("Paragraph 899:");
  });

  it("searches through the provider stand-in", async () => {
    const result = await call("web_search", { query: "longest river" });
    expect(result.structuredContent).toEqual({ query: "longest river", provider: "searxng", results: [{ title: "Nile", url: "https://example.com/nile", snippet: "The longest river." }] });
    expect(textOf(result)).toContain("1. Nile\n   URL: https://example.com/nile\n   The longest river.");
    expect(textOf(result).endsWith("Read a page with web_fetch before you rely on it.")).toBe(true);
  });

  it("answers refusals as isError results with the REST codes, never naming a resolved address", async () => {
    const cases: Array<[string, string]> = [
      ["http://169.254.169.254/latest/meta-data/", "address_not_allowed"],
      ["file:///etc/passwd", "url_not_allowed"],
      ["https://private.example.net/", "address_not_allowed"],
      ["https://unknown.example.org/", "dns_failed"],
      ["http://127.0.0.1:9001/2018-06-01/runtime/invocation/next", "address_not_allowed"],
    ];
    for (const [url, code] of cases) {
      const result = await call("web_fetch", { url });
      expect(result.isError, url).toBe(true);
      expect(result.structuredContent, url).toMatchObject({ code });
      expect(textOf(result)).not.toContain("10.1.2.3");
    }
    const retry = await call("web_fetch", { url: "https://unknown.example.org/" });
    expect(retry.structuredContent).toMatchObject({ code: "dns_failed", retryable: true });
    expect(textOf(retry)).toMatch(/retrying later can help/);
  });
});

describe("the /mcp Lambda handler with raw events", () => {
  const initialize = { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } } };

  it("answers initialize without a session id (stateless) in plain JSON", async () => {
    const res = await lambda.invoke({ method: "POST", headers: MCP_POST_HEADERS, body: initialize });
    expect(res.statusCode).toBe(200);
    expect(res.headers?.["content-type"]).toMatch(/application\/json/);
    expect(res.headers?.["mcp-session-id"]).toBeUndefined();
    const json = JSON.parse(res.body);
    expect(json).toMatchObject({ jsonrpc: "2.0", id: 1, result: { protocolVersion: "2025-06-18", serverInfo: { name: "webgate" }, capabilities: { tools: {} } } });
  });

  it("serves tools/call without any initialize first, and a base64-encoded body", async () => {
    const body = JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "web_fetch", arguments: { url: "file:///etc/passwd" } } });
    const res = await lambda.invoke({ method: "POST", headers: { ...MCP_POST_HEADERS, "mcp-protocol-version": "2025-06-18" }, body: Buffer.from(body).toString("base64"), isBase64Encoded: true });
    expect(res.statusCode).toBe(200);
    expect(JSON.parse(res.body)).toMatchObject({ id: 7, result: { isError: true, structuredContent: { code: "url_not_allowed" } } });
  });

  it("answers GET and DELETE with 405 and notifications with 202", async () => {
    for (const method of ["GET", "DELETE"] as const) {
      const res = await lambda.invoke({ method, headers: { accept: "text/event-stream" } });
      expect(res.statusCode).toBe(405);
      expect(res.headers?.allow).toBe("POST");
    }
    const note = await lambda.invoke({ method: "POST", headers: MCP_POST_HEADERS, body: { jsonrpc: "2.0", method: "notifications/initialized" } });
    expect(note.statusCode).toBe(202);
    const notes = await lambda.invoke({ method: "POST", headers: MCP_POST_HEADERS, body: [{ jsonrpc: "2.0", method: "notifications/initialized" }] });
    expect(notes.statusCode).toBe(202);
  });

  it("answers an empty batch with 400 and one Invalid Request error (JSON-RPC 2.0), not 202", async () => {
    for (const body of ["[]", " [ \n ] ", Buffer.from("[]").toString("base64")]) {
      const res = await lambda.invoke({ method: "POST", headers: MCP_POST_HEADERS, body, isBase64Encoded: body === "W10=" });
      expect(res.statusCode, body).toBe(400);
      expect(JSON.parse(res.body)).toEqual({ jsonrpc: "2.0", error: { code: -32600, message: expect.stringMatching(/empty batch/) }, id: null });
    }
    // The transport's own checks still come first: a wrong Accept is 406 whatever the body.
    const res = await lambda.invoke({ method: "POST", headers: { "content-type": "application/json" }, body: "[]" });
    expect(res.statusCode).toBe(406);
  });

  it("answers protocol faults with JSON-RPC errors and 4xx statuses, never 500", async () => {
    const cases: Array<{ headers: Record<string, string>; body: string; status: number; code: number }> = [
      { headers: MCP_POST_HEADERS, body: "{", status: 400, code: -32700 },
      { headers: MCP_POST_HEADERS, body: JSON.stringify({ hello: "world" }), status: 400, code: -32700 },
      { headers: { "content-type": "application/json" }, body: JSON.stringify(initialize), status: 406, code: -32000 },
      { headers: { ...MCP_POST_HEADERS, "content-type": "text/plain" }, body: JSON.stringify(initialize), status: 415, code: -32000 },
      { headers: MCP_POST_HEADERS, body: JSON.stringify({ ...initialize, params: { x: "y".repeat(70_000) } }), status: 413, code: -32000 },
      { headers: { ...MCP_POST_HEADERS, "mcp-protocol-version": "1999-01-01" }, body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }), status: 400, code: -32000 },
    ];
    for (const c of cases) {
      const res = await lambda.invoke({ method: "POST", headers: c.headers, body: c.body });
      expect(res.statusCode, c.body.slice(0, 40)).toBe(c.status);
      expect(JSON.parse(res.body)).toMatchObject({ jsonrpc: "2.0", error: { code: c.code } });
    }
    const unknown = await lambda.invoke({ method: "POST", headers: MCP_POST_HEADERS, body: { jsonrpc: "2.0", id: 3, method: "no/such/method" } });
    expect(unknown.statusCode).toBe(200);
    expect(JSON.parse(unknown.body)).toMatchObject({ id: 3, error: { code: -32601 } });
  });

  it("answers invalid params of a served method with -32602 and a short message, never -32603 with the validator's dump", async () => {
    const headers = { ...MCP_POST_HEADERS, "mcp-protocol-version": "2025-06-18" };
    const cases: Array<[{ jsonrpc: string; id: number; method: string; params?: unknown }, string]> = [
      [{ jsonrpc: "2.0", id: 1, method: "tools/call" }, "Invalid params for tools/call: params: expected object, received undefined"],
      [{ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: 5 } }, "Invalid params for tools/call: params.name: expected string, received number"],
      [{ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "web_fetch", arguments: [] } }, "Invalid params for tools/call: params.arguments: expected record, received array"],
      [{ jsonrpc: "2.0", id: 4, method: "tools/list", params: { cursor: 5 } }, "Invalid params for tools/list: params.cursor: expected string, received number"],
      [{ jsonrpc: "2.0", id: 5, method: "initialize" }, "Invalid params for initialize: params: expected object, received undefined"],
    ];
    for (const [body, message] of cases) {
      const res = await lambda.invoke({ method: "POST", headers, body });
      expect(res.statusCode).toBe(200);
      const json = JSON.parse(res.body);
      expect(json).toEqual({ jsonrpc: "2.0", id: body.id, error: { code: -32602, message } });
      expect(res.body).not.toContain("invalid_type");
    }
    expect(lambda.telemetry.lines.at(-1)!.fields).toMatchObject({ route: "mcp", status: 200, rpc_error: "invalid params (initialize)" });
    // In a batch, the invalid request gets its error and the others their answers.
    const batch = await lambda.invoke({
      method: "POST",
      headers: { ...headers, "mcp-protocol-version": "2025-03-26" },
      body: [
        { jsonrpc: "2.0", id: "ok", method: "tools/list" },
        { jsonrpc: "2.0", id: "bad", method: "tools/call", params: {} },
      ],
    });
    const answers = JSON.parse(batch.body) as Array<{ id: string; result?: { tools: unknown[] }; error?: { code: number } }>;
    expect(answers.find((a) => a.id === "ok")?.result?.tools).toHaveLength(2);
    expect(answers.find((a) => a.id === "bad")?.error?.code).toBe(-32602);
    // A call whose arguments the tool's schema refuses: the tool error with invalid_request, in a batch too.
    const args = await lambda.invoke({
      method: "POST",
      headers: { ...headers, "mcp-protocol-version": "2025-03-26" },
      body: [
        { jsonrpc: "2.0", id: "ok", method: "tools/list" },
        { jsonrpc: "2.0", id: "args", method: "tools/call", params: { name: "web_fetch", arguments: { url: "" } } },
      ],
    });
    const argAnswers = JSON.parse(args.body) as Array<{ id: string; result?: { tools?: unknown[]; isError?: boolean; structuredContent?: unknown } }>;
    expect(argAnswers.find((a) => a.id === "ok")?.result?.tools).toHaveLength(2);
    expect(argAnswers.find((a) => a.id === "args")?.result).toMatchObject({ isError: true, structuredContent: { code: "invalid_request", field: "url" } });
    expect(lambda.telemetry.lines.at(-1)!.fields).toMatchObject({ route: "mcp", status: 200, tool: "web_fetch", tool_code: "invalid_request" });
    // A method the server does not serve stays "method not found", whatever its params.
    const unserved = await lambda.invoke({ method: "POST", headers, body: { jsonrpc: "2.0", id: 6, method: "resources/list", params: { cursor: 5 } } });
    expect(JSON.parse(unserved.body)).toMatchObject({ id: 6, error: { code: -32601 } });
  });

  it("the SDK's own client gets the -32602 as an McpError for a tools/call it sends without params", async () => {
    const error = await client.request({ method: "tools/call" }, CallToolResultSchema).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(McpError);
    expect(error).toMatchObject({ code: ErrorCode.InvalidParams, message: "MCP error -32602: Invalid params for tools/call: params: expected object, received undefined" });
    // The connection is fine after it.
    expect((await client.listTools()).tools).toHaveLength(2);
  });

  it("answers a request whose own batch cancels it before the deadline instead of hanging", async () => {
    const quick = createMcpLambda({
      dynamo: dynamo.client,
      tableName: await createTestTable(dynamo.client),
      resolver: new MapResolver({}),
      providerResolver: systemResolver,
      extra: { deadlineMs: 1_500 },
    });
    const batch = [
      { jsonrpc: "2.0", id: 9, method: "tools/call", params: { name: "web_search", arguments: { query: "rivers" } } },
      { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 9 } },
    ];
    const res = await quick.invoke({ method: "POST", headers: { ...MCP_POST_HEADERS, "mcp-protocol-version": "2025-03-26" }, body: batch });
    expect(res.statusCode).toBe(504);
    expect(JSON.parse(res.body)).toMatchObject({ jsonrpc: "2.0", error: { code: -32001 }, id: null });
    expect(quick.telemetry.lines.at(-1)!.fields).toMatchObject({ route: "mcp", status: 504, refused: "deadline" });
  });

  it("does not check Origin in AWS (no allow-list configured), where the API key and the lack of CORS guard it", async () => {
    const res = await lambda.invoke({ method: "POST", headers: { ...MCP_POST_HEADERS, origin: "https://app.example.com" }, body: initialize });
    expect(res.statusCode).toBe(200);
  });
});
