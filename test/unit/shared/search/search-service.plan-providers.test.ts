import { describe, expect, it } from "vitest";
import { WebgateError } from "../../../../shared/errors";
import { planProviders, shouldFailOver } from "../../../../shared/search/search-service";

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    return (error as WebgateError).code;
  }
  return undefined;
}

describe("planProviders", () => {
  it.each([
    ["first configured, then the next", ["tavily", "searxng"], undefined, undefined, ["tavily", "searxng"]],
    ["brave before tavily", ["brave", "tavily", "searxng"], undefined, undefined, ["brave", "tavily"]],
    ["the default first", ["brave", "tavily", "searxng"], undefined, "searxng", ["searxng", "brave"]],
    ["a single provider has no failover", ["searxng"], undefined, undefined, ["searxng"]],
    ["a named provider has no failover", ["brave", "tavily"], "tavily", undefined, ["tavily"]],
    ["a named provider beats the default", ["brave", "tavily"], "brave", "tavily", ["brave"]],
  ] as const)("%s", (_label, configured, requested, fallback, expected) => {
    expect(planProviders(configured, requested, fallback)).toEqual(expected);
  });

  it("refuses a named provider that is not configured (400)", () => {
    expect(codeOf(() => planProviders(["brave"], "tavily", undefined))).toBe("provider_not_configured");
  });

  it("answers search_not_configured (503) when nothing is configured", () => {
    expect(codeOf(() => planProviders([], undefined, undefined))).toBe("search_not_configured");
  });

  it("answers search_not_configured when the default names an unconfigured provider", () => {
    expect(codeOf(() => planProviders(["brave"], undefined, "tavily"))).toBe("search_not_configured");
  });
});

describe("shouldFailOver", () => {
  it.each([
    [new WebgateError("provider_rate_limited", "x"), true],
    [new WebgateError("provider_auth_failed", "x"), true],
    [new WebgateError("provider_timeout", "x"), true],
    [new WebgateError("provider_error", "5xx", { retryable: true }), true],
    [new WebgateError("provider_error", "4xx", { retryable: false }), false],
    [new WebgateError("provider_bad_response", "x"), false],
    [new Error("bug"), false],
  ])("%s → %s", (error, expected) => {
    expect(shouldFailOver(error)).toBe(expected);
  });
});

describe("planProviders with WEBGATE_SEARCH_ORDER", () => {
  it.each([
    ["the order's first configured, then its next", ["brave", "ollama", "anthropic"], undefined, ["anthropic", "ollama", "brave"], ["anthropic", "ollama"]],
    ["providers outside the order are skipped", ["brave", "tavily"], undefined, ["tavily"], ["tavily"]],
    ["the default first, then the order's first other", ["brave", "tavily", "anthropic"], "brave", ["anthropic", "tavily"], ["brave", "anthropic"]],
    ["the default even when outside the order", ["brave", "ollama"], "brave", ["ollama"], ["brave", "ollama"]],
  ] as const)("%s", (_label, configured, fallback, order, expected) => {
    expect(planProviders(configured, undefined, fallback, order)).toEqual(expected);
  });

  it("search_not_configured when no configured provider is in the order and none is the default", () => {
    expect(codeOf(() => planProviders(["brave"], undefined, undefined, ["anthropic"]))).toBe("search_not_configured");
  });

  it("a named provider outside the order is still served", () => {
    expect(planProviders(["brave", "ollama"], "brave", undefined, ["ollama"])).toEqual(["brave"]);
  });
});
