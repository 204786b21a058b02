import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { WebgateError } from "../../../../shared/errors";
import { assertQueryIsNotSecret, looksLikeSecret } from "../../../../shared/search/secret-check";

const KEY_LIKE = "BSAq" + "x9Zr/+_=-".repeat(4); // 40 characters of the secret alphabet

describe("looksLikeSecret", () => {
  it.each([
    ["a run of exactly 40", "a".repeat(40), true],
    ["a run of 39", "a".repeat(39), false],
    ["a key-like run inside words", `what is ${KEY_LIKE} used for`, true],
    ["a GitHub-token-shaped run", "ghp_" + "A1b2C3d4E5".repeat(4), true],
    ["a hex SHA-1", "commit 3f786850e387550fdab836ed7e6dc881de23001b", true],
    ["two 39-runs split by a space", `${"a".repeat(39)} ${"b".repeat(39)}`, false],
    ["a run split by a dot", `${"a".repeat(30)}.${"b".repeat(30)}`, false],
    ["ordinary words", "how to configure brave search api keys in lambda", false],
    ["an ordinary URL", "https://example.com/docs/getting-started?x=1", false],
  ])("%s → %s", (_label, query, expected) => {
    expect(looksLikeSecret(query)).toBe(expected);
  });

  it("agrees with a direct scan on arbitrary strings", () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom("a", "Z", "9", "+", "/", "_", "=", "-", " ", ".", "é"), maxLength: 120 }), (query) => {
        let run = 0;
        let longest = 0;
        for (const ch of query) {
          run = /[A-Za-z0-9+/_=-]/.test(ch) ? run + 1 : 0;
          longest = Math.max(longest, run);
        }
        expect(looksLikeSecret(query)).toBe(longest >= 40);
      }),
    );
  });
});

describe("assertQueryIsNotSecret", () => {
  it("throws query_looks_like_secret without repeating the query", () => {
    let caught: unknown;
    try {
      assertQueryIsNotSecret(`my key ${KEY_LIKE}`);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(WebgateError);
    expect((caught as WebgateError).code).toBe("query_looks_like_secret");
    expect((caught as WebgateError).status).toBe(400);
    expect((caught as WebgateError).message).not.toContain(KEY_LIKE);
  });

  it("passes an ordinary query", () => {
    expect(() => assertQueryIsNotSecret("aws lambda node 22 arm64")).not.toThrow();
  });
});
