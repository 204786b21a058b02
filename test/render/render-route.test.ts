/**
 * The render function's handler logic (functions/render wires it with @sparticuz/chromium): a
 * direct invocation answered with a render result, errors included, never thrown.
 */
import { expect, it } from "vitest";
import { resolvePolicy } from "../../shared/guard/policy";
import { createMemoryTelemetry } from "../../shared/observability/telemetry";
import { createRenderHandler } from "../../shared/render/render-route";
import { decodeRenderResult } from "../../shared/render/renderer";
import { html } from "../helpers/render-world";
import { describeWithBrowser, useRenderSuite } from "../helpers/render-suite";

describeWithBrowser("render function handler", () => {
  const suite = useRenderSuite();

  it("renders the requested URL and answers the page, its DOM gzipped", async () => {
    suite.world.serve("/fn", html(`<!doctype html><body><div id="r"></div><script>document.getElementById('r').textContent = 'From the render function';</script></body>`));
    const telemetry = createMemoryTelemetry();
    const handler = createRenderHandler({ renderer: suite.renderer(), policy: resolvePolicy({}), telemetry });
    const result = await handler({ url: "https://app.example.com/fn", waitMs: 2_000, timeoutMs: 10_000 });
    expect(result.ok).toBe(true);
    const page = decodeRenderResult(JSON.parse(JSON.stringify(result)), 1_000_000);
    expect(page.body.toString("utf8")).toContain("From the render function");
    expect(telemetry.lines.some((l) => l.message === "render")).toBe(true);
  });

  it("answers a refused URL and a malformed request as errors, without starting a page", async () => {
    const handler = createRenderHandler({ renderer: suite.renderer(), policy: resolvePolicy({}), telemetry: createMemoryTelemetry() });
    const refused = await handler({ url: "http://169.254.169.254/latest/meta-data/", waitMs: 0, timeoutMs: 1_000 });
    expect(refused).toMatchObject({ ok: false, error: { code: "address_not_allowed", details: { reason: "link-local" } } });
    const malformed = await handler({ url: "https://app.example.com/", waitMs: "soon" });
    expect(malformed).toMatchObject({ ok: false, error: { code: "invalid_request" } });
  });
});
