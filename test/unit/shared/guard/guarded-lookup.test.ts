import type { LookupAddress } from "node:dns";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { WebgateError } from "../../../../shared/errors";
import { ADDRESS_REFUSAL_DESCRIPTIONS, type AddressRefusal } from "../../../../shared/guard/address-policy";
import { RESOLVED_TO_REFUSED, resolveChecked, systemResolver } from "../../../../shared/guard/guarded-lookup";
import { resolvePolicy, type GuardPolicy } from "../../../../shared/guard/policy";
import { createLookupResolver } from "../../../../shared/guard/guarded-lookup";
import type { FakeStep } from "../../../helpers/fake-resolver";
import { dnsError, FakeResolver } from "../../../helpers/fake-resolver";
import { loadDnsVectors } from "../../../helpers/ssrf-vectors";
import { expectWebgateError } from "../../../helpers/expect-error";

const POLICY = resolvePolicy();

function deps(resolver: FakeResolver, options: { policy?: GuardPolicy; signal?: AbortSignal; timeoutMs?: number } = {}) {
  return {
    resolver,
    policy: options.policy ?? POLICY,
    signal: options.signal ?? new AbortController().signal,
    timeoutMs: options.timeoutMs ?? 5_000,
  };
}

const failure = expectWebgateError;

/** The message and details never carry any of the addresses the name resolved to. */
function expectNoAddress(error: WebgateError, addresses: string[]): void {
  const visible = `${error.message} ${JSON.stringify(error.details)}`;
  for (const address of addresses) expect(visible).not.toContain(address);
}

afterEach(() => {
  vi.useRealTimers();
});

const vectors = loadDnsVectors();

describe.skipIf(vectors === undefined)("resolveChecked on ../shared/ssrf/dns-vectors.json", () => {
  it.each(vectors?.dns ?? [])("$expect $host ($why)", async (row) => {
    const step: FakeStep = row.error !== undefined ? { error: dnsError(row.error) } : { addresses: row.addresses! };
    const resolver = new FakeResolver([step]);
    const run = resolveChecked(row.host, deps(resolver));
    if (row.expect === "allow") {
      await expect(run).resolves.toEqual(row.addresses);
    } else {
      const error = await failure(run);
      expect(["address_not_allowed", "dns_failed"]).toContain(error.code);
      expectNoAddress(error, row.addresses ?? []);
    }
    expect(resolver.calls.map((call) => call.hostname)).toEqual([row.host]);
  });

  it.each(vectors?.rebinding ?? [])("rebinding $expect $host: one lookup, only the first answer used", async (row) => {
    const resolver = new FakeResolver(row.answers.map((addresses) => ({ addresses })));
    const run = resolveChecked(row.host, deps(resolver));
    if (row.expect === "allow") {
      const addresses = await run;
      expect(addresses).toEqual(row.answers[0]);
      expect(addresses[0]).toBe(row.connect_to);
    } else {
      expect((await failure(run)).code).toBe("address_not_allowed");
    }
    expect(resolver.calls).toHaveLength(row.lookups);
  });
});

describe("resolveChecked answers", () => {
  it("returns every answer, checked and canonical, in answer order, after one lookup", async () => {
    const resolver = FakeResolver.answering(["2606:4700:4700:0:0:0:0:1111", "1.1.1.1", "::ffff:1.0.0.1", "2001:4860:4860::8888"]);
    await expect(resolveChecked("one.example", deps(resolver))).resolves.toEqual([
      "2606:4700:4700::1111",
      "1.1.1.1",
      "1.0.0.1",
      "2001:4860:4860::8888",
    ]);
    expect(resolver.calls).toHaveLength(1);
    expect(resolver.calls[0]!.hostname).toBe("one.example");
  });

  it.each([
    [["93.184.215.14", "10.0.0.1"], "private-network"],
    [["127.0.0.1", "93.184.215.14"], "loopback"],
    [["2606:4700:4700::1111", "fd00:ec2::254"], "unique-local"],
    [["::ffff:169.254.169.254"], "link-local"],
    [["64:ff9b::a9fe:a9fe"], "carries a refused IPv4"],
  ])("refuses %j as address_not_allowed; callers get the coarse reason, the log the exact rule (%s)", async (answer, rule) => {
    const error = await failure(resolveChecked("mixed.example", deps(FakeResolver.answering(answer))));
    expect(error.code).toBe("address_not_allowed");
    expect(error.message).toBe("The host name resolves to an address outside public unicast or on the block list.");
    expect(error.details).toEqual({ reason: "resolves-to-refused-address" });
    expect(ADDRESS_REFUSAL_DESCRIPTIONS[error.logReason as AddressRefusal]).toContain(rule);
    expectNoAddress(error, answer);
  });

  it("refuses an answer in blockedCidrs, telling callers no more than for any refused answer", async () => {
    const policy = resolvePolicy({ blockedCidrs: ["93.184.215.0/24"] });
    const error = await failure(resolveChecked("example.com", deps(FakeResolver.answering(["93.184.215.14"]), { policy })));
    expect(error.code).toBe("address_not_allowed");
    expect(error.details).toEqual({ reason: "resolves-to-refused-address" });
    expect(error.logReason).toBe("denylisted");
  });

  it.each([
    [{ addresses: [] }, /no addresses/],
    [{ addresses: ["not-an-ip"] }, /not an IP address/],
    [{ addresses: ["1.1.1.1", "0x7f.1"] }, /not an IP address/],
    [{ error: dnsError("ENOTFOUND") }, /could not be resolved/],
    [{ run: () => { throw new Error("resolver bug"); } }, /could not be resolved/],
  ] as [FakeStep, RegExp][])("fails closed with dns_failed on %j", async (step, message) => {
    const error = await failure(resolveChecked("bad.example", deps(new FakeResolver([step]))));
    expect(error.code).toBe("dns_failed");
    expect(error.message).toMatch(message);
  });

  it("keeps the resolver's error as the cause", async () => {
    const cause = dnsError("ESERVFAIL");
    const error = await failure(resolveChecked("bad.example", deps(new FakeResolver([{ error: cause }]))));
    expect(error.cause).toBe(cause);
  });

  it("lets localhost resolve to loopback only with the dev switch", async () => {
    const answer = ["127.0.0.1", "::1"];
    const dev = resolvePolicy({ allowLocalhost: true });
    await expect(resolveChecked("localhost", deps(FakeResolver.answering(answer), { policy: dev }))).resolves.toEqual(answer);
    expect((await failure(resolveChecked("localhost", deps(FakeResolver.answering(answer))))).code).toBe("address_not_allowed");
  });

  it.each([["rebind.example.com", ["127.0.0.1"]], ["mixed.example.com", ["93.184.215.14", "::1"]], ["localhost.example.com", ["::ffff:127.0.0.1"]]])(
    "refuses %s resolving to loopback even with the dev switch (only localhost may)",
    async (host, answer) => {
      const dev = resolvePolicy({ allowLocalhost: true });
      const error = await failure(resolveChecked(host, deps(FakeResolver.answering(answer), { policy: dev })));
      expect(error.code).toBe("address_not_allowed");
      expect(error.details).toEqual({ reason: RESOLVED_TO_REFUSED });
    },
  );
});

describe("resolveChecked on IP literals", () => {
  it.each([
    ["1.1.1.1", "1.1.1.1"],
    ["[2606:4700:4700::1111]", "2606:4700:4700::1111"],
    ["2606:4700:4700:0::1111", "2606:4700:4700::1111"],
    ["[::ffff:101:101]", "1.1.1.1"],
  ])("checks %s without DNS", async (host, address) => {
    const resolver = new FakeResolver([]);
    await expect(resolveChecked(host, deps(resolver))).resolves.toEqual([address]);
    expect(resolver.calls).toHaveLength(0);
  });

  it.each([["127.0.0.1", "loopback"], ["[::1]", "loopback"], ["[fe80::1]", "link-local"], ["[::ffff:a9fe:a9fe]", "link-local"]])(
    "refuses %s without DNS",
    async (host, rule) => {
      const resolver = new FakeResolver([]);
      const error = await failure(resolveChecked(host, deps(resolver)));
      expect(error.code).toBe("address_not_allowed");
      expect(error.message).toMatch(new RegExp(`^The URL's host is a ${rule} address`));
      expect(resolver.calls).toHaveLength(0);
    },
  );

  it("refuses brackets around something that is not an IPv6 address", async () => {
    const resolver = new FakeResolver([]);
    expect((await failure(resolveChecked("[example.com]", deps(resolver)))).code).toBe("url_not_allowed");
    expect((await failure(resolveChecked("[fe80::1%eth0]", deps(resolver)))).code).toBe("url_not_allowed");
    expect(resolver.calls).toHaveLength(0);
  });

  it("lets a loopback literal through with the dev switch", async () => {
    const dev = resolvePolicy({ allowLocalhost: true });
    await expect(resolveChecked("[::1]", deps(new FakeResolver([]), { policy: dev }))).resolves.toEqual(["::1"]);
  });
});

describe("resolveChecked time limits", () => {
  it("fails with dns_failed when the lookup outlasts timeoutMs, and tells the resolver to stop", async () => {
    vi.useFakeTimers();
    const resolver = new FakeResolver([{ hang: true }]);
    const run = failure(resolveChecked("slow.example", deps(resolver, { timeoutMs: 1_000 })));
    await vi.advanceTimersByTimeAsync(1_000);
    const error = await run;
    expect(error.code).toBe("dns_failed");
    expect(error.message).toMatch(/longer than 1000 ms/);
    expect(resolver.calls[0]!.signal.aborted).toBe(true);
  });

  it("fails with upstream_timeout when the request's signal aborts during the lookup", async () => {
    const controller = new AbortController();
    const resolver = new FakeResolver([{ hang: true }]);
    const run = failure(resolveChecked("slow.example", deps(resolver, { signal: controller.signal })));
    await Promise.resolve();
    controller.abort();
    expect((await run).code).toBe("upstream_timeout");
    expect(resolver.calls[0]!.signal.aborted).toBe(true);
  });

  it("fails with upstream_timeout without resolving when the signal has already aborted", async () => {
    const resolver = FakeResolver.answering(["1.1.1.1"]);
    const error = await failure(resolveChecked("example.com", deps(resolver, { signal: AbortSignal.abort() })));
    expect(error.code).toBe("upstream_timeout");
    expect(resolver.calls).toHaveLength(0);
  });

  it("fails with upstream_timeout when the signal aborts while the resolver answers anyway", async () => {
    const controller = new AbortController();
    const resolver = new FakeResolver([
      {
        run: () => {
          controller.abort();
          return Promise.resolve(["1.1.1.1"]);
        },
      },
    ]);
    expect((await failure(resolveChecked("example.com", deps(resolver, { signal: controller.signal })))).code).toBe("upstream_timeout");
  });

  it("clears its timer and listener after an answer", async () => {
    vi.useFakeTimers();
    const controller = new AbortController();
    const resolver = FakeResolver.answering(["1.1.1.1"]);
    await expect(resolveChecked("example.com", deps(resolver, { signal: controller.signal }))).resolves.toEqual(["1.1.1.1"]);
    expect(vi.getTimerCount()).toBe(0);
    // An abort after the answer changes nothing already returned and reaches no stale listener.
    controller.abort();
    expect(resolver.calls[0]!.signal.aborted).toBe(true);
  });
});

describe("systemResolver and createLookupResolver", () => {
  it("resolves an IP literal through getaddrinfo without any DNS traffic", async () => {
    await expect(systemResolver.resolve("127.0.0.1", new AbortController().signal)).resolves.toEqual(["127.0.0.1"]);
  });

  it("asks for every address in verbatim order and returns them in that order", async () => {
    const lookupAll = vi.fn((_host: string, _options: { all: true; order: "verbatim" }) =>
      Promise.resolve<LookupAddress[]>([
        { address: "2606:4700:4700::1111", family: 6 },
        { address: "1.1.1.1", family: 4 },
      ]),
    );
    const resolver = createLookupResolver(lookupAll);
    await expect(resolver.resolve("one.example", new AbortController().signal)).resolves.toEqual(["2606:4700:4700::1111", "1.1.1.1"]);
    expect(lookupAll).toHaveBeenCalledWith("one.example", { all: true, order: "verbatim" });
  });

  it("turns a lookup failure, thrown or rejected, into dns_failed", async () => {
    const rejecting = createLookupResolver(() => Promise.reject(dnsError("ENOTFOUND")));
    const throwing = createLookupResolver(() => {
      throw new TypeError("bad argument");
    });
    for (const resolver of [rejecting, throwing]) {
      const error = await failure(resolver.resolve("nx.example", new AbortController().signal));
      expect(error.code).toBe("dns_failed");
    }
  });

  it("gives up on a hanging lookup when the signal aborts, before or during", async () => {
    const resolver = createLookupResolver(() => new Promise<LookupAddress[]>(() => undefined));
    expect((await failure(resolver.resolve("slow.example", AbortSignal.abort()))).code).toBe("upstream_timeout");
    const controller = new AbortController();
    const run = failure(resolver.resolve("slow.example", controller.signal));
    controller.abort();
    expect((await run).code).toBe("upstream_timeout");
  });

  it("plugs into resolveChecked", async () => {
    const resolver = createLookupResolver(() => Promise.resolve([{ address: "10.0.0.1", family: 4 }]));
    const error = await failure(
      resolveChecked("internal.example", { resolver, policy: POLICY, signal: new AbortController().signal, timeoutMs: 1_000 }),
    );
    expect(error.code).toBe("address_not_allowed");
  });
});

describe("resolveChecked: CNAME targets against the domain deny list", () => {
  const cnameResolver = (cnames: string[], addresses = ["93.184.215.14"]) => {
    const calls: string[] = [];
    return {
      calls,
      resolve: (hostname: string) => (calls.push(`resolve ${hostname}`), Promise.resolve(addresses)),
      resolveWithCnames: (hostname: string) => (calls.push(`cnames ${hostname}`), Promise.resolve({ addresses, cnames })),
    };
  };
  const blocking = resolvePolicy({ blockedDomains: ["*.tracker.example"] });

  it("refuses a name whose CNAME chain reaches a blocked name", async () => {
    const resolver = cnameResolver(["edge.cdn.example", "pool.tracker.example"]);
    const error = await failure(resolveChecked("innocent.example.com", { resolver, policy: blocking, signal: new AbortController().signal, timeoutMs: 1_000 }));
    expect(error.code).toBe("host_not_allowed");
    expect(error.message).toContain("CNAME");
    expect(error.details).toEqual({ reason: "blocked-domain" });
  });

  it("passes a chain that reaches no blocked name", async () => {
    const resolver = cnameResolver(["edge.cdn.example"]);
    await expect(resolveChecked("innocent.example.com", { resolver, policy: blocking, signal: new AbortController().signal, timeoutMs: 1_000 })).resolves.toEqual(["93.184.215.14"]);
  });

  it("asks for the chain only when a deny list is configured", async () => {
    const resolver = cnameResolver(["pool.tracker.example"]);
    await expect(resolveChecked("innocent.example.com", { resolver, policy: POLICY, signal: new AbortController().signal, timeoutMs: 1_000 })).resolves.toEqual(["93.184.215.14"]);
    expect(resolver.calls).toEqual(["resolve innocent.example.com"]);
    // A resolver that cannot tell CNAMEs is asked for addresses only, deny list or not.
    const plain = FakeResolver.answering(["93.184.215.14"]);
    await expect(resolveChecked("innocent.example.com", deps(plain, { policy: blocking }))).resolves.toEqual(["93.184.215.14"]);
  });
});
