/**
 * Property: whatever body reaches POST /mcp — JSON-RPC-shaped or not, single or batched, any
 * method, id, params or tool arguments, with or without the headers a client should send — the
 * handler answers with the protocol's own answer: a 2xx/4xx status, and a JSON-RPC message (or
 * an empty 202), never a 500 and never a hang.
 *
 * Real parts: the whole middy handler, dynalite, the guard. DNS is fake (no name resolves) and
 * every dial is refused, so a generated URL can never leave the machine.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Dialer } from "../../../shared/http/types";
import { CPU_WORK_TIMEOUT_MS } from "../../helpers/cpu-work";
import { createTestTable, startTestDynamo, type LocalDynamo } from "../../helpers/dynalite";
import { createMcpLambda, MCP_POST_HEADERS } from "../../helpers/mcp-lambda";
import { MapResolver } from "../../helpers/test-network";

let dynamo: LocalDynamo;
let lambda: ReturnType<typeof createMcpLambda>;

const refusingDialer: Dialer = {
  dial: () => Promise.reject(Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" })),
};

beforeAll(async () => {
  dynamo = await startTestDynamo();
  lambda = createMcpLambda({
    dynamo: dynamo.client,
    tableName: await createTestTable(dynamo.client),
    resolver: new MapResolver({}),
    dialer: refusingDialer,
    providerResolver: new MapResolver({}),
    // Bounds a generated batch that cancels its own request (answered at the deadline), far above
    // what one invocation needs on a loaded machine (up to 1.9 s seen at load 20, where a 2 s
    // deadline would answer an ordinary call with 504).
    extra: { deadlineMs: 10_000 },
  });
});
afterAll(async () => {
  await dynamo.close();
});

const METHODS = [
  "initialize", "ping", "tools/list", "tools/call", "notifications/initialized", "notifications/cancelled",
  "notifications/progress", "resources/list", "resources/read", "prompts/list", "prompts/get", "completion/complete",
  "logging/setLevel", "sampling/createMessage", "tasks/get", "tasks/list",
];

const url = fc.oneof(fc.webUrl(), fc.constantFrom("file:///etc/passwd", "http://169.254.169.254/", "http://[::1]/", "gopher://x/", "https://a.example/"), fc.string());
const toolArguments = fc.oneof(
  // Arguments that pass the schema, so the call reaches the guard, the store and the providers.
  { weight: 3, arbitrary: fc.record({ url }) },
  { weight: 2, arbitrary: fc.record({ query: fc.string({ minLength: 2, maxLength: 40 }), max_results: fc.integer({ min: 1, max: 10 }) }) },
  fc.record({ url, start: fc.oneof(fc.integer(), fc.double()), max_chars: fc.integer(), snapshot_id: fc.string(), main_content: fc.jsonValue() }, { requiredKeys: [] }),
  fc.record({ query: fc.string(), max_results: fc.jsonValue(), provider: fc.oneof(fc.constantFrom("brave", "tavily", "searxng"), fc.string()) }, { requiredKeys: [] }),
  fc.jsonValue(),
);
const params = fc.oneof(
  fc.record({ name: fc.oneof(fc.constantFrom("web_fetch", "web_search"), fc.string()), arguments: toolArguments }, { requiredKeys: [] }),
  fc.record({ protocolVersion: fc.oneof(fc.constantFrom("2025-06-18", "2025-03-26", "2025-11-25"), fc.string()), capabilities: fc.jsonValue(), clientInfo: fc.jsonValue() }, { requiredKeys: [] }),
  fc.record({ requestId: fc.oneof(fc.integer(), fc.string()) }),
  fc.jsonValue(),
);
const message = fc.record(
  {
    jsonrpc: fc.oneof(fc.constant("2.0"), fc.jsonValue()),
    id: fc.oneof(fc.integer({ min: 0, max: 5 }), fc.string({ maxLength: 3 }), fc.constant(null), fc.jsonValue()),
    method: fc.oneof(fc.constantFrom(...METHODS), fc.string()),
    params,
    result: fc.jsonValue(),
    error: fc.jsonValue(),
  },
  { requiredKeys: [] },
);
/** Well-formed requests, so that many bodies get past the envelope to the methods and tools. */
const request = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      jsonrpc: fc.constant("2.0"),
      id: fc.integer({ min: 0, max: 5 }),
      method: fc.constant("tools/call"),
      params: fc.record({ name: fc.oneof({ weight: 5, arbitrary: fc.constantFrom("web_fetch", "web_search") }, { weight: 1, arbitrary: fc.string() }), arguments: toolArguments }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      jsonrpc: fc.constant("2.0"),
      id: fc.integer({ min: 0, max: 5 }),
      method: fc.constantFrom(...METHODS),
      params: fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue(), { maxKeys: 3 }),
    }),
  },
);
const body = fc.oneof(
  { weight: 8, arbitrary: request.map((m) => JSON.stringify(m)) },
  { weight: 4, arbitrary: message.map((m) => JSON.stringify(m)) },
  { weight: 2, arbitrary: fc.array(message, { maxLength: 4 }).map((m) => JSON.stringify(m)) },
  { weight: 1, arbitrary: fc.jsonValue().map((v) => JSON.stringify(v)) },
  { weight: 1, arbitrary: fc.string() },
);
/** Mostly the headers a client sends (so bodies reach the server), sometimes wrong ones. */
const headers = fc.record({
  accept: fc.oneof({ weight: 8, arbitrary: fc.constant(MCP_POST_HEADERS.accept) }, { weight: 1, arbitrary: fc.constantFrom("application/json", "*/*", "text/event-stream") }),
  "content-type": fc.oneof(
    { weight: 8, arbitrary: fc.constantFrom("application/json", "application/json; charset=utf-8") },
    { weight: 1, arbitrary: fc.constantFrom("text/plain", "application/x-www-form-urlencoded") },
  ),
  "mcp-protocol-version": fc.oneof({ weight: 8, arbitrary: fc.constantFrom("2025-06-18", "2025-03-26", "2025-11-25") }, { weight: 1, arbitrary: fc.constantFrom("", "garbage") }),
});

describe("POST /mcp on any body", () => {
  // 200 runs through the whole handler are CPU work: 1.4 s on an idle machine, 17-19 s at load 20,
  // against the 20 s default. The limit guards a hang; each invocation is bounded by the deadline.
  it("answers with a protocol answer, never a 500 or a hang", { timeout: CPU_WORK_TIMEOUT_MS }, async () => {
    await fc.assert(
      fc.asyncProperty(body, headers, async (text, hdrs) => {
        const res = await lambda.invoke({ method: "POST", headers: hdrs, body: text });
        expect(res.statusCode).toBeGreaterThanOrEqual(200);
        expect(res.statusCode).toBeLessThan(500);
        if (res.statusCode === 202) {
          expect(res.body).toBe("");
          return;
        }
        const answer = JSON.parse(res.body) as unknown;
        const messages = Array.isArray(answer) ? answer : [answer];
        expect(messages.length).toBeGreaterThan(0);
        for (const m of messages) {
          expect(m).toMatchObject({ jsonrpc: "2.0" });
          expect("result" in (m as object) || "error" in (m as object)).toBe(true);
        }
      }),
      { numRuns: 200 },
    );
  });
});
