import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { WebgateError } from "../../../../shared/errors";
import type { Resolver } from "../../../../shared/guard/dns-resolver";
import { createTrustedHttpClient } from "../../../../shared/http/trusted-http-client";
import type { HttpResponse } from "../../../../shared/http/types";
import type { ProviderLimits } from "../../../../shared/search/provider";
import {
  authFailedError,
  exchangeTimeoutMs,
  parseJsonBody,
  providerLabel,
  rateLimitedError,
  sendProviderRequest,
  throwForStatus,
  wrongShapeError,
} from "../../../../shared/search/provider-http";
import { closedPort, startStandIn, type StandIn } from "../../../helpers/provider-stand-in";

// Loopback URLs are IP literals: the client never asks the resolver.
const noDns: Resolver = { resolve: () => Promise.reject(new Error("tests never resolve names")) };
const http = createTrustedHttpClient({ resolver: noDns });
const limits: ProviderLimits = { timeoutMs: 400, connectTimeoutMs: 400, maxBytes: 1_024 };

function answer(status: number, headers: Record<string, string> = {}, body = ""): HttpResponse {
  return { status, headers, body: Buffer.from(body) };
}

function thrown(run: () => unknown): WebgateError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(WebgateError);
    return error as WebgateError;
  }
  throw new Error("expected a WebgateError");
}

async function rejected(promise: Promise<unknown>): Promise<WebgateError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(WebgateError);
  return error as WebgateError;
}

let server: StandIn;
beforeAll(async () => {
  server = await startStandIn();
});
afterAll(() => server.close());
beforeEach(() => {
  server.requests.length = 0;
});

describe("exchangeTimeoutMs", () => {
  it.each([
    ["no attempt budget: the provider limit", undefined, 400],
    ["a smaller budget wins", 150, 150],
    ["a larger budget is capped at the limit", 5_000, 400],
    ["a spent budget still gives the exchange 1 ms", -20, 1],
  ])("%s", (_name, budget, expected) => {
    expect(exchangeTimeoutMs(limits, budget)).toBe(expected);
  });
});

/**
 * The loopback tests' limits: far above what a stand-in's answer takes on a loaded machine (one
 * over 400 ms is no fault of the code); the silent provider gets a budget of its own.
 */
const wireLimits: ProviderLimits = { ...limits, timeoutMs: 30_000, connectTimeoutMs: 30_000 };

describe("sendProviderRequest over a loopback provider", () => {
  it("sends the method, headers and body it is given, and returns the answer as it came", async () => {
    server.reply = () => ({ status: 200, body: { ok: true } });
    const response = await sendProviderRequest(http, "tavily", {
      url: new URL(`${server.origin}/search?q=1`),
      method: "POST",
      headers: { "content-type": "application/json", "x-test": "yes" },
      body: '{"query":"q"}',
    }, wireLimits);
    expect(response.status).toBe(200);
    expect(JSON.parse(response.body.toString("utf8"))).toEqual({ ok: true });
    expect(server.requests[0]).toMatchObject({ method: "POST", body: '{"query":"q"}' });
    expect(server.requests[0]!.headers["x-test"]).toBe("yes");
  });

  it("a provider that never answers: provider_timeout naming the time waited", async () => {
    server.reply = () => "hang";
    const error = await rejected(sendProviderRequest(http, "brave", { url: new URL(`${server.origin}/`), method: "GET", headers: {} }, wireLimits, { timeoutMs: 100 }));
    expect(error).toMatchObject({ code: "provider_timeout", details: { provider: "brave" } });
    expect(error.message).toBe("Brave did not answer within 0.1 s.");
  });

  it("the caller's signal aborting is a timeout too", async () => {
    server.reply = () => "hang";
    const controller = new AbortController();
    const pending = sendProviderRequest(http, "searxng", { url: new URL(`${server.origin}/`), method: "GET", headers: {} }, wireLimits, { signal: controller.signal });
    controller.abort();
    expect((await rejected(pending)).code).toBe("provider_timeout");
  });

  it("an answer over the size limit: provider_bad_response", async () => {
    server.reply = () => ({ status: 200, body: "x".repeat(4_096) });
    const error = await rejected(sendProviderRequest(http, "ollama", { url: new URL(`${server.origin}/`), method: "GET", headers: {} }, wireLimits));
    expect(error).toMatchObject({ code: "provider_bad_response", message: "Ollama answered with more than 1024 bytes." });
  });

  it("a body that does not decompress: provider_bad_response", async () => {
    server.reply = () => ({ status: 200, headers: { "content-encoding": "gzip" }, body: "not gzip at all" });
    const error = await rejected(sendProviderRequest(http, "tavily", { url: new URL(`${server.origin}/`), method: "GET", headers: {} }, wireLimits));
    expect(error.code).toBe("provider_bad_response");
    expect(error.message).toContain("could not be decompressed");
  });

  it("nobody listening: provider_error, retryable", async () => {
    const port = await closedPort();
    const error = await rejected(sendProviderRequest(http, "anthropic", { url: new URL(`http://127.0.0.1:${port}/`), method: "GET", headers: {} }, wireLimits));
    expect(error).toMatchObject({ code: "provider_error", retryable: true, message: "Anthropic could not be reached.", details: { provider: "anthropic" } });
  });
});

describe("throwForStatus", () => {
  it.each([
    [200, undefined, undefined],
    [204, undefined, undefined],
    [301, "provider_error", false],
    [401, "provider_auth_failed", false],
    [403, "provider_auth_failed", false],
    [404, "provider_error", false],
    [429, "provider_rate_limited", true],
    [500, "provider_error", true],
    [503, "provider_error", true],
  ] as const)("HTTP %i → %s (retryable %s)", (status, code, retryable) => {
    if (code === undefined) {
      expect(() => throwForStatus("brave", answer(status))).not.toThrow();
      return;
    }
    const error = thrown(() => throwForStatus("brave", answer(status)));
    expect(error.code).toBe(code);
    expect(error.retryable).toBe(retryable);
    expect(error.details).toMatchObject({ provider: "brave", upstream_status: status });
  });
});

describe("rateLimitedError", () => {
  it.each([
    ["delta-seconds", { "retry-after": "30" }, undefined, { header: "30", seconds: 30 }],
    ["an HTTP date: passed on, no seconds", { "retry-after": "Wed, 21 Oct 2026 07:28:00 GMT" }, undefined, { header: "Wed, 21 Oct 2026 07:28:00 GMT", seconds: undefined }],
    ["garbage: neither", { "retry-after": "soon" }, undefined, { header: undefined, seconds: undefined }],
    ["absent, with the adapter's fallback", {}, 60, { header: "60", seconds: 60 }],
    ["absent, no fallback", {}, undefined, { header: undefined, seconds: undefined }],
  ])("Retry-After %s", (_name, headers, fallback, expected) => {
    const error = rateLimitedError("tavily", answer(429, headers), fallback);
    expect(error.code).toBe("provider_rate_limited");
    expect(error.details["retry_after_s"]).toBe(expected.seconds);
    expect(error.headers?.["Retry-After"]).toBe(expected.header);
    expect(error.message).toBe(`Tavily refused the search: rate limit reached.${expected.seconds === undefined ? "" : ` Retry after ${expected.seconds} s.`}`);
  });
});

describe("the other errors", () => {
  it("authFailedError names the provider's variable, never a key", () => {
    const error = authFailedError("brave", 401);
    expect(error).toMatchObject({ code: "provider_auth_failed", details: { provider: "brave", upstream_status: 401 } });
    expect(error.message).toBe("Brave refused the API key (HTTP 401): check the API key configured for brave.");
  });

  it("parseJsonBody parses JSON and turns anything else into provider_bad_response with a bounded, printable type", () => {
    expect(parseJsonBody("searxng", answer(200, {}, '{"results":[]}'))).toEqual({ results: [] });
    const error = thrown(() => parseJsonBody("searxng", answer(200, { "content-type": `text/html\u0007${"x".repeat(200)}; charset=utf-8` }, "<html>"), " Is the JSON format enabled?"));
    expect(error.code).toBe("provider_bad_response");
    expect(error.message).toMatch(/^SearXNG answered with something that is not JSON \(text\/htmlx{51}\)\. Is the JSON format enabled\?$/);
    expect(thrown(() => parseJsonBody("brave", answer(502))).message).toContain("(no content type)");
  });

  it("wrongShapeError says what was unexpected", () => {
    expect(wrongShapeError("ollama", "results is not an array")).toMatchObject({
      code: "provider_bad_response",
      message: "Ollama answered with JSON of an unexpected shape: results is not an array.",
      details: { provider: "ollama" },
    });
    expect(providerLabel("searxng")).toBe("SearXNG");
  });
});
