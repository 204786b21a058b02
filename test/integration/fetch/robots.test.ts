import type http from "node:http";
import { ScanCommand } from "@aws-sdk/client-dynamodb";
import { beforeEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../../shared/config";
import { createFetchHandler } from "../../../shared/fetch/fetch-route";
import { ROBOTS_PARSE_LIMIT_BYTES } from "../../../shared/robots/robots-policy";
import { createMemoryTelemetry } from "../../../shared/observability/telemetry";
import { apiGatewayEvent, lambdaContext } from "../../helpers/apigw-event";
import { html, respond, useFetchApp, type FetchApp } from "../../helpers/fetch-app";
import { startOrigin } from "../../helpers/origin";
import { createNetDialer } from "../../../shared/http/net-dialer";

const fx = useFetchApp();
let app: FetchApp;

/** robots.txt per host name (the one loopback origin serves every test host). */
let robots: Record<string, (req: http.IncomingMessage, res: http.ServerResponse) => void>;

const text = (body: string | Buffer, status = 200) => respond("text/plain", body, {}, status);

async function start(env: Record<string, string> = {}) {
  app = await fx.restart({ WEBGATE_ROBOTS: "respect", ...env });
  robots = {};
  const site = {
    "/robots.txt": (req: http.IncomingMessage, res: http.ServerResponse) => {
      const route = robots[(req.headers.host ?? "").replace(/:\d+$/, "")];
      if (route) route(req, res);
      else res.writeHead(404, { "content-type": "text/html" }).end("no robots here");
    },
  };
  const page = html("<title>Page</title><article><h1>Page</h1><p>Some readable text for the page body here.</p></article>");
  for (const path of ["/", "/public", "/private/x", "/doc.pdf", "/doc.pdf?x=1", "/axxb", "/early", "/late", "/x", "/secret", "/p1", "/p2", "/p3", "/p4", "/p5"]) {
    (site as Record<string, unknown>)[path] = page;
  }
  app.setSite(site);
  return site as Record<string, (req: http.IncomingMessage, res: http.ServerResponse) => void>;
}

const robotsRequests = () => app.origin.requests.filter((r) => r.url === "/robots.txt");
const pageRequests = (path: string) => app.origin.requests.filter((r) => r.url === path);

beforeEach(async () => {
  await start();
});

describe("robots.txt (RFC 9309) through the /fetch handler", () => {
  it("allows what the rules allow and refuses a disallowed path with 403 robots_disallowed, naming the rule", async () => {
    robots["site.example.com"] = text("User-agent: *\nDisallow: /private # members only\n");
    expect((await app.post({ url: "https://site.example.com/public" })).res.statusCode).toBe(200);
    const { res, json } = await app.post({ url: "https://site.example.com/private/x" });
    expect(res.statusCode).toBe(403);
    expect(json.error).toMatchObject({ code: "robots_disallowed", retryable: false, rule: "/private", host: "site.example.com" });
    expect(json.error.message).toContain('"Disallow: /private"');
    expect(pageRequests("/private/x")).toHaveLength(0);
    // The robots.txt request carried the usual User-Agent, product token included.
    expect(robotsRequests()[0]!.headers["user-agent"]).toMatch(/^webgate\//);
  });

  it("uses the webgate group over the * group", async () => {
    robots["site.example.com"] = text("User-agent: *\nDisallow: /\n\nUser-agent: WebGate\nAllow: /\n");
    expect((await app.post({ url: "https://site.example.com/public" })).res.statusCode).toBe(200);
    robots["other.example.org"] = text("User-agent: *\nAllow: /\n\nUser-agent: webgate/2.0\nDisallow: /x\n");
    expect((await app.post({ url: "https://other.example.org/x" })).json.error.code).toBe("robots_disallowed");
  });

  it.each([
    ["/doc.pdf", "Disallow: /*.pdf$", 403],
    ["/doc.pdf?x=1", "Disallow: /*.pdf$", 200],
    ["/axxb", "Disallow: /a*b", 403],
    ["/public", "Disallow: /p\nAllow: /pub", 200],
    ["/public", "Disallow: /public\nAllow: /public", 200],
    ["/public", "Disallow:", 200],
  ])("%s under %j → %i", async (path, rules, status) => {
    robots["site.example.com"] = text(`User-agent: *\n${rules}\n`);
    expect((await app.post({ url: `https://site.example.com${path}` })).res.statusCode).toBe(status);
  });

  it.each([404, 401, 403, 410])("allows everything when robots.txt answers %i", async (status) => {
    robots["site.example.com"] = text("User-agent: *\nDisallow: /", status);
    expect((await app.post({ url: "https://site.example.com/private/x" })).res.statusCode).toBe(200);
  });

  it.each([500, 503])("disallows everything when robots.txt answers %i: 503 robots_unavailable, retryable", async (status) => {
    robots["site.example.com"] = text("oops", status);
    const { res, json } = await app.post({ url: "https://site.example.com/public" });
    expect(res.statusCode).toBe(503);
    expect(json.error).toMatchObject({ code: "robots_unavailable", retryable: true });
    expect(pageRequests("/public")).toHaveLength(0);
  });

  it("disallows everything when robots.txt times out", async () => {
    await start({ WEBGATE_FETCH_TIMEOUT_MS: "1000" });
    robots["site.example.com"] = () => undefined;
    const { res, json } = await app.post({ url: "https://site.example.com/public" });
    expect(res.statusCode).toBe(503);
    expect(json.error.code).toBe("robots_unavailable");
    expect(json.error.message).toContain("upstream_timeout");
  });

  it("disallows everything when the robots.txt host cannot be reached", async () => {
    // A port nothing listens on: the connection is refused.
    const closed = await startOrigin(() => undefined);
    await closed.close();
    const net = createNetDialer();
    app.dialer.dial = (target) => net.dial({ ...target, addresses: ["127.0.0.1"], port: closed.port, tls: false });
    const { res, json } = await app.post({ url: "https://site.example.com/public" });
    expect(res.statusCode).toBe(503);
    expect(json.error.code).toBe("robots_unavailable");
  });

  it("follows robots.txt's own redirects, and allows everything past five hops", async () => {
    const site = await start();
    robots["site.example.com"] = (_req, res) => res.writeHead(301, { location: "/robots-real.txt" }).end();
    site["/robots-real.txt"] = text("User-agent: *\nDisallow: /x\n");
    expect((await app.post({ url: "https://site.example.com/x" })).json.error?.code).toBe("robots_disallowed");

    robots["other.example.org"] = (_req, res) => res.writeHead(302, { location: "/r1" }).end();
    for (let i = 1; i <= 6; i++) site[`/r${i}`] = (_req, res) => res.writeHead(302, { location: `/r${i + 1}` }).end();
    site["/r7"] = text("User-agent: *\nDisallow: /\n");
    expect((await app.post({ url: "https://other.example.org/x" })).res.statusCode).toBe(200);
    // robots.txt → r1 … r5 are five redirects; the sixth (to r6) is not followed.
    expect(pageRequests("/r5")).toHaveLength(1);
    expect(pageRequests("/r6")).toHaveLength(0);
  });

  it("parses only the first 500 KiB of a huge robots.txt", async () => {
    const filler = `# ${"x".repeat(1000)}\n`;
    const before = "User-agent: *\nDisallow: /early\n";
    const padding = filler.repeat(Math.ceil(ROBOTS_PARSE_LIMIT_BYTES / filler.length));
    robots["site.example.com"] = text(`${before}${padding}Disallow: /late\n`);
    expect((await app.post({ url: "https://site.example.com/early" })).res.statusCode).toBe(403);
    expect((await app.post({ url: "https://site.example.com/late" })).res.statusCode).toBe(200);
  });

  it("parses the first 500 KiB of a robots.txt larger than the response size limit instead of allowing everything", async () => {
    // A page limit far below the file: the robots.txt request has its own (RFC 9309 §2.5).
    await start({ WEBGATE_MAX_RESPONSE_BYTES: "65536" });
    const filler = `# ${"x".repeat(1000)}\n`;
    const padding = filler.repeat(Math.ceil((2 * ROBOTS_PARSE_LIMIT_BYTES) / filler.length));
    robots["site.example.com"] = text(`User-agent: *\nDisallow: /early\n${padding}Disallow: /late\n`);
    const early = await app.post({ url: "https://site.example.com/early" });
    expect(early.res.statusCode).toBe(403);
    expect(early.json.error).toMatchObject({ code: "robots_disallowed", rule: "/early" });
    expect((await app.post({ url: "https://site.example.com/late" })).res.statusCode).toBe(200);
    expect(robotsRequests()).toHaveLength(1);
  });

  it("matches %7E in a rule against ~ in the URL, and the other way round", async () => {
    const site = await start();
    site["/~joe/"] = html("<title>Joe</title><p>Joe's page.</p>");
    site["/%7Eann/"] = html("<title>Ann</title><p>Ann's page.</p>");
    robots["site.example.com"] = text("User-agent: *\nDisallow: /%7Ejoe\nDisallow: /~ann\n");
    const joe = await app.post({ url: "https://site.example.com/~joe/" });
    expect(joe.res.statusCode).toBe(403);
    expect(joe.json.error).toMatchObject({ code: "robots_disallowed", rule: "/%7Ejoe" });
    const ann = await app.post({ url: "https://site.example.com/%7Eann/" });
    expect(ann.res.statusCode).toBe(403);
    expect(ann.json.error).toMatchObject({ code: "robots_disallowed", rule: "/~ann" });
    expect(pageRequests("/~joe/")).toHaveLength(0);
    expect(pageRequests("/%7Eann/")).toHaveLength(0);
  });

  it("checks a redirect to another host against that host's robots.txt before requesting it", async () => {
    const site = await start();
    site["/go"] = (_req, res) => res.writeHead(302, { location: "https://other.example.org/secret" }).end();
    robots["other.example.org"] = text("User-agent: *\nDisallow: /secret\n");
    const { res, json } = await app.post({ url: "https://site.example.com/go" });
    expect(res.statusCode).toBe(403);
    expect(json.error).toMatchObject({ code: "robots_disallowed", host: "other.example.org" });
    expect(pageRequests("/secret")).toHaveLength(0);
    expect(robotsRequests().map((r) => r.headers.host)).toEqual(["site.example.com", "other.example.org"]);
  });

  it("fetches robots.txt once per host per TTL, across concurrent requests and instances, and keeps it in the page table", async () => {
    robots["site.example.com"] = (_req, res) => setTimeout(() => res.writeHead(200, { "content-type": "text/plain" }).end("User-agent: *\nDisallow: /x\n"), 50);
    const second = createFetchHandler({
      // The default fetch limit, as the fixture's first instance has (test/helpers/fetch-app.ts).
      config: loadConfig({ WEBGATE_TABLE_NAME: fx.tableName }),
      dynamo: fx.dynamo.client,
      resolver: app.resolver,
      dialer: app.dialer,
      clock: app.clock,
      telemetry: createMemoryTelemetry(),
    });
    const viaSecond = (path: string) =>
      second(apiGatewayEvent({ path: "/fetch", method: "POST", body: { url: `https://site.example.com${path}` } }), lambdaContext());
    const answers = await Promise.all([
      ...["/p1", "/p2", "/p3"].map((p) => app.post({ url: `https://site.example.com${p}` })),
      ...["/p4", "/p5"].map(async (p) => ({ res: await viaSecond(p) })),
    ]);
    expect(answers.map((a) => a.res.statusCode)).toEqual([200, 200, 200, 200, 200]);
    expect(robotsRequests()).toHaveLength(1);
    const items = await fx.dynamo.client.send(new ScanCommand({ TableName: fx.tableName }));
    expect(items.Items!.filter((i) => i["sk"]?.S === "robots").map((i) => i["kind"]?.S)).toEqual(["rules"]);

    app.clock.advance(86_399);
    expect((await app.post({ url: "https://site.example.com/x" })).res.statusCode).toBe(403);
    expect(robotsRequests()).toHaveLength(1);
    app.clock.advance(2);
    expect((await app.post({ url: "https://site.example.com/public" })).res.statusCode).toBe(200);
    expect(robotsRequests()).toHaveLength(2);
  });

  it("keeps an unreachable robots.txt for two minutes only", async () => {
    robots["site.example.com"] = text("down", 503);
    expect((await app.post({ url: "https://site.example.com/public" })).res.statusCode).toBe(503);
    expect((await app.post({ url: "https://site.example.com/public" })).res.statusCode).toBe(503);
    expect(robotsRequests()).toHaveLength(1);
    robots["site.example.com"] = text("User-agent: *\nAllow: /\n");
    app.clock.advance(121);
    expect((await app.post({ url: "https://site.example.com/public" })).res.statusCode).toBe(200);
    expect(robotsRequests()).toHaveLength(2);
  });

  it("asks for no robots.txt with WEBGATE_ROBOTS=ignore", async () => {
    await start({ WEBGATE_ROBOTS: "ignore" });
    robots["site.example.com"] = text("User-agent: *\nDisallow: /\n");
    expect((await app.post({ url: "https://site.example.com/private/x" })).res.statusCode).toBe(200);
    expect(robotsRequests()).toHaveLength(0);
  });

  it("serves a stored snapshot without asking robots.txt again", async () => {
    robots["site.example.com"] = text("User-agent: *\nAllow: /\n");
    expect((await app.post({ url: "https://site.example.com/public" })).json.cache).toBe("miss");
    expect((await app.post({ url: "https://site.example.com/public" })).json.cache).toBe("hit");
    expect(robotsRequests()).toHaveLength(1);
  });
});
