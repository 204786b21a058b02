/**
 * The whole /search handler (middy stack included) fed API Gateway REST events, with providers
 * and Secrets Manager played by loopback stand-ins. Every response and every captured log line
 * is checked for key values at the end.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ConfigError, ENV, loadConfig } from "../../../shared/config";
import type { Resolver } from "../../../shared/guard/dns-resolver";
import { createMemoryTelemetry } from "../../../shared/observability/telemetry";
import { createSearchHandler } from "../../../shared/search/search-route";
import { apiGatewayEvent, lambdaContext } from "../../helpers/apigw-event";
import { closedPort, startStandIn, type StandIn } from "../../helpers/provider-stand-in";
import { TEST_SECRET_ARN, secretsManagerClient, startSecretsManagerStandIn, type SecretsManagerStandIn } from "../../helpers/secrets-manager-stand-in";

const fixture = (name: string) => readFileSync(path.resolve(__dirname, "../../fixtures/search", name), "utf8");
const noDns: Resolver = { resolve: () => Promise.reject(new Error("tests never resolve names")) };
const LOCAL_BRAVE_KEY = "BSA-local-env-key-42";
const SECRET_BRAVE_KEY = "BSA-from-secrets-manager-77";
const SECRET_TAVILY_KEY = "tvly-from-secrets-manager-66";
const ALL_KEYS = [LOCAL_BRAVE_KEY, SECRET_BRAVE_KEY, SECRET_TAVILY_KEY];

let brave: StandIn;
let tavily: StandIn;
let searxng: StandIn;
let sm: SecretsManagerStandIn;
const telemetry = createMemoryTelemetry();
const seenBodies: string[] = [];

beforeAll(async () => {
  [brave, tavily, searxng] = await Promise.all([startStandIn(), startStandIn(), startStandIn()]);
  sm = await startSecretsManagerStandIn(JSON.stringify({ brave_api_key: SECRET_BRAVE_KEY, tavily_api_key: SECRET_TAVILY_KEY }));
});
afterAll(async () => {
  // Nothing a caller or a log reader could see ever held a key.
  const visible = [...seenBodies, ...telemetry.lines.map((line) => JSON.stringify(line))].join("\n");
  for (const key of ALL_KEYS) expect(visible).not.toContain(key);
  expect(visible).not.toContain(TEST_SECRET_ARN);
  await Promise.all([brave.close(), tavily.close(), searxng.close(), sm.close()]);
});
beforeEach(() => {
  for (const s of [brave, tavily, searxng, sm]) s.requests.length = 0;
  brave.reply = () => ({ status: 200, headers: { "content-type": "application/json" }, body: fixture("brave-web-search.json") });
  tavily.reply = () => ({ status: 200, headers: { "content-type": "application/json" }, body: fixture("tavily-search.json") });
  searxng.reply = () => ({ status: 200, headers: { "content-type": "application/json" }, body: fixture("searxng-search.json") });
});

function env(extra: Record<string, string> = {}) {
  return {
    [ENV.BRAVE_ENDPOINT]: `${brave.origin}/res/v1/web/search`,
    [ENV.TAVILY_ENDPOINT]: `${tavily.origin}/search`,
    ...extra,
  };
}

/**
 * A provider limit no loaded machine reaches: a stand-in's answer over loopback can take longer
 * than 400 ms on a starved core. The test of a silent provider passes a short one.
 */
const limits = { timeoutMs: 30_000, connectTimeoutMs: 30_000, maxBytes: 2 * 1024 * 1024 };

function localHandler(extra: Record<string, string> = { [ENV.BRAVE_API_KEY]: LOCAL_BRAVE_KEY }, handlerLimits = limits) {
  return createSearchHandler({ config: loadConfig(env(extra)), resolver: noDns, limits: handlerLimits, telemetry });
}

async function post(handler: ReturnType<typeof localHandler>, body: unknown, headers?: Record<string, string>) {
  const event = apiGatewayEvent({ method: "POST", path: "/search", body: typeof body === "string" ? body : JSON.stringify(body), headers });
  const res = await handler(event, lambdaContext());
  seenBodies.push(res.body, JSON.stringify(res.headers ?? {}));
  return { status: res.statusCode, headers: res.headers ?? {}, json: JSON.parse(res.body) as Record<string, any> };
}

describe("POST /search handler (local keys)", () => {
  it("answers 200 with the schema, the provider that answered and a log line", async () => {
    const before = telemetry.lines.length;
    const { status, json, headers } = await post(localHandler(), { query: "rust book", max_results: 3 });
    expect(status).toBe(200);
    expect(headers["content-type"]).toContain("application/json");
    expect(json.provider).toBe("brave");
    expect(json.query).toBe("rust book");
    expect(json.results[0]).toEqual({
      title: "The Rust Programming Language",
      url: "https://doc.rust-lang.org/book/",
      snippet: "An introductory book about Rust. It's free & open.",
      age: "March 5, 2024",
    });
    expect(brave.requests[0]!.headers["x-subscription-token"]).toBe(LOCAL_BRAVE_KEY);
    const line = telemetry.lines[before]!;
    expect(line.fields).toMatchObject({ route: "search", status: 200, provider: "brave", result_count: 2 });
    expect(telemetry.metrics.some((m) => m.name === "ProviderCalls" && m.dimensions.provider === "brave" && m.dimensions.code === "ok")).toBe(true);
  });

  it.each([
    ["an unknown field", { query: "rust book", maxResults: 3 }, "maxResults"],
    ["max_results out of range", { query: "rust book", max_results: 11 }, "max_results"],
    ["a one-letter query", { query: "r" }, "query"],
    ["a provider that does not exist", { query: "rust book", provider: "google" }, "provider"],
  ])("400 invalid_request for %s", async (_label, body, field) => {
    const { status, json } = await post(localHandler(), body);
    expect(status).toBe(400);
    expect(json.error.code).toBe("invalid_request");
    expect(json.error.field).toBe(field);
    expect(brave.requests).toHaveLength(0);
  });

  it("400 invalid_request for invalid JSON and a wrong content type", async () => {
    expect((await post(localHandler(), "{not json")).json.error.code).toBe("invalid_request");
    expect((await post(localHandler(), { query: "rust book" }, { "Content-Type": "text/plain" })).status).toBe(400);
  });

  it("400 query_looks_like_secret, and nothing left the service", async () => {
    const { status, json } = await post(localHandler(), { query: `is ${"sk_live_" + "Zx9".repeat(12)} valid` });
    expect(status).toBe(400);
    expect(json.error.code).toBe("query_looks_like_secret");
    expect(brave.requests).toHaveLength(0);
  });

  it("400 provider_not_configured for a named provider without a key", async () => {
    const { status, json } = await post(localHandler(), { query: "rust book", provider: "tavily" });
    expect(status).toBe(400);
    expect(json.error.code).toBe("provider_not_configured");
  });

  it("503 search_not_configured with no provider", async () => {
    const { status, json } = await post(localHandler({}), { query: "rust book" });
    expect(status).toBe(503);
    expect(json.error.code).toBe("search_not_configured");
  });

  it("429 provider_rate_limited passes Retry-After on as a header and a detail", async () => {
    brave.reply = () => ({ status: 429, headers: { "retry-after": "17" }, body: { error: { code: "RATE_LIMITED" } } });
    const { status, json, headers } = await post(localHandler(), { query: "rust book" });
    expect(status).toBe(429);
    expect(headers["Retry-After"] ?? headers["retry-after"]).toBe("17");
    expect(json.error).toMatchObject({ code: "provider_rate_limited", retryable: true, retry_after_s: 17, provider: "brave" });
  });

  it("502 provider_auth_failed says to check the key and never shows it", async () => {
    brave.reply = () => ({ status: 401, body: { error: { code: "UNAUTHORIZED" } } });
    const { status, json } = await post(localHandler(), { query: "rust book" });
    expect(status).toBe(502);
    expect(json.error.code).toBe("provider_auth_failed");
    expect(json.error.message).toContain("check the API key");
  });

  it("502 provider_error for a 500, 504 provider_timeout for silence", async () => {
    brave.reply = () => ({ status: 500, body: "boom" });
    expect((await post(localHandler(), { query: "rust book" })).json.error.code).toBe("provider_error");
    brave.reply = () => "hang";
    const slow = await post(localHandler(undefined, { ...limits, timeoutMs: 400 }), { query: "rust book" });
    expect(slow.status).toBe(504);
    expect(slow.json.error.code).toBe("provider_timeout");
  });

  it("fails over from Brave to Tavily and says so; a named provider does not fail over", async () => {
    brave.reply = () => ({ status: 503 });
    const handler = localHandler({ [ENV.BRAVE_API_KEY]: LOCAL_BRAVE_KEY, [ENV.TAVILY_API_KEY]: "tvly-local" });
    expect((await post(handler, { query: "rust book" })).json.provider).toBe("tavily");
    tavily.requests.length = 0;
    const named = await post(handler, { query: "rust book", provider: "brave" });
    expect(named.status).toBe(502);
    expect(tavily.requests).toHaveLength(0);
  });

  it("SearXNG answering HTML: 502 provider_bad_response telling to turn on the json format", async () => {
    searxng.reply = () => ({ status: 403, headers: { "content-type": "text/html" }, body: "<h1>Forbidden</h1>" });
    const { status, json } = await post(localHandler({ [ENV.SEARXNG_URL]: searxng.origin }), { query: "rust book" });
    expect(status).toBe(502);
    expect(json.error.code).toBe("provider_bad_response");
    expect(json.error.message).toContain("settings.yml");
  });

  it("refuses a bad SEARXNG_URL at cold start", () => {
    expect(() => localHandler({ [ENV.SEARXNG_URL]: "http://searx.example.org" })).toThrow(ConfigError);
    expect(() => localHandler({ [ENV.SEARXNG_URL]: "https://u:p@searx.example.org" })).toThrow(ConfigError);
  });
});

describe("POST /search handler under arbitrary input", () => {
  it("never answers 500, whatever the body", async () => {
    // No provider configured: a valid request answers 503, anything else 400; never a crash.
    const handler = localHandler({});
    const field = fc.oneof(fc.string(), fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.array(fc.string()), fc.object());
    const body = fc.oneof(
      fc.record({ query: field, max_results: field, provider: field }, { requiredKeys: [] }),
      fc.dictionary(fc.string(), field),
      fc.jsonValue(),
      fc.string(),
    );
    await fc.assert(
      fc.asyncProperty(body, async (value) => {
        const text = typeof value === "string" ? value : JSON.stringify(value);
        const { status, json } = await post(handler, text);
        expect([400, 503]).toContain(status);
        expect(typeof json.error.code).toBe("string");
      }),
      { numRuns: 300 },
    );
  });
});

describe("POST /search handler (keys from Secrets Manager)", () => {
  function awsHandler(endpoint: string, now?: () => number) {
    return createSearchHandler({
      config: loadConfig(env({ [ENV.PROVIDER_SECRET_ARN]: TEST_SECRET_ARN, [ENV.BRAVE_API_KEY]: LOCAL_BRAVE_KEY })),
      secretsManager: secretsManagerClient(endpoint),
      resolver: noDns,
      limits,
      keyCacheTtlMs: 60_000,
      ...(now === undefined ? {} : { now }),
      telemetry,
    });
  }

  it("uses the secret's keys, fetched once across invocations and again after the expiry", async () => {
    const clock = { t: 5_000_000 };
    const handler = awsHandler(sm.origin, () => clock.t);
    for (let i = 0; i < 3; i += 1) expect((await post(handler, { query: "rust book" })).status).toBe(200);
    expect(sm.calls()).toBe(1);
    // The environment key is ignored once a secret is configured.
    expect(brave.requests.map((r) => r.headers["x-subscription-token"])).toEqual([SECRET_BRAVE_KEY, SECRET_BRAVE_KEY, SECRET_BRAVE_KEY]);
    clock.t += 60_000;
    await post(handler, { query: "rust book", provider: "tavily" });
    expect(sm.calls()).toBe(2);
    expect(tavily.requests[0]!.headers.authorization).toBe(`Bearer ${SECRET_TAVILY_KEY}`);
  });

  it("Secrets Manager unreachable: 502 provider_error, retryable, no ARN or key; no provider called", async () => {
    const port = await closedPort();
    const { status, json } = await post(awsHandler(`http://127.0.0.1:${port}`), { query: "rust book" });
    expect(status).toBe(502);
    expect(json.error.code).toBe("provider_error");
    expect(json.error.retryable).toBe(true);
    expect(brave.requests).toHaveLength(0);
  });

  it("a secret-looking query is refused before Secrets Manager is even asked", async () => {
    const handler = awsHandler(sm.origin);
    const { json } = await post(handler, { query: "A".repeat(45) });
    expect(json.error.code).toBe("query_looks_like_secret");
    expect(sm.calls()).toBe(0);
  });
});
