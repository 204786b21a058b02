import { describe, expect, it } from "vitest";
import { cacheKeyFor } from "../../../../shared/cache/cache-key";
import { PAGE_TABLE, createTableInput } from "../../../../shared/cache/table";

describe("cacheKeyFor", () => {
  const url = new URL("https://example.com/a/b?token=SECRET#frag");

  it("is a 64-digit lowercase hex hash that hides the URL", () => {
    const key = cacheKeyFor(url, "main:v1");
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(key).not.toContain("SECRET");
  });

  it("is stable, ignores the fragment, and separates variants, queries and paths", () => {
    const key = cacheKeyFor(url, "main:v1");
    expect(cacheKeyFor(new URL("https://example.com/a/b?token=SECRET#other"), "main:v1")).toBe(key);
    expect(cacheKeyFor(new URL("https://example.com/a/b?token=SECRET"), "main:v1")).toBe(key);
    expect(cacheKeyFor(new URL("HTTPS://EXAMPLE.com:443/a/b?token=SECRET"), "main:v1")).toBe(key);
    const others = [
      cacheKeyFor(url, "full:v1"),
      cacheKeyFor(url, "main:v2"),
      cacheKeyFor(new URL("https://example.com/a/b?token=OTHER"), "main:v1"),
      cacheKeyFor(new URL("https://example.com/a/c?token=SECRET"), "main:v1"),
      cacheKeyFor(new URL("http://example.com/a/b?token=SECRET"), "main:v1"),
    ];
    expect(new Set([key, ...others]).size).toBe(others.length + 1);
  });

  it("cannot be forged by moving text between the variant and the URL", () => {
    expect(cacheKeyFor(new URL("https://a.test/"), "x")).not.toBe(cacheKeyFor(new URL("https://a.test/"), "x "));
  });
});

describe("page table contract", () => {
  it("declares string keys pk/sk, on demand", () => {
    const input = createTableInput("t");
    expect(input.TableName).toBe("t");
    expect(input.BillingMode).toBe("PAY_PER_REQUEST");
    expect(input.KeySchema).toEqual([
      { AttributeName: PAGE_TABLE.partitionKey, KeyType: "HASH" },
      { AttributeName: PAGE_TABLE.sortKey, KeyType: "RANGE" },
    ]);
    expect(input.AttributeDefinitions).toEqual([
      { AttributeName: "pk", AttributeType: "S" },
      { AttributeName: "sk", AttributeType: "S" },
    ]);
    expect(PAGE_TABLE.ttlAttribute).toBe("expires_at");
  });
});
