import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { domainFilterOf, hostMatchesDomain, passesDomainFilter, withSiteOperators } from "../../../../shared/search/domain-filter";
import { normalizeResults } from "../../../../shared/search/normalize";

describe("hostMatchesDomain", () => {
  it.each([
    ["example.com", "example.com", true],
    ["docs.example.com", "example.com", true],
    ["a.b.example.com", "example.com", true],
    ["EXAMPLE.com", "example.com", true],
    ["example.com.", "example.com", true],
    ["badexample.com", "example.com", false],
    ["example.com.evil.net", "example.com", false],
    ["example.co", "example.com", false],
    ["com", "example.com", false],
    ["example.com", "docs.example.com", false],
  ])("%s under %s → %s", (host, domain, expected) => {
    expect(hostMatchesDomain(host, domain)).toBe(expected);
  });
});

describe("passesDomainFilter", () => {
  it("lets everything through without a filter, only allowed hosts with one, no blocked host", () => {
    expect(passesDomainFilter("a.com", undefined)).toBe(true);
    expect(passesDomainFilter("x.a.com", { allowed: ["b.com", "a.com"] })).toBe(true);
    expect(passesDomainFilter("c.com", { allowed: ["b.com", "a.com"] })).toBe(false);
    expect(passesDomainFilter("x.a.com", { blocked: ["a.com"] })).toBe(false);
    expect(passesDomainFilter("c.com", { blocked: ["a.com"] })).toBe(true);
  });

  it("domainFilterOf picks the list the request has", () => {
    expect(domainFilterOf({})).toBeUndefined();
    expect(domainFilterOf({ allowed_domains: ["a.com"] })).toEqual({ allowed: ["a.com"] });
    expect(domainFilterOf({ blocked_domains: ["a.com"] })).toEqual({ blocked: ["a.com"] });
  });

  it("normalized results never break the filter, whatever the provider answered", () => {
    const host = fc.constantFrom("a.com", "x.a.com", "b.com", "a.com.b.com", "ba.com", "A.COM");
    const raw = fc.array(fc.record({ title: fc.string(), url: host.map((h) => `https://${h}/p`), snippet: fc.string() }), { maxLength: 15 });
    const filter = fc.oneof(
      fc.record({ allowed: fc.array(fc.constantFrom("a.com", "b.com"), { minLength: 1 }) }),
      fc.record({ blocked: fc.array(fc.constantFrom("a.com", "b.com"), { minLength: 1 }) }),
    );
    fc.assert(
      fc.property(raw, filter, (results, f) => {
        for (const result of normalizeResults(results, 10, f)) {
          expect(passesDomainFilter(new URL(result.url).hostname, f)).toBe(true);
        }
      }),
    );
  });
});

describe("withSiteOperators", () => {
  const limits = { maxChars: 400, maxWords: 50 };

  it("adds every allowed domain joined by OR, every blocked one as -site:", () => {
    expect(withSiteOperators("rust", { allowed: ["a.com"] }, limits)).toBe("rust site:a.com");
    expect(withSiteOperators("rust", { allowed: ["a.com", "b.org"] }, limits)).toBe("rust site:a.com OR site:b.org");
    expect(withSiteOperators("rust", { blocked: ["a.com", "b.org"] }, limits)).toBe("rust -site:a.com -site:b.org");
    expect(withSiteOperators("rust", undefined, limits)).toBe("rust");
  });

  it("allowed domains: all or none when they would pass the character or word limit", () => {
    const many = Array.from({ length: 20 }, (_, i) => `domain-number-${i}.example.com`);
    expect(withSiteOperators("rust", { allowed: many }, limits)).toBe("rust");
    expect(withSiteOperators("rust", { allowed: ["a.com", "b.com"] }, { maxChars: 400, maxWords: 3 })).toBe("rust");
  });

  it("blocked domains: as many as fit, in order", () => {
    const out = withSiteOperators("x".repeat(370), { blocked: ["a.com", "b.com", "c.com"] }, limits);
    expect(out).toBe(`${"x".repeat(370)} -site:a.com -site:b.com`);
    expect(out.length).toBeLessThanOrEqual(400);
  });

  it("never returns a query over the limits when the query itself fits", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 400 }), fc.array(fc.constantFrom("a.com", "bb.org", "long-domain-name.example.net"), { maxLength: 20 }), fc.boolean(), (query, domains, allow) => {
        fc.pre(query.length <= 400 && query.split(/\s+/u).filter(Boolean).length <= 50);
        const out = withSiteOperators(query, allow ? { allowed: domains } : { blocked: domains }, limits);
        expect(out.length).toBeLessThanOrEqual(400);
        expect(out.startsWith(query)).toBe(true);
      }),
    );
  });
});
