/**
 * SecretsManagerProviderKeys through the real @aws-sdk/client-secrets-manager against a loopback
 * endpoint speaking the JSON 1.1 protocol: caching, expiry (fake clock), failures.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { WebgateError } from "../../../shared/errors";
import { SecretsManagerProviderKeys } from "../../../shared/secrets/provider-keys";
import { closedPort } from "../../helpers/provider-stand-in";
import { TEST_SECRET_ARN, secretsManagerClient, startSecretsManagerStandIn, type SecretsManagerStandIn } from "../../helpers/secrets-manager-stand-in";

const BRAVE_KEY = "BSA-secret-brave-key-9999";
const TAVILY_KEY = "tvly-secret-tavily-key-8888";
const SECRET = JSON.stringify({ brave_api_key: BRAVE_KEY, tavily_api_key: TAVILY_KEY });

let sm: SecretsManagerStandIn;
beforeAll(async () => {
  sm = await startSecretsManagerStandIn(SECRET);
});
afterAll(() => sm.close());
beforeEach(() => {
  sm.requests.length = 0;
  sm.secretString = SECRET;
});

function clock(start = 1_000_000) {
  const c = { t: start, now: () => c.t };
  return c;
}

async function failure(promise: Promise<unknown>): Promise<WebgateError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(WebgateError);
    const e = error as WebgateError;
    const visible = JSON.stringify({ m: e.message, d: e.details, h: e.headers });
    for (const forbidden of [BRAVE_KEY, TAVILY_KEY, TEST_SECRET_ARN, "123456789012"]) expect(visible).not.toContain(forbidden);
    return e;
  }
  throw new Error("expected a failure");
}

describe("SecretsManagerProviderKeys", () => {
  it("sends GetSecretValue for the ARN and parses the keys", async () => {
    const keys = new SecretsManagerProviderKeys({ client: secretsManagerClient(sm.origin), secretId: TEST_SECRET_ARN });
    await expect(keys.get()).resolves.toEqual({ braveApiKey: BRAVE_KEY, tavilyApiKey: TAVILY_KEY });
    const [request] = sm.requests;
    expect(request!.headers["x-amz-target"]).toBe("secretsmanager.GetSecretValue");
    expect(request!.headers["content-type"]).toBe("application/x-amz-json-1.1");
    expect(JSON.parse(request!.body)).toEqual({ SecretId: TEST_SECRET_ARN });
  });

  it("fetches once across several invocations, and again after the expiry", async () => {
    const c = clock();
    const keys = new SecretsManagerProviderKeys({ client: secretsManagerClient(sm.origin), secretId: TEST_SECRET_ARN, cacheTtlMs: 60_000, now: c.now });
    for (let i = 0; i < 5; i += 1) await keys.get();
    expect(sm.calls()).toBe(1);
    c.t += 59_999;
    await keys.get();
    expect(sm.calls()).toBe(1);
    sm.secretString = JSON.stringify({ brave_api_key: "rotated-brave-key" });
    c.t += 1;
    await expect(keys.get()).resolves.toEqual({ braveApiKey: "rotated-brave-key" });
    expect(sm.calls()).toBe(2);
  });

  it("shares one fetch between concurrent cold requests", async () => {
    const keys = new SecretsManagerProviderKeys({ client: secretsManagerClient(sm.origin), secretId: TEST_SECRET_ARN });
    const all = await Promise.all(Array.from({ length: 10 }, () => keys.get()));
    expect(new Set(all.map((k) => k.braveApiKey))).toEqual(new Set([BRAVE_KEY]));
    expect(sm.calls()).toBe(1);
  });

  it("Secrets Manager unreachable on a cold start → retryable provider_error; the next request tries again", async () => {
    const port = await closedPort();
    const keys = new SecretsManagerProviderKeys({ client: secretsManagerClient(`http://127.0.0.1:${port}`), secretId: TEST_SECRET_ARN });
    const error = await failure(keys.get());
    expect(error.code).toBe("provider_error");
    expect(error.retryable).toBe(true);
    expect(error.status).toBe(502);
    expect((await failure(keys.get())).code).toBe("provider_error");
  });

  it("Secrets Manager that never answers → provider_error within the bound", async () => {
    const original = sm.reply;
    sm.reply = () => "hang";
    try {
      const keys = new SecretsManagerProviderKeys({ client: secretsManagerClient(sm.origin), secretId: TEST_SECRET_ARN, timeoutMs: 300 });
      expect((await failure(keys.get())).code).toBe("provider_error");
    } finally {
      sm.reply = original;
    }
  });

  it("keeps serving the last good keys for a while when a refresh fails", async () => {
    const c = clock();
    const keys = new SecretsManagerProviderKeys({
      client: secretsManagerClient(sm.origin),
      secretId: TEST_SECRET_ARN,
      cacheTtlMs: 1_000,
      staleRetryMs: 10_000,
      now: c.now,
    });
    await keys.get();
    sm.secretString = undefined; // now answers ResourceNotFoundException
    c.t += 1_000;
    await expect(keys.get()).resolves.toEqual({ braveApiKey: BRAVE_KEY, tavilyApiKey: TAVILY_KEY });
    expect(sm.calls()).toBe(2);
    c.t += 5_000;
    await keys.get();
    expect(sm.calls()).toBe(2); // no hammering during the stale window
  });

  it("a missing secret → search_not_configured naming the error type only", async () => {
    sm.secretString = undefined;
    const keys = new SecretsManagerProviderKeys({ client: secretsManagerClient(sm.origin), secretId: TEST_SECRET_ARN });
    const error = await failure(keys.get());
    expect(error.code).toBe("search_not_configured");
    expect(error.message).toContain("ResourceNotFoundException");
  });

  it("a secret that is not the expected JSON → search_not_configured without its value", async () => {
    sm.secretString = `brave=${BRAVE_KEY}`;
    const keys = new SecretsManagerProviderKeys({ client: secretsManagerClient(sm.origin), secretId: TEST_SECRET_ARN });
    const error = await failure(keys.get());
    expect(error.code).toBe("search_not_configured");
    expect(error.cause).toBeUndefined();
  });
});
