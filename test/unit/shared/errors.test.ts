import { describe, expect, it } from "vitest";
import { ERROR_CODES, ERROR_TABLE, GENERIC_INTERNAL_MESSAGE, WebgateError, isWebgateError, toErrorBody } from "../../../shared/errors";

describe("the error table", () => {
  it.each(ERROR_CODES)("%s: a status in 4xx/5xx, exposed unless it is the catch-all", (code) => {
    const row = ERROR_TABLE[code];
    expect(row.status).toBeGreaterThanOrEqual(400);
    expect(row.status).toBeLessThan(600);
    expect(row.exposeMessage).toBe(code !== "internal");
  });

  it("lists every code once, in snake_case", () => {
    expect(new Set(ERROR_CODES).size).toBe(ERROR_CODES.length);
    for (const code of ERROR_CODES) expect(code).toMatch(/^[a-z]+(_[a-z]+)*$/);
  });
});

describe("WebgateError", () => {
  it("takes status, retry hint and exposure from the table", () => {
    const err = new WebgateError("upstream_timeout", "The origin did not answer in time.");
    expect(err).toMatchObject({ name: "WebgateError", code: "upstream_timeout", status: 504, retryable: true, expose: true, details: {}, headers: {} });
    expect(err.cause).toBeUndefined();
    expect(isWebgateError(err)).toBe(true);
    expect(isWebgateError(new Error("x"))).toBe(false);
  });

  it("lets one instance override the retry hint and carry details, headers and a cause", () => {
    const cause = new Error("socket hang up");
    const err = new WebgateError("upstream_status", "The origin answered 503.", {
      cause,
      retryable: true,
      details: { upstream_status: 503 },
      headers: { "retry-after": "30" },
    });
    expect(err.retryable).toBe(true);
    expect(ERROR_TABLE.upstream_status.retryable).toBe(false);
    expect(err.cause).toBe(cause);
    expect(err.details).toEqual({ upstream_status: 503 });
    expect(err.headers).toEqual({ "retry-after": "30" });
  });
});

describe("toErrorBody", () => {
  it("writes the code, message, retry hint, request id and details of an exposed error", () => {
    const out = toErrorBody(new WebgateError("invalid_request", "max_chars: must be at most 100000", { details: { field: "max_chars" } }), "req-1");
    expect(out).toEqual({
      status: 400,
      headers: {},
      body: { error: { field: "max_chars", code: "invalid_request", message: "max_chars: must be at most 100000", retryable: false, request_id: "req-1" } },
    });
  });

  it("never lets details overwrite the fixed fields", () => {
    const out = toErrorBody(new WebgateError("dns_failed", "x", { details: { code: "internal", retryable: false, request_id: "forged" } }), "req-2");
    expect(out.body.error).toMatchObject({ code: "dns_failed", retryable: true, request_id: "req-2" });
  });

  it("turns anything unknown into internal with the generic message, never the original text", () => {
    for (const thrown of [new Error("secret-token-abc at 10.0.0.5"), "a string", undefined, { code: "dns_failed" }]) {
      const out = toErrorBody(thrown, "req-3");
      expect(out.status).toBe(500);
      expect(out.body.error).toEqual({ code: "internal", message: GENERIC_INTERNAL_MESSAGE, retryable: true, request_id: "req-3" });
    }
  });
});
