/**
 * The /search Lambda entry point as Lambda loads it: configuration read from the environment at
 * import (cold start), the Secrets Manager client built only when a secret is configured, and the
 * handler answering API Gateway events through the whole middleware stack. Providers and Secrets
 * Manager are loopback stand-ins reached through the real clients.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { ENV, type ConfigError } from "../../../../shared/config";
import { apiGatewayEvent, lambdaContext } from "../../../helpers/apigw-event";
import { startStandIn, type StandIn } from "../../../helpers/provider-stand-in";
import { TEST_SECRET_ARN, startSecretsManagerStandIn, type SecretsManagerStandIn } from "../../../helpers/secrets-manager-stand-in";

const SECRET_BRAVE_KEY = "BSA-entry-secret-key-31";
const ENV_BRAVE_KEY = "BSA-entry-env-key-57";
const braveAnswer = readFileSync(path.resolve(__dirname, "../../../fixtures/search/brave-web-search.json"), "utf8");

let brave: StandIn;
let sm: SecretsManagerStandIn;
beforeAll(async () => {
  brave = await startStandIn(() => ({ status: 200, headers: { "content-type": "application/json" }, body: braveAnswer }));
  sm = await startSecretsManagerStandIn(JSON.stringify({ brave_api_key: SECRET_BRAVE_KEY }));
});
afterAll(() => Promise.all([brave.close(), sm.close()]));
afterEach(() => {
  vi.unstubAllEnvs();
  vi.resetModules();
  brave.requests.length = 0;
  sm.requests.length = 0;
});

async function coldStart() {
  vi.resetModules();
  return (await import("../../../../functions/search/handler")).handler;
}

const search = (body: object) => apiGatewayEvent({ method: "POST", path: "/search", body });

describe("the /search Lambda entry point", () => {
  it("fails the cold start on a bad SEARXNG_URL, naming the variable and the value", async () => {
    vi.stubEnv(ENV.SEARXNG_URL, "ftp://searx.example/");
    const failure = await coldStart().then(
      () => undefined,
      (error: unknown) => error,
    );
    // A fresh module graph has its own ConfigError class, so the name is compared.
    expect((failure as Error | undefined)?.name).toBe("ConfigError");
    expect((failure as ConfigError).problems.join("\n")).toMatch(/SEARXNG_URL.*ftp:\/\/searx\.example\//);
  });

  it("answers a request the schema refuses through the whole middleware stack, with no provider or secret asked", async () => {
    const handler = await coldStart();
    const result = await handler(search({ query: "x" }), lambdaContext());
    expect(result.statusCode).toBe(400);
    expect(JSON.parse(result.body)).toMatchObject({ error: { code: "invalid_request", field: "query" } });
    expect(brave.requests).toHaveLength(0);
  });

  it("with the environment's key: searches Brave and answers 200", async () => {
    vi.stubEnv(ENV.BRAVE_API_KEY, ENV_BRAVE_KEY);
    vi.stubEnv(ENV.BRAVE_ENDPOINT, `${brave.origin}/res/v1/web/search`);
    const handler = await coldStart();
    const result = await handler(search({ query: "rust book", max_results: 2 }), lambdaContext());
    expect(result.statusCode).toBe(200);
    expect(JSON.parse(result.body)).toMatchObject({ provider: "brave", query: "rust book" });
    expect(brave.requests.map((r) => r.headers["x-subscription-token"])).toEqual([ENV_BRAVE_KEY]);
    expect(sm.calls()).toBe(0);
  });

  it("with a secret configured: builds the Secrets Manager client, whose key (not the environment's) reaches the provider", async () => {
    vi.stubEnv(ENV.PROVIDER_SECRET_ARN, TEST_SECRET_ARN);
    vi.stubEnv(ENV.BRAVE_API_KEY, ENV_BRAVE_KEY);
    vi.stubEnv(ENV.BRAVE_ENDPOINT, `${brave.origin}/res/v1/web/search`);
    // What the SDK reads in Lambda (region, credentials), with the endpoint of the stand-in.
    vi.stubEnv("AWS_REGION", "us-east-1");
    vi.stubEnv("AWS_ACCESS_KEY_ID", "AKIDENTRYTEST");
    vi.stubEnv("AWS_SECRET_ACCESS_KEY", "entry-test-secret-access-key");
    vi.stubEnv("AWS_ENDPOINT_URL_SECRETS_MANAGER", sm.origin);
    const handler = await coldStart();
    const result = await handler(search({ query: "rust book" }), lambdaContext());
    expect(result.statusCode).toBe(200);
    expect(sm.calls()).toBe(1);
    expect(brave.requests.map((r) => r.headers["x-subscription-token"])).toEqual([SECRET_BRAVE_KEY]);
    expect(result.body).not.toContain(SECRET_BRAVE_KEY);
  });
});
