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

describe("searchRequestSchema: domain filters", () => {
  it("accepts either list, lower-cases it, drops duplicates; an empty list is no filter", () => {
    expect(searchRequestSchema.parse({ query: "rust", allowed_domains: ["Docs.RS", "docs.rs", "rust-lang.org"] })).toEqual({
      query: "rust",
      max_results: 5,
      allowed_domains: ["docs.rs", "rust-lang.org"],
    });
    expect(searchRequestSchema.parse({ query: "rust", blocked_domains: ["reddit.com"] }).blocked_domains).toEqual(["reddit.com"]);
    expect(searchRequestSchema.parse({ query: "rust", allowed_domains: [], blocked_domains: ["a.com"] })).toEqual({ query: "rust", max_results: 5, blocked_domains: ["a.com"] });
  });

  it.each([
    ["both lists", { allowed_domains: ["a.com"], blocked_domains: ["b.com"] }, "blocked_domains"],
    ["21 domains", { allowed_domains: Array.from({ length: 21 }, (_, i) => `d${i}.com`) }, "allowed_domains"],
    ["a scheme", { allowed_domains: ["https://a.com"] }, "allowed_domains.0"],
    ["a path", { blocked_domains: ["a.com/x"] }, "blocked_domains.0"],
    ["a port", { allowed_domains: ["a.com:443"] }, "allowed_domains.0"],
    ["a wildcard", { allowed_domains: ["*.a.com"] }, "allowed_domains.0"],
    ["a trailing dot", { allowed_domains: ["a.com."] }, "allowed_domains.0"],
    ["an empty label", { allowed_domains: ["a..com"] }, "allowed_domains.0"],
    ["a label over 63 characters", { allowed_domains: [`${"x".repeat(64)}.com`] }, "allowed_domains.0"],
    ["a name over 253 characters", { allowed_domains: [Array.from({ length: 64 }, () => "abc").join(".")] }, "allowed_domains.0"],
    ["a non-string", { allowed_domains: [42] }, "allowed_domains.0"],
    ["a string instead of a list", { allowed_domains: "a.com" }, "allowed_domains"],
  ])("refuses %s, naming the field", (_label, extra, field) => {
    const result = searchRequestSchema.safeParse({ query: "ok query", ...extra });
    expect(result.success).toBe(false);
    expect(result.error!.issues.map((issue) => issue.path.join("."))).toContain(field);
  });

  it("accepts the new providers by name", () => {
    expect(searchRequestSchema.parse({ query: "rust", provider: "anthropic" }).provider).toBe("anthropic");
    expect(searchRequestSchema.parse({ query: "rust", provider: "ollama" }).provider).toBe("ollama");
  });
});
