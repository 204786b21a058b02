/**
 * `render` end to end: the whole /fetch handler (API Gateway events, the real page store on the
 * DynamoDB emulator) with a real Chromium behind the guarded proxy.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { loadConfig } from "../../shared/config";
import { createFetchHandler, fetchPolicy } from "../../shared/fetch/fetch-route";
import { createBrowserRenderer } from "../../shared/render/browser-renderer";
import { createMemoryTelemetry } from "../../shared/observability/telemetry";
import { apiGatewayEvent, lambdaContext } from "../helpers/apigw-event";
import { createTestTable, startTestDynamo, type LocalDynamo } from "../helpers/dynalite";
import { ManualClock } from "../helpers/fetch-app";
import { PRIVATE_ADDRESS, html } from "../helpers/render-world";
import { describeWithBrowser, useRenderSuite } from "../helpers/render-suite";

const SHELL = `<!doctype html><html><head><title>Shell app</title><script src="/app.js" defer></script></head>
<body><div id="root"></div><noscript>You need to enable JavaScript to run this app.</noscript></body></html>`;
const APP_JS = `document.getElementById('root').innerHTML = '<article><h1>Rendered article</h1>' +
  '<p>' + 'This text only exists after the application script has run in a browser. '.repeat(8) + '</p>' +
  '<p>' + 'A second paragraph, also written by the script, so the article is long enough. '.repeat(8) + '</p></article>';`;

describeWithBrowser("/fetch with render", () => {
  const suite = useRenderSuite({ "private.example.com": [[PRIVATE_ADDRESS]] });
  let dynamo: LocalDynamo;
  let call: (body: object) => Promise<{ status: number; json: any }>;

  beforeAll(async () => {
    dynamo = await startTestDynamo();
    const tableName = await createTestTable(dynamo.client);
    suite.world.serve("/shell", html(SHELL));
    suite.world.serve("/app.js", (_req, res) => {
      res.writeHead(200, { "content-type": "text/javascript" });
      res.end(APP_JS);
    });
    const config = loadConfig({ WEBGATE_TABLE_NAME: tableName, WEBGATE_FETCH_TIMEOUT_MS: "15000", WEBGATE_RENDER_WAIT_MS: "3000" });
    const renderer = createBrowserRenderer({ pool: suite.pool, resolver: suite.world.resolver, dialer: suite.world.dialer, policy: fetchPolicy(config) });
    const handler = createFetchHandler({
      config,
      dynamo: dynamo.client,
      resolver: suite.world.resolver,
      dialer: suite.world.dialer,
      clock: new ManualClock(),
      telemetry: createMemoryTelemetry(),
      renderer,
    });
    call = async (body) => {
      const res = await handler(apiGatewayEvent({ path: "/fetch", method: "POST", body }), lambdaContext());
      return { status: res.statusCode, json: JSON.parse(res.body) };
    };
  });
  afterAll(async () => {
    await dynamo?.close();
  });

  it('"always" answers the text the script wrote, rendered, as its own snapshot', async () => {
    const plain = await call({ url: "https://app.example.com/shell", render: "never" });
    const rendered = await call({ url: "https://app.example.com/shell", render: "always" });
    expect(rendered.status).toBe(200);
    expect(rendered.json).toMatchObject({ rendered: true, status: 200, title: "Shell app", cache: "miss", final_url: "https://app.example.com/shell" });
    expect(rendered.json.content).toContain("Rendered article");
    expect(rendered.json.content).toContain("only exists after the application script");
    if (plain.status === 200) {
      expect(plain.json.rendered).toBe(false);
      expect(plain.json.content).not.toContain("Rendered article");
      expect(plain.json.snapshot.id).not.toBe(rendered.json.snapshot.id);
    }
    // The rendered snapshot is served again from the store, still marked rendered.
    const again = await call({ url: "https://app.example.com/shell", render: "always" });
    expect(again.json).toMatchObject({ cache: "hit", rendered: true, snapshot: { id: rendered.json.snapshot.id, sha256: rendered.json.snapshot.sha256 } });
  });

  it("refuses a top-level URL with the guard's own error, as a plain fetch does", async () => {
    const plain = await call({ url: "https://private.example.com/", render: "never" });
    const rendered = await call({ url: "https://private.example.com/", render: "always" });
    expect(plain.status).toBe(403);
    expect(rendered.status).toBe(403);
    expect(rendered.json.error).toMatchObject({ code: "address_not_allowed", reason: "resolves-to-refused-address" });
    expect(rendered.json.error.code).toBe(plain.json.error.code);
    expect(JSON.stringify(rendered.json)).not.toContain(PRIVATE_ADDRESS);
  });

  it("rejects an unknown render mode", async () => {
    const bad = await call({ url: "https://app.example.com/shell", render: "sometimes" });
    expect(bad.status).toBe(400);
    expect(bad.json.error.code).toBe("invalid_request");
  });
});
