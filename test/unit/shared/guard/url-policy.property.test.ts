import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { WebgateError } from "../../../../shared/errors";
import { classifyAddress } from "../../../../shared/guard/address-policy";
import { checkUrl } from "../../../../shared/guard/url-policy";

const POLICY_CODES = new Set(["url_not_allowed", "host_not_allowed", "address_not_allowed"]);

/**
 * Runs checkUrl and checks its invariants: it either throws a WebgateError with one of the
 * three policy codes, or returns an https URL without credentials or fragment whose host, when
 * it is an IP literal, classifies as public.
 */
function checkInvariants(input: string): void {
  let url: URL;
  try {
    url = checkUrl(input);
  } catch (error) {
    expect(error).toBeInstanceOf(WebgateError);
    expect(POLICY_CODES.has((error as WebgateError).code)).toBe(true);
    return;
  }
  expect(url.protocol).toBe("https:");
  expect(url.username).toBe("");
  expect(url.password).toBe("");
  expect(url.hash).toBe("");
  expect(url.href.length).toBeLessThanOrEqual(2_000);
  expect(["", "80", "443"]).toContain(url.port);
  const host = url.hostname;
  if (host.startsWith("[")) {
    expect(classifyAddress(host.slice(1, -1))).toBe("ok");
  } else if (/^[\d.]+$/.test(host)) {
    expect(classifyAddress(host)).toBe("ok");
  } else {
    expect(host).toMatch(/^[a-z0-9_-]+(\.[a-z0-9_-]+)+$/);
    expect(host).not.toMatch(/(^|\.)(localhost|local|internal)$/);
  }
}

const hostish = fc.oneof(
  fc.ipV4(),
  fc.ipV4Extended(),
  fc.ipV6().map((ip) => `[${ip}]`),
  fc.domain(),
  fc.string({ unit: "binary", maxLength: 40 }),
);

describe("checkUrl properties", () => {
  it("never throws anything but its own error on arbitrary strings", () => {
    fc.assert(fc.property(fc.string({ unit: "binary", maxLength: 200 }), checkInvariants), { numRuns: 2_000 });
  });

  it('holds on "http://" followed by an arbitrary host and tail', () => {
    const tail = fc.constantFrom("", "/", ":80/", ":443/x", ":8080/", "@x/", "#f", "?q=1");
    fc.assert(
      fc.property(fc.constantFrom("http://", "https://", "HTTP://", "http:\\\\", " http://"), hostish, tail, (scheme, host, rest) =>
        checkInvariants(scheme + host + rest),
      ),
      { numRuns: 3_000 },
    );
  });

  it("holds on generated web URLs, with credentials, queries and fragments", () => {
    const urls = fc.webUrl({ withQueryParameters: true, withFragments: true, authoritySettings: { withUserInfo: true, withPort: true, withIPv4: true, withIPv6: true, withIPv4Extended: true } });
    fc.assert(fc.property(urls, checkInvariants), { numRuns: 2_000 });
  });

  it("accepts only IP literals that classify as public", () => {
    const literal = fc.oneof(fc.ipV4(), fc.ipV4Extended(), fc.ipV6().map((ip) => `[${ip}]`));
    fc.assert(
      fc.property(literal, (host) => {
        let url: URL;
        try {
          url = checkUrl(`http://${host}/`);
        } catch (error) {
          expect(error).toBeInstanceOf(WebgateError);
          return;
        }
        const ip = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
        expect(classifyAddress(ip)).toBe("ok");
      }),
      { numRuns: 3_000 },
    );
  });
});
