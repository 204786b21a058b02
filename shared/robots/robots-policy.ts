/**
 * robots.txt policy (RFC 9309), pure: what a robots.txt answer means, and whether a URL may be
 * fetched under it. The fetch and the cache are in robots-checker.ts.
 *
 * - 2xx: the body's rules, parsed by robots-parser (longest match wins, `allow` wins a tie, `*`
 *   and `$` as §2.2.3 says) for the product token `webgate`, else the `*` group; the first
 *   500 KiB are parsed (§2.5), however long the file (the request reads no further). Paths and
 *   rules are compared with percent-encoded unreserved characters decoded (§2.2.2).
 * - Redirects are followed by the guard (at most 5 hops, §2.3.1.2); more, or a redirect without
 *   a Location, counts as "unavailable".
 * - 4xx (404 included) or unavailable: everything is allowed (§2.3.1.3).
 * - 5xx, a timeout or an unreachable host: everything is disallowed (§2.3.1.4), reported as the
 *   retryable `robots_unavailable`.
 */
import { createHash } from "node:crypto";
import robotsParser from "robots-parser";
import { WebgateError, type ErrorCode } from "../errors";

/** The product token webgate's rules are looked up by (`User-agent: webgate`). */
export const ROBOTS_PRODUCT_TOKEN = "webgate";
/** RFC 9309 §2.5: crawlers parse at least 500 KiB; what follows is ignored. */
export const ROBOTS_PARSE_LIMIT_BYTES = 500 * 1024;
/** How long a robots.txt outcome is kept (§2.4: no longer than 24 hours). */
export const ROBOTS_TTL_S = 86_400;
/** How long "unreachable" is kept, so a struggling site gets one request per host meanwhile. */
export const ROBOTS_FAILURE_TTL_S = 120;

/** What one robots.txt request came to. */
export type RobotsRecord =
  | { kind: "rules"; body: string }
  | { kind: "allow_all"; why: string }
  | { kind: "disallow_all"; why: string };

/** The robots.txt URL for a URL's origin (scheme, host and port). */
export function robotsUrlFor(url: URL): URL {
  return new URL("/robots.txt", url.origin);
}

/** Page-table key of an origin's robots.txt record: hashed like the snapshot keys. */
export function robotsKeyFor(url: URL): string {
  return createHash("sha256").update(JSON.stringify(["robots:v1", url.origin]), "utf8").digest("hex");
}

/** Seconds a record is kept. */
export function robotsTtlSeconds(record: RobotsRecord): number {
  return record.kind === "disallow_all" ? ROBOTS_FAILURE_TTL_S : ROBOTS_TTL_S;
}

/**
 * A robots.txt answer that reached a final (non-redirect) status. `truncated`: the body is the
 * head of a longer file (the request stopped reading at the limit).
 */
export function recordForResponse(status: number, body: Uint8Array, truncated = false): RobotsRecord {
  if (status >= 200 && status <= 299) {
    const head = Buffer.from(body.buffer, body.byteOffset, Math.min(body.byteLength, ROBOTS_PARSE_LIMIT_BYTES));
    // UTF-8 (§2.2); a rule cut at the limit is only the last, partial line, which is dropped.
    let text = head.toString("utf8");
    if (truncated || body.byteLength > ROBOTS_PARSE_LIMIT_BYTES) text = text.slice(0, Math.max(0, text.lastIndexOf("\n")));
    return { kind: "rules", body: text };
  }
  if (status >= 400 && status <= 499) return { kind: "allow_all", why: `robots.txt answered ${status}` };
  if (status >= 500) return { kind: "disallow_all", why: `robots.txt answered ${status}` };
  // 1xx or another 3xx the guard does not follow: not a robots.txt file.
  return { kind: "allow_all", why: `robots.txt answered ${status}` };
}

/** Codes of a failed robots.txt request that mean "unreachable" (§2.3.1.4) rather than "unavailable". */
const UNREACHABLE_CODES: ReadonlySet<ErrorCode> = new Set(["connect_failed", "upstream_timeout", "decode_failed"]);

/**
 * A robots.txt request that failed with `code`: unreachable → disallow everything; anything else
 * (too many redirects, a redirect the guard refused, a file over the size limit) means no
 * robots.txt can be had → allow everything. `dns_failed` is no outcome at all: the host did not
 * resolve, so the page cannot be fetched either, and the caller gets `dns_failed` itself
 * (see robots-checker.ts); it is never kept.
 */
export function recordForFailure(code: Exclude<ErrorCode, "dns_failed">): RobotsRecord {
  if (UNREACHABLE_CODES.has(code)) return { kind: "disallow_all", why: `robots.txt unreachable (${code})` };
  return { kind: "allow_all", why: `robots.txt unavailable (${code})` };
}

export type RobotsVerdict = { allowed: true } | { allowed: false; rule: string };

/** Whether `url` may be fetched under `record` (for `disallow_all` this throws instead). */
export function evaluateRobots(record: RobotsRecord, url: URL): RobotsVerdict {
  if (record.kind === "allow_all") return { allowed: true };
  if (record.kind === "disallow_all") {
    throw new WebgateError("robots_unavailable", `The site's robots.txt cannot be read (${record.why}); until it can, RFC 9309 counts every path as disallowed. Retry later.`, {
      details: { host: url.host },
    });
  }
  // Path and query as robots-parser would read them, with the same normalization as the rules.
  const target = `${url.origin}${normalizeRobotsPath(`${url.pathname}${url.search}`)}`;
  const robots = robotsParser(robotsUrlFor(url).href, normalizeRuleValues(record.body));
  if (robots.isAllowed(target, ROBOTS_PRODUCT_TOKEN) !== false) return { allowed: true };
  // Line numbers are those of the file as served: normalizing changes no line breaks.
  return { allowed: false, rule: ruleAt(record.body, robots.getMatchingLineNumber(target, ROBOTS_PRODUCT_TOKEN)) };
}

/** RFC 3986 §2.3's unreserved characters: their percent-encoded and literal forms are the same. */
const UNRESERVED = /^[A-Za-z0-9\-._~]$/;

/**
 * A path (or rule) in the one form both sides are compared in (RFC 9309 §2.2.2, RFC 3986 §6.2.2):
 * a percent-encoded unreserved character is decoded (`%7E` is `~`, `%41` is `A`), every other
 * percent-encoding keeps its encoding with upper-case hex digits (`%2f` → `%2F`: an encoded `/`
 * is not a path separator, so it is never decoded).
 */
export function normalizeRobotsPath(path: string): string {
  return path.replace(/%([0-9A-Fa-f]{2})/g, (_match, hex: string) => {
    const char = String.fromCharCode(Number.parseInt(hex, 16));
    return UNRESERVED.test(char) ? char : `%${hex.toUpperCase()}`;
  });
}

/** The file with the value of every `allow` and `disallow` line normalized; nothing else changes. */
function normalizeRuleValues(body: string): string {
  return body.replace(/^([ \t]*(?:allow|disallow)[ \t]*:)(.*)$/gim, (_line, key: string, value: string) => `${key}${normalizeRobotsPath(value)}`);
}

/** The path pattern of the rule on line `lineNumber` (1-based) of the file. */
function ruleAt(body: string, lineNumber: number): string {
  const line = body.split(/\r\n|\r|\n/)[lineNumber - 1] ?? "";
  const value = line.replace(/#.*$/, "");
  const colon = value.indexOf(":");
  return colon < 0 ? "" : value.slice(colon + 1).trim();
}

/** Throws `robots_disallowed` (naming the rule) or `robots_unavailable` unless `url` may be fetched. */
export function assertRobotsAllow(record: RobotsRecord, url: URL): void {
  const verdict = evaluateRobots(record, url);
  if (verdict.allowed) return;
  throw new WebgateError("robots_disallowed", `The site's robots.txt disallows this path for webgate (rule "Disallow: ${verdict.rule.slice(0, 200)}").`, {
    details: { rule: verdict.rule.slice(0, 200), host: url.host },
  });
}
