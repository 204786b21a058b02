/**
 * The syntax of the guard's list entries (pure): host names and `*.suffix` patterns for the
 * domain lists, canonical CIDRs for the extra deny list. The guard's {@link resolvePolicy}, the
 * runtime configuration and the CDK environments all check entries here, so an entry one of
 * them accepts is an entry every one of them accepts.
 *
 * This module imports nothing from the configuration: `shared/config.ts` builds its field
 * schemas on it, and the guard's policy imports the configuration's defaults.
 */
import { domainToASCII } from "node:url";
import ipaddr from "ipaddr.js";

/** An entry's normalized form, or why it is refused (a phrase that follows the quoted entry). */
export type EntryCheck = { ok: true; value: string } | { ok: false; reason: string };

// A host name as WHATWG and DNS both accept it: letters, digits, hyphens and underscores, in
// non-empty labels of at most 63 characters.
const NAME = /^(?:[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?\.)*[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/;

/**
 * Checks one domain-list entry: `example.com` or `*.example.com`, any case, IDN or punycode,
 * one trailing dot allowed. Normalized to lower-case punycode without the trailing dot.
 */
export function checkDomainEntry(raw: string): EntryCheck {
  const trimmed = String(raw).trim();
  const wildcard = trimmed.startsWith("*.");
  const body = wildcard ? trimmed.slice(2) : trimmed;
  // One trailing dot is the DNS root; the guard compares names without it.
  const ascii = domainToASCII(body.endsWith(".") ? body.slice(0, -1) : body);
  if (!NAME.test(ascii)) return { ok: false, reason: "is not a host name or *.suffix" };
  // Addresses are matched by blockedCidrs; a literal in a name list would never match a URL.
  if (/^[0-9.]+$/.test(ascii)) return { ok: false, reason: "is an IP address; use blockedCidrs for addresses" };
  return { ok: true, value: wildcard ? `*.${ascii}` : ascii };
}

/** Checks one address range, normalized to its canonical spelling (`2001:db8::/48`). */
export function checkCidrEntry(raw: string): EntryCheck {
  const trimmed = String(raw).trim();
  // Only canonical spellings: an IPv4 CIDR in octal or short form would be read differently by
  // different tools, so it is refused rather than guessed. A dotted tail is accepted only after
  // "::ffff:" (IPv4-mapped), since ipaddr.js would read "::1.2.3.4" as mapped too.
  const dotted = trimmed.includes(".");
  const mappedText = /^::ffff:\d+\.\d+\.\d+\.\d+\/\d+$/i.test(trimmed) && ipaddr.IPv4.isValidFourPartDecimal(trimmed.slice(7, trimmed.indexOf("/")));
  if (ipaddr.IPv4.isValidCIDRFourPartDecimal(trimmed) || (ipaddr.IPv6.isValidCIDR(trimmed) && !trimmed.includes("%") && (!dotted || mappedText))) {
    const [address, bits] = ipaddr.parseCIDR(trimmed);
    // An IPv4-mapped range (::ffff:0:0/96 and inside it) means those IPv4 addresses: stored as
    // IPv4, it blocks them however they arrive (plain, mapped or through NAT64).
    if (address.kind() === "ipv6" && bits >= 96 && (address as ipaddr.IPv6).isIPv4MappedAddress()) {
      return { ok: true, value: `${(address as ipaddr.IPv6).toIPv4Address().toString()}/${bits - 96}` };
    }
    return { ok: true, value: `${address.toString()}/${bits}` };
  }
  return { ok: false, reason: "is not an address range such as 192.0.2.0/24 or 2001:db8::/32" };
}

/** Whether `port` is a TCP port a URL may name (1-65535). */
export function isPort(port: number): boolean {
  return Number.isInteger(port) && port >= 1 && port <= 65_535;
}
