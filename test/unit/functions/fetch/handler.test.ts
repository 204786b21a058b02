import { afterEach, describe, expect, it, vi } from "vitest";
import { ENV, type ConfigError } from "../../../../shared/config";
import { apiGatewayEvent, lambdaContext } from "../../../helpers/apigw-event";

afterEach(() => {
  vi.unstubAllEnvs();
  vi.resetModules();
});

describe("the /fetch Lambda entry point", () => {
  it("refuses to start with the dev switch set: loopback in Lambda is the runtime API", async () => {
    vi.stubEnv(ENV.ALLOW_LOCALHOST, "true");
    vi.resetModules();
    const failure = await import("../../../../functions/fetch/handler").then(
      () => undefined,
      (error: unknown) => error,
    );
    // A fresh module graph has its own ConfigError class, so the name is compared.
    expect((failure as Error | undefined)?.name).toBe("ConfigError");
    expect((failure as ConfigError).problems.join("\n")).toContain(ENV.ALLOW_LOCALHOST);
  });

  it("starts without it, and its handler answers an API Gateway event through the whole middleware stack", async () => {
    vi.stubEnv(ENV.ALLOW_LOCALHOST, "false");
    vi.resetModules();
    const { handler } = await import("../../../../functions/fetch/handler");
    // A request the schema refuses: answered before any store or origin is needed.
    const result = await handler(apiGatewayEvent({ method: "POST", path: "/fetch", body: { max_chars: 2000 } }), lambdaContext());
    expect(result.statusCode).toBe(400);
    expect(JSON.parse(result.body)).toMatchObject({ error: { code: "invalid_request", field: "url", retryable: false } });
  });
});
