/**
 * fetchPage on its own, with real parts around it: the guarded client over a loopback origin
 * (names resolved by a fake resolver, dials routed to loopback), the snapshot cache on dynalite,
 * and recording stand-ins for the two adapters that have their own suites (robots.txt, the
 * browser renderer).
 */
import type http from "node:http";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { DynamoPageStore } from "../../../../shared/cache/dynamo-page-store";
import { SnapshotCache } from "../../../../shared/cache/snapshot-cache";
import { fetchPage, type FetchServiceDeps } from "../../../../shared/fetch/fetch-service";
import { fetchRequestSchema, type FetchRequest } from "../../../../shared/fetch/schema";
import { createGuardedClient } from "../../../../shared/guard/guarded-get";
import { resolvePolicy } from "../../../../shared/guard/policy";
import { createHttpClient } from "../../../../shared/http/http-client";
import type { RenderedPage } from "../../../../shared/render/renderer";
import { createTestTable, startTestDynamo, type LocalDynamo } from "../../../helpers/dynalite";
import { expectWebgateError } from "../../../helpers/expect-error";
import { ManualClock } from "../../../helpers/fetch-app";
import { startOrigin, type Origin } from "../../../helpers/origin";
import { MapResolver, RoutingDialer } from "../../../helpers/test-network";

type Route = (req: http.IncomingMessage, res: http.ServerResponse) => void;
let routes: Record<string, Route> = {};
let origin: Origin;
let dynamo: LocalDynamo;
let deps: FetchServiceDeps;
let clock: ManualClock;
let robotsChecked: string[];
let renders: { url: string; budgetMs: number | undefined }[];
let renderAnswer: RenderedPage | undefined;

const ARTICLE = `<!doctype html><html><head><title>Field notes</title></head><body><article><h1>Field notes</h1>${"<p>Sentences about the weather on the coast, written out at length so that it reads as an article.</p>".repeat(30)}</article></body></html>`;
const SHELL = `<!doctype html><html><head><title>App</title><script src="/app.js"></script></head><body><div id="root"></div></body></html>`;

const page = (body: string, type = "text/html; charset=utf-8", status = 200, headers: Record<string, string> = {}): Route => (_req, res) => {
  res.writeHead(status, { "content-type": type, ...headers }).end(body);
};
const request = (input: Record<string, unknown>): FetchRequest => fetchRequestSchema.parse(input);

beforeAll(async () => {
  origin = await startOrigin((req, res) => {
    const route = routes[req.url ?? ""];
    if (route) route(req, res);
    else res.writeHead(404, { "content-type": "text/plain" }).end("missing");
  });
  dynamo = await startTestDynamo();
});
afterAll(async () => {
  await origin.close();
  await dynamo.close();
});
beforeEach(async () => {
  routes = {};
  robotsChecked = [];
  renders = [];
  renderAnswer = undefined;
  clock = new ManualClock();
  const resolver = new MapResolver({ "site.example.com": ["93.184.215.14"] });
  const policy = resolvePolicy({});
  const http = createHttpClient({ dialer: new RoutingDialer({ plain: origin.port }) });
  const store = new DynamoPageStore({ client: dynamo.client, tableName: await createTestTable(dynamo.client) });
  deps = {
    guarded: createGuardedClient({ http, resolver, policy, limits: { timeoutMs: 5_000, connectTimeoutMs: 1_000 } }),
    render: (url, budgetMs) => {
      renders.push({ url, budgetMs });
      return renderAnswer === undefined ? Promise.reject(new Error("no render scripted")) : Promise.resolve(renderAnswer);
    },
    cache: new SnapshotCache({ store, clock, logger: { warn: () => undefined }, ttlSeconds: 3_600, leaseMs: 5_000 }),
    clock,
    policy,
    robots: {
      check: (url) => {
        robotsChecked.push(url.href);
        return Promise.resolve();
      },
    },
    timeoutMs: 5_000,
    pdfMaxPages: 10,
  };
});

describe("fetchPage", () => {
  it("a miss answers the page with what the fetch learned and the origin's figures; a repeat is a hit without them", async () => {
    routes["/notes"] = page(ARTICLE);
    const first = await fetchPage(request({ url: "http://SITE.example.com./notes#top", max_chars: 1_000 }), deps);
    expect(first.body).toMatchObject({
      url: "https://site.example.com/notes",
      final_url: "https://site.example.com/notes",
      redirects: [],
      status: 200,
      content_type: "text/html",
      charset: "UTF-8",
      title: "Field notes",
      extractor: "readability",
      truncated: false,
      origin_tokens: null,
      format: "markdown",
      start: 0,
      rendered: false,
      cache: "miss",
    });
    expect(first.body.content.startsWith("# Field notes")).toBe(true);
    expect(first.body.snapshot.age_s).toBe(0);
    expect(first.observation).toMatchObject({ cache: "miss", finalHost: "site.example.com", urlSecret: undefined });
    expect(first.observation.originBytes).toBe(Buffer.byteLength(ARTICLE));
    expect(first.observation.originMs).toBeGreaterThanOrEqual(0);
    expect(robotsChecked).toEqual(["https://site.example.com/notes"]);

    clock.advance(42);
    const again = await fetchPage(request({ url: "https://site.example.com/notes", max_chars: 1_000 }), deps);
    expect(again.body).toMatchObject({ cache: "hit", snapshot: { id: first.body.snapshot.id, age_s: 42 } });
    expect(again.observation).toMatchObject({ cache: "hit", originMs: undefined, originBytes: undefined });
  });

  it("pages by start and next_start, and snapshot_id reads exactly that snapshot after the page changed", async () => {
    routes["/notes"] = page(ARTICLE);
    const first = await fetchPage(request({ url: "https://site.example.com/notes", max_chars: 1_000, format: "text" }), deps);
    const total = first.body.total_chars;
    expect(total).toBeGreaterThan(1_000);
    expect(first.body).toMatchObject({ start: 0, end: 1_000, next_start: 1_000 });
    routes["/notes"] = page("<title>Changed</title><p>Something else entirely.</p>");
    const next = await fetchPage(request({ url: "https://site.example.com/notes", max_chars: 100_000, format: "text", start: 1_000, snapshot_id: first.body.snapshot.id, max_age: 0 }), deps);
    expect(next.body).toMatchObject({ start: 1_000, end: total, next_start: null, cache: "hit", title: "Field notes" });
    const beyond = await expectWebgateError(fetchPage(request({ url: "https://site.example.com/notes", format: "text", start: total + 1, snapshot_id: first.body.snapshot.id }), deps));
    expect(beyond).toMatchObject({ code: "invalid_request", details: { field: "start", total_chars: total } });
  });

  it("a snapshot belongs to its format: text after markdown is a miss of its own", async () => {
    routes["/notes"] = page(ARTICLE);
    await fetchPage(request({ url: "https://site.example.com/notes" }), deps);
    const text = await fetchPage(request({ url: "https://site.example.com/notes", format: "text" }), deps);
    expect(text.body).toMatchObject({ cache: "miss", format: "text" });
    expect(text.body.content.startsWith("Field notes")).toBe(true);
  });

  it("refuses a URL the policy refuses before the cache or the network, whatever is stored", async () => {
    const before = origin.requests.length;
    const error = await expectWebgateError(fetchPage(request({ url: "https://10.0.0.1/" }), deps));
    expect(error.code).toBe("address_not_allowed");
    expect(robotsChecked).toEqual([]);
    expect(origin.requests.length).toBe(before);
  });

  it.each([
    ["off", undefined, undefined],
    ["flag", "hex-run", ["url_looks_like_secret"]],
  ] as const)("URL secret check %s: fetched, warned as configured", async (mode, rule, warnings) => {
    routes["/notes?token=0123456789abcdef0123456789abcdef01234567"] = page(ARTICLE);
    const { body, observation } = await fetchPage(request({ url: "https://site.example.com/notes?token=0123456789abcdef0123456789abcdef01234567" }), { ...deps, urlSecretCheck: mode });
    expect(observation.urlSecret).toBe(rule);
    expect(body.warnings).toEqual(warnings);
  });

  it("URL secret check refuse: refused before anything is requested", async () => {
    const before = origin.requests.length;
    const error = await expectWebgateError(fetchPage(request({ url: "https://site.example.com/notes?token=0123456789abcdef0123456789abcdef01234567" }), { ...deps, urlSecretCheck: "refuse" }));
    expect(error.code).toBe("url_looks_like_secret");
    expect(origin.requests.length).toBe(before);
    expect(robotsChecked).toEqual([]);
  });

  it.each([
    [404, false],
    [429, true],
    [503, true],
  ])("an origin status %i is upstream_status (retryable %s), and nothing is stored", async (status, retryable) => {
    routes["/gone"] = page("<title>x</title>nope", "text/html", status);
    const error = await expectWebgateError(fetchPage(request({ url: "https://site.example.com/gone" }), deps));
    expect(error).toMatchObject({ code: "upstream_status", retryable, details: { upstream_status: status } });
    routes["/gone"] = page(ARTICLE);
    expect((await fetchPage(request({ url: "https://site.example.com/gone" }), deps)).body.cache).toBe("miss");
  });

  it("the site's own Markdown keeps its token count", async () => {
    routes["/guide"] = page("# Guide\n\nRead me.\n", "text/markdown; charset=utf-8", 200, { "x-markdown-tokens": "321" });
    const { body } = await fetchPage(request({ url: "https://site.example.com/guide" }), deps);
    expect(body).toMatchObject({ extractor: "origin-markdown", origin_tokens: 321, title: "Guide", content: "# Guide\n\nRead me.\n" });
  });

  it('render "auto" renders an application shell, with the normalized URL and a budget within the deadline; the rendered snapshot is its own', async () => {
    routes["/app"] = page(SHELL);
    renderAnswer = {
      url: "https://site.example.com/app",
      finalUrl: "https://site.example.com/app",
      redirects: [],
      status: 200,
      contentType: "text/html; charset=utf-8",
      body: Buffer.from(ARTICLE),
      rendered: true,
      truncated: "render_wait",
      proxyBytes: 777,
      elapsedMs: 55,
    };
    const plain = await expectWebgateError(fetchPage(request({ url: "https://site.example.com/app" }), deps));
    expect(plain).toMatchObject({ code: "no_readable_content", details: { reason: "js_required" } });
    expect(renders).toEqual([]);

    const { body, observation } = await fetchPage(request({ url: "http://site.example.com/app", render: "auto" }), deps);
    expect(renders).toEqual([{ url: "https://site.example.com/app", budgetMs: undefined }]);
    expect(body).toMatchObject({ rendered: true, truncated: true, title: "Field notes", cache: "miss" });
    expect(observation).toMatchObject({ originMs: 55, originBytes: 777 });
  });

  it('render "always" skips the plain fetch and fails as the renderer does', async () => {
    routes["/app"] = page(ARTICLE);
    const before = origin.requests.length;
    await expect(fetchPage(request({ url: "https://site.example.com/app", render: "always" }), deps)).rejects.toThrow("no render scripted");
    expect(renders).toHaveLength(1);
    expect(origin.requests.length).toBe(before);
  });
});
