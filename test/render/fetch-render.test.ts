/**
 * `render` end to end with a real Chromium behind the guarded proxy, the two ways webgate is
 * run:
 * - in AWS: the fetch function's whole middy handler fed API Gateway events (the real page store
 *   on the DynamoDB emulator), rendering through the real Lambda client, which invokes the render
 *   function's handler behind a loopback stand-in speaking Lambda's Invoke wire format;
 * - `npm start`: the local server's HTTP API, rendering with the browser in process.
 * The same application shell (its text written by a script) gives `no_readable_content` /
 * `js_required` without rendering, and the text with `auto` and `always`; a page that never
 * settles gives what was rendered, marked `truncated`.
 */
import type http from "node:http";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startLocalApi, type LocalApi } from "../../scripts/lib/local-api";
import { loadConfig } from "../../shared/config";
import { createFetchHandler, fetchPolicy } from "../../shared/fetch/fetch-route";
import { createMemoryTelemetry } from "../../shared/observability/telemetry";
import { createLambdaClient, createLambdaRenderer } from "../../shared/render/lambda-renderer";
import { createRenderHandler } from "../../shared/render/render-route";
import { apiGatewayEvent, lambdaContext } from "../helpers/apigw-event";
import { createTestTable, startTestDynamo, type LocalDynamo } from "../helpers/dynalite";
import { ManualClock } from "../helpers/fetch-app";
import { startLambdaStandIn, type LambdaStandIn } from "../helpers/lambda-stand-in";
import { PRIVATE_ADDRESS, TEST_CHROMIUM, html } from "../helpers/render-world";
import { describeWithBrowser, useRenderSuite, type RenderSuite } from "../helpers/render-suite";

const SHELL = `<!doctype html><html><head><title>Shell app</title><script src="/app.js" defer></script></head>
<body><div id="root"></div><noscript>You need to enable JavaScript to run this app.</noscript></body></html>`;
const ARTICLE = `'<article><h1>Rendered article</h1>' +
  '<p>' + 'This text only exists after the application script has run in a browser. '.repeat(8) + '</p>' +
  '<p>' + 'A second paragraph, also written by the script, so the article is long enough. '.repeat(8) + '</p></article>'`;
const APP_JS = `document.getElementById('root').innerHTML = ${ARTICLE};`;
// The same shell, then a request every 100 ms for as long as the page lives: the network never
// goes idle, so the DOM is read when the render wait runs out.
const RESTLESS_JS = `${APP_JS}\nsetInterval(() => fetch('/tick'), 100);`;

/** What both ways of running webgate answer a /fetch body with. */
type Call = (body: object) => Promise<{ status: number; json: any }>;

const ENV = { WEBGATE_FETCH_TIMEOUT_MS: "15000", WEBGATE_RENDER_WAIT_MS: "1500" };

function serveApp(suite: RenderSuite): void {
  const js = (source: string) => (_req: http.IncomingMessage, res: http.ServerResponse) => {
    res.writeHead(200, { "content-type": "text/javascript" });
    res.end(source);
  };
  suite.world.serve("/shell", html(SHELL));
  suite.world.serve("/app.js", js(APP_JS));
  suite.world.serve("/restless", html(SHELL.replace("/app.js", "/restless.js")));
  suite.world.serve("/restless.js", js(RESTLESS_JS));
  suite.world.serve("/tick", (_req, res) => {
    res.writeHead(200, { "content-type": "text/plain" });
    res.end("tick");
  });
}

/** The assertions both ways must pass; `host` keeps each way's snapshots apart. */
function renderContract(host: string, call: () => Call, extra: () => { renders(): number }) {
  const url = (path: string) => `https://${host}${path}`;

  it('"never" answers 422 no_readable_content, reason js_required, without rendering', async () => {
    const before = extra().renders();
    const plain = await call()({ url: url("/shell"), render: "never" });
    expect(plain.status).toBe(422);
    expect(plain.json.error).toMatchObject({ code: "no_readable_content", reason: "js_required", retryable: false });
    expect(extra().renders()).toBe(before);
  });

  it('"auto" renders the shell after the plain fetch found it needs JavaScript', async () => {
    const before = extra().renders();
    const auto = await call()({ url: url("/shell"), render: "auto" });
    expect(auto.status).toBe(200);
    expect(auto.json).toMatchObject({ rendered: true, truncated: false, status: 200, title: "Shell app", cache: "miss", final_url: url("/shell") });
    expect(auto.json.content).toContain("# Rendered article");
    expect(auto.json.content).toContain("only exists after the application script");
    expect(auto.json.content).not.toContain("truncated");
    expect(extra().renders()).toBe(before + 1);
  });

  it('"always" renders, as its own snapshot, served again from the store', async () => {
    const rendered = await call()({ url: url("/shell"), render: "always" });
    expect(rendered.status).toBe(200);
    expect(rendered.json).toMatchObject({ rendered: true, truncated: false, title: "Shell app", cache: "miss" });
    expect(rendered.json.content).toContain("only exists after the application script");
    const auto = await call()({ url: url("/shell"), render: "auto" });
    expect(auto.json.snapshot.id).not.toBe(rendered.json.snapshot.id);
    const before = extra().renders();
    const again = await call()({ url: url("/shell"), render: "always" });
    expect(again.json).toMatchObject({ cache: "hit", rendered: true, snapshot: { id: rendered.json.snapshot.id, sha256: rendered.json.snapshot.sha256 } });
    expect(extra().renders()).toBe(before);
  });

  it("answers a page that never settles with what was rendered, truncated, saying why at the end", async () => {
    const markdown = await call()({ url: url("/restless"), render: "always" });
    expect(markdown.status).toBe(200);
    expect(markdown.json).toMatchObject({ rendered: true, truncated: true });
    expect(markdown.json.content).toContain("only exists after the application script");
    expect(markdown.json.content).toMatch(/\n\n<!-- truncated: render_wait: [^\n]*WEBGATE_RENDER_WAIT_MS[^\n]* -->\n$/);
    const text = await call()({ url: url("/restless"), render: "always", format: "text" });
    expect(text.json).toMatchObject({ rendered: true, truncated: true, format: "text" });
    expect(text.json.content).toMatch(/\n\n\[truncated: render_wait: [^\n]*\]\n$/);
    expect(text.json.content).not.toContain("<!--");
  });

  it("refuses a top-level URL with the guard's own error, as a plain fetch does", async () => {
    const plain = await call()({ url: "https://private.example.com/", render: "never" });
    const rendered = await call()({ url: "https://private.example.com/", render: "always" });
    expect(plain.status).toBe(403);
    expect(rendered.status).toBe(403);
    expect(rendered.json.error).toMatchObject({ code: "address_not_allowed", reason: "resolves-to-refused-address" });
    expect(rendered.json.error.code).toBe(plain.json.error.code);
    expect(JSON.stringify(rendered.json)).not.toContain(PRIVATE_ADDRESS);
  });

  it("rejects an unknown render mode", async () => {
    const bad = await call()({ url: url("/shell"), render: "sometimes" });
    expect(bad.status).toBe(400);
    expect(bad.json.error.code).toBe("invalid_request");
  });
}

describeWithBrowser("render through the Lambda handlers: the fetch function invokes the render function", () => {
  const suite = useRenderSuite({ "private.example.com": [[PRIVATE_ADDRESS]] });
  let dynamo: LocalDynamo;
  let lambda: LambdaStandIn;
  let call: Call;

  beforeAll(async () => {
    serveApp(suite);
    dynamo = await startTestDynamo();
    const config = loadConfig({ ...ENV, WEBGATE_TABLE_NAME: await createTestTable(dynamo.client), WEBGATE_RENDER_FUNCTION_NAME: "webgate-render" });
    // The render function's handler, as functions/render/handler.ts wires it (its Chromium is
    // the suite's instead of @sparticuz/chromium's).
    const renderFunction = createRenderHandler({ renderer: suite.renderer(), policy: fetchPolicy(config), telemetry: createMemoryTelemetry() });
    lambda = await startLambdaStandIn((payload) => renderFunction(payload));
    const handler = createFetchHandler({
      config,
      dynamo: dynamo.client,
      resolver: suite.world.resolver,
      dialer: suite.world.dialer,
      clock: new ManualClock(),
      telemetry: createMemoryTelemetry(),
      renderer: createLambdaRenderer({
        client: createLambdaClient({ endpoint: lambda.endpoint, requestTimeoutMs: 60_000 }),
        functionName: config.render.functionName!,
        maxBodyBytes: config.fetch.maxResponseBytes,
      }),
    });
    call = async (body) => {
      const res = await handler(apiGatewayEvent({ path: "/fetch", method: "POST", body }), lambdaContext());
      return { status: res.statusCode, json: JSON.parse(res.body) };
    };
  });
  afterAll(async () => {
    await lambda?.close();
    await dynamo?.close();
  });

  renderContract("lambda.example.com", () => call, () => ({ renders: () => lambda.events.filter((e) => e === "invoke webgate-render").length }));
});

describeWithBrowser("render through the local server's HTTP API (npm start)", () => {
  const suite = useRenderSuite({ "private.example.com": [[PRIVATE_ADDRESS]] });
  let api: LocalApi;
  let renders = 0;

  beforeAll(async () => {
    serveApp(suite);
    const renderer = suite.renderer();
    api = await startLocalApi({
      env: ENV,
      port: 0,
      resolver: suite.world.resolver,
      dialer: suite.world.dialer,
      // The suite's browser (the suite closes it), counted.
      renderer: {
        executable: TEST_CHROMIUM,
        render: (request, options) => {
          renders += 1;
          return renderer.render(request, options);
        },
        close: () => Promise.resolve(),
      },
      telemetry: createMemoryTelemetry(),
      log: () => undefined,
    });
  });
  afterAll(async () => {
    await api?.close();
  });

  const call: Call = async (body) => {
    const res = await fetch(`${api.url}/fetch`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    return { status: res.status, json: await res.json() };
  };
  renderContract("local.example.com", () => call, () => ({ renders: () => renders }));

  it("answers GET /fetch?render=auto the same way", async () => {
    const res = await fetch(`${api.url}/fetch?${new URLSearchParams({ url: "https://get.example.com/shell", render: "auto" }).toString()}`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ rendered: true, title: "Shell app" });
  });
});
