/**
 * `npm start` without a usable Chromium: `render` answers 503 render_unavailable saying how to
 * get one, and everything else works as before.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { startLocalApi, type LocalApi } from "../../../scripts/lib/local-api";
import { createMemoryTelemetry } from "../../../shared/observability/telemetry";
import { startOrigin, type Origin } from "../../helpers/origin";

let api: LocalApi;
let origin: Origin;

beforeAll(async () => {
  origin = await startOrigin((_req, res) => res.writeHead(200, { "content-type": "text/html" }).end("<title>Local</title><article><h1>Hello</h1><p>A paragraph of text from the loopback origin, long enough to be the article.</p></article>"));
  api = await startLocalApi({
    env: { WEBGATE_ALLOW_LOCALHOST: "true", WEBGATE_CHROMIUM_PATH: "/nonexistent/chromium" },
    port: 0,
    telemetry: createMemoryTelemetry(),
    log: () => undefined,
  });
});
afterAll(async () => {
  await api.close();
  await origin.close();
});

const post = async (body: object) => {
  const res = await fetch(`${api.url}/fetch`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  return { status: res.status, json: (await res.json()) as any };
};

it("answers render_unavailable with how to install a Chromium, and still fetches without rendering", async () => {
  expect(api.chromium).toBe("/nonexistent/chromium");
  const rendered = await post({ url: `${origin.base}/page`, render: "always" });
  expect(rendered.status).toBe(503);
  expect(rendered.json.error).toMatchObject({ code: "render_unavailable", retryable: true });
  expect(rendered.json.error.message).toContain("/nonexistent/chromium");
  expect(rendered.json.error.message).toContain("apt-get install chromium");
  const plain = await post({ url: `${origin.base}/page`, render: "never" });
  expect(plain.status).toBe(200);
  expect(plain.json).toMatchObject({ rendered: false, title: "Local" });
});
