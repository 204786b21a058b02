/**
 * `npm start`'s server (scripts/lib/local-api.ts, the same handlers as Lambda) with the ollama
 * and anthropic providers configured by their environment variables, over real HTTP, against
 * loopback stand-ins speaking each provider's wire format.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { startLocalApi, type LocalApi } from "../../../scripts/lib/local-api";
import { createMemoryTelemetry } from "../../../shared/observability/telemetry";
import { startStandIn, type StandIn } from "../../helpers/provider-stand-in";

const fixture = (name: string) => readFileSync(path.resolve(__dirname, "../../fixtures/search", name), "utf8");
const telemetry = createMemoryTelemetry();
let api: LocalApi;
let anthropic: StandIn;
let ollama: StandIn;

beforeAll(async () => {
  [anthropic, ollama] = await Promise.all([startStandIn(), startStandIn()]);
  api = await startLocalApi({
    env: {
      ANTHROPIC_API_KEY: "sk-ant-local-server-key",
      OLLAMA_API_KEY: "ollama-local-server-key",
      WEBGATE_ANTHROPIC_ENDPOINT: anthropic.origin,
      WEBGATE_OLLAMA_ENDPOINT: `${ollama.origin}/`,
      WEBGATE_ANTHROPIC_MODEL: "claude-haiku-4-5",
      WEBGATE_SEARCH_ORDER: "ollama,anthropic",
    },
    port: 0,
    telemetry,
    log: () => undefined,
  });
});
afterAll(async () => {
  await api.close();
  await Promise.all([anthropic.close(), ollama.close()]);
});
beforeEach(() => {
  anthropic.requests.length = 0;
  ollama.requests.length = 0;
  anthropic.reply = () => ({ status: 200, headers: { "content-type": "application/json" }, body: fixture("anthropic-web-search.json") });
  ollama.reply = () => ({ status: 200, headers: { "content-type": "application/json" }, body: fixture("ollama-web-search.json") });
});

async function search(body: unknown) {
  const res = await fetch(`${api.url}/search`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  return { status: res.status, json: (await res.json()) as Record<string, any> };
}

describe("npm start: /search with ollama and anthropic", () => {
  it("answers from ollama first (WEBGATE_SEARCH_ORDER), then fails over to anthropic", async () => {
    const first = await search({ query: "rust book", max_results: 2 });
    expect(first.status).toBe(200);
    expect(first.json.provider).toBe("ollama");
    ollama.reply = () => ({ status: 429, headers: { "retry-after": "3" } });
    const second = await search({ query: "rust book", max_results: 2 });
    expect(second.status).toBe(200);
    expect(second.json.provider).toBe("anthropic");
    expect(second.json.results[0].snippet).toContain("Steve Klabnik");
    expect(JSON.parse(anthropic.requests[0]!.body).model).toBe("claude-haiku-4-5");
  });

  it("applies the domain filter natively for anthropic and on the results for both", async () => {
    const viaAnthropic = await search({ query: "rust book", provider: "anthropic", allowed_domains: ["www.rust-lang.org"] });
    expect(JSON.parse(anthropic.requests[0]!.body).tools[0].allowed_domains).toEqual(["www.rust-lang.org"]);
    expect(viaAnthropic.json.results.map((r: { url: string }) => r.url)).toEqual(["https://www.rust-lang.org/learn"]);
    const viaOllama = await search({ query: "rust book", provider: "ollama", blocked_domains: ["rust-lang.org"] });
    expect(viaOllama.json.results).toEqual([]);
  });

  it("serves the filters in the OpenAPI document, and the answers match its schema", async () => {
    const doc = (await (await fetch(`${api.url}/openapi.json`)).json()) as { components: { schemas: Record<string, any>; requestBodies: Record<string, any> } };
    const request = doc.components.requestBodies.SearchRequest.content["application/json"].schema;
    expect(request.properties.allowed_domains).toMatchObject({ type: "array", maxItems: 20 });
    expect(request.properties.blocked_domains).toMatchObject({ type: "array", maxItems: 20 });
    expect(request.properties.provider.enum).toEqual(["brave", "tavily", "searxng", "ollama", "anthropic"]);
    const response = z.fromJSONSchema(doc.components.schemas.SearchResponse);
    expect(response.safeParse((await search({ query: "rust book", provider: "anthropic" })).json).success).toBe(true);
    expect(z.fromJSONSchema(request).safeParse({ query: "rust book", allowed_domains: ["Example.com"] }).success).toBe(true);
  });

  it("answers anthropic's errors with the project's codes, never 500", async () => {
    anthropic.reply = () => ({ status: 200, body: "{not json" });
    const bad = await search({ query: "rust book", provider: "anthropic" });
    expect(bad.status).toBe(502);
    expect(bad.json.error.code).toBe("provider_bad_response");
    const both = await search({ query: "rust book", allowed_domains: ["a.com"], blocked_domains: ["b.com"] });
    expect(both.status).toBe(400);
    expect(both.json.error.code).toBe("invalid_request");
  });
});
