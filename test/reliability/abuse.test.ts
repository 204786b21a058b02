/**
 * Abuse through the whole HTTP API (the local server over HTTP, API keys on, public-looking names
 * resolved by a fake DNS and routed to a loopback origin): SSRF vectors (the repository's own
 * sample always; ../shared/ssrf when present), malformed requests, missing API keys, and
 * property tests over both request schemas fed to the handlers. At the end, no secret value and
 * no address that came from DNS appears in any response or log line captured here.
 */
import http from "node:http";
import net from "node:net";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDynamoClient } from "../../shared/cache/dynamo-client";
import { ENV, loadConfig } from "../../shared/config";
import { createFetchHandler } from "../../shared/fetch/fetch-route";
import type { Resolver } from "../../shared/guard/dns-resolver";
import { createMemoryTelemetry } from "../../shared/observability/telemetry";
import { createSearchHandler } from "../../shared/search/search-route";
import { startLocalApi, type LocalApi } from "../../scripts/lib/local-api";
import { apiGatewayEvent, lambdaContext } from "../helpers/apigw-event";
import { ManualClock } from "../helpers/fetch-app";
import { startOrigin, type Origin } from "../helpers/origin";
import { loadDnsVectors, loadUrlVectors, type RedirectVector } from "../helpers/ssrf-vectors";
import { RoutingDialer } from "../helpers/test-network";
import { figureRecorder } from "./support";

const API_KEY = "wg-reliability-api-key-6d1f0e93b2";
const BRAVE_KEY = "BSA-reliability-abuse-key-41c9aa07";
const SECRETS = [API_KEY, BRAVE_KEY];
/** The answers of the repository's own DNS table. */
const OWN_DNS: Record<string, string[]> = {
  "site.example.com": ["93.184.215.14"],
  "other.example.org": ["93.184.215.34"],
  "private.example.net": ["10.0.0.5"],
  "mixed.example.net": ["93.184.215.14", "10.0.0.5"],
  "meta.example.net": ["169.254.169.254"],
  "v6local.example.net": ["::1"],
  "mapped.example.net": ["::ffff:127.0.0.1"],
};
const NO_ANSWER = "nxdomain.example.net";

const record = figureRecorder("abuse");

/** DNS whose table each case sets; unknown names fail like NXDOMAIN; every answer is remembered. */
class TableResolver implements Resolver {
  table: Record<string, string[] | Error> = { ...OWN_DNS };
  /** Per-name answers for successive lookups (DNS rebinding); takes precedence over `table`. */
  sequences: Record<string, string[][]> = {};
  readonly lookups: string[] = [];
  readonly answered = new Set<string>();
  resolve(hostname: string): Promise<string[]> {
    this.lookups.push(hostname);
    const next = this.sequences[hostname]?.shift();
    if (next !== undefined) {
      for (const address of next) this.answered.add(address);
      return Promise.resolve([...next]);
    }
    const answer = this.table[hostname];
    if (answer === undefined) return Promise.reject(Object.assign(new Error("getaddrinfo ENOTFOUND"), { code: "ENOTFOUND" }));
    if (answer instanceof Error) return Promise.reject(answer);
    for (const address of answer) this.answered.add(address);
    return Promise.resolve([...answer]);
  }
}

/** Scripted redirects by `scheme://host/path`; everything else is a small HTML page. */
let script: Record<string, { status: number; location: string }> = {};
/** The routing dialer sends https dials to `secureOrigin` (plain HTTP), so the scheme stays visible. */
let origin: Origin;
let secureOrigin: Origin;
let brave: Origin;
let api: LocalApi;
const resolver = new TableResolver();
let dialer: RoutingDialer;
const telemetry = createMemoryTelemetry();
const frontendLog: string[] = [];
/** Every response (status line, headers, body) this file saw, and every URL a caller sent. */
const seen: string[] = [];
const sentUrls: string[] = [];

beforeAll(async () => {
  const serve = (scheme: string) => (req: http.IncomingMessage, res: http.ServerResponse) => {
    const hop = script[`${scheme}://${String(req.headers.host).replace(/:\d+$/, "")}${req.url ?? ""}`];
    if (hop) res.writeHead(hop.status, { location: hop.location }).end();
    else res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end("<title>fine</title><p>an ordinary page</p>");
  };
  origin = await startOrigin(serve("http"));
  secureOrigin = await startOrigin(serve("https"));
  brave = await startOrigin((_req, res) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ web: { results: [{ title: "T", url: "https://example.com/", description: "D" }] } }));
  });
  dialer = new RoutingDialer({ plain: origin.port, secure: secureOrigin.port });
  api = await startLocalApi({
    env: {
      [ENV.API_KEYS]: API_KEY,
      [ENV.BRAVE_API_KEY]: BRAVE_KEY,
      [ENV.BRAVE_ENDPOINT]: `${brave.base}/res/v1/web/search`,
      // The fetch limit (and with it the local server's request limit) at its 30 s default: the
      // allowed URLs must answer 200 and the refusals with the guard's code, which a 3 s limit
      // turned into 504 on a loaded machine; no input here relies on a short limit.
      // The SSRF vectors test the guard, some by counting DNS lookups and dials; a robots.txt
      // request per host would add its own (each checked by the same guard). robots.txt has its
      // own suite (test/integration/fetch/robots.test.ts).
      [ENV.ROBOTS]: "ignore",
    },
    port: 0,
    resolver,
    dialer,
    providerResolver: { resolve: () => Promise.reject(new Error("providers are addressed by IP literal")) },
    clock: new ManualClock(),
    telemetry,
    log: (line) => frontendLog.push(JSON.stringify(line)),
  });
});

afterAll(async () => {
  const everything = [...seen, ...frontendLog, ...telemetry.lines.map((l) => JSON.stringify(l))].join("\n");
  for (const secret of SECRETS) expect(everything, "a secret value leaked").not.toContain(secret);
  // Addresses that reached the process only through DNS; one the caller itself wrote in a URL
  // may legitimately be echoed back, so those are left out.
  const fromDns = new Set([...resolver.answered, ...Object.values(OWN_DNS).flat()]);
  const fromDnsOnly = [...fromDns].filter((address) => !sentUrls.some((u) => u.includes(address)));
  for (const address of fromDnsOnly) {
    const escaped = address.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    expect(everything, `resolved address ${address} leaked`).not.toMatch(new RegExp(`(?<![0-9a-fA-F.:])${escaped}(?![0-9a-fA-F.:])`));
  }
  await api?.close();
  await origin?.close();
  await secureOrigin?.close();
  await brave?.close();
});

/** One HTTP request to the local server; keeps everything it saw for the leak scan. */
function call(path: string, options: { method?: string; body?: string; headers?: Record<string, string>; key?: string | null } = {}) {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key !== null) headers["x-api-key"] = options.key ?? API_KEY;
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string; json: any }>((resolve, reject) => {
    const req = http.request(`${api.url}${path}`, { method: options.method ?? "GET", headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        seen.push(`${res.statusCode} ${JSON.stringify(res.headers)} ${text}`);
        let json: any;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
      });
    });
    req.on("error", reject);
    req.end(options.body);
  });
}

const postJson = (path: string, value: unknown) => {
  if (value !== null && typeof value === "object" && typeof (value as { url?: unknown }).url === "string") sentUrls.push((value as { url: string }).url);
  return call(path, { method: "POST", body: JSON.stringify(value), headers: { "content-type": "application/json" } });
};

const REFUSAL_CODES = ["url_not_allowed", "host_not_allowed", "address_not_allowed", "dns_failed", "invalid_request"];

/** Sends `url` to /fetch; a refusal must be a 4xx/502 with a guard code and no connection made. */
async function expectRefused(group: string, url: string, allowedDials = 0, also: () => void = () => undefined) {
  dialer.dials.length = 0;
  let handled = false;
  try {
    const res = await postJson("/fetch", { url });
    expect(res.status, `${url}: ${res.text}`).not.toBe(200);
    expect(res.status).toBeLessThan(500 + 3); // 4xx or 502 (dns_failed), never 500
    expect(res.status).not.toBe(500);
    expect(REFUSAL_CODES).toContain(res.json?.error?.code);
    expect(dialer.dials.length, `${url} was dialed`).toBeLessThanOrEqual(allowedDials);
    also();
    handled = true;
  } finally {
    record.abuse(group, handled);
  }
}

async function expectAllowed(group: string, url: string, also: () => void = () => undefined) {
  let handled = false;
  try {
    const res = await postJson("/fetch", { url, max_age: 0 });
    expect(res.status, `${url}: ${res.text}`).toBe(200);
    expect(res.json.content).toContain("an ordinary page");
    also();
    handled = true;
  } finally {
    record.abuse(group, handled);
  }
}

/** Scripts a redirect chain's hops on the origin (both the http and the upgraded https form). */
function scriptChain(row: RedirectVector) {
  script = {};
  for (const hop of row.hops) {
    if (hop.status === undefined || hop.location === undefined) continue;
    try {
      const u = new URL(hop.url);
      const key = `${u.protocol.replace(":", "")}://${u.hostname}${u.pathname}${u.search}`;
      script[key] = { status: hop.status, location: hop.location };
      // The guard upgrades http to https before connecting: script the upgraded form too,
      // unless the chain itself says what the https form answers.
      if (key.startsWith("http://")) script[`https://${key.slice(7)}`] ??= script[key];
    } catch {
      // A hop that is not a URL is never requested.
    }
  }
  // A later hop that ends the chain answers 200 even where an upgraded form was scripted above.
  for (const hop of row.hops) {
    if (hop.location !== undefined) continue;
    try {
      const u = new URL(hop.url);
      delete script[`${u.protocol.replace(":", "")}://${u.hostname}${u.pathname}${u.search}`];
    } catch {
      // Not a URL.
    }
  }
}

async function runRedirect(group: string, row: RedirectVector) {
  scriptChain(row);
  resolver.table = { ...row.dns };
  try {
    if (row.expect === "allow") await expectAllowed(group, row.hops[0]!.url);
    // Every hop before the refused one is dialed once; the refused hop never is.
    else await expectRefused(group, row.hops[0]!.url, row.refused_at ?? 0);
  } finally {
    script = {};
    resolver.table = { ...OWN_DNS };
  }
}

/** Resolves once, checks, dials the checked address; never looks the name up again. */
async function runRebinding(group: string, row: { host: string; answers: string[][]; expect: "allow" | "refuse"; connect_to?: string }) {
  resolver.sequences = { [row.host]: row.answers.map((a) => [...a]) };
  resolver.lookups.length = 0;
  dialer.dials.length = 0;
  const pinned = () => {
    expect(resolver.lookups.filter((h) => h === row.host)).toHaveLength(1);
    expect(dialer.dialedAddresses).toEqual(row.expect === "allow" ? [row.connect_to] : []);
  };
  try {
    if (row.expect === "allow") await expectAllowed(group, `https://${row.host}/`, pinned);
    else await expectRefused(group, `https://${row.host}/`, 0, pinned);
  } finally {
    resolver.sequences = {};
  }
}

describe("SSRF through the whole HTTP API: the repository's own sample", () => {
  it.each([
    "file:///etc/passwd",
    "gopher://127.0.0.1:6379/_INFO",
    "http://127.0.0.1/",
    "http://localhost:8787/fetch",
    "http://169.254.169.254/latest/meta-data/iam/security-credentials/",
    "http://[::1]/",
    "http://[::ffff:127.0.0.1]/",
    "http://0x7f000001/",
    "http://2130706433/",
    "http://10.0.0.5/",
    "http://user:pass@site.example.com/",
    "http://metadata.google.internal/",
    "http://intranet/",
    "https://site.example.com:22/",
  ])("refuses %s", async (url) => {
    await expectRefused("ssrf (own sample): URLs", url);
  });

  it.each([
    ["private.example.net", "a private answer"],
    ["mixed.example.net", "one private answer among public ones"],
    ["meta.example.net", "the metadata address"],
    ["v6local.example.net", "IPv6 loopback"],
    ["mapped.example.net", "IPv4-mapped loopback"],
    [NO_ANSWER, "NXDOMAIN"],
  ])("refuses %s (%s)", async (host) => {
    await expectRefused("ssrf (own sample): DNS", `https://${host}/`);
  });

  it("allows a public name", async () => {
    await expectAllowed("ssrf (own sample): DNS", "https://site.example.com/");
  });

  it.each([
    { host: "flip.example.com", answers: [["93.184.215.14"], ["127.0.0.1"]], expect: "allow" as const, connect_to: "93.184.215.14" },
    { host: "flop.example.com", answers: [["10.0.0.5"], ["93.184.215.14"]], expect: "refuse" as const, connect_to: "" },
  ])("DNS rebinding $host: one lookup, the checked address dialed", async (row) => {
    await runRebinding("ssrf (own sample): DNS rebinding", row);
  });

  it.each<[string, RedirectVector]>([
    ["to a loopback literal", { name: "", hops: [{ url: "https://site.example.com/a", status: 302, location: "http://127.0.0.1/admin" }, { url: "http://127.0.0.1/admin" }], dns: OWN_DNS, expect: "refuse", refused_at: 1, why: "" }],
    ["to a name with a private answer", { name: "", hops: [{ url: "https://site.example.com/b", status: 301, location: "https://private.example.net/" }, { url: "https://private.example.net/" }], dns: OWN_DNS, expect: "refuse", refused_at: 1, why: "" }],
    ["to a non-http scheme", { name: "", hops: [{ url: "https://site.example.com/c", status: 307, location: "file:///etc/passwd" }, { url: "file:///etc/passwd" }], dns: OWN_DNS, expect: "refuse", refused_at: 1, why: "" }],
    ["public to public", { name: "", hops: [{ url: "https://site.example.com/d", status: 302, location: "https://other.example.org/e" }, { url: "https://other.example.org/e" }], dns: OWN_DNS, expect: "allow", why: "" }],
  ])("redirect %s", async (_name, row) => {
    await runRedirect("ssrf (own sample): redirects", row);
  });
});

const urlVectors = loadUrlVectors();
const dnsVectors = loadDnsVectors();

describe.skipIf(urlVectors === undefined)("SSRF through the whole HTTP API: ../shared/ssrf/url-vectors.json refuse rows", () => {
  const rows = (urlVectors ?? []).filter((row) => row.expect === "refuse");
  it.each(rows.map((row) => [row.why, row.url] as const))("%s", async (_why, url) => {
    await expectRefused("ssrf (shared): URL vectors", url);
  });
});

describe.skipIf(dnsVectors === undefined)("SSRF through the whole HTTP API: ../shared/ssrf/dns-vectors.json", () => {
  it.each((dnsVectors?.dns ?? []).map((row) => [`${row.host}: ${row.why}`, row] as const))("dns %s", async (_name, row) => {
    resolver.table = { [row.host]: row.error ? Object.assign(new Error(row.error), { code: row.error }) : (row.addresses ?? []) };
    try {
      if (row.expect === "allow") await expectAllowed("ssrf (shared): DNS vectors", row.url);
      else await expectRefused("ssrf (shared): DNS vectors", row.url);
    } finally {
      resolver.table = { ...OWN_DNS };
    }
  });

  it.each((dnsVectors?.rebinding ?? []).map((row) => [`${row.host}: ${row.why}`, row] as const))("rebinding %s", async (_name, row) => {
    await runRebinding("ssrf (shared): rebinding vectors", row);
  });

  it.each((dnsVectors?.redirects ?? []).map((row) => [row.name, row] as const))("redirect %s", async (_name, row) => {
    await runRedirect("ssrf (shared): redirect vectors", row);
  });
});

describe("malformed requests over HTTP: 400 with a code, never 500", () => {
  const json = { "content-type": "application/json" };
  const cases: Array<[string, string, { method?: string; body?: string; headers?: Record<string, string> }, string | undefined]> = [
    ["/fetch invalid JSON", "/fetch", { method: "POST", body: '{"url": "https://site.example.com/"', headers: json }, "body"],
    ["/search invalid JSON", "/search", { method: "POST", body: "{query:", headers: json }, "body"],
    ["/fetch JSON that is not an object", "/fetch", { method: "POST", body: '["https://site.example.com/"]', headers: json }, "body"],
    ["/fetch empty body", "/fetch", { method: "POST", body: "", headers: json }, "body"],
    ["/fetch wrong content type", "/fetch", { method: "POST", body: JSON.stringify({ url: "https://site.example.com/" }), headers: { "content-type": "text/plain" } }, "content-type"],
    ["/search wrong content type", "/search", { method: "POST", body: JSON.stringify({ query: "rivers" }), headers: { "content-type": "application/x-www-form-urlencoded" } }, "content-type"],
    ["/fetch no content type", "/fetch", { method: "POST", body: JSON.stringify({ url: "https://site.example.com/" }) }, "content-type"],
    ["/fetch unknown field", "/fetch", { method: "POST", body: JSON.stringify({ url: "https://site.example.com/", follow: true }), headers: json }, "follow"],
    ["/search unknown field", "/search", { method: "POST", body: JSON.stringify({ query: "rivers", safesearch: "off" }), headers: json }, "safesearch"],
    ["/fetch huge max_chars", "/fetch", { method: "POST", body: JSON.stringify({ url: "https://site.example.com/", max_chars: 1e12 }), headers: json }, "max_chars"],
    ["/fetch max_chars 1e308", "/fetch", { method: "POST", body: '{"url": "https://site.example.com/", "max_chars": 1e308}', headers: json }, "max_chars"],
    ["/fetch max_chars beyond a double", "/fetch", { method: "POST", body: '{"url": "https://site.example.com/", "max_chars": 1e400}', headers: json }, "max_chars"],
    ["/fetch negative start", "/fetch", { method: "POST", body: JSON.stringify({ url: "https://site.example.com/", start: -1 }), headers: json }, "start"],
    ["/fetch fractional start", "/fetch", { method: "POST", body: JSON.stringify({ url: "https://site.example.com/", start: 0.5 }), headers: json }, "start"],
    ["/fetch numeric url", "/fetch", { method: "POST", body: JSON.stringify({ url: 42 }), headers: json }, "url"],
    ["/fetch array url", "/fetch", { method: "POST", body: JSON.stringify({ url: ["https://site.example.com/"] }), headers: json }, "url"],
    ["/fetch object url", "/fetch", { method: "POST", body: JSON.stringify({ url: { href: "https://site.example.com/" } }), headers: json }, "url"],
    ["/fetch null url", "/fetch", { method: "POST", body: JSON.stringify({ url: null }), headers: json }, "url"],
    ["/fetch __proto__ field", "/fetch", { method: "POST", body: '{"url": "https://site.example.com/", "__proto__": {"max_chars": 5}}', headers: json }, undefined],
    ["/search numeric query", "/search", { method: "POST", body: JSON.stringify({ query: 12345 }), headers: json }, "query"],
    ["/search max_results huge", "/search", { method: "POST", body: JSON.stringify({ query: "rivers", max_results: 1e9 }), headers: json }, "max_results"],
    ["/search unknown provider", "/search", { method: "POST", body: JSON.stringify({ query: "rivers", provider: "bing" }), headers: json }, "provider"],
    ["GET /fetch negative start", "/fetch?url=https%3A%2F%2Fsite.example.com%2F&start=-5", {}, "start"],
    ["GET /fetch huge max_chars", "/fetch?url=https%3A%2F%2Fsite.example.com%2F&max_chars=99999999999999999999", {}, "max_chars"],
    ["GET /fetch url twice", "/fetch?url=https%3A%2F%2Fa.example.com%2F&url=https%3A%2F%2Fb.example.com%2F", {}, "url"],
    ["GET /fetch no url", "/fetch?start=0", {}, "url"],
  ];
  it.each(cases)("%s", async (_name, path, options, field) => {
    let handled = false;
    try {
      const res = await call(path, options);
      expect(res.status, res.text).toBe(400);
      expect(res.json.error.code).toBe("invalid_request");
      if (field !== undefined) expect(res.json.error.field).toBe(field);
      handled = true;
    } finally {
      record.abuse("malformed requests", handled);
    }
  });
});

describe("oversized requests over HTTP: 413 request_too_large, as API Gateway and WAF answer", () => {
  const json = { "content-type": "application/json" };
  const cases: Array<[string, string, string, string | undefined]> = [
    ["/fetch body over the handler's 16 KiB limit", "/fetch", JSON.stringify({ url: "https://site.example.com/", pad: "x".repeat(20_000) }), "body"],
    ["/fetch body over the server's 1 MiB limit", "/fetch", "x".repeat(1_100_000), undefined],
    ["/search body over the limit", "/search", JSON.stringify({ query: "q".repeat(30_000) }), "body"],
  ];
  it.each(cases)("%s", async (_name, path, body, field) => {
    let handled = false;
    try {
      const res = await call(path, { method: "POST", body, headers: json });
      expect(res.status, res.text).toBe(413);
      expect(res.json.error).toMatchObject({ code: "request_too_large", retryable: false });
      if (field !== undefined) expect(res.json.error.field).toBe(field);
      handled = true;
    } finally {
      record.abuse("malformed requests", handled);
    }
  });
});

/** Sends one raw HTTP/1.1 request head and returns the status line (or the socket error). */
function rawRequest(target: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect(api.port, "127.0.0.1", () => {
      socket.write(`GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: ${API_KEY}\r\nConnection: close\r\n\r\n`);
    });
    let data = "";
    socket.on("data", (chunk: Buffer) => (data += chunk.toString("latin1")));
    socket.on("close", () => {
      seen.push(data);
      resolve(data.split("\r\n")[0] ?? "");
    });
    socket.on("error", (error) => resolve(String(error)));
  });
}

describe("request targets the URL parser refuses: 400, and the server keeps serving", () => {
  it.each(["http://[", "http://a:99999/fetch", "http://[::1/fetch"])("GET %s", async (target) => {
    let handled = false;
    try {
      expect(await rawRequest(target)).toBe("HTTP/1.1 400 Bad Request");
      const next = await postJson("/fetch", { url: "https://site.example.com/", max_age: 0 });
      expect(next.status).toBe(200);
      handled = true;
    } finally {
      record.abuse("malformed request targets", handled);
    }
  });
});

describe("API keys on: requests without the right key are refused before any handler runs", () => {
  it.each([
    ["POST /fetch without a key", "/fetch", null],
    ["POST /fetch with a wrong key", "/fetch", "wg-wrong-key"],
    ["POST /fetch with the key's prefix", "/fetch", API_KEY.slice(0, -1)],
    ["POST /search without a key", "/search", null],
    ["GET /fetch without a key", "/fetch?url=https%3A%2F%2Fsite.example.com%2F", null],
  ] as const)("%s: 403", async (name, path, key) => {
    let handled = false;
    dialer.dials.length = 0;
    const before = brave.requests.length;
    try {
      const res = name.startsWith("GET")
        ? await call(path, { key })
        : await call(path, { method: "POST", key, body: JSON.stringify(path === "/search" ? { query: "rivers" } : { url: "https://site.example.com/" }), headers: { "content-type": "application/json" } });
      expect(res.status).toBe(403);
      expect(res.json).toEqual({ message: "Forbidden" });
      expect(dialer.dials).toHaveLength(0);
      expect(brave.requests.length).toBe(before);
      handled = true;
    } finally {
      record.abuse("missing or wrong API key", handled);
    }
  });

  it("the right key works (control)", async () => {
    const res = await postJson("/search", { query: "rivers" });
    expect(res.status).toBe(200);
    expect(brave.requests.at(-1)?.headers["x-subscription-token"]).toBe(BRAVE_KEY);
  });
});

describe("property tests: no generated request makes a handler answer 500", () => {
  // The handlers themselves (no HTTP), sharing this file's DNS table, origin and page store.
  const anyValue = fc.oneof(fc.string(), fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.array(fc.string(), { maxLength: 2 }), fc.dictionary(fc.string(), fc.string(), { maxKeys: 2 }));
  const urlValue = fc.oneof(
    fc.constantFrom("https://site.example.com/", "http://site.example.com/p?q=1", "https://private.example.net/", "http://127.0.0.1/", "https://nxdomain.example.net/", "file:///etc/passwd", ""),
    fc.webUrl({ withQueryParameters: true, withFragments: true }),
    fc.string(),
    anyValue,
  );
  const numberish = fc.oneof(fc.integer({ min: -10, max: 200_000 }), fc.double(), fc.constantFrom(0, 1_000, 100_000, 86_400, -1, 1e308, Number.MAX_SAFE_INTEGER), anyValue);
  const fetchBody = fc.record(
    {
      url: urlValue,
      start: numberish,
      max_chars: numberish,
      max_age: numberish,
      snapshot_id: fc.oneof(fc.stringMatching(/^[A-Za-z0-9_-]{1,64}$/), anyValue),
      main_content: fc.oneof(fc.boolean(), anyValue),
      extra: anyValue,
    },
    { requiredKeys: [] },
  );
  const searchBody = fc.record(
    {
      query: fc.oneof(fc.string({ minLength: 0, maxLength: 450 }), fc.stringMatching(/^[A-Za-z0-9+/_=-]{35,60}$/), anyValue),
      max_results: numberish,
      provider: fc.oneof(fc.constantFrom("brave", "tavily", "searxng"), anyValue),
      extra: anyValue,
    },
    { requiredKeys: [] },
  );
  const rawBody = fc.oneof(fc.string(), fc.json(), fc.constantFrom("{", "null", "[]", '"x"', "1e999"));

  async function neverFails(group: string, handler: (e: ReturnType<typeof apiGatewayEvent>, c: ReturnType<typeof lambdaContext>) => Promise<{ statusCode: number; body: string }>, path: string, body: fc.Arbitrary<unknown>, raw: boolean) {
    let tried = 0;
    let handled = 0;
    try {
      await fc.assert(
        fc.asyncProperty(body, async (value) => {
          tried += 1;
          const text = raw ? (value as string) : JSON.stringify(value);
          const res = await handler(apiGatewayEvent({ method: "POST", path, body: text, headers: { "content-type": "application/json" } }), lambdaContext());
          seen.push(res.body);
          if (value !== null && typeof value === "object" && typeof (value as { url?: unknown }).url === "string") sentUrls.push((value as { url: string }).url);
          const parsed = JSON.parse(res.body) as { error?: { code?: string } };
          expect(res.statusCode, res.body).not.toBe(500);
          if (res.statusCode !== 200) expect(typeof parsed.error?.code).toBe("string");
          handled += 1;
        }),
        { numRuns: 200, seed: 7 },
      );
    } finally {
      // Each generated input counts as one abuse input.
      for (let i = 0; i < tried; i += 1) record.abuse(group, i < handled);
    }
  }

  it("/fetch: 200 generated bodies", async () => {
    const dynamo = createDynamoClient({ endpoint: api.dynamoEndpoint });
    const handler = createFetchHandler({
      config: loadConfig({ [ENV.TABLE_NAME]: "webgate-pages", [ENV.FETCH_TIMEOUT_MS]: "2000", [ENV.ROBOTS]: "ignore" }),
      dynamo,
      resolver,
      dialer,
      clock: new ManualClock(),
      telemetry,
    });
    try {
      await neverFails("property: /fetch bodies", handler, "/fetch", fetchBody, false);
      await neverFails("property: raw bodies", handler, "/fetch", rawBody, true);
    } finally {
      dynamo.destroy();
    }
  }, 120_000);

  it("/search: 200 generated bodies", async () => {
    const handler = createSearchHandler({
      config: loadConfig({ [ENV.BRAVE_API_KEY]: BRAVE_KEY, [ENV.BRAVE_ENDPOINT]: `${brave.base}/res/v1/web/search` }),
      resolver: { resolve: () => Promise.reject(new Error("providers are addressed by IP literal")) },
      limits: { timeoutMs: 2_000, connectTimeoutMs: 500, maxBytes: 2 * 1024 * 1024 },
      telemetry,
    });
    await neverFails("property: /search bodies", handler, "/search", searchBody, false);
  }, 120_000);
});
