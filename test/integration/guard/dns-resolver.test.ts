/**
 * The c-ares resolver against a DNS server on loopback UDP (real wire format): answers, failures,
 * cancellation, the hosts file, CNAME chains, and the property the thread-pool resolver lacked:
 * lookups that never answer do not delay a normal one.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDnsResolver, parseHosts } from "../../../shared/guard/dns-resolver";
import { resolvePolicy } from "../../../shared/guard/policy";
import { resolveChecked } from "../../../shared/guard/guarded-lookup";
import { startDnsServer, type DnsServer } from "../../helpers/dns-server";

let dns: DnsServer;
let hostsPath: string;
const never = new AbortController().signal;

beforeAll(async () => {
  const zone: Parameters<typeof startDnsServer>[0] = {
    "normal.example.com": { a: ["93.184.215.14"], aaaa: ["2606:2800:21f:cb07:6820:80da:af6b:8b2c"] },
    "v4only.example.com": { a: ["93.184.215.15"] },
    "alias.example.com": { cname: "edge.cdn.example.net" },
    "edge.cdn.example.net": { cname: "pool.blocked.example.org" },
    "pool.blocked.example.org": { a: ["93.184.215.16"] },
    "broken.example.com": { servfail: true },
  };
  for (let i = 0; i < 20; i += 1) zone[`hang${i}.example.com`] = { hang: true };
  dns = await startDnsServer(zone);
  hostsPath = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "webgate-hosts-")), "hosts");
  fs.writeFileSync(hostsPath, "# test hosts\n127.0.0.1 localhost pinned.example.com\n::1 localhost\n10.0.0.9 intranet.example.com # comment\nnot-an-ip x\n");
});
afterAll(async () => {
  await dns?.close();
});

const resolver = () => createDnsResolver({ servers: [dns.address], timeoutMs: 60_000, tries: 1, hostsPath });

describe("createDnsResolver (c-ares) over loopback DNS", () => {
  it("answers AAAA and A together, IPv6 first", async () => {
    await expect(resolver().resolve("normal.example.com", never)).resolves.toEqual(["2606:2800:21f:cb07:6820:80da:af6b:8b2c", "93.184.215.14"]);
    await expect(resolver().resolve("V4ONLY.example.com.", never)).resolves.toEqual(["93.184.215.15"]);
  });

  it("20 lookups that never answer do not delay a normal one", async () => {
    const r = resolver();
    const hung = Array.from({ length: 20 }, () => new AbortController());
    let settledHung = 0;
    const pending = hung.map((controller, i) =>
      r.resolve(`hang${i}.example.com`, controller.signal).then(
        () => (settledHung += 1),
        () => (settledHung += 1),
      ),
    );
    // Every hung query reached the server before the normal one is asked.
    while (dns.queries.filter((q) => q.name.startsWith("hang")).length < 40) await new Promise((resolve) => setImmediate(resolve));
    await expect(r.resolve("normal.example.com", never)).resolves.toContain("93.184.215.14");
    expect(settledHung).toBe(0);
    // Giving up cancels them: nothing lingers.
    for (const controller of hung) controller.abort();
    await Promise.all(pending);
    expect(settledHung).toBe(20);
  });

  it("NXDOMAIN and SERVFAIL reject (the guard maps them to dns_failed); an abort cancels the lookup", async () => {
    await expect(resolver().resolve("missing.example.com", never)).rejects.toMatchObject({ code: "ENOTFOUND" });
    await expect(resolver().resolve("broken.example.com", never)).rejects.toMatchObject({ code: "ESERVFAIL" });
    const controller = new AbortController();
    const lookup = resolver().resolve("hang0.example.com", controller.signal);
    controller.abort(new Error("deadline"));
    await expect(lookup).rejects.toThrow();
    const aborted = new AbortController();
    aborted.abort(new Error("already"));
    await expect(resolver().resolve("normal.example.com", aborted.signal)).rejects.toThrow("already");
    // The system's name servers (no `servers`): an aborted lookup never sends a query.
    await expect(createDnsResolver({ hostsPath: null }).resolve("normal.example.com", aborted.signal)).rejects.toThrow("already");
    await expect(resolveChecked("missing.example.com", { resolver: resolver(), policy: resolvePolicy({}), signal: never, timeoutMs: 5_000 })).rejects.toMatchObject({
      code: "dns_failed",
    });
  });

  it("the hosts file comes first, as getaddrinfo has it; IP literals need no lookup", async () => {
    const before = dns.queries.length;
    await expect(resolver().resolve("localhost", never)).resolves.toEqual(["127.0.0.1", "::1"]);
    await expect(resolver().resolve("pinned.example.com", never)).resolves.toEqual(["127.0.0.1"]);
    await expect(resolver().resolve("192.0.2.1", never)).resolves.toEqual(["192.0.2.1"]);
    expect(dns.queries.length).toBe(before);
    // A pinned private answer is still checked by the guard like any other.
    await expect(resolveChecked("intranet.example.com", { resolver: resolver(), policy: resolvePolicy({}), signal: never, timeoutMs: 5_000 })).rejects.toMatchObject({
      code: "address_not_allowed",
    });
    const noHosts = createDnsResolver({ servers: [dns.address], timeoutMs: 60_000, tries: 1, hostsPath: null });
    await expect(noHosts.resolve("localhost", never)).rejects.toMatchObject({ code: "ENOTFOUND" });
    const missingFile = createDnsResolver({ servers: [dns.address], timeoutMs: 60_000, tries: 1, hostsPath: path.join(hostsPath, "..", "absent") });
    await expect(missingFile.resolve("normal.example.com", never)).resolves.toContain("93.184.215.14");
  });

  it("reports the CNAME chain to the final name", async () => {
    await expect(resolver().resolveWithCnames("alias.example.com", never)).resolves.toEqual({
      addresses: ["93.184.215.16"],
      cnames: ["edge.cdn.example.net", "pool.blocked.example.org"],
    });
    await expect(resolver().resolveWithCnames("normal.example.com", never)).resolves.toMatchObject({ cnames: [] });
    await expect(resolver().resolveWithCnames("localhost", never)).resolves.toEqual({ addresses: ["127.0.0.1", "::1"], cnames: [] });
    // A CNAME query that fails (not "no CNAME here") fails the lookup.
    await expect(resolver().resolveWithCnames("broken.example.com", never)).rejects.toMatchObject({ code: "ESERVFAIL" });
  });

  it("parseHosts skips comments and lines that do not start with an address", () => {
    expect([...parseHosts("# x\n\n1.2.3.4 A.example b # c\nfoo bar\n1.2.3.4 a.example\n").entries()]).toEqual([
      ["a.example", ["1.2.3.4"]],
      ["b", ["1.2.3.4"]],
    ]);
  });
});
