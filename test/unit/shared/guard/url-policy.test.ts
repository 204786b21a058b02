import { describe, expect, it } from "vitest";
import { WebgateError } from "../../../../shared/errors";
import type { GuardPolicy } from "../../../../shared/guard/policy";
import { bareHostname, checkUrl } from "../../../../shared/guard/url-policy";
import { loadUrlVectors } from "../../../helpers/ssrf-vectors";

const POLICY_CODES = ["url_not_allowed", "host_not_allowed", "address_not_allowed"];

function refusalOf(input: string, policy?: Partial<GuardPolicy>): WebgateError {
  try {
    checkUrl(input, policy);
  } catch (error) {
    expect(error).toBeInstanceOf(WebgateError);
    return error as WebgateError;
  }
  throw new Error(`checkUrl accepted ${JSON.stringify(input)}`);
}

const vectors = loadUrlVectors();

describe.skipIf(vectors === undefined)("checkUrl on ../shared/ssrf/url-vectors.json", () => {
  it.each(vectors ?? [])("$expect $url ($why)", (row) => {
    if (row.expect === "allow") {
      expect(() => checkUrl(row.url)).not.toThrow();
    } else {
      expect(POLICY_CODES).toContain(refusalOf(row.url).code);
    }
  });
});

// [input, code, what the message must say]: every rule of the URL policy, refused.
const REFUSED: [string, string, RegExp][] = [
  ["", "url_not_allowed", /not a valid absolute URL/],
  ["not a url", "url_not_allowed", /not a valid absolute URL/],
  ["//example.com/", "url_not_allowed", /not a valid absolute URL/],
  ["http://exa mple.com/", "url_not_allowed", /not a valid absolute URL/],
  ["http://[fe80::1%25eth0]/", "url_not_allowed", /not a valid absolute URL/],
  ["http://example.com:65536/", "url_not_allowed", /not a valid absolute URL/],
  ["ftp://example.com/", "url_not_allowed", /Only http and https/],
  ["file:///etc/passwd", "url_not_allowed", /Only http and https/],
  ["javascript:alert(1)", "url_not_allowed", /Only http and https/],
  ["ws://example.com/", "url_not_allowed", /Only http and https/],
  // Credentials, including the empty userinfo that WHATWG drops silently.
  ["http://user:pass@example.com/", "url_not_allowed", /user name or password/],
  ["https://:secret@example.com/", "url_not_allowed", /user name or password/],
  ["http://@example.com/", "url_not_allowed", /user name or password/],
  ["http://@example.com", "url_not_allowed", /user name or password/],
  ["https://:@example.com/", "url_not_allowed", /user name or password/],
  ["http:@example.com/", "url_not_allowed", /user name or password/],
  ["http:\\\\@example.com/", "url_not_allowed", /user name or password/],
  ["  http://@example.com/  ", "url_not_allowed", /user name or password/],
  ["ht\ttp://@exa\nmple.com/", "url_not_allowed", /user name or password/],
  ["HTTPS://a@example.com?x", "url_not_allowed", /user name or password/],
  // Ports: only 80 and 443 by default, also for https on 80 and http on 443 (both listed).
  ["http://example.com:8080/", "url_not_allowed", /port is not allowed \(allowed: 80, 443\)/],
  ["https://example.com:22/", "url_not_allowed", /port is not allowed/],
  ["https://example.com:0/", "url_not_allowed", /port is not allowed/],
  // Host names.
  ["http://localhost/", "host_not_allowed", /localhost/],
  ["http://LocalHost./", "host_not_allowed", /localhost/],
  ["http://app.localhost/", "host_not_allowed", /localhost/],
  ["http://printer.local/", "host_not_allowed", /\.local name/],
  ["http://metadata.google.internal/", "host_not_allowed", /\.internal name/],
  ["http://intranet/", "host_not_allowed", /single-label/],
  ["http://intranet./", "host_not_allowed", /single-label/],
  ["http://a..b.example/", "host_not_allowed", /empty label/],
  ["http://.example.com/", "host_not_allowed", /empty label/],
  ["http://example.com../", "host_not_allowed", /empty label/],
  ["http://./", "host_not_allowed", /empty label/],
  ["http://exa!mple.com/", "host_not_allowed", /characters/],
  ["http://a*b.example.com/", "host_not_allowed", /characters/],
  // IP literals outside public unicast, in any spelling WHATWG accepts.
  ["http://127.0.0.1/", "address_not_allowed", /loopback/],
  ["http://0x7f.1/", "address_not_allowed", /loopback/],
  ["http://[::ffff:127.0.0.1]/", "address_not_allowed", /loopback/],
  ["http://169.254.169.254/", "address_not_allowed", /link-local/],
  ["http://[fd00:ec2::254]/", "address_not_allowed", /unique-local/],
  ["http://10.0.0.1/", "address_not_allowed", /private-network/],
  ["http://100.64.0.1/", "address_not_allowed", /carrier-grade NAT/],
  ["http://[64:ff9b::a9fe:a9fe]/", "address_not_allowed", /carries a refused IPv4/],
];

describe("checkUrl refuses", () => {
  it.each(REFUSED)("%j with %s", (input, code, message) => {
    const error = refusalOf(input);
    expect(error.code).toBe(code);
    expect(error.message).toMatch(message);
  });

  it("never names the address in a literal refusal, only the rule (and gives the reason as a detail)", () => {
    for (const [input, address] of [
      ["http://127.0.0.1/", "127.0.0.1"],
      ["http://2130706433/", "127.0.0.1"],
      ["http://[::1]/", "::1"],
      ["http://192.168.1.1/", "192.168.1.1"],
    ]) {
      const error = refusalOf(input!);
      expect(error.message).not.toContain(address);
      expect(error.message).not.toContain(input);
      expect(JSON.stringify(error.details)).not.toContain(address);
    }
    expect(refusalOf("http://[::1]/").details).toEqual({ reason: "loopback" });
    expect(refusalOf("http://[::1]/").message).toBe("The URL's host is a loopback address.");
  });

  it("refuses a value that is not a string (plain JavaScript callers) with its own error", () => {
    for (const value of [undefined, null, 42, { href: "https://example.com/" }, new URL("https://example.com/")]) {
      expect(refusalOf(value as unknown as string).message).toBe("The URL must be a string.");
    }
  });

  it("counts the length limit on the input and on the normalized URL", () => {
    const base = "https://example.com/";
    expect(checkUrl(base + "a".repeat(2_000 - base.length)).href).toHaveLength(2_000);
    expect(refusalOf(base + "a".repeat(2_001 - base.length)).message).toMatch(/longer than 2000 characters/);
    // 29 characters in, 37 after percent-encoding the spaces.
    const spaced = base + "a b c d e";
    expect(spaced).toHaveLength(29);
    expect(refusalOf(spaced, { maxUrlLength: 30 }).message).toMatch(/longer than 30 characters/);
    expect(checkUrl(spaced, { maxUrlLength: 37 }).href).toBe("https://example.com/a%20b%20c%20d%20e");
  });
});

// [input, normalized href]: what an accepted URL becomes.
const NORMALIZED: [string, string][] = [
  ["http://example.com/", "https://example.com/"],
  ["http://example.com:80/", "https://example.com/"],
  ["http://example.com:443/a", "https://example.com/a"],
  ["https://example.com:443/", "https://example.com/"],
  ["https://example.com:80/", "https://example.com:80/"],
  ["HTTP://EXAMPLE.COM/Path?Q=1", "https://example.com/Path?Q=1"],
  ["https://example.org/p?q=1#section", "https://example.org/p?q=1"],
  ["https://example.org/p#", "https://example.org/p"],
  ["https://bücher.de/", "https://xn--bcher-kva.de/"],
  ["https://_dmarc.example.com/", "https://_dmarc.example.com/"],
  // "@" outside the authority is not userinfo.
  ["https://example.com/@user", "https://example.com/@user"],
  ["https://example.com?to=a@b", "https://example.com/?to=a@b"],
  ["https://example.com#@evil.com", "https://example.com/"],
  ["https://example.com\\@evil.com", "https://example.com/@evil.com"],
  // Open case: a public name with a trailing dot is allowed, the dot removed.
  ["http://example.com./x", "https://example.com/x"],
  ["https://www.example.com.:443/", "https://www.example.com/"],
  // Open case: public IPv4 in a non-canonical spelling is allowed; WHATWG canonicalizes it and
  // the check and the connection both use the canonical form.
  ["http://0x01010101/", "https://1.1.1.1/"],
  ["http://16843009/", "https://1.1.1.1/"],
  ["http://1.1.257/", "https://1.1.1.1/"],
  ["http://０ｘ８．８．８．８/", "https://8.8.8.8/"],
  // Open case: mapped and NAT64 addresses carrying a public IPv4 are that IPv4.
  ["http://[::ffff:1.1.1.1]/", "https://[::ffff:101:101]/"],
  ["http://[64:ff9b::8.8.8.8]/", "https://[64:ff9b::808:808]/"],
  // Open case: AS112 and AMT are ordinary global unicast.
  ["http://192.31.196.1/", "https://192.31.196.1/"],
  ["http://192.175.48.1/", "https://192.175.48.1/"],
  ["http://192.52.193.1/", "https://192.52.193.1/"],
  ["https://[2606:4700:4700::1111]:443/", "https://[2606:4700:4700::1111]/"],
];

describe("checkUrl normalizes what it accepts", () => {
  it.each(NORMALIZED)("%j -> %s", (input, href) => {
    const url = checkUrl(input);
    expect(url.href).toBe(href);
    expect(url.hostname.endsWith(".")).toBe(false);
  });

  it("returns a fresh URL object each time", () => {
    expect(checkUrl("https://example.com/")).not.toBe(checkUrl("https://example.com/"));
  });
});

describe("checkUrl open-case decisions that refuse", () => {
  it.each([
    ["http://[::1.1.1.1]/", /transition/], // IPv4-compatible, deprecated
    ["http://[2002:101:101::1]/", /transition/], // 6to4 carrying public 1.1.1.1
    ["http://[2001:0:4136:e378:8000:63bf:fefe:fefe]/", /transition/], // Teredo, client 1.1.1.1
    ["http://[64:ff9b:1::101:101]/", /transition/], // local-use NAT64
    ["http://192.88.99.1/", /transition/], // 6to4 relay anycast
    ["http://192.0.0.9/", /IETF protocol assignments/], // PCP anycast /32
    ["http://192.0.0.10/", /IETF protocol assignments/], // TURN anycast /32
    ["http://[2001:20::1]/", /IETF protocol assignments/], // ORCHIDv2
    ["http://[2001:3::1]/", /IETF protocol assignments/], // AMT (IPv6), inside 2001::/23
  ])("%s", (input, message) => {
    const error = refusalOf(input);
    expect(error.code).toBe("address_not_allowed");
    expect(error.message).toMatch(message);
  });
});

describe("checkUrl ports", () => {
  it("takes a default port as the scheme's own even when the list omits it", () => {
    expect(checkUrl("http://example.com/", { allowedPorts: [443] }).href).toBe("https://example.com/");
    expect(checkUrl("https://example.com/", { allowedPorts: [8443] }).href).toBe("https://example.com/");
  });

  it("accepts a listed port and keeps it through the https upgrade", () => {
    const policy = { allowedPorts: [80, 443, 8443] };
    expect(checkUrl("https://example.com:8443/", policy).href).toBe("https://example.com:8443/");
    expect(checkUrl("http://example.com:8443/", policy).href).toBe("https://example.com:8443/");
    expect(refusalOf("http://example.com:8080/", policy).message).toMatch(/allowed: 80, 443, 8443/);
  });

  it("refuses an explicit port missing from the list, even 443", () => {
    expect(refusalOf("http://example.com:443/", { allowedPorts: [80] }).code).toBe("url_not_allowed");
  });
});

describe("checkUrl domain lists", () => {
  it("allow list: exact entries match only themselves", () => {
    const policy = { allowedDomains: ["Example.COM."] };
    expect(checkUrl("https://example.com/", policy).hostname).toBe("example.com");
    expect(checkUrl("https://example.com./", policy).hostname).toBe("example.com");
    expect(refusalOf("https://www.example.com/", policy).message).toMatch(/not on the allowed domain list/);
  });

  it("allow list: *.suffix matches the apex and every name below it, nothing else", () => {
    const policy = { allowedDomains: ["*.example.com"] };
    expect(() => checkUrl("https://example.com/", policy)).not.toThrow();
    expect(() => checkUrl("https://a.b.example.com/", policy)).not.toThrow();
    for (const refused of ["https://badexample.com/", "https://example.com.evil.net/", "https://example.org/"]) {
      expect(refusalOf(refused, policy).code).toBe("host_not_allowed");
    }
  });

  it("allow list: IDN entries are compared in punycode", () => {
    expect(checkUrl("https://www.BÜCHER.de/", { allowedDomains: ["*.Bücher.DE"] }).hostname).toBe("www.xn--bcher-kva.de");
  });

  it("allow list: an IP literal is never on it", () => {
    const error = refusalOf("https://1.1.1.1/", { allowedDomains: ["example.com"] });
    expect(error.code).toBe("host_not_allowed");
  });

  it("deny list: refuses the apex and subdomains of *.suffix, and exact names", () => {
    const policy = { blockedDomains: ["*.evil.com", "tracker.example"] };
    for (const refused of ["https://evil.com/", "https://a.evil.com./", "https://tracker.example/"]) {
      expect(refusalOf(refused, policy).message).toMatch(/blocked domain list/);
    }
    expect(() => checkUrl("https://notevil.com/", policy)).not.toThrow();
    expect(() => checkUrl("https://sub.tracker.example/", policy)).not.toThrow();
  });

  it("deny list wins over the allow list", () => {
    const policy = { allowedDomains: ["*.example.com"], blockedDomains: ["admin.example.com"] };
    expect(refusalOf("https://admin.example.com/", policy).message).toMatch(/blocked/);
    expect(() => checkUrl("https://www.example.com/", policy)).not.toThrow();
  });

  it("name rules still apply to listed names", () => {
    expect(refusalOf("https://db.internal/", { allowedDomains: ["*.internal"] }).message).toMatch(/\.internal/);
  });
});

describe("checkUrl with the dev switch allowLocalhost", () => {
  const dev = { allowLocalhost: true };

  it.each([
    ["http://localhost:9001/x#f", "http://localhost:9001/x"],
    ["http://localhost./", "http://localhost/"],
    ["https://localhost:8443/", "https://localhost:8443/"],
    ["http://127.0.0.1:3000/", "http://127.0.0.1:3000/"],
    ["http://127.0.0.2.:3000/", "http://127.0.0.2:3000/"],
    ["http://LocalHost:3000/", "http://localhost:3000/"],
    ["http://[::1]:8080/", "http://[::1]:8080/"],
    ["  http://\tlocalhost:8080/", "http://localhost:8080/"],
  ])("lets %s through as %s (http kept, any port)", (input, href) => {
    expect(checkUrl(input, dev).href).toBe(href);
  });

  it.each([
    ["http://app.localhost/", "host_not_allowed"],
    ["http://intranet/", "host_not_allowed"],
    ["http://10.0.0.1/", "address_not_allowed"],
    ["http://169.254.169.254/", "address_not_allowed"],
    ["http://0.0.0.0:3000/", "address_not_allowed"],
    ["http://[64:ff9b::127.0.0.1]/", "address_not_allowed"],
    ["http://[::127.0.0.1]/", "address_not_allowed"],
    // Loopback only as a developer writes it: spellings WHATWG rewrites are an attack's.
    ["http://127.1:3000/", "address_not_allowed"],
    ["http://0x7f000001:3000/", "address_not_allowed"],
    ["http://2130706433/", "address_not_allowed"],
    ["http://0177.0.0.1/", "address_not_allowed"],
    ["http://%31%32%37.0.0.1/", "address_not_allowed"],
    ["http://１２７.０.０.１/", "address_not_allowed"],
    ["http://[::ffff:127.0.0.1]:8080/", "address_not_allowed"],
    ["http://[0:0:0:0:0:0:0:1]/", "address_not_allowed"],
    ["http://%6cocalhost/", "host_not_allowed"],
    ["http://ⓛⓞⓒⓐⓛⓗⓞⓢⓣ/", "host_not_allowed"],
    ["http://user@localhost/", "url_not_allowed"],
    ["http://example.com:8080/", "url_not_allowed"],
    ["file:///etc/passwd", "url_not_allowed"],
  ])("keeps refusing %s (%s)", (input, code) => {
    expect(refusalOf(input, dev).code).toBe(code);
  });

  it("still upgrades public hosts to https", () => {
    expect(checkUrl("http://example.com/", dev).href).toBe("https://example.com/");
  });

  it("lets loopback targets past the allow list but not past the deny list", () => {
    expect(checkUrl("http://localhost:1234/", { ...dev, allowedDomains: ["example.com"] }).href).toBe("http://localhost:1234/");
    expect(checkUrl("http://127.0.0.1:1234/", { ...dev, allowedDomains: ["example.com"] }).href).toBe("http://127.0.0.1:1234/");
    expect(refusalOf("http://localhost/", { ...dev, blockedDomains: ["localhost"] }).code).toBe("host_not_allowed");
  });

  it("refuses loopback on the block list of addresses", () => {
    expect(refusalOf("http://127.0.0.2/", { ...dev, blockedCidrs: ["127.0.0.2/32"] }).message).toMatch(/block list/);
  });
});

describe("bareHostname", () => {
  it.each([
    ["https://[2001:db8::1]:8443/x", "2001:db8::1"],
    ["https://example.com/", "example.com"],
    ["http://93.184.215.14/", "93.184.215.14"],
  ])("%s → %s", (url, host) => {
    expect(bareHostname(new URL(url))).toBe(host);
  });
});
