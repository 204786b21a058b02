/**
 * The whole /search handler (middy stack included) with the anthropic and ollama providers,
 * domain filters, WEBGATE_SEARCH_ORDER and the failover budget, fed API Gateway REST events;
 * providers and Secrets Manager are loopback stand-ins speaking their wire formats. Metrics and
 * log lines are checked, and nothing visible ever holds a key.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ENV, loadConfig } from "../../../shared/config";
import type { Resolver } from "../../../shared/guard/dns-resolver";
import { METRIC } from "../../../shared/observability/metric-names";
import { createMemoryTelemetry } from "../../../shared/observability/telemetry";
import { createSearchHandler } from "../../../shared/search/search-route";
import { apiGatewayEvent, lambdaContext } from "../../helpers/apigw-event";
import { anthropicAnswer, anthropicErrorBody, startStandIn, type StandIn } from "../../helpers/provider-stand-in";
import { TEST_SECRET_ARN, secretsManagerClient, startSecretsManagerStandIn, type SecretsManagerStandIn } from "../../helpers/secrets-manager-stand-in";

const fixture = (name: string) => readFileSync(path.resolve(__dirname, "../../fixtures/search", name), "utf8");
const noDns: Resolver = { resolve: () => Promise.reject(new Error("tests never resolve names")) };
const ANTHROPIC_KEY = "sk-ant-api03-handler-local-key";
const OLLAMA_KEY = "ollama-handler-local-key";
const SECRET_ANTHROPIC_KEY = "sk-ant-api03-from-secrets-manager";
const SECRET_OLLAMA_KEY = "ollama-from-secrets-manager";
const BRAVE_KEY = "BSA-handler-brave-key";
const ALL_KEYS = [ANTHROPIC_KEY, OLLAMA_KEY, SECRET_ANTHROPIC_KEY, SECRET_OLLAMA_KEY, BRAVE_KEY];

let anthropic: StandIn;
let ollama: StandIn;
let brave: StandIn;
let sm: SecretsManagerStandIn;
const telemetry = createMemoryTelemetry();
const seen: string[] = [];

beforeAll(async () => {
  [anthropic, ollama, brave] = await Promise.all([startStandIn(), startStandIn(), startStandIn()]);
  sm = await startSecretsManagerStandIn(JSON.stringify({ anthropic_api_key: SECRET_ANTHROPIC_KEY, ollama_api_key: SECRET_OLLAMA_KEY }));
});
afterAll(async () => {
  const visible = [...seen, ...telemetry.lines.map((line) => JSON.stringify(line)), JSON.stringify(telemetry.metrics)].join("\n");
  for (const key of ALL_KEYS) expect(visible).not.toContain(key);
  await Promise.all([anthropic.close(), ollama.close(), brave.close(), sm.close()]);
});
beforeEach(() => {
  for (const s of [anthropic, ollama, brave, sm]) s.requests.length = 0;
  telemetry.lines.length = 0;
  telemetry.metrics.length = 0;
  anthropic.reply = () => ({ status: 200, headers: { "content-type": "application/json" }, body: fixture("anthropic-web-search.json") });
  ollama.reply = () => ({ status: 200, headers: { "content-type": "application/json" }, body: fixture("ollama-web-search.json") });
  brave.reply = () => ({ status: 200, headers: { "content-type": "application/json" }, body: fixture("brave-web-search.json") });
});

// The provider limit is far above the deadlines the tests below set (1.8 s, 1.85 s): an answer
// well under it shows the deadline ended a hung attempt, without a tight wall-clock bound that a
// loaded machine breaks; the logged attempt budgets show the arithmetic exactly.
const limits = { timeoutMs: 10_000, connectTimeoutMs: 400, maxBytes: 2 * 1024 * 1024 };
const NOT_THE_PROVIDER_LIMIT_MS = limits.timeoutMs / 2;

function handlerWith(extra: Record<string, string>) {
  return createSearchHandler({
    config: loadConfig({
      [ENV.ANTHROPIC_ENDPOINT]: anthropic.origin,
      [ENV.OLLAMA_ENDPOINT]: ollama.origin,
      [ENV.BRAVE_ENDPOINT]: `${brave.origin}/res/v1/web/search`,
      ...extra,
    }),
    resolver: noDns,
    limits,
    telemetry,
    ...(extra[ENV.PROVIDER_SECRET_ARN] === undefined ? {} : { secretsManager: secretsManagerClient(sm.origin), keyCacheTtlMs: 60_000 }),
  });
}

const localKeys = { [ENV.ANTHROPIC_API_KEY]: ANTHROPIC_KEY, [ENV.OLLAMA_API_KEY]: OLLAMA_KEY };

async function post(handler: ReturnType<typeof handlerWith>, body: unknown, remainingMs = 25_000) {
  const event = apiGatewayEvent({ method: "POST", path: "/search", body: JSON.stringify(body) });
  const res = await handler(event, lambdaContext({ getRemainingTimeInMillis: () => remainingMs }));
  seen.push(res.body, JSON.stringify(res.headers ?? {}));
  return { status: res.statusCode, headers: res.headers ?? {}, json: JSON.parse(res.body) as Record<string, any> };
}

const requestLine = () => telemetry.lines.find((line) => line.message === "request")!.fields;
const metricsNamed = (name: string) => telemetry.metrics.filter((m) => m.name === name);

describe("POST /search with provider anthropic", () => {
  it("answers the schema with cited snippets, logs and counts the billed search", async () => {
    const { status, json } = await post(handlerWith(localKeys), { query: "rust book", provider: "anthropic", max_results: 5 });
    expect(status).toBe(200);
    expect(json.provider).toBe("anthropic");
    expect(json.results).toEqual([
      {
        title: "The Rust Programming Language - The Rust Programming Language",
        url: "https://doc.rust-lang.org/book/",
        snippet: "The Rust Programming Language by Steve Klabnik and Carol Nichols, with contributions from the Rust Community.",
        age: "March 5, 2024",
      },
      {
        title: "Rust by Example",
        url: "https://doc.rust-lang.org/rust-by-example/",
        snippet:
          "Rust by Example (RBE) is a collection of runnable examples that illustrate various Rust concepts and standard libraries. … To get even more out of these examples, don't forget to install Rust locally.",
      },
      { title: "Learn Rust - Rust Programming Language", url: "https://www.rust-lang.org/learn", snippet: "" },
    ]);
    expect(anthropic.requests[0]!.headers["x-api-key"]).toBe(ANTHROPIC_KEY);
    expect(requestLine()).toMatchObject({ status: 200, provider: "anthropic", anthropic_billed_searches: 1, result_count: 3 });
    expect(metricsNamed(METRIC.anthropicBilledSearches)).toEqual([{ name: "AnthropicBilledSearches", unit: "Count", value: 1, dimensions: {} }]);
    expect(metricsNamed(METRIC.searchProviderFailures)).toEqual([]);
  });

  it("sends the domain filter in the tool and still enforces it on the results", async () => {
    const { json } = await post(handlerWith(localKeys), { query: "rust book", provider: "anthropic", blocked_domains: ["Doc.Rust-Lang.org"] });
    expect(JSON.parse(anthropic.requests[0]!.body).tools[0].blocked_domains).toEqual(["doc.rust-lang.org"]);
    // The stand-in ignored the filter: the service removed the blocked host's results.
    expect(json.results.map((r: { url: string }) => r.url)).toEqual(["https://www.rust-lang.org/learn"]);
  });

  it.each([
    ["a tool error too_many_requests", { status: 200, body: anthropicAnswer({ toolError: "too_many_requests" }) }, 429, "provider_rate_limited"],
    ["a tool error query_too_long", { status: 200, body: anthropicAnswer({ toolError: "query_too_long" }) }, 400, "invalid_request"],
    ["a tool error unavailable", { status: 200, body: anthropicAnswer({ toolError: "unavailable" }) }, 502, "provider_error"],
    ["a reply that never searched", { status: 200, body: anthropicAnswer({}) }, 502, "provider_bad_response"],
    ["HTTP 401", { status: 401, body: anthropicErrorBody("authentication_error", "invalid x-api-key") }, 502, "provider_auth_failed"],
    ["HTTP 529", { status: 529, body: anthropicErrorBody("overloaded_error", "Overloaded") }, 429, "provider_rate_limited"],
    ["bad JSON", { status: 200, headers: { "content-type": "application/json" }, body: '{"content": [' }, 502, "provider_bad_response"],
  ] as const)("%s → %i %s, counted as a failure of anthropic", async (_label, reply, status, code) => {
    anthropic.reply = () => reply;
    const res = await post(handlerWith(localKeys), { query: "rust book", provider: "anthropic" });
    expect(res.status).toBe(status);
    expect(res.json.error.code).toBe(code);
    const failures = metricsNamed(METRIC.searchProviderFailures);
    expect(failures).toEqual(code === "invalid_request" ? [] : [{ name: "SearchProviderFailures", unit: "Count", value: 1, dimensions: { provider: "anthropic" } }]);
  });

  it("continues a pause_turn through the handler", async () => {
    const paused = anthropicAnswer({ stopReason: "pause_turn", results: [{ url: "https://doc.rust-lang.org/book/", title: "The Book" }] });
    const done = anthropicAnswer({ results: [], searches: 0 });
    done.content = [{ type: "text", text: "The book.", citations: [{ type: "web_search_result_location", url: "https://doc.rust-lang.org/book/", title: "The Book", encrypted_index: "x", cited_text: "Read the book." }] }];
    anthropic.reply = () => ({ status: 200, body: anthropic.requests.length === 1 ? paused : done });
    const { status, json } = await post(handlerWith(localKeys), { query: "rust book", provider: "anthropic" });
    expect(status).toBe(200);
    expect(anthropic.requests).toHaveLength(2);
    expect(json.results).toEqual([{ title: "The Book", url: "https://doc.rust-lang.org/book/", snippet: "Read the book." }]);
    // One search billed in the first answer, none in the continuation.
    expect(requestLine().anthropic_billed_searches).toBe(1);
  });
});

describe("POST /search with provider ollama", () => {
  it("answers the schema from Ollama's results", async () => {
    const { status, json } = await post(handlerWith(localKeys), { query: "rust book", provider: "ollama", max_results: 2 });
    expect(status).toBe(200);
    expect(json.provider).toBe("ollama");
    expect(json.results).toHaveLength(2);
    expect(json.results[0].snippet).toContain("Rust 1.85.0 (released 2025-02-17) or later & edition");
    expect(ollama.requests[0]!.headers.authorization).toBe(`Bearer ${OLLAMA_KEY}`);
  });

  it("enforces allowed_domains on results (Ollama has no filter of its own)", async () => {
    const { json } = await post(handlerWith(localKeys), { query: "rust book", provider: "ollama", allowed_domains: ["www.rust-lang.org"] });
    expect(json.results.map((r: { url: string }) => r.url)).toEqual(["https://www.rust-lang.org/learn"]);
    expect(JSON.parse(ollama.requests[0]!.body).max_results).toBe(10);
  });

  it("a slow Ollama ends as 504 provider_timeout before the Lambda's deadline", async () => {
    ollama.reply = () => "hang";
    const started = Date.now();
    const res = await post(handlerWith(localKeys), { query: "rust book", provider: "ollama" }, 1_800);
    expect(res.status).toBe(504);
    expect(res.json.error.code).toBe("provider_timeout");
    // The attempt had the invocation's time less the 0.25 s answer margin, not the provider limit.
    expect(Number(requestLine().attempt_budgets_ms)).toBeLessThanOrEqual(1_550);
    expect(Date.now() - started).toBeLessThan(NOT_THE_PROVIDER_LIMIT_MS);
  });
});

describe("POST /search: filters, order, keys", () => {
  it("400 invalid_request for both filters, naming the field; no provider asked", async () => {
    const res = await post(handlerWith(localKeys), { query: "rust book", allowed_domains: ["a.com"], blocked_domains: ["b.com"] });
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ code: "invalid_request", field: "blocked_domains" });
    expect(anthropic.requests.length + ollama.requests.length).toBe(0);
  });

  it("400 invalid_request for a domain with a scheme", async () => {
    const res = await post(handlerWith(localKeys), { query: "rust book", allowed_domains: ["https://a.com"] });
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe("invalid_request");
  });

  it("the default order takes ollama before anthropic and fails over to it", async () => {
    ollama.reply = () => ({ status: 503 });
    const res = await post(handlerWith(localKeys), { query: "rust book" });
    expect(res.json.provider).toBe("anthropic");
    expect(requestLine()).toMatchObject({ failover_from: "ollama", failover_code: "provider_error", provider: "anthropic" });
    expect(metricsNamed(METRIC.searchProviderFailures)).toEqual([{ name: "SearchProviderFailures", unit: "Count", value: 1, dimensions: { provider: "ollama" } }]);
  });

  it("WEBGATE_SEARCH_ORDER puts anthropic first", async () => {
    const res = await post(handlerWith({ ...localKeys, [ENV.SEARCH_ORDER]: "anthropic,ollama" }), { query: "rust book" });
    expect(res.json.provider).toBe("anthropic");
    expect(ollama.requests).toHaveLength(0);
  });

  it("a key that cannot go in a header: 503 search_not_configured naming the provider, no failover, nothing sent", async () => {
    const res = await post(handlerWith({ [ENV.OLLAMA_API_KEY]: "ollama key with spaces", [ENV.ANTHROPIC_API_KEY]: ANTHROPIC_KEY }), { query: "rust book" });
    expect(res.status).toBe(503);
    expect(res.json.error.code).toBe("search_not_configured");
    expect(res.json.error.message).toContain("ollama");
    expect(res.json.error.message).toContain(ENV.OLLAMA_API_KEY);
    expect(anthropic.requests.length + ollama.requests.length).toBe(0);
  });

  it("reads anthropic_api_key and ollama_api_key from the provider secret", async () => {
    const handler = handlerWith({ [ENV.PROVIDER_SECRET_ARN]: TEST_SECRET_ARN, ...localKeys });
    expect((await post(handler, { query: "rust book", provider: "anthropic" })).status).toBe(200);
    expect((await post(handler, { query: "rust book", provider: "ollama" })).status).toBe(200);
    expect(anthropic.requests[0]!.headers["x-api-key"]).toBe(SECRET_ANTHROPIC_KEY);
    expect(ollama.requests[0]!.headers.authorization).toBe(`Bearer ${SECRET_OLLAMA_KEY}`);
  });
});

describe("POST /search: failover within the Lambda's deadline", () => {
  it("a first provider that hangs leaves the fallback time: 200 from the second, under the deadline", async () => {
    // The provider limit (10 s) is above the whole request's time (1.85 s, 1.6 s after the 0.25 s answer margin).
    brave.reply = () => "hang";
    const handler = handlerWith({ ...localKeys, [ENV.BRAVE_API_KEY]: BRAVE_KEY, [ENV.SEARCH_ORDER]: "brave,ollama" });
    const started = Date.now();
    const res = await post(handler, { query: "rust book" }, 1_850);
    const elapsed = Date.now() - started;
    expect(res.status).toBe(200);
    expect(res.json.provider).toBe("ollama");
    expect(elapsed).toBeLessThan(NOT_THE_PROVIDER_LIMIT_MS);
    const budgets = String(requestLine().attempt_budgets_ms).split(",").map(Number);
    expect(budgets[0]).toBeLessThanOrEqual(880);
    expect(budgets[1]).toBeGreaterThan(500);
    expect(budgets[0]! + budgets[1]!).toBeLessThanOrEqual(1_600);
    expect(requestLine()).toMatchObject({ failover_from: "brave", failover_code: "provider_timeout" });
    expect(metricsNamed(METRIC.searchProviderFailures)).toEqual([{ name: "SearchProviderFailures", unit: "Count", value: 1, dimensions: { provider: "brave" } }]);
  });

  it("both hang: 504 provider_timeout before the deadline, naming the failover", async () => {
    brave.reply = () => "hang";
    ollama.reply = () => "hang";
    const handler = handlerWith({ ...localKeys, [ENV.BRAVE_API_KEY]: BRAVE_KEY, [ENV.SEARCH_ORDER]: "brave,ollama" });
    const started = Date.now();
    const res = await post(handler, { query: "rust book" }, 1_850);
    expect(Date.now() - started).toBeLessThan(NOT_THE_PROVIDER_LIMIT_MS);
    const budgets = String(requestLine().attempt_budgets_ms).split(",").map(Number);
    expect(budgets).toHaveLength(2);
    expect(budgets[0]! + budgets[1]!).toBeLessThanOrEqual(1_600);
    expect(res.status).toBe(504);
    expect(res.json.error).toMatchObject({ code: "provider_timeout", provider: "ollama", failover_from: "brave" });
  });
});
