/**
 * The production {@link Resolver}: c-ares (`node:dns` `Resolver`), asynchronous on the event loop,
 * instead of `getaddrinfo` on libuv's 4-thread pool.
 *
 * Why: `getaddrinfo` cannot be cancelled. A lookup that never answers holds one of the four pool
 * threads until the system resolver gives up (~10 s with glibc's defaults), long after webgate
 * stopped waiting at its lookup limit; eight such lookups starved every other lookup (and every
 * other pool user: file reads, zlib, crypto) of the process. A c-ares query holds no thread, has
 * its own timeout and tries, and is cancelled when the request gives up: each lookup gets its own
 * channel, and `cancel()` on abort ends exactly that lookup's queries.
 *
 * `/etc/hosts` semantics are kept where the runtime needs them (`localhost` under the dev switch,
 * names a container pins): the hosts file is consulted first, as `getaddrinfo` does, and re-read
 * at most every {@link HOSTS_REFRESH_MS}. Reading it is a small local file read, never a hang.
 *
 * Every answer still goes through the guard (`resolveChecked`), which connects to the checked
 * addresses only; this module only finds them.
 */
import { Resolver as CaresResolver } from "node:dns/promises";
import { readFile } from "node:fs/promises";
import net from "node:net";

/**
 * Resolves a host name to every address (A and AAAA together). The guard checks every answer
 * (`resolveChecked`); the trusted client (operator-configured endpoints) dials them as they are.
 * Tests fake this.
 */
export interface Resolver {
  resolve(hostname: string, signal: AbortSignal): Promise<string[]>;
}

export interface DnsResolverOptions {
  /** Name servers (`"127.0.0.1:5353"`, `"[::1]:53"`); default: the system's (`/etc/resolv.conf`). */
  servers?: string[];
  /** c-ares timeout of one try, in ms (c-ares backs off on retries). Default 1,500. */
  timeoutMs?: number;
  /** c-ares tries per name server. Default 2. */
  tries?: number;
  /** The hosts file; `null` skips it. Default `/etc/hosts`. */
  hostsPath?: string | null;
  /**
   * Also report the CNAME chain of the name (see {@link DnsAnswer.cnames}): one more query per
   * step, made only when a caller asks (the guard does when a domain deny list is configured).
   */
  maxCnameDepth?: number;
}

/** A lookup with the CNAME chain that led to the addresses. */
export interface DnsAnswer {
  addresses: string[];
  /** The names the queried name is an alias of, in chain order (lower case, no trailing dot). */
  cnames: string[];
}

/** A {@link Resolver} that can also tell the CNAME chain (the guard checks it against the deny list). */
export interface CnameAwareResolver extends Resolver {
  resolveWithCnames(hostname: string, signal: AbortSignal): Promise<DnsAnswer>;
}

export const HOSTS_REFRESH_MS = 10_000;
const DEFAULT_MAX_CNAME_DEPTH = 8;

/** Codes that mean "this family has no address", not "the lookup failed". */
const NO_DATA = new Set(["ENODATA", "ENOTFOUND"]);

export function createDnsResolver(options: DnsResolverOptions = {}): CnameAwareResolver {
  const timeout = options.timeoutMs ?? 1_500;
  const tries = options.tries ?? 2;
  const hostsPath = options.hostsPath === undefined ? "/etc/hosts" : options.hostsPath;
  const maxCnameDepth = options.maxCnameDepth ?? DEFAULT_MAX_CNAME_DEPTH;
  let hosts: { readAt: number; table: Promise<Map<string, string[]>> } | undefined;

  const hostsTable = (): Promise<Map<string, string[]>> => {
    if (hostsPath === null) return Promise.resolve(new Map<string, string[]>());
    const now = performance.now();
    if (hosts === undefined || now - hosts.readAt > HOSTS_REFRESH_MS) {
      hosts = { readAt: now, table: readFile(hostsPath, "utf8").then(parseHosts, () => new Map<string, string[]>()) };
    }
    return hosts.table;
  };

  /** One c-ares channel for one lookup, cancelled when `signal` aborts. */
  const withChannel = async <T>(signal: AbortSignal, run: (channel: CaresResolver) => Promise<T>): Promise<T> => {
    const channel = new CaresResolver({ timeout, tries });
    if (options.servers !== undefined) channel.setServers(options.servers);
    const onAbort = () => channel.cancel();
    signal.addEventListener("abort", onAbort, { once: true });
    try {
      if (signal.aborted) throw abortError(signal);
      return await run(channel);
    } finally {
      signal.removeEventListener("abort", onAbort);
    }
  };

  const addressesOf = async (name: string, signal: AbortSignal): Promise<string[]> => {
    if (net.isIP(name) !== 0) return [name];
    const pinned = (await hostsTable()).get(name);
    if (pinned !== undefined) return [...pinned];
    return withChannel(signal, async (channel) => {
      // A and AAAA together; both must be in before the guard can check every answer.
      const [v6, v4] = await Promise.allSettled([channel.resolve6(name), channel.resolve4(name)]);
      if (signal.aborted) throw abortError(signal);
      const found = [...(v6.status === "fulfilled" ? v6.value : []), ...(v4.status === "fulfilled" ? v4.value : [])];
      if (found.length > 0) return found;
      // Neither family answered: report the more telling failure (a SERVFAIL or timeout over
      // an NXDOMAIN/NODATA of the other family).
      const reasons = [v6, v4].map((r) => (r.status === "rejected" ? (r.reason as Error & { code?: string }) : undefined));
      const real = reasons.find((r) => r !== undefined && !NO_DATA.has(r.code ?? ""));
      const error = real ?? reasons.find((r) => r !== undefined);
      if (error !== undefined) throw error;
      /* v8 ignore next -- c-ares never fulfils a query with no address (it rejects with ENODATA) */
      return [];
    });
  };

  const cnameChain = (name: string, signal: AbortSignal): Promise<string[]> =>
    withChannel(signal, async (channel) => {
      const chain: string[] = [];
      let current = name;
      for (let depth = 0; depth < maxCnameDepth; depth += 1) {
        let targets: string[];
        try {
          targets = await channel.resolveCname(current);
        } catch (error) {
          if (signal.aborted) throw abortError(signal);
          // No CNAME at this step is the normal end of a chain.
          if (NO_DATA.has((error as { code?: string }).code ?? "")) break;
          throw error;
        }
        const next = targets[0]?.toLowerCase().replace(/\.$/, "");
        if (next === undefined || chain.includes(next) || next === name) break;
        chain.push(next);
        current = next;
      }
      return chain;
    });

  return {
    resolve: (hostname, signal) => addressesOf(normalizeName(hostname), signal),
    async resolveWithCnames(hostname, signal) {
      const name = normalizeName(hostname);
      if (net.isIP(name) !== 0 || (await hostsTable()).has(name)) return { addresses: await addressesOf(name, signal), cnames: [] };
      const [addresses, cnames] = await Promise.all([addressesOf(name, signal), cnameChain(name, signal)]);
      return { addresses, cnames };
    },
  };
}

function normalizeName(hostname: string): string {
  const lower = hostname.toLowerCase();
  return lower.endsWith(".") ? lower.slice(0, -1) : lower;
}

function abortError(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : Object.assign(new Error("The lookup was cancelled."), { code: "ECANCELLED" });
}

/** `/etc/hosts`: "address name [aliases…]" per line, `#` comments; the first line naming a host wins per family order. */
export function parseHosts(text: string): Map<string, string[]> {
  const table = new Map<string, string[]>();
  for (const line of text.split("\n")) {
    const fields = line.replace(/#.*/, "").trim().split(/\s+/).filter((f) => f.length > 0);
    const [address, ...names] = fields;
    if (address === undefined || net.isIP(address) === 0) continue;
    for (const raw of names) {
      const name = normalizeName(raw);
      const list = table.get(name) ?? [];
      if (!list.includes(address)) list.push(address);
      table.set(name, list);
    }
  }
  return table;
}
