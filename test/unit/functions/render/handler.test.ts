/**
 * The render function's Lambda entry point as Lambda loads it, without a browser: the checks it
 * makes at cold start, and the answers it gives before any page is rendered (an event that is not
 * a render request, a URL its own policy refuses), which must never unpack or start Chromium.
 * Rendering itself (the real Chromium) is tested under `npm run test:render`.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { ENV, type ConfigError } from "../../../../shared/config";
import { decodeRenderResult } from "../../../../shared/render/renderer";

afterEach(() => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
  vi.resetModules();
});

/**
 * Imports the entry point in a fresh module graph and returns its handler with a spy on the one
 * way it reaches Chromium (@sparticuz/chromium's executablePath unpacks the binary into /tmp).
 */
async function coldStart() {
  vi.resetModules();
  const sparticuz = (await import("@sparticuz/chromium")).default;
  const executablePath = vi.spyOn(sparticuz, "executablePath");
  const { handler } = await import("../../../../functions/render/handler");
  return { handler, executablePath, sparticuz };
}

/** The render function's answer as the fetch function reads it: its error, rethrown. */
function errorOf(result: unknown): { code: string; message: string } {
  try {
    decodeRenderResult(result, 1_000_000);
  } catch (error) {
    return error as { code: string; message: string };
  }
  throw new Error("expected an error answer");
}

describe("the render Lambda entry point", () => {
  it("refuses to start with the dev switch set: loopback in Lambda is the runtime API", async () => {
    vi.stubEnv(ENV.ALLOW_LOCALHOST, "true");
    const failure = await coldStart().then(
      () => undefined,
      (error: unknown) => error,
    );
    // A fresh module graph has its own ConfigError class, so the name is compared.
    expect((failure as Error | undefined)?.name).toBe("ConfigError");
    expect((failure as ConfigError).problems.join("\n")).toContain(ENV.ALLOW_LOCALHOST);
  });

  it("turns graphics off at cold start (no WebGL: SwiftShader is then never unpacked) and does not touch Chromium yet", async () => {
    const { executablePath, sparticuz } = await coldStart();
    expect(sparticuz.graphics).toBe(false);
    expect(executablePath).not.toHaveBeenCalled();
  });

  it.each([
    ["nothing", undefined],
    ["a URL alone", { url: "https://example.com/" }],
    ["a wait that is not a number", { url: "https://example.com/", waitMs: "soon", timeoutMs: 1000 }],
  ])("answers %s with invalid_request, as an answer (never a thrown FunctionError), without a browser", async (_label, event) => {
    const { handler, executablePath } = await coldStart();
    const result = await handler(event);
    expect(result.ok).toBe(false);
    expect(errorOf(result).code).toBe("invalid_request");
    expect(executablePath).not.toHaveBeenCalled();
  });

  it("checks the URL again with the policy from its own environment before any browser starts", async () => {
    // Port 80 is allowed by default; this environment allows 8443 only.
    vi.stubEnv(ENV.ALLOWED_PORTS, "8443");
    const { handler, executablePath } = await coldStart();
    const request = (url: string) => ({ url, waitMs: 0, timeoutMs: 5_000 });
    const port = errorOf(await handler(request("https://example.com:80/")));
    expect(port).toMatchObject({ code: "url_not_allowed", message: "The URL's port is not allowed (allowed: 8443)." });
    // Loopback is refused (the dev switch cannot be set here), and the answer names no address.
    const loopback = errorOf(await handler(request("http://127.0.0.1:8443/")));
    expect(loopback.code).toBe("address_not_allowed");
    expect(errorOf(await handler(request("file:///etc/passwd"))).code).toBe("url_not_allowed");
    expect(executablePath).not.toHaveBeenCalled();
  });
});
