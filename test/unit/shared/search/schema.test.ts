import { describe, expect, it } from "vitest";
import { searchRequestSchema } from "../../../../shared/search/schema";

describe("searchRequestSchema", () => {
  it.each([
    [{ query: "rust book" }, { query: "rust book", max_results: 5 }],
    [{ query: "  ab  ", max_results: 1 }, { query: "ab", max_results: 1 }],
    [{ query: "x".repeat(400), max_results: 10, provider: "searxng" }, { query: "x".repeat(400), max_results: 10, provider: "searxng" }],
  ])("accepts %j", (input, expected) => {
    expect(searchRequestSchema.parse(input)).toEqual(expected);
  });

  it.each([
    ["a query of one character after trim", { query: " a " }, "query"],
    ["a query over 400 characters", { query: "x".repeat(401) }, "query"],
    ["a missing query", {}, "query"],
    ["a numeric query", { query: 42 }, "query"],
    ["max_results 0", { query: "ok query", max_results: 0 }, "max_results"],
    ["max_results 11", { query: "ok query", max_results: 11 }, "max_results"],
    ["max_results 2.5", { query: "ok query", max_results: 2.5 }, "max_results"],
    ["max_results as a string", { query: "ok query", max_results: "5" }, "max_results"],
    ["an unknown provider", { query: "ok query", provider: "google" }, "provider"],
  ])("refuses %s, naming the field", (_label, input, field) => {
    const result = searchRequestSchema.safeParse(input);
    expect(result.success).toBe(false);
    expect(result.error!.issues.map((issue) => issue.path.join("."))).toContain(field);
  });

  it("refuses unknown fields", () => {
    const result = searchRequestSchema.safeParse({ query: "ok query", maxResults: 3 });
    expect(result.success).toBe(false);
    expect(JSON.stringify(result.error!.issues)).toContain("maxResults");
  });
});
