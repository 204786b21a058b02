import { describe, expect, it } from "vitest";
import { resolvePolicy } from "../../../../shared/guard/policy";
import type { AddressClass } from "../../../../shared/guard/address-policy";
import { ADDRESS_REFUSAL_DESCRIPTIONS, ADDRESS_REFUSALS, classifyAddress } from "../../../../shared/guard/address-policy";
import { canonicalAddress, isLoopbackAddress } from "../../../../shared/guard/address-policy";
import { loadDnsVectors } from "../../../helpers/ssrf-vectors";

// Each refused IPv4 range: its first and last address, and the neighbours just outside with
// what they are (usually "ok"; a neighbour inside the next refused range says so).
const IPV4_BOUNDARIES: [string, AddressClass][] = [
  // 0.0.0.0/8 unspecified (RFC 1122)
  ["0.0.0.0", "unspecified"], ["0.255.255.255", "unspecified"], ["1.0.0.0", "ok"],
  // 10/8 private (RFC 1918)
  ["9.255.255.255", "ok"], ["10.0.0.0", "private"], ["10.255.255.255", "private"], ["11.0.0.0", "ok"],
  // 100.64/10 CGNAT (RFC 6598)
  ["100.63.255.255", "ok"], ["100.64.0.0", "cgnat"], ["100.127.255.255", "cgnat"], ["100.128.0.0", "ok"],
  // 127/8 loopback
  ["126.255.255.255", "ok"], ["127.0.0.0", "loopback"], ["127.255.255.255", "loopback"], ["128.0.0.0", "ok"],
  // 169.254/16 link-local (RFC 3927)
  ["169.253.255.255", "ok"], ["169.254.0.0", "link-local"], ["169.254.255.255", "link-local"], ["169.255.0.0", "ok"],
  // 172.16/12 private
  ["172.15.255.255", "ok"], ["172.16.0.0", "private"], ["172.31.255.255", "private"], ["172.32.0.0", "ok"],
  // 192.0.0.0/24 IETF protocol assignments, anycast /32s included (open case)
  ["191.255.255.255", "ok"], ["192.0.0.0", "protocol-assignment"], ["192.0.0.9", "protocol-assignment"],
  ["192.0.0.10", "protocol-assignment"], ["192.0.0.255", "protocol-assignment"], ["192.0.1.0", "ok"],
  // 192.0.2.0/24 TEST-NET-1 (RFC 5737)
  ["192.0.1.255", "ok"], ["192.0.2.0", "documentation"], ["192.0.2.255", "documentation"], ["192.0.3.0", "ok"],
  // 192.31.196.0/24 and 192.175.48.0/24 AS112, 192.52.193.0/24 AMT: global unicast (open case)
  ["192.31.196.0", "ok"], ["192.31.196.255", "ok"], ["192.175.48.1", "ok"], ["192.52.193.0", "ok"], ["192.52.193.255", "ok"],
  // 192.88.99.0/24 6to4 relay anycast (RFC 7526): refused (open case)
  ["192.88.98.255", "ok"], ["192.88.99.0", "transition"], ["192.88.99.255", "transition"], ["192.88.100.0", "ok"],
  // 192.168/16 private
  ["192.167.255.255", "ok"], ["192.168.0.0", "private"], ["192.168.255.255", "private"], ["192.169.0.0", "ok"],
  // 198.18/15 benchmarking (RFC 2544)
  ["198.17.255.255", "ok"], ["198.18.0.0", "benchmarking"], ["198.19.255.255", "benchmarking"], ["198.20.0.0", "ok"],
  // 198.51.100.0/24 TEST-NET-2
  ["198.51.99.255", "ok"], ["198.51.100.0", "documentation"], ["198.51.100.255", "documentation"], ["198.51.101.0", "ok"],
  // 203.0.113.0/24 TEST-NET-3
  ["203.0.112.255", "ok"], ["203.0.113.0", "documentation"], ["203.0.113.255", "documentation"], ["203.0.114.0", "ok"],
  // 224/4 multicast, 240/4 reserved, 255.255.255.255 broadcast
  ["223.255.255.255", "ok"], ["224.0.0.0", "multicast"], ["239.255.255.255", "multicast"],
  ["240.0.0.0", "reserved"], ["255.255.255.254", "reserved"], ["255.255.255.255", "broadcast"],
  // Public examples.
  ["1.1.1.1", "ok"], ["8.8.8.8", "ok"], ["93.184.215.14", "ok"],
];

const MAX = "ffff:ffff:ffff:ffff:ffff";
const IPV6_BOUNDARIES: [string, AddressClass][] = [
  ["::", "unspecified"], ["::1", "loopback"],
  // ::/96 IPv4-compatible (deprecated): refused, as embeds-refused-ipv4 when the IPv4 is refused.
  ["::2", "embeds-refused-ipv4"], ["::1.1.1.1", "transition"], ["::101:101", "transition"], ["::127.0.0.1", "embeds-refused-ipv4"],
  ["::ffff:ffff", "embeds-refused-ipv4"], ["::1:0:0", "reserved"],
  // ::ffff:0:0/96 IPv4-mapped: exactly the IPv4 it maps.
  ["::fffe:ffff:ffff", "reserved"], ["::ffff:0:0", "unspecified"], ["::ffff:127.0.0.1", "loopback"], ["::ffff:7f00:1", "loopback"],
  ["::ffff:10.0.0.1", "private"], ["::ffff:169.254.169.254", "link-local"], ["::ffff:1.1.1.1", "ok"],
  ["::ffff:ffff:ffff", "broadcast"], ["::1:0:0:0", "reserved"],
  // 64:ff9b::/96 NAT64 well-known prefix: the IPv4 it carries (open case: public passes).
  ["64:ff9a:ffff:ffff:ffff:ffff:ffff:ffff", "reserved"], ["64:ff9b::", "embeds-refused-ipv4"], ["64:ff9b::1.1.1.1", "ok"],
  ["64:ff9b::a9fe:a9fe", "embeds-refused-ipv4"], ["64:ff9b::ffff:ffff", "embeds-refused-ipv4"], ["64:ff9b::1:0:0", "reserved"],
  // 64:ff9b:1::/48 local-use NAT64 (RFC 8215): refused whole.
  ["64:ff9b:1::", "transition"], ["64:ff9b:1::101:101", "transition"], [`64:ff9b:1:${MAX}`, "transition"], ["64:ff9b:2::", "reserved"],
  // 100::/64 discard-only (RFC 6666)
  ["ff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "reserved"], ["100::", "discard"], ["100::ffff:ffff:ffff:ffff", "discard"], ["100:0:0:1::", "reserved"],
  // 2000::/3 global unicast
  ["1fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "reserved"], ["2000::", "ok"], ["4000::", "reserved"],
  // 2001::/32 Teredo: client IPv4 is the inverted last 32 bits.
  ["2001::", "embeds-refused-ipv4"], // client 255.255.255.255
  [`2001:0:${MAX}:ffff`, "embeds-refused-ipv4"], // client 0.0.0.0
  ["2001:0:4136:e378:8000:63bf:fefe:fefe", "transition"], // client 1.1.1.1
  ["2001:0:4136:e378:8000:63bf:80ff:fffe", "embeds-refused-ipv4"], // client 127.0.0.1
  // 2001::/23 IETF protocol assignments, with 2001:2::/48 benchmarking inside.
  ["2001:1::", "protocol-assignment"], ["2001:1::1", "protocol-assignment"], ["2001:1:ffff:ffff:ffff:ffff:ffff:ffff", "protocol-assignment"],
  ["2001:2::", "benchmarking"], [`2001:2:0:${MAX}`, "benchmarking"], ["2001:2:1::", "protocol-assignment"],
  ["2001:3::1", "protocol-assignment"], ["2001:4:112::1", "protocol-assignment"], ["2001:20::1", "protocol-assignment"],
  [`2001:1ff:${MAX}:ffff`, "protocol-assignment"], ["2001:200::", "ok"],
  // 2001:db8::/32 documentation
  [`2001:db7:${MAX}:ffff`, "ok"], ["2001:db8::", "documentation"], [`2001:db8:${MAX}:ffff`, "documentation"], ["2001:db9::", "ok"],
  // 2002::/16 6to4: refused always (open case), embeds-refused-ipv4 when the IPv4 is refused.
  [`2001:ffff:${MAX}:ffff`, "ok"], ["2002::", "embeds-refused-ipv4"], ["2002:101:101::", "transition"],
  ["2002:7f00:1::", "embeds-refused-ipv4"], ["2002:a9fe:a9fe::", "embeds-refused-ipv4"], [`2002:${MAX}:ffff:ffff`, "embeds-refused-ipv4"],
  ["2003::", "ok"],
  // 3fff::/20 documentation (RFC 9637)
  [`3ffe:${MAX}:ffff:ffff`, "ok"], ["3fff::", "documentation"], [`3fff:fff:${MAX}:ffff`, "documentation"], ["3fff:1000::", "ok"],
  // 5f00::/16 SRv6
  ["5f00::1", "reserved"],
  // fc00::/7 unique-local, fe80::/10 link-local, fec0::/10 site-local, ff00::/8 multicast
  [`fbff:ffff:${MAX}:ffff`, "reserved"], ["fc00::", "unique-local"], ["fd00:ec2::254", "unique-local"], [`fdff:ffff:${MAX}:ffff`, "unique-local"],
  [`fe7f:ffff:${MAX}:ffff`, "reserved"], ["fe80::", "link-local"], [`febf:ffff:${MAX}:ffff`, "link-local"],
  ["fec0::", "site-local"], [`feff:ffff:${MAX}:ffff`, "site-local"], ["ff00::", "multicast"], ["ff02::1", "multicast"], [`ffff:ffff:${MAX}:ffff`, "multicast"],
  // Public examples.
  ["2606:4700:4700::1111", "ok"], ["2001:4860:4860::8888", "ok"], ["2606:2800:21f:cb07:6820:80da:af6b:8b2c", "ok"],
  ["2606:4700:4700:0:0:0:0:1111", "ok"], ["2606:4700:4700::1111".toUpperCase(), "ok"],
];

describe("classifyAddress boundaries", () => {
  it.each(IPV4_BOUNDARIES)("IPv4 %s is %s", (ip, expected) => {
    expect(classifyAddress(ip)).toBe(expected);
  });

  it.each(IPV6_BOUNDARIES)("IPv6 %s is %s", (ip, expected) => {
    expect(classifyAddress(ip)).toBe(expected);
  });
});

describe("classifyAddress input", () => {
  it.each([
    "", "not-an-ip", "example.com", "0x7f.1", "127.1", "2130706433", "0177.0.0.1", "01.2.3.4", "1.2.3.256", "1.2.3.4.5",
    " 1.1.1.1", "1.1.1.1 ", "[::1]", "fe80::1%eth0", "::1%lo", "::ffff:127.0.0.01", "::ffff:0x7f.1", "::ffff:127.1",
    "::ffff:1.2.3.4.5", "1:2:3:4:5:6:7:8:9", "12345::1", ":::1", "g::1",
  ])("%j is invalid (only canonical dotted decimal IPv4 and plain IPv6)", (ip) => {
    expect(classifyAddress(ip)).toBe("invalid");
  });

  it("reads ::a.b.c.d as IPv4-compatible, not as mapped (ipaddr.js parses it as ::ffff:a.b.c.d)", () => {
    expect(classifyAddress("::127.0.0.1")).toBe("embeds-refused-ipv4");
    expect(classifyAddress("::127.0.0.1", { allowLocalhost: true })).toBe("embeds-refused-ipv4");
    expect(canonicalAddress("::127.0.0.1")).toBe("::7f00:1");
  });

  it("does not trust ipaddr.js range(): ::127.0.0.1 is not unicast here", () => {
    expect(classifyAddress("::7f00:1")).not.toBe("ok");
  });
});

describe("classifyAddress with allowLocalhost", () => {
  const dev = { allowLocalhost: true };
  it.each(["127.0.0.1", "127.0.0.0", "127.255.255.255", "::1", "::ffff:127.0.0.1", "::ffff:7f00:1"])("%s is ok", (ip) => {
    expect(classifyAddress(ip, dev)).toBe("ok");
  });

  it.each([
    ["0.0.0.0", "unspecified"], ["10.0.0.1", "private"], ["169.254.169.254", "link-local"], ["::", "unspecified"],
    ["64:ff9b::127.0.0.1", "embeds-refused-ipv4"], ["2002:7f00:1::", "embeds-refused-ipv4"], ["fe80::1", "link-local"],
  ])("%s stays %s", (ip, expected) => {
    expect(classifyAddress(ip, dev)).toBe(expected);
  });
});

describe("classifyAddress with blockedCidrs", () => {
  it("refuses public addresses in a blocked range, also when mapped or behind NAT64", () => {
    const policy = { blockedCidrs: ["1.1.1.0/24"] };
    expect(classifyAddress("1.1.1.1", policy)).toBe("denylisted");
    expect(classifyAddress("1.1.1.255", policy)).toBe("denylisted");
    expect(classifyAddress("1.1.2.1", policy)).toBe("ok");
    expect(classifyAddress("::ffff:1.1.1.1", policy)).toBe("denylisted");
    expect(classifyAddress("64:ff9b::1.1.1.1", policy)).toBe("denylisted");
    expect(classifyAddress("2606:4700:4700::1111", policy)).toBe("ok");
  });

  it("matches IPv6 ranges against IPv6 addresses only", () => {
    const policy = { blockedCidrs: ["2606:4700::/32"] };
    expect(classifyAddress("2606:4700:4700::1111", policy)).toBe("denylisted");
    expect(classifyAddress("2606:4701::1", policy)).toBe("ok");
    expect(classifyAddress("1.1.1.1", policy)).toBe("ok");
  });

  it.each([["::ffff:1.1.1.1/128"], ["::FFFF:101:101/128"], ["::ffff:1.1.1.0/120"]])("an IPv4-mapped entry (%s) blocks the IPv4 address however it arrives", (entry) => {
    const policy = resolvePolicy({ blockedCidrs: [entry] });
    expect(policy.blockedCidrs[0]).toMatch(/^1\.1\.1\.\d+\/(32|24)$/);
    expect(classifyAddress("1.1.1.1", policy)).toBe("denylisted");
    expect(classifyAddress("::ffff:1.1.1.1", policy)).toBe("denylisted");
    expect(classifyAddress("64:ff9b::101:101", policy)).toBe("denylisted");
    expect(classifyAddress("1.1.2.1", policy)).toBe("ok");
  });

  it("keeps an IPv6 range that only starts in the mapped block as IPv6", () => {
    expect(resolvePolicy({ blockedCidrs: ["::ffff:0:0/95"] }).blockedCidrs).toEqual(["::ffff:0:0/95"]);
  });

  it("keeps the built-in reason for an address that is refused anyway", () => {
    expect(classifyAddress("10.0.0.1", { blockedCidrs: ["10.0.0.0/8"] })).toBe("private");
  });

  it("applies to loopback let through by the dev switch", () => {
    const policy = { allowLocalhost: true, blockedCidrs: ["127.0.0.2/32"] };
    expect(classifyAddress("127.0.0.2", policy)).toBe("denylisted");
    expect(classifyAddress("127.0.0.1", policy)).toBe("ok");
  });
});

describe("canonicalAddress and isLoopbackAddress", () => {
  it.each([
    ["1.2.3.4", "1.2.3.4"],
    ["::FFFF:1.2.3.4", "1.2.3.4"],
    ["::ffff:102:304", "1.2.3.4"],
    ["2001:DB8:0:0:0:0:0:1", "2001:db8::1"],
    ["2001:db8:0:0:1:0:0:1", "2001:db8::1:0:0:1"],
    ["64:ff9b::8.8.8.8", "64:ff9b::808:808"],
  ])("%s is written %s", (ip, canonical) => {
    expect(canonicalAddress(ip)).toBe(canonical);
  });

  it("has no spelling for an invalid address", () => {
    expect(canonicalAddress("0x7f.1")).toBeUndefined();
  });

  it("knows the dev switch's loopback targets", () => {
    expect(["127.0.0.1", "127.9.9.9", "::1", "::ffff:127.0.0.1"].map(isLoopbackAddress)).toEqual([true, true, true, true]);
    expect(["10.0.0.1", "::127.0.0.1", "localhost", "0x7f.1"].map(isLoopbackAddress)).toEqual([false, false, false, false]);
  });
});

describe("refusal reasons", () => {
  it("form a closed list, each described without an address", () => {
    expect(new Set(ADDRESS_REFUSALS).size).toBe(ADDRESS_REFUSALS.length);
    expect(Object.keys(ADDRESS_REFUSAL_DESCRIPTIONS).sort()).toEqual([...ADDRESS_REFUSALS].sort());
    for (const text of Object.values(ADDRESS_REFUSAL_DESCRIPTIONS)) expect(text).not.toMatch(/\d+\.\d+|::/);
  });

  it("are all reachable", () => {
    const seen = new Set<string>([...IPV4_BOUNDARIES, ...IPV6_BOUNDARIES].map(([, c]) => c));
    seen.add(classifyAddress("garbage"));
    seen.add(classifyAddress("1.1.1.1", { blockedCidrs: ["1.1.1.1/32"] }));
    expect([...ADDRESS_REFUSALS].filter((reason) => !seen.has(reason))).toEqual([]);
  });
});

const dnsVectors = loadDnsVectors();

describe.skipIf(dnsVectors === undefined)("classifyAddress on the dns rows of ../shared/ssrf/dns-vectors.json", () => {
  it.each((dnsVectors?.dns ?? []).filter((row) => row.addresses !== undefined))("$expect $host ($why)", (row) => {
    const classes = row.addresses!.map((ip) => classifyAddress(ip));
    // Any refused answer refuses the request, and so does an empty answer.
    const refused = classes.length === 0 || classes.some((c) => c !== "ok");
    expect(refused ? "refuse" : "allow").toBe(row.expect);
  });
});
