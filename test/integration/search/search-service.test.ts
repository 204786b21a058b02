/**
 * The search use case with real provider adapters against loopback stand-ins: selection,
 * failover (once, only when no provider was named), the secret check (nothing leaves), and
 * normalization of what comes back.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createHttpClient } from "../../../shared/http/http-client";
import type { Resolver } from "../../../shared/http/types";
import { createProviders } from "../../../shared/search/provider-factory";
import { resolveSearchSettings } from "../../../shared/search/search-config";
import { createSearchService, type SearchLogFields } from "../../../shared/search/search-service";
import type { ProviderName } from "../../../shared/search/schema";
import { ENV, loadConfig } from "../../../shared/config";
import type { ProviderKeySource, ProviderKeys } from "../../../shared/secrets/provider-keys";
import { startStandIn, type Reply, type StandIn } from "../../helpers/provider-stand-in";
import { expectWebgateError } from "../../helpers/expect-error";

const fixture = (name: string) => readFileSync(path.resolve(__dirname, "../../fixtures/search", name), "utf8");
const noDns: Resolver = { resolve: () => Promise.reject(new Error("tests never resolve names")) };
const http = createHttpClient({ resolver: noDns });
const KEYS = { braveApiKey: "BSA-svc-brave-key", tavilyApiKey: "tvly-svc-tavily-key" };

const OK: Record<ProviderName, Reply> = {
  brave: { status: 200, headers: { "content-type": "application/json" }, body: fixture("brave-web-search.json") },
  tavily: { status: 200, headers: { "content-type": "application/json" }, body: fixture("tavily-search.json") },
  searxng: { status: 200, headers: { "content-type": "application/json" }, body: fixture("searxng-search.json") },
};

const servers = {} as Record<ProviderName, StandIn>;
beforeAll(async () => {
  for (const name of ["brave", "tavily", "searxng"] as const) servers[name] = await startStandIn();
});
afterAll(async () => {
  for (const server of Object.values(servers)) await server.close();
});
beforeEach(() => {
  for (const name of ["brave", "tavily", "searxng"] as const) {
    servers[name].requests.length = 0;
    servers[name].reply = () => OK[name];
  }
});

function countingKeys(keys: ProviderKeys): ProviderKeySource & { calls: number } {
  const source = { calls: 0, get: () => ((source.calls += 1), Promise.resolve(keys)) };
  return source;
}

function service(options: { keys?: ProviderKeys; searxng?: boolean; defaultProvider?: string } = {}) {
  const settings = resolveSearchSettings(
    loadConfig({
      [ENV.BRAVE_ENDPOINT]: `${servers.brave.origin}/res/v1/web/search`,
      [ENV.TAVILY_ENDPOINT]: `${servers.tavily.origin}/search`,
      ...(options.searxng === false ? {} : { [ENV.SEARXNG_URL]: servers.searxng.origin }),
      ...(options.defaultProvider === undefined ? {} : { [ENV.SEARCH_PROVIDER]: options.defaultProvider }),
    }),
  );
  const keys = countingKeys(options.keys ?? KEYS);
  const limits = { timeoutMs: 400, connectTimeoutMs: 400, maxBytes: 2 * 1024 * 1024 };
  const svc = createSearchService({ keys, buildProviders: (k) => createProviders(settings, k, http, limits), defaultProvider: settings.defaultProvider });
  return { svc, keys };
}

const hits = () => ({ brave: servers.brave.requests.length, tavily: servers.tavily.requests.length, searxng: servers.searxng.requests.length });

const failure = expectWebgateError;

describe("search service", () => {
  it("answers from the first configured provider with normalized results", async () => {
    const { svc } = service();
    const response = await svc.search({ query: "rust book", max_results: 5 });
    expect(response.provider).toBe("brave");
    expect(response.query).toBe("rust book");
    // The fixture's duplicate (DOC.rust-lang.org/book) and javascript: entries are gone.
    expect(response.results.map((r) => r.url)).toEqual(["https://doc.rust-lang.org/book/", "https://doc.rust-lang.org/rust-by-example/"]);
    expect(response.results[0]).toEqual({
      title: "The Rust Programming Language",
      url: "https://doc.rust-lang.org/book/",
      snippet: "An introductory book about Rust. It's free & open.",
      age: "March 5, 2024",
    });
    expect(hits()).toEqual({ brave: 1, tavily: 0, searxng: 0 });
  });

  it("honours max_results", async () => {
    const { svc } = service();
    const response = await svc.search({ query: "rust book", max_results: 1 });
    expect(response.results).toHaveLength(1);
  });

  it("uses WEBGATE_SEARCH_PROVIDER as the default", async () => {
    const { svc } = service({ defaultProvider: "searxng" });
    expect((await svc.search({ query: "rust book", max_results: 5 })).provider).toBe("searxng");
  });

  it.each([
    ["429", { status: 429, headers: { "retry-after": "30" } }],
    ["401", { status: 401, body: { error: "unauthorized" } }],
    ["500", { status: 500 }],
    ["a timeout", "hang" as const],
  ])("fails over once to the next configured provider after %s", async (_label, reply) => {
    servers.brave.reply = () => reply;
    const log: SearchLogFields[] = [];
    const { svc } = service();
    const attempts: string[] = [];
    const response = await svc.search(
      { query: "rust book", max_results: 5 },
      { log: (fields) => log.push(fields), attempt: (provider, outcome) => attempts.push(`${provider}:${outcome}`) },
    );
    expect(attempts[1]).toBe("tavily:ok");
    expect(attempts[0]).toMatch(/^brave:provider_/);
    expect(response.provider).toBe("tavily");
    expect(hits()).toEqual({ brave: 1, tavily: 1, searxng: 0 });
    expect(log.some((f) => f.failover_from === "brave")).toBe(true);
  });

  it("does not fail over on a bad answer", async () => {
    servers.brave.reply = () => ({ status: 200, headers: { "content-type": "text/html" }, body: "<html></html>" });
    const { svc } = service();
    expect((await failure(svc.search({ query: "rust book", max_results: 5 }))).code).toBe("provider_bad_response");
    expect(hits()).toEqual({ brave: 1, tavily: 0, searxng: 0 });
  });

  it("tries only one fallback: two failures end the search with the second's error", async () => {
    servers.brave.reply = () => ({ status: 503 });
    servers.tavily.reply = () => ({ status: 429, headers: { "retry-after": "12" } });
    const { svc } = service();
    const error = await failure(svc.search({ query: "rust book", max_results: 5 }));
    expect(error.code).toBe("provider_rate_limited");
    expect(error.headers["Retry-After"]).toBe("12");
    expect(error.details.failover_from).toBe("brave");
    expect(error.details.provider).toBe("tavily");
    expect(hits()).toEqual({ brave: 1, tavily: 1, searxng: 0 });
  });

  it("never fails over when the request named the provider", async () => {
    servers.tavily.reply = () => ({ status: 500 });
    const { svc } = service();
    const error = await failure(svc.search({ query: "rust book", max_results: 5, provider: "tavily" }));
    expect(error.code).toBe("provider_error");
    expect(hits()).toEqual({ brave: 0, tavily: 1, searxng: 0 });
  });

  it("refuses a named provider that has no key (400)", async () => {
    const { svc } = service({ keys: { braveApiKey: "only-brave" } });
    const error = await failure(svc.search({ query: "rust book", max_results: 5, provider: "tavily" }));
    expect(error.code).toBe("provider_not_configured");
    expect(error.status).toBe(400);
  });

  it("answers search_not_configured (503) with no provider at all", async () => {
    const { svc } = service({ keys: {}, searxng: false });
    const error = await failure(svc.search({ query: "rust book", max_results: 5 }));
    expect(error.code).toBe("search_not_configured");
    expect(error.status).toBe(503);
  });

  it("refuses a secret-looking query before loading keys or contacting any provider", async () => {
    const { svc, keys } = service();
    const error = await failure(svc.search({ query: `find ${"A1b2C3d4E5f6".repeat(4)}`, max_results: 5 }));
    expect(error.code).toBe("query_looks_like_secret");
    expect(keys.calls).toBe(0);
    expect(hits()).toEqual({ brave: 0, tavily: 0, searxng: 0 });
  });
});
