import { afterEach, describe, expect, it, vi } from "vitest";
import { ENV, type ConfigError } from "../../../shared/config";

afterEach(() => {
  vi.unstubAllEnvs();
  vi.resetModules();
});

describe("the /fetch Lambda entry point", () => {
  it("refuses to start with the dev switch set: loopback in Lambda is the runtime API", async () => {
    vi.stubEnv(ENV.ALLOW_LOCALHOST, "true");
    vi.resetModules();
    const failure = await import("../../../functions/fetch/handler").then(
      () => undefined,
      (error: unknown) => error,
    );
    // A fresh module graph has its own ConfigError class, so the name is compared.
    expect((failure as Error | undefined)?.name).toBe("ConfigError");
    expect((failure as ConfigError).problems.join("\n")).toContain(ENV.ALLOW_LOCALHOST);
  });

  it("starts without it", async () => {
    vi.stubEnv(ENV.ALLOW_LOCALHOST, "false");
    vi.resetModules();
    const module = await import("../../../functions/fetch/handler");
    expect(typeof module.handler).toBe("function");
  });
});
