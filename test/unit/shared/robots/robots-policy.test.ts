import { describe, expect, it } from "vitest";
import { WebgateError } from "../../../../shared/errors";
import {
  ROBOTS_FAILURE_TTL_S,
  ROBOTS_PARSE_LIMIT_BYTES,
  ROBOTS_TTL_S,
  assertRobotsAllow,
  evaluateRobots,
  normalizeRobotsPath,
  recordForFailure,
  recordForResponse,
  robotsKeyFor,
  robotsTtlSeconds,
  robotsUrlFor,
} from "../../../../shared/robots/robots-policy";

const rules = (body: string) => ({ kind: "rules" as const, body });
const u = (s: string) => new URL(s);

describe("robots.txt policy", () => {
  it("puts robots.txt at the origin, one key per scheme, host and port", () => {
    expect(robotsUrlFor(u("https://a.example/x/y?q=1#f")).href).toBe("https://a.example/robots.txt");
    expect(robotsUrlFor(u("http://a.example:8080/x")).href).toBe("http://a.example:8080/robots.txt");
    expect(robotsKeyFor(u("https://a.example/x"))).toBe(robotsKeyFor(u("https://a.example/other")));
    expect(robotsKeyFor(u("https://a.example/x"))).not.toBe(robotsKeyFor(u("http://a.example/x")));
    expect(robotsKeyFor(u("https://a.example/x"))).toMatch(/^[0-9a-f]{64}$/);
  });

  it.each([
    [200, { kind: "rules", body: "User-agent: *" }],
    [204, { kind: "rules", body: "User-agent: *" }],
    [404, { kind: "allow_all", why: "robots.txt answered 404" }],
    [429, { kind: "allow_all", why: "robots.txt answered 429" }],
    [500, { kind: "disallow_all", why: "robots.txt answered 500" }],
    [503, { kind: "disallow_all", why: "robots.txt answered 503" }],
  ])("reads status %i", (status, record) => {
    expect(recordForResponse(status, Buffer.from("User-agent: *"))).toEqual(record);
  });

  it("keeps the first 500 KiB, dropping the cut line", () => {
    const body = Buffer.from(`Disallow: /a\n${"#".repeat(ROBOTS_PARSE_LIMIT_BYTES)}\nDisallow: /b\n`);
    const record = recordForResponse(200, body);
    expect(record.kind === "rules" && record.body).toBe("Disallow: /a");
  });

  it.each([
    ["connect_failed", "disallow_all"],
    ["upstream_timeout", "disallow_all"],
    ["decode_failed", "disallow_all"],
    ["too_many_redirects", "allow_all"],
    ["redirect_without_location", "allow_all"],
    ["address_not_allowed", "allow_all"],
    ["upstream_too_large", "allow_all"],
  ] as const)("treats a failed request (%s) as %s", (code, kind) => {
    expect(recordForFailure(code).kind).toBe(kind);
  });

  it("keeps outcomes 24 hours, unreachable ones 2 minutes", () => {
    expect(robotsTtlSeconds(rules(""))).toBe(ROBOTS_TTL_S);
    expect(robotsTtlSeconds({ kind: "allow_all", why: "" })).toBe(86_400);
    expect(robotsTtlSeconds({ kind: "disallow_all", why: "" })).toBe(ROBOTS_FAILURE_TTL_S);
  });

  it.each([
    ["User-agent: *\nDisallow: /private", "https://a.example/private/x", false, "/private"],
    ["User-agent: *\nDisallow: /private", "https://a.example/public", true, null],
    ["User-agent: *\nDisallow: /*.pdf$", "https://a.example/a/b.pdf", false, "/*.pdf$"],
    ["User-agent: *\nDisallow: /*.pdf$", "https://a.example/a/b.pdf?x", true, null],
    ["User-agent: *\nDisallow: /\nAllow: /open", "https://a.example/open/door", true, null],
    ["User-agent: *\nAllow: /\n\nUser-agent: webgate\nDisallow: /no # comment", "https://a.example/no", false, "/no"],
    ["User-agent: other\nDisallow: /", "https://a.example/x", true, null],
    ["user-agent: *\ndisallow: /pr\u20ACis", "https://a.example/pr\u20ACis/x", false, "/pr\u20ACis"],
    ["", "https://a.example/x", true, null],
    // RFC 9309 §2.2.2: a percent-encoded unreserved character equals the character itself, on
    // either side; the rule is reported as the file writes it.
    ["User-agent: *\nDisallow: /%7Ejoe", "https://a.example/~joe/page", false, "/%7Ejoe"],
    ["User-agent: *\nDisallow: /~joe", "https://a.example/%7Ejoe/page", false, "/~joe"],
    ["User-agent: *\nDisallow: /%7ejoe", "https://a.example/~joe", false, "/%7ejoe"],
    ["User-agent: *\nDisallow: /%41bc", "https://a.example/Abc", false, "/%41bc"],
    ["User-agent: *\nDisallow: /~joe\nAllow: /%7Ejoe/public", "https://a.example/~joe/public/x", true, null],
    ["User-agent: *\nDisallow: /search?q=%7E", "https://a.example/search?q=~x", false, "/search?q=%7E"],
    // Reserved characters keep their encoding: an encoded "/" is not a path separator.
    ["User-agent: *\nDisallow: /a%2Fb", "https://a.example/a/b", true, null],
    ["User-agent: *\nDisallow: /a%2fb", "https://a.example/a%2Fb", false, "/a%2fb"],
    ["User-agent: *\nDisallow: /a/b", "https://a.example/a%2Fb", true, null],
  ])("%j for %s → allowed %s", (body, url, allowed, rule) => {
    const verdict = evaluateRobots(rules(body), u(url));
    expect(verdict.allowed).toBe(allowed);
    if (!verdict.allowed) expect(verdict.rule).toBe(rule);
  });

  it.each([
    ["/%7Ejoe", "/~joe"],
    ["/%7ejoe%2fx", "/~joe%2Fx"],
    ["/%41%5A%61%7A%30%39%2D%2E%5F%7E", "/AZaz09-._~"],
    ["/%25%20%3F%23%2A%24%C3%A9", "/%25%20%3F%23%2A%24%C3%A9"],
    ["/%zz%4", "/%zz%4"],
    ["", ""],
  ])("normalizes %s to %s", (raw, normalized) => {
    expect(normalizeRobotsPath(raw)).toBe(normalized);
    // Idempotent: %25 stays %25, so nothing decodes twice.
    expect(normalizeRobotsPath(normalized)).toBe(normalized);
  });

  it("keeps the head of a truncated answer without its cut last line", () => {
    const record = recordForResponse(200, Buffer.from("User-agent: *\nDisallow: /a\nDisallow: /b-cut-he"), true);
    expect(record).toEqual({ kind: "rules", body: "User-agent: *\nDisallow: /a" });
  });

  it("throws the two codes with their details", () => {
    let error: unknown;
    try {
      assertRobotsAllow(rules("User-agent: *\nDisallow: /x"), u("https://a.example/x"));
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(WebgateError);
    expect((error as WebgateError).code).toBe("robots_disallowed");
    expect((error as WebgateError).details).toEqual({ rule: "/x", host: "a.example" });
    expect(() => assertRobotsAllow({ kind: "disallow_all", why: "robots.txt answered 503" }, u("https://a.example/x"))).toThrow(/answered 503/);
    expect(() => assertRobotsAllow({ kind: "allow_all", why: "" }, u("https://a.example/x"))).not.toThrow();
  });
});
