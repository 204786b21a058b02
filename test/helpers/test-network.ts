import type { Duplex } from "node:stream";
import { createNetDialer } from "../../shared/http/net-dialer";
import type { Resolver } from "../../shared/guard/dns-resolver";
import type { DialTarget, Dialer } from "../../shared/http/types";

/**
 * DNS for tests: a fixed table of host → answer (or an error), recording every lookup. Names
 * that are not in the table fail like NXDOMAIN.
 */
export class MapResolver implements Resolver {
  readonly lookups: string[] = [];
  constructor(private readonly table: Record<string, string[] | Error>) {}

  resolve(hostname: string): Promise<string[]> {
    this.lookups.push(hostname);
    const answer = this.table[hostname];
    if (answer === undefined) return Promise.reject(Object.assign(new Error("getaddrinfo ENOTFOUND"), { code: "ENOTFOUND" }));
    if (answer instanceof Error) return Promise.reject(answer);
    return Promise.resolve([...answer]);
  }
}

/**
 * The network for tests: every dial is recorded (which host name, which checked addresses, TLS
 * or not) and routed to a loopback server instead of the public address, as a test network
 * would route it. `https` dials go to `secure`, `http` dials to `plain`, both plaintext HTTP, so
 * origins can tell the scheme apart without certificates (TLS itself is tested separately).
 */
export class RoutingDialer implements Dialer {
  readonly dials: DialTarget[] = [];
  private readonly inner = createNetDialer();

  constructor(private readonly ports: { plain: number; secure?: number }) {}

  dial(target: DialTarget): Promise<Duplex> {
    this.dials.push(target);
    const port = target.tls ? (this.ports.secure ?? this.ports.plain) : this.ports.plain;
    return this.inner.dial({ ...target, addresses: ["127.0.0.1"], port, tls: false });
  }

  /** Every address any dial was allowed to connect to. */
  get dialedAddresses(): string[] {
    return this.dials.flatMap((d) => d.addresses);
  }
}
