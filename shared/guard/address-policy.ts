/**
 * Address policy: is an IP address public unicast, and if not, why not.
 *
 * Pure and table-driven, like Smokescreen's `classifyAddr`: every refused range is a row with
 * its reason and its RFC. Only global unicast passes. IPv6 forms that carry an IPv4 address
 * (mapped, IPv4-compatible, NAT64, 6to4, Teredo) are judged by the IPv4 address they carry.
 */
import ipaddr from "ipaddr.js";
import type { GuardPolicy } from "./policy";
import { resolvePolicy } from "./policy";

type IPv4 = ipaddr.IPv4;
type IPv6 = ipaddr.IPv6;

/** Every reason an address can be refused for; a closed set used in messages, logs and metrics. */
export const ADDRESS_REFUSALS = [
  "loopback",
  "private",
  "link-local",
  "cgnat",
  "unique-local",
  "site-local",
  "multicast",
  "broadcast",
  "reserved",
  "documentation",
  "benchmarking",
  "unspecified",
  "protocol-assignment",
  "discard",
  "transition",
  "embeds-refused-ipv4",
  "denylisted",
  "invalid",
] as const;

export type AddressRefusal = (typeof ADDRESS_REFUSALS)[number];

/** `"ok"` for public unicast, else the reason the address is refused. */
export type AddressClass = "ok" | AddressRefusal;

/** Words for messages: "the URL's host is {description}". Never contains the address itself. */
export const ADDRESS_REFUSAL_DESCRIPTIONS: Readonly<Record<AddressRefusal, string>> = {
  loopback: "a loopback address",
  private: "a private-network address",
  "link-local": "a link-local address (this range holds the cloud metadata services)",
  cgnat: "a carrier-grade NAT address",
  "unique-local": "an IPv6 unique-local address",
  "site-local": "a deprecated IPv6 site-local address",
  multicast: "a multicast address",
  broadcast: "the broadcast address",
  reserved: "a reserved address",
  documentation: "an address reserved for documentation",
  benchmarking: "an address reserved for benchmarking",
  unspecified: "an unspecified (this-host) address",
  "protocol-assignment": "an address reserved for IETF protocol assignments",
  discard: "an IPv6 discard-only address",
  transition: "an IPv6 transition-mechanism address (IPv4-compatible, 6to4, Teredo or local NAT64)",
  "embeds-refused-ipv4": "an IPv6 address that carries a refused IPv4 address",
  denylisted: "an address on the configured block list",
  invalid: "not a valid IP address",
};

type Row<T> = readonly [range: [T, number], reason: AddressRefusal];

const v4 = (cidr: string, reason: AddressRefusal): Row<IPv4> => [ipaddr.IPv4.parseCIDR(cidr), reason];
const v6 = (cidr: string, reason: AddressRefusal): Row<IPv6> => [ipaddr.IPv6.parseCIDR(cidr), reason];

// IANA IPv4 Special-Purpose Address Registry (RFC 6890), first match wins. Not listed, hence
// allowed as ordinary global unicast: AS112 192.31.196.0/24 and 192.175.48.0/24 (RFC 7535,
// RFC 6304) and AMT 192.52.193.0/24 (RFC 7450): the registry marks them globally reachable.
const IPV4_TABLE: readonly Row<IPv4>[] = [
  v4("0.0.0.0/8", "unspecified"), // RFC 791 / RFC 1122 §3.2.1.3: "this network"; 0.0.0.0 reaches local services
  v4("10.0.0.0/8", "private"), // RFC 1918
  v4("100.64.0.0/10", "cgnat"), // RFC 6598 shared address space (Alibaba metadata 100.100.100.200)
  v4("127.0.0.0/8", "loopback"), // RFC 1122 §3.2.1.3 (Lambda runtime API 127.0.0.1:9001)
  v4("169.254.0.0/16", "link-local"), // RFC 3927 (IMDS 169.254.169.254, ECS 169.254.170.2)
  v4("172.16.0.0/12", "private"), // RFC 1918
  // RFC 6890 §2.2.2 IETF protocol assignments, refused whole, including the anycast /32s
  // 192.0.0.9 (PCP, RFC 7723) and 192.0.0.10 (TURN, RFC 8155): no page is served there, and
  // the block holds DS-Lite, NAT64 discovery and Oracle Cloud metadata (192.0.0.192).
  v4("192.0.0.0/24", "protocol-assignment"),
  v4("192.0.2.0/24", "documentation"), // RFC 5737 TEST-NET-1
  v4("192.88.99.0/24", "transition"), // RFC 3068 6to4 relay anycast, deprecated by RFC 7526
  v4("192.168.0.0/16", "private"), // RFC 1918
  v4("198.18.0.0/15", "benchmarking"), // RFC 2544
  v4("198.51.100.0/24", "documentation"), // RFC 5737 TEST-NET-2
  v4("203.0.113.0/24", "documentation"), // RFC 5737 TEST-NET-3
  v4("224.0.0.0/4", "multicast"), // RFC 5771
  v4("255.255.255.255/32", "broadcast"), // RFC 919 / RFC 8190 limited broadcast (before 240/4)
  v4("240.0.0.0/4", "reserved"), // RFC 1112 §4 future use
];

// IANA IPv6 Special-Purpose Address Registry; consulted after the forms that carry IPv4
// (see classifyIPv6). First match wins, so the more specific rows come first.
const IPV6_TABLE: readonly Row<IPv6>[] = [
  v6("100::/64", "discard"), // RFC 6666 discard-only
  v6("2001:2::/48", "benchmarking"), // RFC 5180
  // RFC 2928 IETF protocol assignments, refused whole: ORCHIDv2 2001:20::/28 (RFC 7343, not
  // routable), AMT 2001:3::/32 and AS112-v6 2001:4:112::/48 go with it.
  v6("2001::/23", "protocol-assignment"),
  v6("2001:db8::/32", "documentation"), // RFC 3849
  v6("3fff::/20", "documentation"), // RFC 9637
  v6("5f00::/16", "reserved"), // RFC 9602 SRv6 SIDs, not globally reachable
  v6("fc00::/7", "unique-local"), // RFC 4193 (AWS IMDS fd00:ec2::254)
  v6("fe80::/10", "link-local"), // RFC 4291 §2.5.6
  v6("fec0::/10", "site-local"), // RFC 3879 deprecated site-local
  v6("ff00::/8", "multicast"), // RFC 4291 §2.7
];

const GLOBAL_UNICAST = ipaddr.IPv6.parseCIDR("2000::/3"); // RFC 4291 §2.4: everything else is not global unicast
const IPV4_MAPPED = ipaddr.IPv6.parseCIDR("::ffff:0:0/96"); // RFC 4291 §2.5.5.2
const IPV4_COMPATIBLE = ipaddr.IPv6.parseCIDR("::/96"); // RFC 4291 §2.5.5.1, deprecated
const NAT64_WELL_KNOWN = ipaddr.IPv6.parseCIDR("64:ff9b::/96"); // RFC 6052
const NAT64_LOCAL = ipaddr.IPv6.parseCIDR("64:ff9b:1::/48"); // RFC 8215 local-use translation
const SIX_TO_FOUR = ipaddr.IPv6.parseCIDR("2002::/16"); // RFC 3056, deprecated by RFC 7526
const TEREDO = ipaddr.IPv6.parseCIDR("2001::/32"); // RFC 4380

/**
 * Classifies one IP address. Returns `"ok"` only for public unicast that is not in
 * `policy.blockedCidrs`.
 *
 * Input: dotted-decimal IPv4 (no leading zeros, no short or hex forms: those are `"invalid"`,
 * WHATWG and the resolver already give canonical text) or IPv6 without brackets or zone id.
 * An IPv4-mapped address is classified as the IPv4 address it maps to (`ipaddr.process()`
 * semantics). NAT64 well-known-prefix addresses take the class of the public IPv4 they carry;
 * IPv4-compatible, 6to4, Teredo and local-use NAT64 are refused always (`"transition"`), as
 * `"embeds-refused-ipv4"` when they carry a refused IPv4 address.
 * With `policy.allowLocalhost`, loopback (127/8, ::1, mapped 127/8) is `"ok"`; nothing else changes.
 */
export function classifyAddress(ip: string, policy?: Partial<GuardPolicy>): AddressClass {
  const resolved = resolvePolicy(policy);
  const address = parseAddress(ip);
  if (address === undefined) return "invalid";
  const builtIn = address.kind() === "ipv4" ? classifyIPv4(address as IPv4) : classifyIPv6(address as IPv6);
  if (builtIn !== "ok" && !(builtIn === "loopback" && resolved.allowLocalhost)) return builtIn;
  if (resolved.blockedCidrs.length > 0 && isDenylisted(address, resolved.blockedCidrs)) return "denylisted";
  return "ok";
}

/** True for 127/8, ::1 and IPv4-mapped 127/8: the targets the dev switch lets through. */
export function isLoopbackAddress(ip: string): boolean {
  const address = parseAddress(ip);
  if (address === undefined) return false;
  return (address.kind() === "ipv4" ? classifyIPv4(address as IPv4) : classifyIPv6(address as IPv6)) === "loopback";
}

/**
 * The one spelling used to connect: dotted decimal for IPv4 and for IPv4-mapped IPv6 (the
 * socket then reaches exactly the IPv4 address that was checked), RFC 5952 text for other IPv6.
 * Returns undefined for anything {@link classifyAddress} calls `"invalid"`.
 */
export function canonicalAddress(ip: string): string | undefined {
  const address = parseAddress(ip);
  if (address === undefined) return undefined;
  if (address.kind() === "ipv4") return address.toString();
  const v6addr = address as IPv6;
  return v6addr.match(IPV4_MAPPED) ? v6addr.toIPv4Address().toString() : v6addr.toRFC5952String();
}

// Strict parser. ipaddr.js alone is too lenient for a security check: IPv4.parse() takes octal,
// hex and short forms, and IPv6.parse() reads "::a.b.c.d" as "::ffff:a.b.c.d" (compatible
// turned into mapped). So IPv4 must be plain dotted decimal, and a dotted tail of an IPv6
// address is rewritten to two hex groups before ipaddr sees it.
function parseAddress(ip: string): IPv4 | IPv6 | undefined {
  if (ipaddr.IPv4.isValidFourPartDecimal(ip)) return ipaddr.IPv4.parse(ip);
  if (!ip.includes(":") || ip.includes("%")) return undefined; // zone ids never reach a public host
  let text = ip;
  const lastColon = ip.lastIndexOf(":");
  const tail = ip.slice(lastColon + 1);
  if (tail.includes(".")) {
    if (!ipaddr.IPv4.isValidFourPartDecimal(tail)) return undefined;
    const [a, b, c, d] = ipaddr.IPv4.parse(tail).octets as [number, number, number, number];
    text = `${ip.slice(0, lastColon + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  return ipaddr.IPv6.isValid(text) ? ipaddr.IPv6.parse(text) : undefined;
}

function classifyIPv4(address: IPv4): AddressClass {
  for (const [range, reason] of IPV4_TABLE) {
    if (address.match(range)) return reason;
  }
  return "ok";
}

function ipv4FromParts(high: number, low: number): IPv4 {
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}

function classifyIPv6(address: IPv6): AddressClass {
  const p = address.parts as [number, number, number, number, number, number, number, number];
  const lastIPv4 = ipv4FromParts(p[6], p[7]);
  // Forms that carry an IPv4 address come first: ipaddr's range() calls "::127.0.0.1" unicast.
  if (address.match(IPV4_MAPPED)) return classifyIPv4(lastIPv4);
  if (address.match(IPV4_COMPATIBLE)) {
    if (p[6] === 0 && p[7] === 0) return "unspecified"; // ::  RFC 4291 §2.5.2
    if (p[6] === 0 && p[7] === 1) return "loopback"; // ::1 RFC 4291 §2.5.3
    return carried(lastIPv4, "transition");
  }
  // The translator in front of 64:ff9b::/96 reaches the IPv4 address it carries, so a public
  // IPv4 inside is as good as that IPv4 (this is also what DNS64 answers look like in an
  // IPv6-only VPC).
  if (address.match(NAT64_WELL_KNOWN)) return carried(lastIPv4, "ok");
  if (address.match(NAT64_LOCAL)) return "transition"; // operator-chosen prefix length: IPv4 position unknown
  if (address.match(SIX_TO_FOUR)) return carried(ipv4FromParts(p[1], p[2]), "transition");
  // Teredo: the client's IPv4 address is the last 32 bits inverted (RFC 4380 §4).
  if (address.match(TEREDO)) return carried(ipv4FromParts(~p[6] & 0xffff, ~p[7] & 0xffff), "transition");
  for (const [range, reason] of IPV6_TABLE) {
    if (address.match(range)) return reason;
  }
  return address.match(GLOBAL_UNICAST) ? "ok" : "reserved";
}

function carried(inner: IPv4, otherwise: AddressClass): AddressClass {
  return classifyIPv4(inner) === "ok" ? otherwise : "embeds-refused-ipv4";
}

function isDenylisted(address: IPv4 | IPv6, cidrs: readonly string[]): boolean {
  const candidates: (IPv4 | IPv6)[] = [address];
  // A range of IPv4 addresses must also catch them when they arrive mapped or through NAT64.
  if (address.kind() === "ipv6") {
    const v6addr = address as IPv6;
    if (v6addr.match(IPV4_MAPPED) || v6addr.match(NAT64_WELL_KNOWN)) {
      const p = v6addr.parts as [number, number, number, number, number, number, number, number];
      candidates.push(ipv4FromParts(p[6], p[7]));
    }
  }
  return cidrs.some((cidr) => {
    const range = ipaddr.parseCIDR(cidr);
    return candidates.some((candidate) => candidate.kind() === range[0].kind() && candidate.match(range));
  });
}
