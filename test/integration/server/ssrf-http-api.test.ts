/**
 * The SSRF vectors end to end through `npm start`'s server (startLocalApi: the same handlers,
 * the HTTP frontend, the page store), on all three ways a caller can hand over a URL: POST
 * /fetch, GET /fetch and the MCP `web_fetch` tool.
 *
 * - URL and DNS rows (the repository's own test/fixtures/ssrf/url-rows.json always; the shared
 *   ../shared/ssrf vectors when present) with the strict policy: public names resolve through a
 *   fake DNS, every dial is recorded and routed to a loopback origin (a test network), a
 *   refusal must come with a guard code and no dial, an allowed row must read the page.
 * - Redirects with the dev switch on, as a developer runs `npm start` against a loopback
 *   origin: the real dialer, and canary listeners on 127.0.0.1, 127.0.0.2 and ::1 that the
 *   redirects aim at in every spelling; no canary may see a connection.
 *
 * No answer may be a 500, and no answer may contain an address that came from DNS.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ENV } from "../../../shared/config";
import type { Resolver } from "../../../shared/guard/dns-resolver";
import { createNetDialer } from "../../../shared/http/net-dialer";
import type { DialTarget, Dialer } from "../../../shared/http/types";
import { createMemoryTelemetry } from "../../../shared/observability/telemetry";
import { startLocalApi, type LocalApi } from "../../../scripts/lib/local-api";
import { startOrigin, type Origin } from "../../helpers/origin";
import { loadDnsVectors, loadUrlVectors, type UrlVector } from "../../helpers/ssrf-vectors";
import { RoutingDialer } from "../../helpers/test-network";
import { startTcpCanary, type TcpCanary } from "../../helpers/tcp-canary";

const OWN_ROWS = JSON.parse(readFileSync(path.resolve(__dirname, "../../fixtures/ssrf/url-rows.json"), "utf8")) as UrlVector[];
const SHARED_URLS = loadUrlVectors();
const SHARED_DNS = loadDnsVectors();

/** What every public name resolves to here (DNS is not what the URL rows test). */
const PUBLIC = "93.184.215.14";
const GUARD_CODES = ["url_not_allowed", "host_not_allowed", "address_not_allowed", "invalid_request"];
const ROUTES = ["POST /fetch", "GET /fetch", "MCP web_fetch"] as const;
type Route = (typeof ROUTES)[number];

interface Outcome {
  status: number;
  /** `ok` for a page read, else the error code (for MCP: the tool result's code). */
  code: string;
  text: string;
}

let mcpId = 0;

/** Sends `url` to `api` by `route`; the tool result of MCP is mapped to the same outcome shape. */
async function send(api: LocalApi, route: Route, url: string): Promise<Outcome> {
  let res: Response;
  if (route === "POST /fetch") {
    res = await fetch(`${api.url}/fetch`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ url, max_age: 0 }) });
  } else if (route === "GET /fetch") {
    res = await fetch(`${api.url}/fetch?${new URLSearchParams({ url, max_age: "0" }).toString()}`);
  } else {
    res = await fetch(`${api.url}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: ++mcpId, method: "tools/call", params: { name: "web_fetch", arguments: { url, max_age: 0 } } }),
    });
  }
  const text = await res.text();
  const json = JSON.parse(text) as { error?: { code?: string }; result?: { isError?: boolean; structuredContent?: { code?: string } } };
  if (route === "MCP web_fetch") {
    const result = json.result;
    const code = result?.isError === true ? (result.structuredContent?.code ?? "tool-error without a code") : "ok";
    return { status: res.status, code, text };
  }
  return { status: res.status, code: res.status === 200 ? "ok" : (json.error?.code ?? `status ${res.status}`), text };
}

/** DNS from a table the test sets; names not in it resolve to the public test address. */
class TableResolver implements Resolver {
  table: Record<string, string[] | string> = {};
  sequences: Record<string, string[][]> = {};
  lookups: string[] = [];
  resolve(hostname: string): Promise<string[]> {
    this.lookups.push(hostname);
    const next = this.sequences[hostname]?.shift();
    if (next !== undefined) return Promise.resolve([...next]);
    const answer = this.table[hostname] ?? [PUBLIC];
    if (typeof answer === "string") return Promise.reject(Object.assign(new Error(`queryA ${answer}`), { code: answer }));
    return Promise.resolve([...answer]);
  }
}

describe("URL and DNS vectors through POST /fetch, GET /fetch and MCP web_fetch (strict policy)", () => {
  let api: LocalApi;
  let origin: Origin;
  let dialer: RoutingDialer;
  const resolver = new TableResolver();

  beforeAll(async () => {
    origin = await startOrigin((req, res) => {
      if (req.url === "/robots.txt") res.writeHead(404).end();
      else res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end("<title>fine</title><p>an ordinary page</p>");
    });
    dialer = new RoutingDialer({ plain: origin.port });
    // robots.txt off: its request per host is a guarded request of its own, with its own lookup
    // (test/integration/fetch/robots.test.ts), and the rebinding rows count lookups per request.
    api = await startLocalApi({ env: { [ENV.ROBOTS]: "ignore" }, port: 0, resolver, dialer, telemetry: createMemoryTelemetry(), log: () => undefined });
  });
  afterAll(async () => {
    await api?.close();
    await origin?.close();
  });

  /** Runs one URL by every route; `refuse` needs a refusal code and no dial, `allow` the page. */
  async function expectRow(url: string, expectation: "allow" | "refuse", dnsAnswers: string[] = [], refusals = GUARD_CODES) {
    // The three routes at once (tests run one after another, so every dial is this row's).
    dialer.dials.length = 0;
    const outcomes = await Promise.all(ROUTES.map(async (route) => ({ route, outcome: await send(api, route, url) })));
    if (expectation === "refuse") expect(dialer.dials, JSON.stringify(url)).toHaveLength(0);
    for (const { route, outcome } of outcomes) {
      const where = `${route} ${JSON.stringify(url)}: ${outcome.text.slice(0, 300)}`;
      expect(outcome.status, where).not.toBe(500);
      if (expectation === "refuse") {
        expect(refusals, where).toContain(outcome.code);
        if (route !== "MCP web_fetch") expect(outcome.status, where).toBeGreaterThanOrEqual(400);
      } else {
        expect(outcome.code, where).toBe("ok");
        expect(outcome.text, where).toContain("an ordinary page");
      }
      // Any address that only DNS gave may never be shown to the caller.
      for (const address of [PUBLIC, ...dnsAnswers]) {
        if (!url.includes(address)) expect(outcome.text, `${where} shows ${address}`).not.toContain(address);
      }
    }
  }

  it.each(OWN_ROWS.map((row) => [row.expect, row.why, row] as const))("own row: %s %s", async (_expect, _why, row) => {
    await expectRow(row.url, row.expect);
  });

  describe.skipIf(SHARED_URLS === undefined)("../shared/ssrf/url-vectors.json", () => {
    it.each((SHARED_URLS ?? []).map((row) => [row.expect, row.why, row] as const))("%s: %s", async (_expect, _why, row) => {
      await expectRow(row.url, row.expect);
    });
  });

  describe.skipIf(SHARED_DNS === undefined)("../shared/ssrf/dns-vectors.json", () => {
    it.each((SHARED_DNS?.dns ?? []).map((row) => [row.expect, row.host, row.why, row] as const))("dns %s %s: %s", async (_expect, _host, _why, row) => {
      resolver.table = { [row.host]: row.error ?? row.addresses ?? [] };
      try {
        // A failed, empty or non-IP answer fails closed as dns_failed.
        await expectRow(row.url, row.expect, row.addresses ?? [], [...GUARD_CODES, "dns_failed"]);
      } finally {
        resolver.table = {};
      }
    });

    it.each((SHARED_DNS?.rebinding ?? []).map((row) => [row.host, row.why, row] as const))("rebinding %s: %s", async (_host, _why, row) => {
      for (const route of ROUTES) {
        // One lookup per request: each route gets the whole script again.
        resolver.sequences = { [row.host]: row.answers.map((answer) => [...answer]) };
        resolver.lookups = [];
        dialer.dials.length = 0;
        const outcome = await send(api, route, `https://${row.host}/`);
        expect(outcome.status).not.toBe(500);
        expect(resolver.lookups.filter((name) => name === row.host), route).toHaveLength(row.lookups);
        if (row.expect === "allow") {
          expect(outcome.code, route).toBe("ok");
          expect(dialer.dialedAddresses, route).toEqual([row.connect_to]);
        } else {
          expect(GUARD_CODES, route).toContain(outcome.code);
          expect(dialer.dials, route).toHaveLength(0);
        }
      }
      resolver.sequences = {};
    });
  });
});


/** The real dialer for loopback (the origin, and anything the guard wrongly let through); public addresses are never dialed. */
class LoopbackOnlyDialer implements Dialer {
  readonly dials: DialTarget[] = [];
  private readonly inner = createNetDialer();
  dial(target: DialTarget) {
    this.dials.push(target);
    const loopback = target.addresses.every((address) => address.startsWith("127.") || address === "::1");
    if (!loopback) return Promise.reject(Object.assign(new Error("connect ENETUNREACH"), { code: "ENETUNREACH" }));
    return this.inner.dial(target);
  }
}

describe("redirects from a loopback origin with the dev switch on (npm start against a local server)", () => {
  let api: LocalApi;
  let origin: http.Server;
  let originPort = 0;
  let canaries: TcpCanary[] = [];
  const redirectTo: Record<string, { status: number; location: string }> = {};
  const dialer = new LoopbackOnlyDialer();
  const resolver = new TableResolver();

  beforeAll(async () => {
    origin = http.createServer((req, res) => {
      const hop = redirectTo[req.url ?? ""];
      if (req.url === "/robots.txt") res.writeHead(404).end();
      else if (hop !== undefined) res.writeHead(hop.status, { location: hop.location }).end();
      else res.writeHead(200, { "content-type": "text/html" }).end("<title>local</title><p>the local page</p>");
    });
    await new Promise<void>((resolve) => origin.listen(0, "127.0.0.1", resolve));
    originPort = (origin.address() as AddressInfo).port;
    canaries = (await Promise.all(["127.0.0.1", "127.0.0.2", "::1"].map(startTcpCanary))).filter((c): c is TcpCanary => c !== undefined);
    resolver.table = { localhost: ["127.0.0.1"], "rebind.example.com": ["127.0.0.1"], "internal.example.net": ["10.0.0.5"], "cdn.example.net": [PUBLIC, "10.1.1.1"] };
    api = await startLocalApi({ env: { [ENV.ALLOW_LOCALHOST]: "true" }, port: 0, resolver, dialer, telemetry: createMemoryTelemetry(), log: () => undefined });
  });
  afterAll(async () => {
    await api?.close();
    await new Promise((resolve) => origin?.close(resolve));
    await Promise.all(canaries.map((c) => c.close()));
  });

  /** Each spelling of "this machine, port P" a Location can use (`P` stands for the canary's port). */
  const SPELLINGS = [
    "http://127.0.0.1:P/",
    "https://127.0.0.1:P/",
    "http://localhost:P/",
    "http://LOCALHOST.:P/",
    "http://[::1]:P/",
    "http://127.0.0.2:P/",
    "http://127.1:P/",
    "http://2130706433:P/",
    "http://0x7f000001:P/",
    "http://0177.0.0.1:P/",
    "http://[::ffff:127.0.0.1]:P/",
    "http://[::ffff:7f00:1]:P/",
    "//127.0.0.1:P/",
    "/\\127.0.0.1:P/",
    "\\\\localhost:P\\",
    "http://0.0.0.0:P/",
    "http://[::]:P/",
  ];

  /** Serves `location` with `status` from the origin and fetches it by every route. */
  async function expectRefusedRedirect(status: number, location: string) {
    const pathName = `/r/${Object.keys(redirectTo).length}`;
    redirectTo[pathName] = { status, location };
    dialer.dials.length = 0;
    const outcomes = await Promise.all(ROUTES.map(async (route) => ({ route, outcome: await send(api, route, `http://127.0.0.1:${originPort}${pathName}`) })));
    for (const { route, outcome } of outcomes) {
      const where = `${route} ${status} → ${JSON.stringify(location)}: ${outcome.text.slice(0, 300)}`;
      expect(outcome.status, where).not.toBe(500);
      expect([...GUARD_CODES, "dns_failed"], where).toContain(outcome.code);
      expect(outcome.text, where).toMatch(/Redirect 1 /);
      expect(dialer.dials.every((d) => d.port === originPort), where).toBe(true);
      for (const address of ["10.0.0.5", "10.1.1.1"]) expect(outcome.text, where).not.toContain(address);
    }
  }

  it.each(SPELLINGS)("refuses a redirect to %s on each canary's port (another local port)", async (spelling) => {
    expect(canaries.length).toBeGreaterThan(0);
    for (const canary of canaries) await expectRefusedRedirect(302, spelling.replace("P", String(canary.port)));
  });

  it.each(["http://127.1:P/", "http://2130706433:P/", "http://0x7f000001:P/", "http://0177.0.0.1:P/", "http://[::ffff:127.0.0.1]:P/", "http://[0:0:0:0:0:0:0:1]:P/", "http://%31%32%37.0.0.1:P/", "http://%6cocalhost:P/", "http://0.0.0.0:P/"])(
    "refuses the caller's own %s: the switch admits loopback only as written plainly",
    async (spelling) => {
      for (const canary of canaries) {
        const url = spelling.replace("P", String(canary.port));
        const outcomes = await Promise.all(ROUTES.map((route) => send(api, route, url)));
        for (const outcome of outcomes) expect(["address_not_allowed", "host_not_allowed"], `${url}: ${outcome.text.slice(0, 200)}`).toContain(outcome.code);
      }
    },
  );

  it.each([301, 303, 307, 308])("refuses a %i to another local port", async (status) => {
    await expectRefusedRedirect(status, `http://localhost:${canaries[0]!.port}/`);
  });

  it.each([
    "http://127.0.0.1:9001/2018-06-01/runtime/invocation/next",
    "http://localhost/",
    "http://169.254.169.254/latest/meta-data/",
    "https://internal.example.net/",
    "https://cdn.example.net/b",
    "http://rebind.example.com/",
    "file:///etc/passwd",
    "gopher://127.0.0.1:6379/_INFO",
    "https://user:pass@example.org/",
    "http://@127.0.0.1/",
    "http://metadata.google.internal/computeMetadata/v1/",
    "http://[fe80::1%25eth0]/",
  ])("refuses a redirect to %s (other schemes, private names and literals, names resolving to loopback)", async (location) => {
    await expectRefusedRedirect(302, location);
  });

  describe.skipIf(SHARED_DNS === undefined)("../shared/ssrf/dns-vectors.json redirects: each refused hop's Location served by the loopback origin", () => {
    const rows = (SHARED_DNS?.redirects ?? []).filter((row) => row.expect === "refuse");
    it.each(rows.map((row) => [row.name, row] as const))("%s", async (_name, row) => {
      const refusedAt = row.refused_at ?? 1;
      const from = row.hops[refusedAt - 1]!;
      expect(from.location).toBeDefined();
      resolver.table = { ...resolver.table, ...row.dns };
      // The Location as written, except "http:host" without slashes: from the vector's https
      // page it names another host, from this http origin it would be a relative path, so the
      // hop's resolved URL is served instead.
      const location = /^https?:(?![/\\])/i.test(from.location!) ? row.hops[refusedAt]!.url : from.location!;
      await expectRefusedRedirect(from.status ?? 302, location);
    });
  });

  it("let no connection reach any canary", () => {
    expect(canaries.map((c) => `${c.host}: ${c.connections}`)).toEqual(canaries.map((c) => `${c.host}: 0`));
  });

  it("follows a redirect within the local server, by any loopback spelling of its port", async () => {
    redirectTo["/in"] = { status: 302, location: `http://localhost:${originPort}/landing` };
    for (const route of ROUTES) {
      const outcome = await send(api, route, `http://127.0.0.1:${originPort}/in`);
      expect(outcome.code, outcome.text).toBe("ok");
      expect(outcome.text).toContain("the local page");
    }
  });
});
