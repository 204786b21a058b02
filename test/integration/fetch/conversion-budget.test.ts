/**
 * The conversion runs inside the request's time budget: a page too costly to convert within what
 * is left answers 502 `content_too_complex` (not retryable), in the Lambda handler (the budget is
 * the context's remaining time; conversion in process) and through the local server (the budget
 * is its invocation limit; conversion in a worker thread), never a Lambda timeout or a 500. The
 * same budget converts an ordinary page.
 *
 * And where the depth limit flattens a page, the answer says so: `truncated: true` and a closing
 * note, through both.
 *
 * The crafted page is a table of one-cell rows whose last cell is a credit line, 12 MB served
 * gzipped (a few KB on the wire) with the response cap raised to match, read with
 * `main_content: true`, the costliest shape and mode per byte: the credit line makes the
 * extractor judge the table's rows and cells one by one (a table whose parts all stay is kept
 * packed and costs a fifth of that; the plain one-cell rows, at about 0.8 s, no longer outlast
 * the budget), about 5 s of one idle core here, five times the ~1 s the limit leaves the
 * conversion, so a faster converter does not make it pass the budget (at 5 MB, twice the budget,
 * it would have after one more round of speed work; at 25 MB, reading the body alone outlasted
 * the limit on a loaded machine). The conversion stops at the budget, so the test
 * takes about the limit whatever the page's full cost. Load slows the crafted page and the
 * budget's share alike. Only outcomes are asserted.
 */
import zlib from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../../shared/config";
import { createFetchHandler } from "../../../shared/fetch/fetch-route";
import { createMemoryTelemetry } from "../../../shared/observability/telemetry";
import { createWorkerConverter } from "../../../shared/content/worker-converter";
import { startLocalApi, type LocalApi } from "../../../scripts/lib/local-api";
import { ORDINARY_SHAPE, PATHOLOGICAL_SHAPES } from "../../../scripts/lib/cost-shapes";
import { apiGatewayEvent, lambdaContext } from "../../helpers/apigw-event";
import { createTestTable, startTestDynamo, type LocalDynamo } from "../../helpers/dynalite";
import { ManualClock } from "../../helpers/fetch-app";
import { startOrigin, type Origin } from "../../helpers/origin";
import { MapResolver, RoutingDialer } from "../../helpers/test-network";

/** The invocation's time limit in these tests. */
const LIMIT_MS = 1_500;
/** The crafted page's size, and the response cap raised to let it through whole. */
const CRAFTED_BYTES = 12_000_000;
const MAX_RESPONSE_BYTES = String(13 * 1_048_576);

const crafted = zlib.gzipSync(PATHOLOGICAL_SHAPES.find((s) => s.name === "rows + a credit")!.make(CRAFTED_BYTES));
const article = ORDINARY_SHAPE.make(20_000);
const deep = `<title>Deep</title><p>Top.</p>${"<div>".repeat(1_000)}<p>Bottom sentence.</p>${"</div>".repeat(1_000)}`;
const NOTE = "<!-- truncated: elements nested deeper than 400 levels were flattened; their text is kept, their structure is not -->";

let dynamo: LocalDynamo;
let origin: Origin;
let api: LocalApi;
// Started before the test: a cold worker from source (through tsx) takes about as long as the limit.
const workers = createWorkerConverter();
const resolver = new MapResolver({ "site.example.com": ["93.184.215.14"] });

beforeAll(async () => {
  dynamo = await startTestDynamo();
  await workers.warm();
  origin = await startOrigin((req, res) => {
    if (req.url === "/crafted") res.writeHead(200, { "content-type": "text/html", "content-encoding": "gzip" }).end(crafted);
    else if (req.url === "/deep") res.writeHead(200, { "content-type": "text/html" }).end(deep);
    else res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(article);
  });
  api = await startLocalApi({
    env: { WEBGATE_TABLE_NAME: "webgate-pages", WEBGATE_ROBOTS: "ignore", WEBGATE_MAX_RESPONSE_BYTES: MAX_RESPONSE_BYTES },
    port: 0,
    resolver,
    dialer: new RoutingDialer({ plain: origin.port }),
    telemetry: createMemoryTelemetry(),
    log: () => undefined,
    invocationTimeoutMs: LIMIT_MS,
    converter: workers,
  });
});
afterAll(async () => {
  await api?.close();
  await workers.close();
  await origin?.close();
  await dynamo?.close();
});

const TOO_COMPLEX = { code: "content_too_complex", retryable: false, reason: "conversion_time_limit" };

describe("a page too costly for the budget", () => {
  it("answers 502 content_too_complex through the Lambda handler, and the same budget converts an ordinary page", async () => {
    const config = loadConfig({ WEBGATE_TABLE_NAME: await createTestTable(dynamo.client), WEBGATE_ROBOTS: "ignore", WEBGATE_MAX_RESPONSE_BYTES: MAX_RESPONSE_BYTES });
    const handler = createFetchHandler({ config, dynamo: dynamo.client, resolver, dialer: new RoutingDialer({ plain: origin.port }), clock: new ManualClock(), telemetry: createMemoryTelemetry() });
    const call = async (path: string, mainContent = false) => {
      const endsAt = performance.now() + LIMIT_MS;
      const res = await handler(
        apiGatewayEvent({ method: "POST", path: "/fetch", body: { url: `https://site.example.com${path}`, max_age: 0, main_content: mainContent } }),
        lambdaContext({ getRemainingTimeInMillis: () => Math.max(0, Math.floor(endsAt - performance.now())) }),
      );
      return { status: res.statusCode, json: JSON.parse(res.body) };
    };
    const tooComplex = await call("/crafted", true);
    expect(tooComplex.status).toBe(502);
    expect(tooComplex.json.error).toMatchObject(TOO_COMPLEX);
    const ordinary = await call("/article");
    expect(ordinary.status).toBe(200);
    expect(ordinary.json.content).toContain("# Rivers of the world");
    expect(ordinary.json.truncated).toBe(false);
    const flattened = await call("/deep");
    expect(flattened.status).toBe(200);
    expect(flattened.json).toMatchObject({ truncated: true });
    expect(flattened.json.content).toContain("Bottom sentence.");
    expect(flattened.json.content.endsWith(`${NOTE}\n`)).toBe(true);
  });

  it("answers 502 content_too_complex through the local server (worker thread), which then converts an ordinary page", async () => {
    const post = async (path: string, mainContent: boolean) => {
      const res = await fetch(`${api.url}/fetch`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ url: `https://site.example.com${path}`, max_age: 0, main_content: mainContent }),
      });
      return { status: res.status, json: (await res.json()) as { error?: Record<string, unknown>; content?: string; truncated?: boolean } };
    };
    const tooComplex = await post("/crafted", true);
    expect(tooComplex.status).toBe(502);
    expect(tooComplex.json.error).toMatchObject(TOO_COMPLEX);
    const ordinary = await post("/article", false);
    expect(ordinary.status).toBe(200);
    expect(ordinary.json.content).toContain("# Rivers of the world");
    const flattened = await post("/deep", false);
    expect(flattened.status).toBe(200);
    expect(flattened.json.truncated).toBe(true);
    expect(flattened.json.content?.endsWith(`${NOTE}\n`)).toBe(true);
  });
});
