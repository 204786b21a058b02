/**
 * The fetch function's side of the render function: the real Lambda client against a loopback
 * server speaking Lambda's Invoke wire format (POST /2015-03-31/functions/{name}/invocations),
 * and the payload codec both functions share.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebgateError } from "../../../shared/errors";
import { createLambdaClient, createLambdaRenderer } from "../../../shared/render/lambda-renderer";
import { decodeRenderResult, encodeRenderResult, unavailableRenderer, type RenderedPage } from "../../../shared/render/renderer";
import { expectWebgateError } from "../../helpers/expect-error";
import { startLambdaStandIn } from "../../helpers/lambda-stand-in";

const PAGE: RenderedPage = {
  url: "https://app.example.com/",
  finalUrl: "https://app.example.com/home",
  redirects: [{ url: "https://app.example.com/", status: 302, location: "https://app.example.com/home" }],
  status: 200,
  contentType: "text/html; charset=utf-8",
  body: Buffer.from("<html><body><h1>Rendered ✓</h1></body></html>", "utf8"),
  rendered: true,
  truncated: "render_wait",
  proxyBytes: 1234,
  elapsedMs: 456,
};

let server: http.Server;
let endpoint: string;
const calls: Array<{ path: string; body: unknown }> = [];
let answer: (body: unknown) => { status: number; headers?: Record<string, string>; body: string } = () => ({ status: 200, body: "{}" });

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let raw = "";
    req.on("data", (c: Buffer) => (raw += c.toString("utf8")));
    req.on("end", () => {
      const body: unknown = JSON.parse(raw);
      calls.push({ path: req.url ?? "", body });
      const out = answer(body);
      res.writeHead(out.status, { "content-type": "application/json", ...out.headers });
      res.end(out.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

const renderer = () =>
  createLambdaRenderer({ client: createLambdaClient({ endpoint, requestTimeoutMs: 5_000 }), functionName: "webgate-render", maxBodyBytes: 1_000_000 });

describe("Lambda renderer", () => {
  it("invokes the render function with the request and gives back its page", async () => {
    answer = () => ({ status: 200, body: JSON.stringify(encodeRenderResult({ page: PAGE })) });
    const page = await renderer().render({ url: "https://app.example.com/", waitMs: 5_000, timeoutMs: 30_000 });
    expect(page).toEqual(PAGE);
    expect(calls.at(-1)).toEqual({ path: "/2015-03-31/functions/webgate-render/invocations", body: { url: "https://app.example.com/", waitMs: 5_000, timeoutMs: 30_000 } });
  });

  it("rethrows the render function's error with its own code and details", async () => {
    const refusal = new WebgateError("address_not_allowed", "The host name resolves to a private-network address.", { details: { reason: "private" } });
    answer = () => ({ status: 200, body: JSON.stringify(encodeRenderResult({ error: refusal })) });
    const error = await expectWebgateError(renderer().render({ url: "https://app.example.com/", waitMs: 0, timeoutMs: 1_000 }));
    expect(error).toMatchObject({ code: "address_not_allowed", status: 403, message: refusal.message, details: { reason: "private" } });
  });

  it("answers render_unavailable for a function error, an invoke failure or an answer that is not a render result", async () => {
    answer = () => ({ status: 200, headers: { "x-amz-function-error": "Unhandled" }, body: JSON.stringify({ errorMessage: "Task timed out" }) });
    expect((await expectWebgateError(renderer().render({ url: "https://a.example.com/", waitMs: 0, timeoutMs: 1_000 }))).code).toBe("render_unavailable");
    answer = () => ({ status: 429, headers: { "x-amzn-errortype": "TooManyRequestsException" }, body: JSON.stringify({ message: "Rate exceeded" }) });
    const throttled = await expectWebgateError(renderer().render({ url: "https://a.example.com/", waitMs: 0, timeoutMs: 1_000 }));
    expect(throttled).toMatchObject({ code: "render_unavailable", retryable: true });
    answer = () => ({ status: 200, body: JSON.stringify({ ok: true, page: { url: 1 } }) });
    expect((await expectWebgateError(renderer().render({ url: "https://a.example.com/", waitMs: 0, timeoutMs: 1_000 }))).code).toBe("render_unavailable");
    answer = () => ({ status: 200, body: "not json" });
    expect((await expectWebgateError(renderer().render({ url: "https://a.example.com/", waitMs: 0, timeoutMs: 1_000 }))).code).toBe("render_unavailable");
  });
});

describe("render payload codec", () => {
  it("round-trips a page, gzipping the body", () => {
    const encoded = encodeRenderResult({ page: PAGE });
    expect(JSON.stringify(encoded)).not.toContain("Rendered");
    expect(decodeRenderResult(JSON.parse(JSON.stringify(encoded)), 1_000_000)).toEqual(PAGE);
  });

  it("refuses a body that inflates past the limit", () => {
    const big = { ...PAGE, body: Buffer.alloc(2_000_000, 0x61) };
    const encoded = encodeRenderResult({ page: big });
    expect(() => decodeRenderResult(encoded, 1_000_000)).toThrow(expect.objectContaining({ code: "upstream_too_large" }));
  });

  it("turns an unknown error into internal, and an unknown code back into internal", () => {
    const encoded = encodeRenderResult({ error: new TypeError("boom at 10.0.0.1") });
    expect(encoded).toEqual({ ok: false, error: { code: "internal", message: "The render function failed.", retryable: true, details: {} } });
    expect(() => decodeRenderResult({ ok: false, error: { code: "made_up", message: "m", retryable: false, details: {} } }, 10)).toThrow(
      expect.objectContaining({ code: "internal" }),
    );
  });

  it("an unavailable renderer always says render_unavailable with its message", async () => {
    const error = await expectWebgateError(unavailableRenderer("No Chromium here.").render({ url: "https://a.example.com/", waitMs: 0, timeoutMs: 1 }));
    expect(error).toMatchObject({ code: "render_unavailable", status: 503, retryable: true, message: "No Chromium here." });
  });
});

describe("Lambda renderer under the request's deadline", () => {
  /** The real client against an endpoint that takes the invoke and never answers. */
  const silentRenderer = (endpoint: string) =>
    createLambdaRenderer({
      // A request limit far beyond the test: only the abort can end the invoke.
      client: createLambdaClient({ endpoint, requestTimeoutMs: 600_000 }),
      functionName: "webgate-render",
      maxBodyBytes: 1_000,
    });

  it("aborts the invoke when the deadline passes: upstream_timeout, and the connection is closed", async () => {
    const lambda = await startLambdaStandIn("never");
    try {
      const deadline = new AbortController();
      const outcome = expectWebgateError(silentRenderer(lambda.endpoint).render({ url: "https://a.example.com/", waitMs: 5_000, timeoutMs: 20_000 }, { signal: deadline.signal }));
      await lambda.firstInvoke;
      deadline.abort(new Error("deadline"));
      expect(await outcome).toMatchObject({ code: "upstream_timeout", status: 504, retryable: true });
      await lambda.firstHangUp;
      expect(lambda.events).toEqual(["invoke webgate-render", "hang-up"]);
    } finally {
      await lambda.close();
    }
  });

  it("does not invoke at all once the deadline has passed", async () => {
    const lambda = await startLambdaStandIn("never");
    try {
      const error = await expectWebgateError(
        silentRenderer(lambda.endpoint).render({ url: "https://a.example.com/", waitMs: 0, timeoutMs: 1_000 }, { signal: AbortSignal.abort(new Error("deadline")) }),
      );
      expect(error.code).toBe("upstream_timeout");
      expect(lambda.events).toEqual([]);
    } finally {
      await lambda.close();
    }
  });
});
