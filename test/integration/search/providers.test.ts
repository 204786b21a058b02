/**
 * The provider adapters against loopback servers speaking each provider's wire format,
 * through the product's real HTTP client: request shape, result mapping and every error mapping.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { WebgateError } from "../../../shared/errors";
import { createTrustedHttpClient } from "../../../shared/http/trusted-http-client";
import type { Resolver } from "../../../shared/guard/dns-resolver";
import { createAnthropicProvider } from "../../../shared/search/anthropic";
import { createBraveProvider } from "../../../shared/search/brave";
import { createOllamaProvider } from "../../../shared/search/ollama";
import type { ProviderLimits, SearchProvider } from "../../../shared/search/provider";
import type { ProviderName } from "../../../shared/search/schema";
import { createSearxngProvider } from "../../../shared/search/searxng";
import { createTavilyProvider } from "../../../shared/search/tavily";
import { anthropicAnswer, anthropicErrorBody, closedPort, startStandIn, type Reply, type StandIn } from "../../helpers/provider-stand-in";

const fixture = (name: string) => readFileSync(path.resolve(__dirname, "../../fixtures/search", name), "utf8");
const BRAVE_KEY = "BSA-brave-test-key-0001";
const TAVILY_KEY = "tvly-test-key-0002";
const OLLAMA_KEY = "ollama-test-key-0003";
const ANTHROPIC_KEY = "sk-ant-api03-test-key-0004";

// Loopback URLs are IP literals: the client never asks the resolver. One that is asked fails.
const noDns: Resolver = { resolve: () => Promise.reject(new Error("tests never resolve names")) };
const http = createTrustedHttpClient({ resolver: noDns });
const limits: ProviderLimits = { timeoutMs: 500, connectTimeoutMs: 500, maxBytes: 64 * 1024 };

let server: StandIn;
beforeAll(async () => {
  server = await startStandIn();
});
afterAll(() => server.close());
beforeEach(() => {
  server.requests.length = 0;
});

function make(name: ProviderName, origin = server.origin): SearchProvider {
  if (name === "brave") return createBraveProvider({ http, endpoint: `${origin}/res/v1/web/search`, apiKey: BRAVE_KEY, limits });
  if (name === "tavily") return createTavilyProvider({ http, endpoint: `${origin}/search`, apiKey: TAVILY_KEY, limits });
  if (name === "ollama") return createOllamaProvider({ http, endpoint: origin, apiKey: OLLAMA_KEY, limits });
  if (name === "anthropic") return createAnthropicProvider({ http, endpoint: `${origin}/proxy/`, apiKey: ANTHROPIC_KEY, model: "claude-haiku-4-5", limits });
  return createSearxngProvider({ http, baseUrl: new URL(`${origin}/searxng/`), limits });
}

async function failure(promise: Promise<unknown>): Promise<WebgateError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(WebgateError);
    const webgate = error as WebgateError;
    // No key, ever, in anything a caller or a log line could see.
    const visible = JSON.stringify({ message: webgate.message, details: webgate.details, headers: webgate.headers });
    expect(visible).not.toContain(BRAVE_KEY);
    expect(visible).not.toContain(TAVILY_KEY);
    expect(visible).not.toContain(OLLAMA_KEY);
    expect(visible).not.toContain(ANTHROPIC_KEY);
    return webgate;
  }
  throw new Error("expected a failure");
}

describe("Brave wire format", () => {
  it("sends GET q/count with the subscription token and maps web.results", async () => {
    server.reply = () => ({ status: 200, body: fixture("brave-web-search.json"), headers: { "content-type": "application/json" } });
    const results = await make("brave").search({ query: "rust book", maxResults: 4 });
    const [request] = server.requests;
    expect(request!.method).toBe("GET");
    expect(request!.url.pathname).toBe("/res/v1/web/search");
    expect(request!.url.searchParams.get("q")).toBe("rust book");
    expect(request!.url.searchParams.get("count")).toBe("4");
    expect(request!.headers["x-subscription-token"]).toBe(BRAVE_KEY);
    expect(request!.headers.accept).toBe("application/json");
    // Raw mapping: the malformed entry (no url) is skipped; cleaning happens in normalize.
    expect(results).toHaveLength(4);
    expect(results[0]).toEqual({
      title: "The <strong>Rust</strong> Programming Language",
      url: "https://doc.rust-lang.org/book/",
      snippet: "An introductory <strong>book</strong> about <strong>Rust</strong>. It&#x27;s free &amp; open.",
      age: "March 5, 2024",
    });
  });

  it("treats a missing web section as no results", async () => {
    server.reply = () => ({ status: 200, body: { type: "search", query: { original: "zzz" } } });
    await expect(make("brave").search({ query: "zzz", maxResults: 5 })).resolves.toEqual([]);
  });

  it("reads a gzip answer", async () => {
    // Compressed bytes go out untouched from a one-shot server (the stand-in writes strings as UTF-8).
    const raw = await startStandInRaw(zlib.gzipSync(fixture("brave-web-search.json")));
    try {
      const results = await make("brave", raw.origin).search({ query: "rust", maxResults: 5 });
      expect(results[0]!.url).toBe("https://doc.rust-lang.org/book/");
    } finally {
      await raw.close();
    }
  });

  it("maps 422 SUBSCRIPTION_TOKEN_INVALID to provider_auth_failed", async () => {
    server.reply = () => ({
      status: 422,
      body: { type: "ErrorResponse", error: { id: "x", status: 422, code: "SUBSCRIPTION_TOKEN_INVALID", detail: "The provided subscription token is invalid." } },
    });
    const error = await failure(make("brave").search({ query: "rust", maxResults: 5 }));
    expect(error.code).toBe("provider_auth_failed");
    expect(error.message).toContain("check the API key");
  });

  it("maps 429 with X-RateLimit-Reset and no Retry-After to a retry hint", async () => {
    server.reply = () => ({
      status: 429,
      headers: { "x-ratelimit-limit": "1, 15000", "x-ratelimit-remaining": "0, 14000", "x-ratelimit-reset": "1, 1419704" },
      body: { type: "ErrorResponse", error: { code: "RATE_LIMITED", status: 429, detail: "Request rate limit exceeded for plan." } },
    });
    const error = await failure(make("brave").search({ query: "rust", maxResults: 5 }));
    expect(error.code).toBe("provider_rate_limited");
    expect(error.status).toBe(429);
    expect(error.headers["Retry-After"]).toBe("1");
    expect(error.details.retry_after_s).toBe(1);
  });
});

describe("Tavily wire format", () => {
  it("POSTs the JSON body with a bearer key and maps results", async () => {
    server.reply = () => ({ status: 200, body: fixture("tavily-search.json"), headers: { "content-type": "application/json" } });
    const results = await make("tavily").search({ query: "rust book", maxResults: 3 });
    const [request] = server.requests;
    expect(request!.method).toBe("POST");
    expect(request!.url.pathname).toBe("/search");
    expect(request!.headers.authorization).toBe(`Bearer ${TAVILY_KEY}`);
    expect(request!.headers["content-type"]).toBe("application/json");
    expect(JSON.parse(request!.body)).toEqual({ query: "rust book", max_results: 3, search_depth: "basic" });
    expect(results.map((r) => r.url)).toEqual(["https://doc.rust-lang.org/book/", "https://doc.rust-lang.org/rust-by-example/"]);
    expect(results[0]).not.toHaveProperty("age");
    expect(results[1]!.age).toBe("Tue, 05 Mar 2024 10:00:00 GMT");
  });

  it.each([432, 433])("maps the plan limit status %i to provider_rate_limited", async (status) => {
    server.reply = () => ({ status, body: { detail: { error: "This request exceeds your plan's set usage limit." } } });
    const error = await failure(make("tavily").search({ query: "rust", maxResults: 5 }));
    expect(error.code).toBe("provider_rate_limited");
    expect(error.details.upstream_status).toBe(status);
  });
});

describe("SearXNG wire format", () => {
  it("GETs <base>/search?q&format=json without any key and maps results", async () => {
    server.reply = () => ({ status: 200, body: fixture("searxng-search.json"), headers: { "content-type": "application/json" } });
    const results = await make("searxng").search({ query: "rust book", maxResults: 5 });
    const [request] = server.requests;
    expect(request!.method).toBe("GET");
    expect(request!.url.pathname).toBe("/searxng/search");
    expect(request!.url.searchParams.get("q")).toBe("rust book");
    expect(request!.url.searchParams.get("format")).toBe("json");
    expect(request!.headers.authorization).toBeUndefined();
    expect(results[0]!.age).toBe("2024-03-05T00:00:00");
    expect(results[1]).not.toHaveProperty("age");
  });

  it("explains the 403 SearXNG sends when the json format is off", async () => {
    server.reply = () => ({
      status: 403,
      headers: { "content-type": "text/html; charset=utf-8" },
      body: "<!doctype html><title>403 Forbidden</title><h1>Forbidden</h1>",
    });
    const error = await failure(make("searxng").search({ query: "rust", maxResults: 5 }));
    expect(error.code).toBe("provider_bad_response");
    expect(error.message).toContain("settings.yml");
    expect(error.message).toContain("search.formats");
  });

  it("reports a 401 from a proxy in front of SearXNG as provider_auth_failed", async () => {
    server.reply = () => ({ status: 401, headers: { "www-authenticate": 'Basic realm="searx"' } });
    const error = await failure(make("searxng").search({ query: "rust", maxResults: 5 }));
    expect(error.code).toBe("provider_auth_failed");
    expect(error.message).toContain("SEARXNG_URL");
  });

  it("echoes only a short, printable form of the provider's content type", async () => {
    server.reply = () => ({ status: 200, headers: { "content-type": `text/${"x".repeat(5_000)}` }, body: "<html>not json</html>" });
    const error = await failure(make("searxng").search({ query: "rust", maxResults: 5 }));
    expect(error.code).toBe("provider_bad_response");
    expect(error.message).toContain("(text/xxxx");
    expect(error.message.length).toBeLessThan(400);
  });

  it("explains an HTML answer with status 200 the same way", async () => {
    server.reply = () => ({ status: 200, headers: { "content-type": "text/html" }, body: "<html><body>results</body></html>" });
    const error = await failure(make("searxng").search({ query: "rust", maxResults: 5 }));
    expect(error.code).toBe("provider_bad_response");
    expect(error.message).toContain("json format");
  });
});

describe("Ollama wire format", () => {
  it("POSTs query/max_results to <endpoint>/api/web_search with the bearer key and maps results", async () => {
    server.reply = () => ({ status: 200, body: fixture("ollama-web-search.json"), headers: { "content-type": "application/json" } });
    const results = await make("ollama").search({ query: "rust book", maxResults: 3 });
    const [request] = server.requests;
    expect(request!.method).toBe("POST");
    expect(request!.url.pathname).toBe("/api/web_search");
    expect(request!.headers.authorization).toBe(`Bearer ${OLLAMA_KEY}`);
    expect(request!.headers["content-type"]).toBe("application/json");
    expect(JSON.parse(request!.body)).toEqual({ query: "rust book", max_results: 3 });
    // The entry without a url is skipped; a missing title or null content is an empty field.
    expect(results).toHaveLength(3);
    expect(results[0]).toMatchObject({ title: "The Rust Programming Language - The Rust Programming Language", url: "https://doc.rust-lang.org/book/" });
    expect(results[0]!.snippet).toContain("by Steve Klabnik");
    expect(results[2]).toEqual({ title: "", url: "https://www.rust-lang.org/learn", snippet: "" });
  });

  it("asks for its maximum (10) when a domain filter is set, since it cannot filter itself", async () => {
    server.reply = () => ({ status: 200, body: { results: [] } });
    await make("ollama").search({ query: "rust book", maxResults: 3, filter: { allowed: ["rust-lang.org"] } });
    expect(JSON.parse(server.requests[0]!.body)).toEqual({ query: "rust book", max_results: 10 });
  });

  it("treats a null results list as no results", async () => {
    server.reply = () => ({ status: 200, body: { results: null } });
    await expect(make("ollama").search({ query: "zzz", maxResults: 5 })).resolves.toEqual([]);
  });
});

describe("Anthropic wire format (Messages API, web search tool)", () => {
  const ok = (body: object): Reply => ({ status: 200, headers: { "content-type": "application/json", "request-id": "req_1" }, body });

  it("POSTs one user message with the web_search tool and reads results from web_search_tool_result", async () => {
    server.reply = () => ({ status: 200, headers: { "content-type": "application/json" }, body: fixture("anthropic-web-search.json") });
    const billed: number[] = [];
    const results = await make("anthropic").search({ query: 'rust "book"', maxResults: 5, onBilledSearches: (n) => billed.push(n) });
    const [request] = server.requests;
    expect(request!.method).toBe("POST");
    // The endpoint's base path is kept.
    expect(request!.url.pathname).toBe("/proxy/v1/messages");
    expect(request!.headers["x-api-key"]).toBe(ANTHROPIC_KEY);
    expect(request!.headers["anthropic-version"]).toBe("2023-06-01");
    expect(request!.headers["content-type"]).toBe("application/json");
    const body = JSON.parse(request!.body);
    expect(body.model).toBe("claude-haiku-4-5");
    expect(body.max_tokens).toBeGreaterThan(0);
    expect(body.tools).toEqual([{ type: "web_search_20250305", name: "web_search", max_uses: 1 }]);
    expect(body.messages).toHaveLength(1);
    expect(body.messages[0].role).toBe("user");
    expect(body.messages[0].content).toContain(JSON.stringify('rust "book"'));
    // Snippets are the cited passages (distinct ones joined); an uncited result has none.
    expect(results).toEqual([
      {
        title: "The Rust Programming Language - The Rust Programming Language",
        url: "https://doc.rust-lang.org/book/",
        snippet: "The Rust Programming Language by Steve Klabnik and Carol Nichols, with contributions from the Rust Community. ",
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
    expect(billed).toEqual([1]);
  });

  it("passes allowed_domains / blocked_domains in the tool definition", async () => {
    server.reply = () => ok(anthropicAnswer({ results: [] }));
    await make("anthropic").search({ query: "rust", maxResults: 5, filter: { allowed: ["rust-lang.org", "docs.rs"] } });
    await make("anthropic").search({ query: "rust", maxResults: 5, filter: { blocked: ["reddit.com"] } });
    const tools = server.requests.map((r) => JSON.parse(r.body).tools[0]);
    expect(tools[0]).toEqual({ type: "web_search_20250305", name: "web_search", max_uses: 1, allowed_domains: ["rust-lang.org", "docs.rs"] });
    expect(tools[1]).toEqual({ type: "web_search_20250305", name: "web_search", max_uses: 1, blocked_domains: ["reddit.com"] });
  });

  it("a search with no results is an empty answer, not an error", async () => {
    server.reply = () => ok(anthropicAnswer({ results: [] }));
    await expect(make("anthropic").search({ query: "zzz", maxResults: 5 })).resolves.toEqual([]);
  });

  it("continues a pause_turn once by sending the conversation back", async () => {
    const paused = anthropicAnswer({ stopReason: "pause_turn" });
    // Paused after the server_tool_use, before the search ran.
    paused.content = (paused.content as Array<{ type: string }>).slice(0, 1).concat([{ type: "server_tool_use", id: "srvtoolu_9", name: "web_search", input: { query: "rust" } } as never]);
    (paused.usage as { server_tool_use: { web_search_requests: number } }).server_tool_use.web_search_requests = 0;
    const finished = anthropicAnswer({ results: [{ url: "https://doc.rust-lang.org/book/", title: "The Book", cited: ["Learn Rust."] }] });
    server.reply = () => ok(server.requests.length === 1 ? paused : finished);
    const billed: number[] = [];
    const results = await make("anthropic").search({ query: "rust", maxResults: 5, onBilledSearches: (n) => billed.push(n) });
    expect(server.requests).toHaveLength(2);
    const second = JSON.parse(server.requests[1]!.body);
    expect(second.messages.map((m: { role: string }) => m.role)).toEqual(["user", "assistant"]);
    expect(second.messages[1].content).toEqual(paused.content);
    expect(second.tools).toEqual(JSON.parse(server.requests[0]!.body).tools);
    expect(results).toEqual([{ title: "The Book", url: "https://doc.rust-lang.org/book/", snippet: "Learn Rust." }]);
    expect(billed).toEqual([1]);
  });

  it("continues pause_turn only once: a second pause without results is provider_bad_response", async () => {
    server.reply = () => ok(anthropicAnswer({ stopReason: "pause_turn" }));
    const error = await failure(make("anthropic").search({ query: "rust", maxResults: 5 }));
    expect(server.requests).toHaveLength(2);
    expect(error.code).toBe("provider_bad_response");
  });

  it("a reply that never searched is provider_bad_response saying so", async () => {
    server.reply = () => ok(anthropicAnswer({}));
    const error = await failure(make("anthropic").search({ query: "what is rust", maxResults: 5 }));
    expect(error.code).toBe("provider_bad_response");
    expect(error.message).toContain("without searching the web");
    expect(error.message).toContain("end_turn");
  });

  it.each([
    ["too_many_requests", "provider_rate_limited", 429, true],
    ["query_too_long", "invalid_request", 400, false],
    ["max_uses_exceeded", "provider_error", 502, false],
    ["unavailable", "provider_error", 502, true],
    ["invalid_tool_input", "provider_error", 502, false],
    ["something_new", "provider_error", 502, false],
  ] as const)("web_search_tool_result_error %s → %s", async (toolError, code, status, retryable) => {
    server.reply = () => ok(anthropicAnswer({ toolError }));
    const error = await failure(make("anthropic").search({ query: "rust", maxResults: 5 }));
    expect(error.code).toBe(code);
    expect(error.status).toBe(status);
    expect(error.retryable).toBe(retryable);
    expect(error.details).toMatchObject({ provider: "anthropic", provider_error_code: toolError });
  });

  it("an error block next to a result list still returns the results", async () => {
    const answer = anthropicAnswer({ results: [{ url: "https://a.example/", title: "A" }] });
    (answer.content as unknown[]).push({ type: "web_search_tool_result", tool_use_id: "srvtoolu_2", content: { type: "web_search_tool_result_error", error_code: "max_uses_exceeded" } });
    server.reply = () => ok(answer);
    await expect(make("anthropic").search({ query: "rust", maxResults: 5 })).resolves.toEqual([{ title: "A", url: "https://a.example/", snippet: "" }]);
  });

  it.each([
    [401, "authentication_error", "provider_auth_failed", false],
    [403, "permission_error", "provider_auth_failed", false],
    [404, "not_found_error", "provider_error", false],
    [400, "invalid_request_error", "provider_error", false],
    [429, "rate_limit_error", "provider_rate_limited", true],
    [529, "overloaded_error", "provider_rate_limited", true],
    [500, "api_error", "provider_error", true],
  ] as const)("HTTP %i %s → %s", async (status, type, code, retryable) => {
    server.reply = () => ({ status, headers: { "content-type": "application/json", ...(status === 429 ? { "retry-after": "9" } : {}) }, body: anthropicErrorBody(type, "details") });
    const error = await failure(make("anthropic").search({ query: "rust", maxResults: 5 }));
    expect(error.code).toBe(code);
    expect(error.retryable).toBe(retryable);
    expect(error.details.upstream_status).toBe(status);
    if (status === 429) expect(error.headers["Retry-After"]).toBe("9");
    if (status === 404) expect(error.message).toContain("WEBGATE_ANTHROPIC_MODEL");
    if (status === 400) expect(error.message).toContain("invalid_request_error");
  });

  it("a slow answer ends as provider_timeout within the attempt's budget, continuation included", async () => {
    // The first answer pauses; the continuation never comes. The whole attempt has 300 ms.
    server.reply = () => (server.requests.length === 1 ? ok(anthropicAnswer({ stopReason: "pause_turn" })) : "hang");
    const started = performance.now();
    const error = await failure(make("anthropic").search({ query: "rust", maxResults: 5, timeoutMs: 300 }));
    expect(error.code).toBe("provider_timeout");
    // The continuation got what was left of the attempt's 0.3 s, not the 0.5 s provider limit.
    expect(error.message).toMatch(/within 0\.[0-3] s/);
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(server.requests).toHaveLength(2);
  });
});

describe("domain filters sent natively", () => {
  const empty: Record<string, Reply> = {
    brave: { status: 200, body: { web: { results: [] } } },
    tavily: { status: 200, body: { results: [] } },
    searxng: { status: 200, body: { results: [] } },
  };

  it("Brave: site: operators in q, and its maximum count", async () => {
    server.reply = () => empty.brave!;
    await make("brave").search({ query: "rust book", maxResults: 3, filter: { allowed: ["rust-lang.org", "docs.rs"] } });
    await make("brave").search({ query: "rust book", maxResults: 3, filter: { blocked: ["reddit.com"] } });
    expect(server.requests.map((r) => r.url.searchParams.get("q"))).toEqual(["rust book site:rust-lang.org OR site:docs.rs", "rust book -site:reddit.com"]);
    expect(server.requests[0]!.url.searchParams.get("count")).toBe("20");
  });

  it("Tavily: include_domains / exclude_domains", async () => {
    server.reply = () => empty.tavily!;
    await make("tavily").search({ query: "rust book", maxResults: 3, filter: { allowed: ["rust-lang.org"] } });
    await make("tavily").search({ query: "rust book", maxResults: 3, filter: { blocked: ["reddit.com"] } });
    const bodies = server.requests.map((r) => JSON.parse(r.body));
    expect(bodies[0]).toMatchObject({ query: "rust book", include_domains: ["rust-lang.org"] });
    expect(bodies[0].exclude_domains).toBeUndefined();
    expect(bodies[1]).toMatchObject({ query: "rust book", exclude_domains: ["reddit.com"] });
  });

  it("SearXNG: site: operators in q", async () => {
    server.reply = () => empty.searxng!;
    await make("searxng").search({ query: "rust book", maxResults: 3, filter: { blocked: ["reddit.com", "quora.com"] } });
    expect(server.requests[0]!.url.searchParams.get("q")).toBe("rust book -site:reddit.com -site:quora.com");
  });
});

describe.each(["brave", "tavily", "searxng", "ollama", "anthropic"] as const)("%s error mapping", (name) => {
  const cases: Array<[string, Reply, string, Record<string, unknown>?]> = [
    ["500", { status: 500, body: "oops" }, "provider_error", { retryable: true }],
    ["503", { status: 503, body: { error: "maintenance" } }, "provider_error", { retryable: true }],
    ["302 (never followed)", { status: 302, headers: { location: "http://127.0.0.1:1/elsewhere" } }, "provider_error", { retryable: false }],
    ["400", { status: 400, body: { detail: { error: "bad" } } }, "provider_error", { retryable: false }],
    ["HTML instead of JSON", { status: 200, headers: { "content-type": "text/html" }, body: "<html><h1>Captive portal</h1></html>" }, "provider_bad_response"],
    ["JSON of the wrong shape", { status: 200, body: { results: "nope", web: { results: 7 } } }, "provider_bad_response"],
    ["429 with Retry-After", { status: 429, headers: { "retry-after": "7" }, body: { detail: "slow down" } }, "provider_rate_limited", { retryAfter: "7" }],
    ["429 with an HTTP-date Retry-After", { status: 429, headers: { "retry-after": "Wed, 21 Oct 2026 07:28:00 GMT" } }, "provider_rate_limited", { retryAfter: "Wed, 21 Oct 2026 07:28:00 GMT" }],
    ["an answer over the size limit", { status: 200, body: JSON.stringify({ results: [], pad: "x".repeat(70 * 1024) }) }, "provider_bad_response"],
  ];
  if (name !== "searxng") {
    cases.push(["401", { status: 401, body: { detail: { error: "Unauthorized: missing or invalid API key." } } }, "provider_auth_failed"]);
    cases.push(["403", { status: 403, body: { detail: { error: "Forbidden" } } }, "provider_auth_failed"]);
  }

  it.each(cases)("%s", async (_label, reply, code, extra = {}) => {
    server.reply = () => reply;
    const started = server.requests.length;
    const error = await failure(make(name).search({ query: "rust book", maxResults: 5 }));
    expect(error.code).toBe(code);
    expect(error.details.provider).toBe(name);
    // Exactly one request: nothing retried or followed.
    expect(server.requests.length - started).toBe(1);
    if ("retryable" in extra) expect(error.retryable).toBe(extra.retryable);
    if ("retryAfter" in extra) expect(error.headers["Retry-After"]).toBe(extra.retryAfter);
    if (code === "provider_auth_failed") expect(error.message).toContain("check the API key");
  });

  it("a provider that never answers → provider_timeout within the limit", async () => {
    server.reply = () => "hang";
    const error = await failure(make(name).search({ query: "rust", maxResults: 5 }));
    expect(error.code).toBe("provider_timeout");
    expect(error.status).toBe(504);
  });

  it("nothing listening → retryable provider_error", async () => {
    const port = await closedPort();
    const error = await failure(make(name, `http://127.0.0.1:${port}`).search({ query: "rust", maxResults: 5 }));
    expect(error.code).toBe("provider_error");
    expect(error.retryable).toBe(true);
  });

  it("a caller's abort also ends the call as provider_timeout", async () => {
    server.reply = () => "hang";
    const controller = new AbortController();
    // Aborted once the stand-in holds the request, so it is the waiting that is cut short, and no
    // request of this test can reach the stand-in after the next test started counting.
    const received = server.nextRequest();
    const pending = make(name).search({ query: "rust", maxResults: 5, signal: controller.signal });
    await received;
    controller.abort();
    expect((await failure(pending)).code).toBe("provider_timeout");
  });
});

/** A one-shot server that answers a pre-compressed JSON body byte for byte. */
async function startStandInRaw(gzipped: Buffer): Promise<{ origin: string; close(): Promise<void> }> {
  const { createServer } = await import("node:http");
  const srv = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip", "content-length": String(gzipped.length) });
    res.end(gzipped);
  });
  await new Promise<void>((resolve) => srv.listen(0, "127.0.0.1", resolve));
  const address = srv.address() as { port: number };
  return {
    origin: `http://127.0.0.1:${address.port}`,
    close: () => new Promise<void>((resolve) => { srv.closeAllConnections(); srv.close(() => resolve()); }),
  };
}
