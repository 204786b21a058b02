/**
 * The guarded lookup: resolve a host name once, check every answer, hand back the checked
 * addresses. The dialer connects to exactly these addresses and never resolves the name again,
 * so DNS rebinding between check and connect has nothing to work with.
 */
import type { LookupAddress } from "node:dns";
import { WebgateError } from "../errors";
import { ADDRESS_REFUSAL_DESCRIPTIONS, canonicalAddress, classifyAddress } from "./address-policy";
import type { GuardPolicy } from "./policy";
import { matchesDomain, withoutLocalhost } from "./policy";
import { createDnsResolver, type CnameAwareResolver, type Resolver } from "./dns-resolver";

declare const CHECKED: unique symbol;

/**
 * Addresses that {@link resolveChecked} resolved and checked for one host name, in answer order
 * and canonical spelling. The guarded HTTP client and the render proxy dial only these: the type
 * cannot be built outside this module (the brand's symbol is not exported and the one function
 * that applies it is private), and each list is frozen and recorded when it is made, so
 * {@link isCheckedAddresses} also catches a forged or cast one at run time.
 */
export type CheckedAddresses = readonly string[] & { readonly [CHECKED]: true };

const minted = new WeakSet<readonly string[]>();

function mintChecked(addresses: string[]): CheckedAddresses {
  const frozen = Object.freeze(addresses);
  minted.add(frozen);
  return frozen as unknown as CheckedAddresses;
}

/** True only for a list {@link resolveChecked} made (not a copy, not a cast array). */
export function isCheckedAddresses(addresses: unknown): addresses is CheckedAddresses {
  return Array.isArray(addresses) && minted.has(addresses);
}

export interface ResolveCheckedDeps {
  resolver: Resolver;
  policy: GuardPolicy;
  /** The whole request's deadline; when it aborts the request fails with `upstream_timeout`. */
  signal: AbortSignal;
  /** Limit on the lookup alone; past it the lookup fails with `dns_failed`. */
  timeoutMs: number;
}

/**
 * Resolves `hostname` once and returns its addresses in answer order, each checked by
 * {@link classifyAddress} and written in its canonical spelling (see canonicalAddress).
 * An IP literal (`1.2.3.4`, `2001:db8::1` or `[2001:db8::1]`) is checked without DNS. Under the
 * dev switch (`policy.allowLocalhost`) a loopback answer passes for the name `localhost` only.
 *
 * @throws WebgateError `dns_failed` (resolver error, empty answer, an answer that is not an IP
 *   address, or a lookup longer than `timeoutMs`), `address_not_allowed` (any answer outside
 *   public unicast: one bad answer refuses them all), `url_not_allowed` (brackets around
 *   something that is not an IPv6 address), `upstream_timeout` (`signal` aborted).
 *   No message contains an address.
 */
export async function resolveChecked(hostname: string, deps: ResolveCheckedDeps): Promise<CheckedAddresses> {
  if (deps.signal.aborted) throw deadlineExceeded();
  const bracketed = hostname.startsWith("[") && hostname.endsWith("]");
  const literal = bracketed ? hostname.slice(1, -1) : hostname;
  const literalCanonical = canonicalAddress(literal);
  if (bracketed && literalCanonical === undefined) {
    throw new WebgateError("url_not_allowed", "The URL's host is not a valid IPv6 address.");
  }
  if (literalCanonical !== undefined) {
    const verdict = classifyAddress(literal, deps.policy);
    if (verdict !== "ok") throw refused(`The URL's host is ${ADDRESS_REFUSAL_DESCRIPTIONS[verdict]}.`, verdict);
    return mintChecked([literalCanonical]);
  }

  const { addresses: answers, cnames } = await lookupWithin(hostname, deps);
  // The dev switch admits loopback answers for `localhost` only: any other name that resolves to
  // loopback (a rebinding name, a wildcard DNS service) is refused as without the switch, so no
  // DNS answer can aim a request at this machine.
  const answerPolicy = hostname === "localhost" ? deps.policy : withoutLocalhost(deps.policy);
  // The deny list judges names, and a CNAME is the name the answer really belongs to: an alias
  // of a blocked name is refused like the name itself (only checked when the list is non-empty,
  // since learning the chain costs a query per step).
  if (cnames.some((alias) => deps.policy.blockedDomains.some((entry) => matchesDomain(alias, entry)))) {
    throw new WebgateError("host_not_allowed", "The URL's host is an alias (CNAME) of a name on the blocked domain list.", {
      details: { reason: "blocked-domain" },
      logReason: "cname-blocked-domain",
    });
  }
  if (answers.length === 0) throw new WebgateError("dns_failed", "The host name has no addresses.");
  const checked: string[] = [];
  for (const answer of answers) {
    const canonical = canonicalAddress(answer);
    if (canonical === undefined) {
      throw new WebgateError("dns_failed", "The host name's DNS answer is not an IP address.");
    }
    const verdict = classifyAddress(answer, answerPolicy);
    if (verdict !== "ok") {
      // Callers learn only that the name resolves to an address webgate does not connect to, not
      // which range: the class would map out internal DNS (which names point at loopback, which
      // at a private network, which at the operator's block list). The exact class goes to the
      // log line and the Refusals metric.
      throw new WebgateError("address_not_allowed", "The host name resolves to an address outside public unicast or on the block list.", {
        details: { reason: RESOLVED_TO_REFUSED },
        logReason: verdict,
      });
    }
    checked.push(canonical);
  }
  return mintChecked(checked);
}

/** `details.reason` of every refused DNS answer (the exact class is logged, see resolveChecked). */
export const RESOLVED_TO_REFUSED = "resolves-to-refused-address";

function refused(message: string, reason: string): WebgateError {
  // An IP literal is the caller's own text: naming its class tells them nothing new.
  return new WebgateError("address_not_allowed", message, { details: { reason }, logReason: reason });
}

function deadlineExceeded(): WebgateError {
  return new WebgateError("upstream_timeout", "The request took longer than its time limit.");
}

type LookupOutcome = { kind: "answer"; answer: { addresses: string[]; cnames: string[] } } | { kind: "error"; cause: unknown } | { kind: "stopped" };

function knowsCnames(resolver: Resolver): resolver is CnameAwareResolver {
  return typeof (resolver as Partial<CnameAwareResolver>).resolveWithCnames === "function";
}

// One resolver call, raced against the lookup timeout and the request's deadline. The resolver
// gets a signal that aborts on either, so a resolver that can stop early does; one that cannot
// is abandoned. The deadline is checked after the race whatever won it, so an abort that lands
// while a resolver that ignores its signal is answering still fails the request.
async function lookupWithin(hostname: string, deps: ResolveCheckedDeps): Promise<{ addresses: string[]; cnames: string[] }> {
  const inner = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  const stopped = new Promise<LookupOutcome>((resolve) => {
    onAbort = () => resolve({ kind: "stopped" });
    timer = setTimeout(onAbort, deps.timeoutMs);
    deps.signal.addEventListener("abort", onAbort, { once: true });
  });
  // A resolver that throws instead of rejecting is still a failed lookup, not a crash.
  const { resolver } = deps;
  const withCnames = deps.policy.blockedDomains.length > 0 && knowsCnames(resolver);
  const answered = new Promise<{ addresses: string[]; cnames: string[] }>((resolve) =>
    resolve(withCnames ? resolver.resolveWithCnames(hostname, inner.signal) : resolver.resolve(hostname, inner.signal).then((addresses) => ({ addresses, cnames: [] }))),
  ).then(
    (answer): LookupOutcome => ({ kind: "answer", answer }),
    (cause: unknown): LookupOutcome => ({ kind: "error", cause }),
  );
  // Neither promise rejects, so the clean-up below always runs.
  const outcome = await Promise.race([answered, stopped]);
  clearTimeout(timer);
  deps.signal.removeEventListener("abort", onAbort as () => void);
  inner.abort();
  if (deps.signal.aborted) throw deadlineExceeded();
  if (outcome.kind === "stopped") {
    throw new WebgateError("dns_failed", `The DNS lookup took longer than ${deps.timeoutMs} ms.`);
  }
  if (outcome.kind === "error") {
    throw new WebgateError("dns_failed", "The host name could not be resolved.", { cause: outcome.cause });
  }
  return outcome.answer;
}

type LookupAll = (hostname: string, options: { all: true; order: "verbatim" }) => Promise<LookupAddress[]>;

/**
 * A {@link Resolver} over a lookup function shaped like `node:dns/promises` `lookup` with
 * `{ all: true }`. Exported for tests; production code uses {@link systemResolver}.
 * Rejects with `dns_failed` when the lookup fails and `upstream_timeout` when `signal` aborts
 * (getaddrinfo cannot be cancelled, so the lookup is abandoned, not stopped).
 */
export function createLookupResolver(lookupAll: LookupAll): Resolver {
  return {
    async resolve(hostname: string, signal: AbortSignal): Promise<string[]> {
      if (signal.aborted) throw deadlineExceeded();
      let onAbort: (() => void) | undefined;
      const aborted = new Promise<never>((_, reject) => {
        onAbort = () => reject(deadlineExceeded());
        signal.addEventListener("abort", onAbort, { once: true });
      });
      const found = new Promise<LookupAddress[]>((resolve) => resolve(lookupAll(hostname, { all: true, order: "verbatim" }))).then(
        (records) => records.map((record) => record.address),
        (cause: unknown) => {
          throw new WebgateError("dns_failed", "The host name could not be resolved.", { cause });
        },
      );
      try {
        return await Promise.race([found, aborted]);
      } finally {
        signal.removeEventListener("abort", onAbort as () => void);
      }
    },
  };
}

/**
 * The system resolver: c-ares with the system's name servers and `/etc/hosts` first (see
 * ./dns-resolver.ts for why not `getaddrinfo`: its lookups cannot be cancelled and
 * hung ones starve libuv's 4-thread pool). It also reports CNAME chains for the deny list.
 */
export const systemResolver: CnameAwareResolver = createDnsResolver();
