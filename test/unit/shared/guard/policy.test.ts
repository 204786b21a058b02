import { describe, expect, it } from "vitest";
import { ConfigError } from "../../../../shared/config";
import { DEFAULT_GUARD_POLICY, resolvePolicy } from "../../../../shared/guard/policy";
import { matchesDomain } from "../../../../shared/guard/policy";

function problemsOf(partial: Parameters<typeof resolvePolicy>[0]): string[] {
  try {
    resolvePolicy(partial);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
  throw new Error("resolvePolicy accepted an invalid policy");
}

describe("DEFAULT_GUARD_POLICY", () => {
  it("is the strict default of the issue", () => {
    expect(DEFAULT_GUARD_POLICY).toEqual({
      allowLocalhost: false,
      allowedPorts: [80, 443],
      allowedDomains: [],
      blockedDomains: [],
      blockedCidrs: [],
      maxUrlLength: 2_000,
    });
  });

  it("cannot be changed by a caller", () => {
    expect(Object.isFrozen(DEFAULT_GUARD_POLICY)).toBe(true);
    expect(Object.isFrozen(DEFAULT_GUARD_POLICY.allowedPorts)).toBe(true);
    expect(() => DEFAULT_GUARD_POLICY.allowedPorts.push(22)).toThrow(TypeError);
  });
});

describe("resolvePolicy", () => {
  it("returns the default for no policy and fills absent fields from it", () => {
    expect(resolvePolicy()).toBe(DEFAULT_GUARD_POLICY);
    expect(resolvePolicy({ allowLocalhost: true })).toEqual({ ...DEFAULT_GUARD_POLICY, allowLocalhost: true });
  });

  it("normalizes domain entries once: lower case, punycode, no trailing dot, no duplicates", () => {
    const policy = resolvePolicy({
      allowedDomains: [" Example.COM. ", "example.com", "*.Bücher.DE", "*.sub.example.org."],
      blockedDomains: ["TRACKER.example"],
    });
    expect(policy.allowedDomains).toEqual(["example.com", "*.xn--bcher-kva.de", "*.sub.example.org"]);
    expect(policy.blockedDomains).toEqual(["tracker.example"]);
  });

  it("normalizes ports and address ranges", () => {
    const policy = resolvePolicy({ allowedPorts: [443, 8443, 443], blockedCidrs: [" 203.0.114.0/24", "2001:DB8:0::/48"] });
    expect(policy.allowedPorts).toEqual([443, 8443]);
    expect(policy.blockedCidrs).toEqual(["203.0.114.0/24", "2001:db8::/48"]);
  });

  it("returns a frozen policy that resolves to itself", () => {
    const policy = resolvePolicy({ allowedDomains: ["example.com"] });
    expect(Object.isFrozen(policy)).toBe(true);
    expect(Object.isFrozen(policy.allowedDomains)).toBe(true);
    expect(resolvePolicy(policy)).toBe(policy);
    // A copy is not trusted blindly: it is validated again.
    expect(resolvePolicy({ ...policy })).not.toBe(policy);
    expect(resolvePolicy({ ...policy })).toEqual(policy);
  });

  it("reports every invalid entry at once, with a clear message", () => {
    const problems = problemsOf({
      allowedDomains: ["", "*", "a..b.com", "exa mple.com", "1.2.3.4", "*.", "-bad.com", "ok.example"],
      blockedDomains: ["http://example.com/", "::1"],
      allowedPorts: [0, 70_000, 1.5, 443],
      blockedCidrs: ["10.1/8", "fe80::%eth0/64", "::1.2.3.4/120", "banana", "10.0.0.0/33", "10.0.0.0/8"],
      maxUrlLength: 0,
      allowLocalhost: "yes" as unknown as boolean,
    });
    expect(problems).toEqual([
      "guard allowedPorts (WEBGATE_ALLOWED_PORTS): 0 is not a port from 1 to 65535",
      "guard allowedPorts (WEBGATE_ALLOWED_PORTS): 70000 is not a port from 1 to 65535",
      "guard allowedPorts (WEBGATE_ALLOWED_PORTS): 1.5 is not a port from 1 to 65535",
      'guard allowedDomains (WEBGATE_ALLOWED_DOMAINS): "" is not a host name or *.suffix',
      'guard allowedDomains (WEBGATE_ALLOWED_DOMAINS): "*" is not a host name or *.suffix',
      'guard allowedDomains (WEBGATE_ALLOWED_DOMAINS): "a..b.com" is not a host name or *.suffix',
      'guard allowedDomains (WEBGATE_ALLOWED_DOMAINS): "exa mple.com" is not a host name or *.suffix',
      'guard allowedDomains (WEBGATE_ALLOWED_DOMAINS): "1.2.3.4" is an IP address; use blockedCidrs for addresses',
      'guard allowedDomains (WEBGATE_ALLOWED_DOMAINS): "*." is not a host name or *.suffix',
      'guard allowedDomains (WEBGATE_ALLOWED_DOMAINS): "-bad.com" is not a host name or *.suffix',
      'guard blockedDomains (WEBGATE_BLOCKED_DOMAINS): "http://example.com/" is not a host name or *.suffix',
      'guard blockedDomains (WEBGATE_BLOCKED_DOMAINS): "::1" is not a host name or *.suffix',
      'guard blockedCidrs (WEBGATE_BLOCKED_CIDRS): "10.1/8" is not an address range such as 192.0.2.0/24 or 2001:db8::/32',
      'guard blockedCidrs (WEBGATE_BLOCKED_CIDRS): "fe80::%eth0/64" is not an address range such as 192.0.2.0/24 or 2001:db8::/32',
      'guard blockedCidrs (WEBGATE_BLOCKED_CIDRS): "::1.2.3.4/120" is not an address range such as 192.0.2.0/24 or 2001:db8::/32',
      'guard blockedCidrs (WEBGATE_BLOCKED_CIDRS): "banana" is not an address range such as 192.0.2.0/24 or 2001:db8::/32',
      'guard blockedCidrs (WEBGATE_BLOCKED_CIDRS): "10.0.0.0/33" is not an address range such as 192.0.2.0/24 or 2001:db8::/32',
      "guard maxUrlLength must be a positive whole number",
      "guard allowLocalhost (WEBGATE_ALLOW_LOCALHOST) must be true or false",
    ]);
  });
});

describe("matchesDomain", () => {
  it.each([
    ["example.com", "example.com", true],
    ["www.example.com", "example.com", false],
    ["example.com", "*.example.com", true],
    ["a.example.com", "*.example.com", true],
    ["a.b.example.com", "*.example.com", true],
    ["badexample.com", "*.example.com", false],
    ["example.com.evil.net", "*.example.com", false],
    ["com", "*.example.com", false],
  ])("%s against %s is %s", (host, entry, expected) => {
    expect(matchesDomain(host, entry)).toBe(expected);
  });
});
