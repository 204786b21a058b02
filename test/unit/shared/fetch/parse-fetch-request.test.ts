import { describe, expect, it } from "vitest";
import { parseFetchRequest } from "../../../../shared/fetch/parse-fetch-request";
import { WebgateError } from "../../../../shared/errors";
import { apiGatewayEvent } from "../../../helpers/apigw-event";

const DEFAULTS = { start: 0, max_chars: 30_000, max_age: 600, main_content: true, format: "markdown", render: "never" };

function refusal(run: () => unknown): WebgateError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(WebgateError);
    return error as WebgateError;
  }
  throw new Error("expected a refusal");
}

describe("parseFetchRequest", () => {
  it("says how to send a page URL with its own query when GET split it at its &", () => {
    // curl 'http://127.0.0.1:8787/fetch?url=https://example.com/?a=1&b=2'
    const split = refusal(() => parseFetchRequest(apiGatewayEvent({ method: "GET", path: "/fetch", query: { url: "https://example.com/?a=1", b: "2" } })));
    expect(split.code).toBe("invalid_request");
    expect(split.details["field"]).toBe("b");
    expect(split.message).toBe('Unknown field: "b". If it belongs to the page\'s own URL, percent-encode that URL in the url parameter (its & as %26).');
    // Without a query in the url, an unknown parameter is just that; and POST never gets the hint.
    const plain = refusal(() => parseFetchRequest(apiGatewayEvent({ method: "GET", path: "/fetch", query: { url: "https://example.com/", b: "2" } })));
    expect(plain.message).toBe('Unknown field: "b".');
    const post = refusal(() => parseFetchRequest(apiGatewayEvent({ method: "POST", path: "/fetch", body: { url: "https://example.com/?a=1", b: "2" } })));
    expect(post.message).toBe('Unknown field: "b".');
    const wrongType = refusal(() => parseFetchRequest(apiGatewayEvent({ method: "GET", path: "/fetch", query: { url: "https://example.com/?a=1", start: "x" } })));
    expect(wrongType.message).not.toContain("%26");
  });

  it("POST and GET give the same request, defaults filled in", () => {
    const post = parseFetchRequest(apiGatewayEvent({ method: "POST", path: "/fetch", body: { url: "https://example.com/", max_chars: 2_000, main_content: false } }));
    const get = parseFetchRequest(apiGatewayEvent({ method: "GET", path: "/fetch", query: { url: "https://example.com/", max_chars: "2000", main_content: "false" } }));
    expect(post).toEqual({ ...DEFAULTS, url: "https://example.com/", max_chars: 2_000, main_content: false });
    expect(get).toEqual(post);
  });

  it.each([
    ["a GET number that is not one", "GET", { url: "https://example.com/", start: "ten" }, "start"],
    ["a GET switch that is not true or false", "GET", { url: "https://example.com/", main_content: "yes" }, "main_content"],
    ["a GET field given twice", "GET", { url: ["https://a.example/", "https://b.example/"] }, "url"],
    ["a POST field of the wrong type", "POST", { url: 7 }, "url"],
    ["a POST field the contract does not have", "POST", { url: "https://example.com/", headers: {} }, undefined],
  ] as const)("refuses %s with invalid_request", (_name, method, input, field) => {
    const event =
      method === "GET"
        ? apiGatewayEvent({ method, path: "/fetch", query: input as Record<string, string | string[]> })
        : apiGatewayEvent({ method, path: "/fetch", body: input });
    const error = refusal(() => parseFetchRequest(event));
    expect(error.code).toBe("invalid_request");
    if (field !== undefined) expect(error.details["field"]).toBe(field);
  });
});
