/**
 * The test network: a dialer with the production dial logic (Happy Eyeballs, TLS verified against
 * the URL's host name) whose TCP connections go where `route` sends each address, the way a test
 * network routes public test addresses to loopback servers. Every address asked for is recorded,
 * so a test can assert which checked address was dialed.
 */
import net from "node:net";
import { resolveChecked, type CheckedAddresses } from "../../shared/guard/guarded-lookup";
import { resolvePolicy } from "../../shared/guard/policy";
import { createDialer } from "../../shared/http/net-dialer";
import type { Dialer } from "../../shared/http/types";

export interface TestDialerOptions {
  /** Where a connection to `address`:`port` really goes. */
  route: (address: string, port: number) => { host: string; port: number };
  /** Extra trusted CA (the test CA of test/helpers/origin.ts). */
  ca?: string | Buffer;
}

export interface TestDialer extends Dialer {
  /** Every address a connection was opened for, in order. */
  readonly opened: string[];
}

export function createTestDialer(options: TestDialerOptions): TestDialer {
  const opened: string[] = [];
  const dialer = createDialer(
    (address, port) => {
      opened.push(address);
      const destination = options.route(address, port);
      return net.connect({ host: destination.host, port: destination.port, noDelay: true });
    },
    options.ca === undefined ? {} : { ca: options.ca },
  );
  return { opened, dial: (target) => dialer.dial(target) };
}

/**
 * Addresses as the guard hands them to the client: through `resolveChecked` (a fake answer for
 * the name, loopback allowed), so a test can only dial what the address policy accepted.
 */
export function checkedAddresses(...addresses: string[]): Promise<CheckedAddresses> {
  return resolveChecked("localhost", {
    resolver: { resolve: () => Promise.resolve([...addresses]) },
    policy: resolvePolicy({ allowLocalhost: true }),
    signal: new AbortController().signal,
    timeoutMs: 1_000,
  });
}
