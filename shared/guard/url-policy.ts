/**
 * URL policy: the checks that need no DNS. Runs on the caller's URL and again on every redirect
 * hop (the redirecting client calls {@link checkUrl} per hop), so a scheme change, a new host or
 * a new port is judged the same way each time.
 */
import { WebgateError } from "../errors";
import { ADDRESS_REFUSAL_DESCRIPTIONS, classifyAddress, isLoopbackAddress } from "./address-policy";
import type { GuardPolicy } from "./policy";
import { matchesDomain, resolvePolicy, withoutLocalhost } from "./policy";
import { ENV } from "../config";

// What WHATWG leaves in a host name after IDNA: we accept only what DNS host names use.
const HOST_NAME_CHARS = /^[a-z0-9_.-]+$/;
// WHATWG serializes every IPv4 host as four decimal parts; a name can never look like this.
const IPV4_HOST = /^\d+\.\d+\.\d+\.\d+$/;

declare const CHECKED: unique symbol;

/**
 * A URL that {@link checkUrl} accepted and normalized. Only checkUrl makes one (the brand exists
 * in the type alone), and it is read-only, so code holding one cannot point it elsewhere without
 * the compiler noticing; a client that dials it still confirms it with {@link isCheckedUnder}.
 */
export type CheckedUrl = Readonly<URL> & { readonly [CHECKED]: true };

// What each checked URL looked like when it was checked, and under which policy: a URL changed
// since, or checked under another policy, is checked again before anything dials it.
const checkedUrls = new WeakMap<object, { policy: GuardPolicy; href: string }>();

/**
 * Whether `url` is exactly as {@link checkUrl} returned it under `policy` (a resolved policy, as
 * the guarded client holds): then checking it again would give the same answer.
 */
export function isCheckedUnder(url: CheckedUrl, policy: GuardPolicy): boolean {
  const checked = checkedUrls.get(url);
  return checked !== undefined && checked.policy === policy && checked.href === url.href;
}

/**
 * Checks and normalizes a caller-supplied URL without touching the network.
 *
 * Returns a new URL that is safe to resolve: `https:` (or `http:` for a loopback target under
 * the dev switch), no fragment, no credentials, host name without its trailing dot, port either
 * the scheme's default or one from `allowedPorts`. An IP-literal host has already been through
 * {@link classifyAddress}; a host name still has to go through the guarded lookup.
 *
 * @throws WebgateError `url_not_allowed` (not a valid absolute URL, scheme, credentials, port,
 *   length), `host_not_allowed` (refused names, deny list, not on the allow list) or
 *   `address_not_allowed` (an IP literal outside public unicast). Messages name the rule, never
 *   the address.
 * @throws ConfigError when `policy` itself is invalid (see resolvePolicy).
 */
export function checkUrl(input: string, policy?: Partial<GuardPolicy>): CheckedUrl {
  const resolved = resolvePolicy(policy);
  // Plain JavaScript callers (and parsed JSON) can hand over anything; refuse it as malformed.
  if (typeof input !== "string") throw new WebgateError("url_not_allowed", "The URL must be a string.", { logReason: "not-a-string" });
  // Checked before parsing so a huge input costs nothing.
  if (input.length > resolved.maxUrlLength) throw tooLong(resolved.maxUrlLength);
  let url: URL;
  try {
    url = new URL(input);
  } catch (cause) {
    throw new WebgateError("url_not_allowed", "The URL is not a valid absolute URL.", { cause, logReason: "invalid-url" });
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new WebgateError("url_not_allowed", "Only http and https URLs are allowed.", { logReason: "scheme" });
  }
  // WHATWG drops an empty userinfo ("http://@host/"), so the URL object cannot show it: look at
  // the raw authority instead. Any "@" there means a user name or password was written.
  if (rawAuthority(input).includes("@")) throw credentialsRefused();

  let listHost: string;
  let loopbackTarget: boolean;
  const host = url.hostname;
  if (host.startsWith("[") || IPV4_HOST.test(host)) {
    const ip = host.startsWith("[") ? host.slice(1, -1) : host;
    const verdict = classifyAddress(ip, resolved);
    if (verdict !== "ok") {
      throw new WebgateError("address_not_allowed", `The URL's host is ${ADDRESS_REFUSAL_DESCRIPTIONS[verdict]}.`, {
        details: { reason: verdict },
        logReason: verdict,
      });
    }
    listHost = ip;
    loopbackTarget = resolved.allowLocalhost && isLoopbackAddress(ip);
  } else {
    // One trailing dot (the DNS root) is ignored, and removed so that TLS SNI, the Host header
    // and the cache key all see one spelling of the name.
    const name = host.endsWith(".") ? host.slice(0, -1) : host;
    loopbackTarget = resolved.allowLocalhost && name === "localhost";
    if (!loopbackTarget) refuseName(name);
    if (name !== host) url.hostname = name;
    listHost = name;
  }

  if (resolved.blockedDomains.some((entry) => matchesDomain(listHost, entry))) {
    throw new WebgateError("host_not_allowed", "The URL's host is on the blocked domain list.", { logReason: "blocked-domain" });
  }
  // An allow list admits only names on it (so never an IP literal), except the loopback
  // targets the dev switch lets through.
  if (resolved.allowedDomains.length > 0 && !loopbackTarget && !resolved.allowedDomains.some((entry) => matchesDomain(listHost, entry))) {
    throw new WebgateError("host_not_allowed", "The URL's host is not on the allowed domain list.", { logReason: "not-allowed-domain" });
  }
  // WHATWG has already removed a port equal to the scheme's default, so "" means the default.
  if (url.port !== "" && !loopbackTarget && !resolved.allowedPorts.includes(Number(url.port))) {
    throw new WebgateError("url_not_allowed", `The URL's port is not allowed (allowed: ${resolved.allowedPorts.join(", ")}).`, { logReason: "port" });
  }

  url.hash = "";
  // Plain http is upgraded: the page then comes over TLS, verified against the host name. Setting
  // the protocol also drops a port that is https's default (":443").
  if (url.protocol === "http:" && !loopbackTarget) url.protocol = "https:";
  // Percent-encoding can make the normalized URL longer than the input.
  if (url.href.length > resolved.maxUrlLength) throw tooLong(resolved.maxUrlLength);
  checkedUrls.set(url, { policy: resolved, href: url.href });
  return url as CheckedUrl;
}

function credentialsRefused(): WebgateError {
  return new WebgateError("url_not_allowed", "The URL must not contain a user name or password.", { logReason: "credentials" });
}

/**
 * Throws `url_not_allowed` when a URL reference, as written (e.g. a redirect's `Location`), has
 * an authority with a userinfo, empty ones included (`https://@host/`, `//:@host/`): the URL
 * parser drops an empty userinfo, so the resolved URL alone cannot show it. A reference without
 * a scheme or a leading `//` has no authority. A reference with a scheme is read as if its
 * authority followed it (also `http:@host`, which WHATWG may read as a path): refusing that
 * edge is the safe side.
 */
export function refuseWrittenUserinfo(reference: string): void {
  const stripped = stripControls(reference);
  const scheme = /^[a-z][a-z0-9+.-]*:/i.exec(stripped);
  if (scheme === null && !/^[/\\]{2}/.test(stripped)) return;
  if (rawAuthority(scheme === null ? `x:${stripped}` : stripped).includes("@")) throw credentialsRefused();
}

function tooLong(max: number): WebgateError {
  return new WebgateError("url_not_allowed", `The URL is longer than ${max} characters.`, { logReason: "too-long" });
}

/**
 * The authority of an http(s) URL as WHATWG reads it: after stripping leading/trailing C0
 * controls and spaces and every tab or newline, it starts after "scheme:" and any run of "/" or
 * "\", and ends at the first "/", "\", "?" or "#".
 */
function rawAuthority(input: string): string {
  const stripped = stripControls(input);
  const rest = stripped.slice(stripped.indexOf(":") + 1).replace(/^[/\\]+/, "");
  const end = rest.search(/[/\\?#]/);
  return end === -1 ? rest : rest.slice(0, end);
}

/** WHATWG's preprocessing: leading/trailing C0 controls and spaces, and every tab or newline, go. */
function stripControls(input: string): string {
  // eslint-disable-next-line no-control-regex -- the WHATWG preprocessing is defined on C0 controls
  return input.replace(/^[\u0000-\u0020]+|[\u0000-\u0020]+$/g, "").replace(/[\t\n\r]/g, "");
}

/** Host-name rules; `name` has no trailing dot. */
function refuseName(name: string): void {
  const labels = name.split(".");
  if (labels.includes("")) {
    throw new WebgateError("host_not_allowed", "The URL's host name has an empty label.", { logReason: "empty-label" });
  }
  if (name === "localhost" || name.endsWith(".localhost")) {
    // RFC 6761 §6.3: localhost and every name below it mean this machine.
    throw new WebgateError("host_not_allowed", "The URL's host is localhost (RFC 6761).", { logReason: "localhost" });
  }
  if (name.endsWith(".local")) {
    throw new WebgateError("host_not_allowed", "The URL's host is a multicast DNS .local name (RFC 6762).", { logReason: "mdns-local" });
  }
  if (name.endsWith(".internal")) {
    // Private-use TLD (ICANN 2024) used by cloud internal DNS, e.g. metadata.google.internal.
    throw new WebgateError("host_not_allowed", "The URL's host is an .internal name, reserved for private networks.", { logReason: "internal-tld" });
  }
  if (labels.length === 1) {
    // A bare name goes through the resolver's search domains: metadata, intranet, wpad.
    throw new WebgateError("host_not_allowed", "The URL's host is a single-label name.", { logReason: "single-label" });
  }
  if (!HOST_NAME_CHARS.test(name)) {
    throw new WebgateError("host_not_allowed", "The URL's host name has characters that host names do not use.", { logReason: "host-characters" });
  }
}

/**
 * Whether `url` names this machine in a way the dev switch admits: `policy.allowLocalhost` is on
 * and the host is `localhost` or a loopback literal (127/8, `[::1]`, mapped 127/8). A name that
 * merely resolves to loopback is not one (see resolveChecked).
 */
export function isLoopbackTarget(url: URL, policy: GuardPolicy): boolean {
  if (!policy.allowLocalhost) return false;
  const host = bareHostname(url);
  return host === "localhost" || isLoopbackAddress(host);
}

/**
 * The policy one request runs under once {@link checkUrl} accepted its URL: `policy` itself when
 * the URL is a loopback target of the dev switch, else the strict policy (withoutLocalhost).
 * So with `WEBGATE_ALLOW_LOCALHOST=true` a request for a public page can still never be
 * redirected, or a rendered page make a request, into this machine.
 */
export function requestPolicy(url: URL, policy: GuardPolicy): GuardPolicy {
  return isLoopbackTarget(url, policy) ? policy : withoutLocalhost(policy);
}

/**
 * Throws when a redirect from `from` to `to` would enter this machine under the dev switch
 * anywhere but the local server it came from: a loopback target on the same port (any loopback
 * spelling, `localhost` included; the scheme may change). A local server may redirect within
 * itself; it may not send webgate on to another local port (a database, the Lambda runtime API
 * on 9001), and a page that is not on this machine may not redirect into it at all.
 *
 * @throws WebgateError `address_not_allowed` (a loopback literal) or `host_not_allowed`
 *   (`localhost`); the message names the rule.
 */
export function refuseLoopbackHop(from: URL, to: URL, policy: GuardPolicy): void {
  if (!isLoopbackTarget(to, policy)) return;
  if (isLoopbackTarget(from, policy) && effectivePort(from) === effectivePort(to)) return;
  const byName = bareHostname(to) === "localhost";
  const what = byName ? "localhost" : "a loopback address";
  throw new WebgateError(
    byName ? "host_not_allowed" : "address_not_allowed",
    `The redirect's host is ${what}: ${ENV.ALLOW_LOCALHOST} lets a redirect (or a rendered page's request) reach this machine only within the local server that was asked for (the same port).`,
    { details: { reason: byName ? "localhost" : "loopback" }, logReason: "loopback-redirect" },
  );
}

/** The port a URL reaches: its own, or its scheme's default. */
function effectivePort(url: URL): string {
  return url.port === "" ? (url.protocol === "https:" ? "443" : "80") : url.port;
}

/** `URL.hostname` keeps the brackets of an IPv6 literal; DNS, sockets and TLS want it bare. */
export function bareHostname(url: URL): string {
  const host = url.hostname;
  return host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
}
