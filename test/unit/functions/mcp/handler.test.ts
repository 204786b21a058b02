import { afterEach, describe, expect, it, vi } from "vitest";
import { ENV, type ConfigError } from "../../../../shared/config";
import { apiGatewayEvent, lambdaContext } from "../../../helpers/apigw-event";

afterEach(() => {
  vi.unstubAllEnvs();
  vi.resetModules();
});

describe("the /mcp Lambda entry point", () => {
  it("refuses to start with the dev switch set: loopback in Lambda is the runtime API", async () => {
    vi.stubEnv(ENV.ALLOW_LOCALHOST, "true");
    vi.resetModules();
    const failure = await import("../../../../functions/mcp/handler").then(
      () => undefined,
      (error: unknown) => error,
    );
    // A fresh module graph has its own ConfigError class, so the name is compared.
    expect((failure as Error | undefined)?.name).toBe("ConfigError");
    expect((failure as ConfigError).problems.join("\n")).toContain(ENV.ALLOW_LOCALHOST);
  });

  it("starts without it, and its handler answers tools/list from an API Gateway event", async () => {
    vi.stubEnv(ENV.ALLOW_LOCALHOST, "false");
    vi.resetModules();
    const { handler } = await import("../../../../functions/mcp/handler");
    const result = await handler(
      apiGatewayEvent({
        method: "POST",
        path: "/mcp",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: { jsonrpc: "2.0", id: 1, method: "tools/list" },
      }),
      lambdaContext(),
    );
    expect(result.statusCode).toBe(200);
    const names = (JSON.parse(result.body) as { result: { tools: Array<{ name: string }> } }).result.tools.map((t) => t.name);
    expect(names.sort()).toEqual(["web_fetch", "web_search"]);
  });
});
