/**
 * The search use case with real provider adapters against loopback stand-ins: selection,
 * failover (once, only when no provider was named), the secret check (nothing leaves), and
 * normalization of what comes back.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createTrustedHttpClient } from "../../../shared/http/trusted-http-client";
import type { Resolver } from "../../../shared/guard/dns-resolver";
import { createProviders } from "../../../shared/search/provider-factory";
import { resolveSearchSettings } from "../../../shared/search/search-config";
import { createSearchService, type SearchLogFields } from "../../../shared/search/search-service";
import type { ProviderName } from "../../../shared/search/schema";
import { ENV, loadConfig } from "../../../shared/config";
import type { ProviderKeySource, ProviderKeys } from "../../../shared/secrets/provider-keys";
import { anthropicAnswer, startStandIn, type Reply, type StandIn } from "../../helpers/provider-stand-in";
import { expectWebgateError } from "../../helpers/expect-error";

const fixture = (name: string) => readFileSync(path.resolve(__dirname, "../../fixtures/search", name), "utf8");
const noDns: Resolver = { resolve: () => Promise.reject(new Error("tests never resolve names")) };
const http = createTrustedHttpClient({ resolver: noDns });
const KEYS = { braveApiKey: "BSA-svc-brave-key", tavilyApiKey: "tvly-svc-tavily-key" };
const ALL_KEYS = { ...KEYS, ollamaApiKey: "ollama-svc-key", anthropicApiKey: "sk-ant-svc-key" };
const NAMES = ["brave", "tavily", "searxng", "ollama", "anthropic"] as const;

const OK: Record<ProviderName, Reply> = {
  brave: { status: 200, headers: { "content-type": "application/json" }, body: fixture("brave-web-search.json") },
  tavily: { status: 200, headers: { "content-type": "application/json" }, body: fixture("tavily-search.json") },
  searxng: { status: 200, headers: { "content-type": "application/json" }, body: fixture("searxng-search.json") },
  ollama: { status: 200, headers: { "content-type": "application/json" }, body: fixture("ollama-web-search.json") },
  anthropic: { status: 200, headers: { "content-type": "application/json" }, body: fixture("anthropic-web-search.json") },
};

const servers = {} as Record<ProviderName, StandIn>;
beforeAll(async () => {
  for (const name of NAMES) servers[name] = await startStandIn();
});
afterAll(async () => {
  for (const server of Object.values(servers)) await server.close();
});
beforeEach(() => {
  for (const name of NAMES) {
    servers[name].requests.length = 0;
    servers[name].reply = () => OK[name];
  }
});

function countingKeys(keys: ProviderKeys): ProviderKeySource & { calls: number } {
  const source = { calls: 0, get: () => ((source.calls += 1), Promise.resolve(keys)) };
  return source;
}

function service(options: { keys?: ProviderKeys; searxng?: boolean; defaultProvider?: string; order?: string; limitMs?: number } = {}) {
  const settings = resolveSearchSettings(
    loadConfig({
      [ENV.BRAVE_ENDPOINT]: `${servers.brave.origin}/res/v1/web/search`,
      [ENV.TAVILY_ENDPOINT]: `${servers.tavily.origin}/search`,
      [ENV.OLLAMA_ENDPOINT]: servers.ollama.origin,
      [ENV.ANTHROPIC_ENDPOINT]: servers.anthropic.origin,
      ...(options.searxng === false ? {} : { [ENV.SEARXNG_URL]: servers.searxng.origin }),
      ...(options.defaultProvider === undefined ? {} : { [ENV.SEARCH_PROVIDER]: options.defaultProvider }),
      ...(options.order === undefined ? {} : { [ENV.SEARCH_ORDER]: options.order }),
    }),
  );
  const keys = countingKeys(options.keys ?? KEYS);
  // A provider limit no loaded machine reaches unless a test asks for a short one: a stand-in's
  // answer over loopback can take longer than 400 ms on a starved core.
  const limits = { timeoutMs: options.limitMs ?? 30_000, connectTimeoutMs: 30_000, maxBytes: 2 * 1024 * 1024 };
  const svc = createSearchService({
    keys,
    buildProviders: (k) => createProviders(settings, k, http, limits),
    defaultProvider: settings.defaultProvider,
    order: settings.order,
    attemptLimitMs: limits.timeoutMs,
  });
  return { svc, keys };
}

const hits = () => ({ brave: servers.brave.requests.length, tavily: servers.tavily.requests.length, searxng: servers.searxng.requests.length });
const allHits = () => Object.fromEntries(NAMES.map((name) => [name, servers[name].requests.length]));

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
    // The timeout row needs a limit that ends brave's silence; the fallback's answer must come
    // within the same limit, so it is 1 s rather than a tighter one.
    const { svc } = service(reply === "hang" ? { limitMs: 1_000 } : {});
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

describe("search service: WEBGATE_SEARCH_ORDER", () => {
  it("takes the first configured provider of the order, and the next one as the failover", async () => {
    servers.ollama.reply = () => ({ status: 503 });
    const { svc } = service({ keys: ALL_KEYS, order: "ollama,anthropic,brave" });
    const response = await svc.search({ query: "rust book", max_results: 5 });
    expect(response.provider).toBe("anthropic");
    expect(allHits()).toEqual({ brave: 0, tavily: 0, searxng: 0, ollama: 1, anthropic: 1 });
  });

  it("a provider left out of the order is used only when a request names it", async () => {
    const { svc } = service({ keys: ALL_KEYS, searxng: false, order: "tavily" });
    servers.tavily.reply = () => ({ status: 500 });
    // No failover to brave: it is not in the order.
    expect((await failure(svc.search({ query: "rust book", max_results: 5 }))).code).toBe("provider_error");
    expect((await svc.search({ query: "rust book", max_results: 5, provider: "brave" })).provider).toBe("brave");
  });

  it("answers search_not_configured when no configured provider is in the order", async () => {
    const { svc } = service({ keys: { braveApiKey: "k" }, searxng: false, order: "anthropic" });
    const error = await failure(svc.search({ query: "rust book", max_results: 5 }));
    expect(error.code).toBe("search_not_configured");
    expect(error.message).toContain("WEBGATE_SEARCH_ORDER");
  });
});

describe("search service: domain filters", () => {
  // Every stand-in ignores the filter and answers its fixture: whatever the provider did, the
  // service's own check must hold.
  it.each(NAMES)("%s: allowed_domains keeps only matching hosts (subdomains included)", async (name) => {
    const { svc } = service({ keys: ALL_KEYS });
    const response = await svc.search({ query: "rust book", max_results: 10, provider: name, allowed_domains: ["rust-lang.org"] });
    expect(response.results.length).toBeGreaterThan(0);
    for (const result of response.results) expect(new URL(result.url).hostname).toMatch(/(^|\.)rust-lang\.org$/);
  });

  it.each(NAMES)("%s: blocked_domains drops the blocked host and its subdomains", async (name) => {
    const { svc } = service({ keys: ALL_KEYS });
    const unfiltered = await svc.search({ query: "rust book", max_results: 10, provider: name });
    const blocked = await svc.search({ query: "rust book", max_results: 10, provider: name, blocked_domains: ["doc.rust-lang.org"] });
    expect(unfiltered.results.some((r) => new URL(r.url).hostname === "doc.rust-lang.org")).toBe(true);
    expect(blocked.results.some((r) => new URL(r.url).hostname.endsWith("doc.rust-lang.org"))).toBe(false);
    expect(blocked.results.length).toBeLessThan(unfiltered.results.length);
  });

  it("an allowed domain matching nothing answers 200 with no results", async () => {
    const { svc } = service();
    const response = await svc.search({ query: "rust book", max_results: 5, allowed_domains: ["example.org"] });
    expect(response).toEqual({ query: "rust book", provider: "brave", results: [] });
  });
});

describe("search service: failover within the request's deadline", () => {
  it("a first provider that hangs gets at most 55% of the time; the fallback answers before the deadline", async () => {
    servers.brave.reply = () => "hang";
    // The provider limit (5 s) is far above the request's 1.6 s: only the budget can save it.
    const { svc } = service({ limitMs: 5_000 });
    const log: SearchLogFields[] = [];
    // The request's deadline on a clock of its own that moves when brave's attempt ends, by
    // exactly that attempt's budget, as if its timer fired on time: the arithmetic is then exact
    // however late a loaded machine fires the real timers (a late one ate the fallback's time
    // and the failover was skipped). The real timers still end brave's attempt.
    const clock = { spentMs: 0 };
    const deadline = { remainingMs: () => 1_600 - clock.spentMs };
    const observer = {
      log: (f: SearchLogFields) => log.push(f),
      attempt: (provider: string) => {
        if (provider === "brave") clock.spentMs = Math.floor(1_600 * 0.55);
      },
    };
    const response = await svc.search({ query: "rust book", max_results: 5 }, observer, { deadline });
    expect(response.provider).toBe("tavily");
    const budgets = log.find((f) => f.attempt_budgets_ms !== undefined)!.attempt_budgets_ms!.split(",").map(Number);
    // 55% to the first, and the fallback had the rest of the time, not 55% of it.
    expect(budgets).toEqual([880, 720]);
  });

  it("skips the failover when too little time is left, answering the first error", async () => {
    servers.brave.reply = () => "hang";
    const { svc } = service({ limitMs: 5_000 });
    const log: SearchLogFields[] = [];
    const started = Date.now();
    // 55% of 1 s goes to brave; the 450 ms left are under the 500 ms an attempt needs.
    const error = await failure(svc.search({ query: "rust book", max_results: 5 }, { log: (f) => log.push(f) }, { deadline: { remainingMs: () => Math.max(0, started + 1_000 - Date.now()) } }));
    expect(error.code).toBe("provider_timeout");
    expect(error.details.provider).toBe("brave");
    expect(hits().tavily).toBe(0);
    expect(log.some((f) => f.failover_skipped === "no_time")).toBe(true);
  });

  it("reports Anthropic's billed searches even when the answer then fails", async () => {
    const answer = anthropicAnswer({ results: [{ url: "https://a.example/", title: "A" }], searches: 2 });
    servers.anthropic.reply = () => ({ status: 200, body: answer });
    const { svc } = service({ keys: ALL_KEYS });
    const billed: Array<[string, number]> = [];
    const log: SearchLogFields[] = [];
    await svc.search({ query: "rust book", max_results: 5, provider: "anthropic" }, { billedSearches: (p, n) => billed.push([p, n]), log: (f) => log.push(f) });
    servers.anthropic.reply = () => ({ status: 200, body: { ...answer, stop_reason: "pause_turn" } });
    // The continuation answers HTML: the attempt fails, but two searches were billed by the first.
    let calls = 0;
    servers.anthropic.reply = () => (++calls === 1 ? { status: 200, body: { ...answer, stop_reason: "pause_turn" } } : { status: 200, headers: { "content-type": "text/html" }, body: "<html>" });
    expect((await failure(svc.search({ query: "rust book", max_results: 5, provider: "anthropic" }, { billedSearches: (p, n) => billed.push([p, n]), log: (f) => log.push(f) }))).code).toBe("provider_bad_response");
    expect(billed).toEqual([["anthropic", 2], ["anthropic", 2]]);
    expect(log.filter((f) => f.anthropic_billed_searches === 2)).toHaveLength(2);
  });
});
