/**
 * DNS answers through the whole local server with the real resolver: `npm start`'s c-ares
 * resolver (createDnsResolver, the production one) asks a DNS server on loopback UDP that speaks
 * the wire format (test/helpers/dns-server.ts), so CNAME chains, A and AAAA together, NXDOMAIN and
 * SERVFAIL arrive as they do from a real name server. Every name is sent by POST /fetch, GET
 * /fetch and MCP web_fetch; a refused answer must refuse the request with no dial and no address
 * in the answer, an allowed one must read the page (the test network routes public addresses to
 * a loopback origin). The shared ../shared/ssrf dns rows run too when present.
 */
import ipaddr from "ipaddr.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ENV } from "../../../shared/config";
import { createDnsResolver } from "../../../shared/guard/dns-resolver";
import { createMemoryTelemetry } from "../../../shared/observability/telemetry";
import { startLocalApi, type LocalApi } from "../../../scripts/lib/local-api";
import { startDnsServer, type DnsRecordSet, type DnsServer } from "../../helpers/dns-server";
import { startOrigin, type Origin } from "../../helpers/origin";
import { loadDnsVectors } from "../../helpers/ssrf-vectors";
import { RoutingDialer } from "../../helpers/test-network";

const SHARED = loadDnsVectors();

/** The repository's own zone: name → records, and whether a request for it must be refused. */
const OWN: Array<{ host: string; records?: DnsRecordSet; expect: "allow" | "refuse"; why: string }> = [
  { host: "public.example.com", records: { a: ["93.184.215.14"] }, expect: "allow", why: "a public answer" },
  { host: "www.public.example.com", records: { cname: "edge.cdn.example.net" }, expect: "allow", why: "a CNAME to a public name" },
  { host: "alias.example.com", records: { cname: "internal.example.net" }, expect: "refuse", why: "a CNAME to a private answer" },
  { host: "deep.example.com", records: { cname: "hop1.example.net" }, expect: "refuse", why: "a CNAME chain ending at loopback" },
  { host: "meta.example.com", records: { cname: "hop-meta.example.net" }, expect: "refuse", why: "a CNAME chain ending at the metadata address" },
  { host: "mixed.example.com", records: { a: ["93.184.215.14", "10.0.0.5"] }, expect: "refuse", why: "one private A among public ones" },
  { host: "dual.example.com", records: { a: ["93.184.215.14"], aaaa: ["fd00::1"] }, expect: "refuse", why: "a public A and a unique-local AAAA" },
  { host: "v6loop.example.com", records: { aaaa: ["::1"] }, expect: "refuse", why: "AAAA loopback only" },
  { host: "mapped.example.com", records: { aaaa: ["::ffff:169.254.169.254"] }, expect: "refuse", why: "AAAA IPv4-mapped metadata" },
  { host: "nat64.example.com", records: { aaaa: ["64:ff9b::7f00:1"] }, expect: "refuse", why: "AAAA NAT64 of loopback" },
  { host: "zero.example.com", records: { a: ["0.0.0.0"] }, expect: "refuse", why: "0.0.0.0" },
  { host: "broken.example.com", records: { servfail: true }, expect: "refuse", why: "SERVFAIL" },
  { host: "missing.example.com", expect: "refuse", why: "NXDOMAIN" },
];
const TARGETS: Record<string, DnsRecordSet> = {
  "edge.cdn.example.net": { a: ["93.184.215.34"] },
  "internal.example.net": { a: ["10.0.0.5"] },
  "hop1.example.net": { cname: "hop2.example.net" },
  "hop2.example.net": { a: ["127.0.0.1"] },
  "hop-meta.example.net": { cname: "hop-meta2.example.net" },
  "hop-meta2.example.net": { a: ["169.254.169.254"] },
};

/** The DNS server writes addresses as 8 hex groups or dotted IPv4; a dotted tail is rewritten. */
function wire(address: string): string {
  return address.includes(":") ? ipaddr.IPv6.parse(address).toNormalizedString() : address;
}

function recordsOf(addresses: string[]): DnsRecordSet {
  return { a: addresses.filter((a) => !a.includes(":")), aaaa: addresses.filter((a) => a.includes(":")).map(wire) };
}

const sharedRows = (SHARED?.dns ?? []).filter((row) => (row.addresses ?? []).every((address) => ipaddr.isValid(address)));

let api: LocalApi;
let origin: Origin;
let dns: DnsServer;
let dialer: RoutingDialer;

beforeAll(async () => {
  const zone: Record<string, DnsRecordSet> = { ...TARGETS };
  for (const row of OWN) if (row.records !== undefined) zone[row.host] = { ...row.records, ...(row.records.aaaa ? { aaaa: row.records.aaaa.map(wire) } : {}) };
  // The shared rows under their own names (a suffix keeps them apart from the rows above).
  for (const row of sharedRows) if (row.error === undefined) zone[`${row.host}.shared.test`] = recordsOf(row.addresses ?? []);
  dns = await startDnsServer(zone);
  origin = await startOrigin((_req, res) => res.writeHead(200, { "content-type": "text/html" }).end("<title>fine</title><p>an ordinary page</p>"));
  dialer = new RoutingDialer({ plain: origin.port });
  api = await startLocalApi({
    env: { [ENV.ROBOTS]: "ignore" },
    port: 0,
    resolver: createDnsResolver({ servers: [dns.address], hostsPath: null, timeoutMs: 3_000, tries: 1 }),
    dialer,
    telemetry: createMemoryTelemetry(),
    log: () => undefined,
  });
});
afterAll(async () => {
  await api?.close();
  await origin?.close();
  await dns?.close();
});

async function send(route: string, url: string): Promise<{ status: number; code: string; text: string }> {
  let res: Response;
  if (route === "POST") res = await fetch(`${api.url}/fetch`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ url, max_age: 0 }) });
  else if (route === "GET") res = await fetch(`${api.url}/fetch?${new URLSearchParams({ url, max_age: "0" }).toString()}`);
  else {
    res = await fetch(`${api.url}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "web_fetch", arguments: { url, max_age: 0 } } }),
    });
    const text = await res.text();
    const result = (JSON.parse(text) as { result: { isError?: boolean; structuredContent?: { code?: string } } }).result;
    return { status: res.status, code: result.isError === true ? (result.structuredContent?.code ?? "no code") : "ok", text };
  }
  const text = await res.text();
  return { status: res.status, code: res.status === 200 ? "ok" : ((JSON.parse(text) as { error: { code: string } }).error.code), text };
}

async function expectName(host: string, expectation: "allow" | "refuse", answers: string[]) {
  for (const route of ["POST", "GET", "MCP"]) {
    dialer.dials.length = 0;
    const outcome = await send(route, `https://${host}/`);
    const where = `${route} ${host}: ${outcome.text.slice(0, 300)}`;
    expect(outcome.status, where).not.toBe(500);
    if (expectation === "allow") {
      expect(outcome.code, where).toBe("ok");
      expect(outcome.text, where).toContain("an ordinary page");
    } else {
      expect(["address_not_allowed", "dns_failed"], where).toContain(outcome.code);
      expect(dialer.dials, where).toHaveLength(0);
    }
    for (const address of answers) expect(outcome.text, `${where} shows ${address}`).not.toContain(address);
  }
}

describe("DNS answers from a real name server, through the local server's HTTP API", () => {
  it.each(OWN.map((row) => [row.expect, row.host, row.why, row] as const))("%s %s (%s)", async (_expect, _host, _why, row) => {
    const answers = [...(row.records?.a ?? []), ...(row.records?.aaaa ?? []), "127.0.0.1", "169.254.169.254", "10.0.0.5"];
    await expectName(row.host, row.expect, row.expect === "allow" ? [] : answers);
    // The answer came over the wire from the name server, not from a table in the process.
    expect(dns.queries.map((query) => query.name)).toContain(row.host);
  });

  describe.skipIf(SHARED === undefined)("../shared/ssrf/dns-vectors.json dns rows (answers that are IP addresses)", () => {
    it.each(sharedRows.map((row) => [row.expect, row.host, row.why, row] as const))("%s %s: %s", async (_expect, _host, _why, row) => {
      await expectName(`${row.host}.shared.test`, row.expect, row.expect === "allow" ? [] : (row.addresses ?? []));
    });
  });
});
