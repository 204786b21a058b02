import { describe, expect, it } from "vitest";
import { z } from "zod";
import { WebgateError } from "../../../../shared/errors";
import { createApiHandler } from "../../../../shared/middleware/api-handler";
import { MAX_REQUEST_BODY_BYTES, parseJsonBody, queryObject, validate } from "../../../../shared/middleware/parse-request";
import { createMemoryTelemetry } from "../../../../shared/observability/telemetry";
import { apiGatewayEvent, lambdaContext } from "../../../helpers/apigw-event";

const schema = z.strictObject({ name: z.string().min(2), count: z.number().int().max(10).default(1) });

function build(handle: (input: z.infer<typeof schema>) => Promise<unknown>) {
  const telemetry = createMemoryTelemetry();
  const handler = createApiHandler({
    route: "test",
    parse: (event) => parseJsonBody(event, schema),
    handle: async (input, ctx) => {
      ctx.addLogFields({ cache: "miss" });
      return { body: await handle(input) };
    },
    telemetry,
  });
  return { handler, telemetry };
}

async function call(handler: ReturnType<typeof build>["handler"], body: unknown, headers?: Record<string, string>) {
  const event = apiGatewayEvent({ method: "POST", path: "/test", body: typeof body === "string" ? body : JSON.stringify(body), headers });
  const res = await handler(event, lambdaContext());
  return { res, json: JSON.parse(res.body) as Record<string, any>, event };
}

describe("createApiHandler", () => {
  it("answers 200 JSON with the request id and logs one line with the added fields", async () => {
    const { handler, telemetry } = build((input) => Promise.resolve({ hello: input.name, count: input.count }));
    const { res, json, event } = await call(handler, { name: "ab" });
    expect(res.statusCode).toBe(200);
    expect(json).toEqual({ hello: "ab", count: 1 });
    expect(res.headers?.["x-request-id"]).toBe(event.requestContext.requestId);
    expect(res.headers?.["content-type"]).toContain("application/json");
    expect(telemetry.lines).toHaveLength(1);
    expect(telemetry.lines[0]!.fields).toMatchObject({ route: "test", status: 200, cache: "miss", request_id: event.requestContext.requestId });
    expect(telemetry.metrics).toContainEqual(expect.objectContaining({ name: "Requests", dimensions: { route: "test", status: "200" } }));
  });

  it.each([
    ["invalid JSON", "{nope", "body"],
    ["a JSON array", "[1]", "body"],
    ["an unknown field", { name: "ab", extra: 1 }, "extra"],
    ["a wrong type", { name: 5 }, "name"],
    ["an out-of-range value", { name: "ab", count: 11 }, "count"],
    ["a missing field", {}, "name"],
  ])("answers 400 invalid_request for %s, naming the field", async (_name, body, field) => {
    const { handler, telemetry } = build(() => Promise.resolve({}));
    const { res, json } = await call(handler, body);
    expect(res.statusCode).toBe(400);
    expect(json.error.code).toBe("invalid_request");
    expect(json.error.field).toBe(field);
    expect(json.error.retryable).toBe(false);
    expect(typeof json.error.request_id).toBe("string");
    expect(telemetry.metrics).toContainEqual(expect.objectContaining({ name: "Refusals", dimensions: { route: "test", code: "invalid_request", reason: "none" } }));
  });

  it("refuses a body that is not declared as JSON", async () => {
    const { handler } = build(() => Promise.resolve({}));
    const { res, json } = await call(handler, { name: "ab" }, { "Content-Type": "text/plain" });
    expect(res.statusCode).toBe(400);
    expect(json.error.field).toBe("content-type");
  });

  it("refuses a body over the 16 KiB limit with 413 request_too_large, as the gateway does", async () => {
    const { handler, telemetry } = build(() => Promise.resolve({}));
    const { res, json } = await call(handler, { name: "x".repeat(20_000) });
    expect(res.statusCode).toBe(413);
    expect(json.error).toMatchObject({ code: "request_too_large", field: "body", retryable: false });
    expect(telemetry.metrics).toContainEqual(expect.objectContaining({ name: "Refusals", dimensions: { route: "test", code: "request_too_large", reason: "none" } }));
    // The boundary: a body of exactly MAX_REQUEST_BODY_BYTES is parsed (and then validated).
    const exact = JSON.stringify({ name: "ab", pad: "" });
    const padded = exact.replace('"pad":""', `"pad":"${"y".repeat(MAX_REQUEST_BODY_BYTES - exact.length)}"`);
    expect(Buffer.byteLength(padded)).toBe(MAX_REQUEST_BODY_BYTES);
    const atLimit = await call(handler, padded);
    expect(atLimit.res.statusCode).toBe(400);
    expect(atLimit.json.error.code).toBe("invalid_request");
    expect(atLimit.json.error.field).toBe("pad");
  });

  it("reads a base64-encoded body", async () => {
    const { handler } = build((input) => Promise.resolve({ name: input.name }));
    const event = apiGatewayEvent({ method: "POST", path: "/t", body: Buffer.from('{"name":"zz"}').toString("base64"), isBase64Encoded: true });
    const res = await handler(event, lambdaContext());
    expect(JSON.parse(res.body)).toEqual({ name: "zz" });
  });

  it("passes a WebgateError's status, details and headers through", async () => {
    const { handler } = build(() =>
      Promise.reject(new WebgateError("provider_rate_limited", "slow down", { headers: { "Retry-After": "7" }, details: { retry_after_s: 7 } })),
    );
    const { res, json } = await call(handler, { name: "ab" });
    expect(res.statusCode).toBe(429);
    expect(res.headers?.["Retry-After"]).toBe("7");
    expect(json.error).toMatchObject({ code: "provider_rate_limited", message: "slow down", retryable: true, retry_after_s: 7 });
  });

  it("hides an unexpected error's message from the caller and logs it", async () => {
    const { handler, telemetry } = build(() => Promise.reject(new Error("secret internals at /var/task")));
    const { res, json } = await call(handler, { name: "ab" });
    expect(res.statusCode).toBe(500);
    expect(json.error.code).toBe("internal");
    expect(res.body).not.toContain("secret internals");
    expect(telemetry.lines[0]!.level).toBe("error");
    expect(telemetry.lines[0]!.fields.error_message).toContain("secret internals");
    expect(telemetry.metrics).toContainEqual(expect.objectContaining({ name: "ServerErrors", dimensions: { route: "test", code: "internal" } }));
  });

  it("counts 5xx answers by code (own faults vs origin failures) and 4xx answers not at all there", async () => {
    for (const [error, status] of [
      [new WebgateError("store_unavailable", "down"), 503],
      [new WebgateError("connect_failed", "origin down"), 502],
    ] as const) {
      const { handler, telemetry } = build(() => Promise.reject(error));
      const { res } = await call(handler, { name: "ab" });
      expect(res.statusCode).toBe(status);
      expect(telemetry.metrics.filter((m) => m.name === "ServerErrors")).toEqual([
        expect.objectContaining({ unit: "Count", value: 1, dimensions: { route: "test", code: error.code } }),
      ]);
    }
    const { handler, telemetry } = build(() => Promise.reject(new WebgateError("host_not_allowed", "no")));
    await call(handler, { name: "ab" });
    expect(telemetry.metrics.some((m) => m.name === "ServerErrors")).toBe(false);
  });

  it("logs an origin's failure as a warning and a caller's refusal as info, with the exact reason in the log and the metric", async () => {
    const upstream = build(() => Promise.reject(new WebgateError("upstream_status", "The origin answered with HTTP status 503.", { details: { upstream_status: 503 } })));
    await call(upstream.handler, { name: "ab" });
    expect(upstream.telemetry.lines[0]!.level).toBe("warn");
    expect(upstream.telemetry.lines[0]!.fields.code).toBe("upstream_status");

    const refused = build(() =>
      Promise.reject(new WebgateError("address_not_allowed", "The host name resolves to an address outside public unicast or on the block list.", { details: { reason: "resolves-to-refused-address" }, logReason: "link-local" })),
    );
    const { json } = await call(refused.handler, { name: "ab" });
    expect(json.error.reason).toBe("resolves-to-refused-address");
    expect(JSON.stringify(json)).not.toContain("link-local");
    expect(refused.telemetry.lines[0]!.level).toBe("info");
    expect(refused.telemetry.lines[0]!.fields).toMatchObject({ code: "address_not_allowed", reason: "link-local" });
    expect(refused.telemetry.metrics).toContainEqual(expect.objectContaining({ name: "Refusals", dimensions: { route: "test", code: "address_not_allowed", reason: "link-local" } }));

    // Without a log reason, a string details.reason is the metric's reason.
    const literal = build(() => Promise.reject(new WebgateError("no_readable_content", "none", { details: { reason: "empty_body" } })));
    await call(literal.handler, { name: "ab" });
    expect(literal.telemetry.metrics).toContainEqual(expect.objectContaining({ name: "Refusals", dimensions: { route: "test", code: "no_readable_content", reason: "empty_body" } }));
  });

  it("answers upstream_timeout (504), not internal, when the handler outlives the invocation", async () => {
    const { handler } = build(() => new Promise(() => undefined));
    const event = apiGatewayEvent({ method: "POST", path: "/test", body: JSON.stringify({ name: "ab" }) });
    const res = await handler(event, lambdaContext({ getRemainingTimeInMillis: () => 150 }));
    expect(res.statusCode).toBe(504);
    expect(JSON.parse(res.body).error.code).toBe("upstream_timeout");
  });

  it("hands the handler a deadline counted from the invocation's remaining time", async () => {
    let seen = -1;
    const telemetry = createMemoryTelemetry();
    const handler = createApiHandler({
      route: "test",
      parse: () => ({}),
      handle: (_input, ctx) => {
        seen = ctx.deadline.remainingMs();
        return Promise.resolve({ body: {} });
      },
      telemetry,
    });
    await handler(apiGatewayEvent({ method: "POST", path: "/test", body: "{}" }), lambdaContext({ getRemainingTimeInMillis: () => 10_000 }));
    expect(seen).toBeGreaterThan(9_000);
    expect(seen).toBeLessThanOrEqual(10_000 - 250);
  });
});

describe("parse helpers", () => {
  it("refuses a query parameter given twice", () => {
    const event = apiGatewayEvent({ method: "GET", path: "/x", query: { url: ["a", "b"] } });
    expect(() => queryObject(event)).toThrow(/more than once/);
  });

  it("returns single query parameters as an object", () => {
    expect(queryObject(apiGatewayEvent({ method: "GET", path: "/x", query: { a: "1", b: "2" } }))).toEqual({ a: "1", b: "2" });
    expect(queryObject(apiGatewayEvent({ method: "GET", path: "/x" }))).toEqual({});
  });

  it("names every unknown field", () => {
    try {
      validate(schema, { name: "ab", x: 1, y: 2 });
      expect.unreachable();
    } catch (error) {
      expect((error as WebgateError).message).toBe('Unknown fields: "x", "y".');
    }
  });
});
