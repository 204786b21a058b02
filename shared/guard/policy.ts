/**
 * The guard's policy: which hosts, ports and addresses a caller-supplied URL may reach.
 *
 * Pure: no I/O, no environment. The handler builds one policy from {@link WebgateConfig} at cold
 * start with {@link resolvePolicy}; every guard function also accepts a partial policy and
 * resolves it itself, so a forgotten field can only fall back to the strict default.
 */
import { ConfigError, DEFAULTS, ENV } from "../config";
import { checkCidrEntry, checkDomainEntry, isPort, type EntryCheck } from "./policy-entries";

export interface GuardPolicy {
  /**
   * Dev-only switch: lets `localhost` and loopback addresses (127/8, ::1, ::ffff:127.0.0.0/104)
   * pass, on any port, keeping `http:` for them. Every other refusal stays in force. Never set by
   * the infrastructure.
   */
  allowLocalhost: boolean;
  /** Ports a URL may name explicitly. A URL without a port uses its scheme's default, always allowed. */
  allowedPorts: number[];
  /** When non-empty, only these hosts pass: `example.com` (exact) or `*.example.com` (see {@link matchesDomain}). */
  allowedDomains: string[];
  /** Hosts refused even when public: same syntax as `allowedDomains`. */
  blockedDomains: string[];
  /** Extra address ranges refused as `denylisted`, e.g. `203.0.114.0/24` or `2600:1f00::/24`. */
  blockedCidrs: string[];
  /** Longest URL accepted, counted on the input and on the normalized result. */
  maxUrlLength: number;
}

/** The strict default: no loopback, ports 80 and 443, no lists, URLs up to 2,000 characters. */
export const DEFAULT_GUARD_POLICY: Readonly<GuardPolicy> = Object.freeze({
  allowLocalhost: false,
  allowedPorts: Object.freeze([...DEFAULTS.allowedPorts]) as number[],
  allowedDomains: Object.freeze([]) as unknown as string[],
  blockedDomains: Object.freeze([]) as unknown as string[],
  blockedCidrs: Object.freeze([]) as unknown as string[],
  maxUrlLength: 2_000,
});

// How each field is named in problems: the policy field and, where one exists, the environment
// variable the operator sets, so a start-up error points at what to fix.
const FIELD = {
  allowLocalhost: `allowLocalhost (${ENV.ALLOW_LOCALHOST})`,
  allowedPorts: `allowedPorts (${ENV.ALLOWED_PORTS})`,
  allowedDomains: `allowedDomains (${ENV.ALLOWED_DOMAINS})`,
  blockedDomains: `blockedDomains (${ENV.BLOCKED_DOMAINS})`,
  blockedCidrs: `blockedCidrs (${ENV.BLOCKED_CIDRS})`,
  maxUrlLength: "maxUrlLength",
} as const;

// Policies this module produced (frozen, already normalized): resolving them again is free, so
// the guard functions can accept either a resolved or a partial policy on every call.
const resolvedPolicies = new WeakSet<object>([DEFAULT_GUARD_POLICY]);

/**
 * Validates and normalizes a policy, filling absent fields from {@link DEFAULT_GUARD_POLICY}.
 * Domain entries are normalized once (lower case, IDN to punycode, no trailing dot); CIDRs to
 * their canonical spelling; ports are de-duplicated. The result is frozen.
 *
 * @throws ConfigError listing every invalid entry (a start-up error, not a request error).
 */
export function resolvePolicy(partial?: Partial<GuardPolicy>): GuardPolicy {
  if (partial === undefined) return DEFAULT_GUARD_POLICY;
  if (resolvedPolicies.has(partial)) return partial as GuardPolicy;
  const problems: string[] = [];
  const allowedPorts = normalizePorts(partial.allowedPorts ?? DEFAULT_GUARD_POLICY.allowedPorts, problems);
  const allowedDomains = normalizeEntries(FIELD.allowedDomains, partial.allowedDomains ?? [], checkDomainEntry, problems);
  const blockedDomains = normalizeEntries(FIELD.blockedDomains, partial.blockedDomains ?? [], checkDomainEntry, problems);
  const blockedCidrs = normalizeEntries(FIELD.blockedCidrs, partial.blockedCidrs ?? [], checkCidrEntry, problems);
  const maxUrlLength = partial.maxUrlLength ?? DEFAULT_GUARD_POLICY.maxUrlLength;
  if (!Number.isInteger(maxUrlLength) || maxUrlLength < 1) {
    problems.push(`guard ${FIELD.maxUrlLength} must be a positive whole number`);
  }
  const allowLocalhost = partial.allowLocalhost ?? false;
  if (typeof allowLocalhost !== "boolean") problems.push(`guard ${FIELD.allowLocalhost} must be true or false`);
  if (problems.length > 0) throw new ConfigError(problems);
  const policy: GuardPolicy = Object.freeze({
    allowLocalhost,
    allowedPorts: Object.freeze(allowedPorts) as number[],
    allowedDomains: Object.freeze(allowedDomains) as string[],
    blockedDomains: Object.freeze(blockedDomains) as string[],
    blockedCidrs: Object.freeze(blockedCidrs) as string[],
    maxUrlLength,
  });
  resolvedPolicies.add(policy);
  return policy;
}

// The strict twin of each resolved policy that has the dev switch on (see withoutLocalhost).
const strictTwins = new WeakMap<GuardPolicy, GuardPolicy>();

/**
 * `policy` with the dev switch (`allowLocalhost`) off and everything else unchanged; `policy`
 * itself when the switch is already off. The guard runs every request whose own URL does not
 * name this machine, and every DNS answer for a name other than `localhost`, under it: the switch
 * lets a developer read their own servers, not let a page or a DNS answer aim at them.
 */
export function withoutLocalhost(policy: GuardPolicy): GuardPolicy {
  const resolved = resolvePolicy(policy);
  if (!resolved.allowLocalhost) return resolved;
  let strict = strictTwins.get(resolved);
  if (strict === undefined) {
    strict = Object.freeze({ ...resolved, allowLocalhost: false });
    resolvedPolicies.add(strict);
    strictTwins.set(resolved, strict);
  }
  return strict;
}

/**
 * Whether a normalized host name matches a normalized list entry. `example.com` matches only
 * itself. `*.example.com` matches `example.com` itself and every name below it at any depth:
 * one owner controls the apex and its subdomains, and a deny list must leave no gap at the apex.
 */
export function matchesDomain(host: string, entry: string): boolean {
  if (!entry.startsWith("*.")) return host === entry;
  const suffix = entry.slice(2);
  return host === suffix || host.endsWith(`.${suffix}`);
}

function normalizePorts(ports: readonly number[], problems: string[]): number[] {
  for (const port of ports) {
    if (!isPort(port)) problems.push(`guard ${FIELD.allowedPorts}: ${String(port)} is not a port from 1 to 65535`);
  }
  return [...new Set(ports)];
}

function normalizeEntries(field: string, entries: readonly string[], check: (raw: string) => EntryCheck, problems: string[]): string[] {
  const out: string[] = [];
  for (const raw of entries) {
    const checked = check(raw);
    if (checked.ok) out.push(checked.value);
    else problems.push(`guard ${field}: "${String(raw).trim()}" ${checked.reason}`);
  }
  return [...new Set(out)];
}
