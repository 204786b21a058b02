import type { Resolver } from "../../shared/guard/dns-resolver";

/** One scripted reaction of {@link FakeResolver}: the answer, a rejection, or a call that never settles. */
export type FakeStep =
  | { addresses: string[] }
  | { error: Error }
  | { hang: true }
  | { run: (hostname: string, signal: AbortSignal) => Promise<string[]> };

/**
 * A DNS resolver for tests: answers the i-th call with the i-th scripted step and records every
 * call (host name and the signal it was given). A call beyond the script fails the test loudly.
 */
export class FakeResolver implements Resolver {
  readonly calls: { hostname: string; signal: AbortSignal }[] = [];

  constructor(private readonly script: FakeStep[]) {}

  /** Convenience: a resolver that gives the same answer to every call. */
  static answering(addresses: string[], calls = 5): FakeResolver {
    return new FakeResolver(Array.from({ length: calls }, () => ({ addresses })));
  }

  resolve(hostname: string, signal: AbortSignal): Promise<string[]> {
    const step = this.script[this.calls.length];
    this.calls.push({ hostname, signal });
    if (step === undefined) return Promise.reject(new Error(`FakeResolver: no answer scripted for call ${this.calls.length}`));
    if ("addresses" in step) return Promise.resolve([...step.addresses]);
    if ("error" in step) return Promise.reject(step.error);
    if ("run" in step) return step.run(hostname, signal);
    return new Promise<string[]>(() => undefined);
  }
}

/** An Error shaped like the ones `node:dns` rejects with. */
export function dnsError(code: string): Error {
  return Object.assign(new Error(`getaddrinfo ${code}`), { code });
}
