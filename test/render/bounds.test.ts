/**
 * Rendering stays bounded: pages that never settle, keep the main thread busy, navigate in a
 * loop, load 10,000 images, pull more bytes or open more connections than their budget, or
 * never answer; and the one browser is reused, and replaced after a crash.
 */
import { expect, it } from "vitest";
import { BrowserPool } from "../../shared/render/browser-pool";
import { createBrowserRenderer } from "../../shared/render/browser-renderer";
import { createChromiumLauncher } from "../../shared/render/chromium";
import { resolvePolicy } from "../../shared/guard/policy";
import { expectWebgateError } from "../helpers/expect-error";
import { TEST_CHROMIUM, TEST_SPKI_HASH, html } from "../helpers/render-world";
import { describeWithBrowser, useRenderSuite } from "../helpers/render-suite";

async function expectCode(promise: Promise<unknown>, code: string) {
  const error = await expectWebgateError(promise);
  expect(error.code, error.message).toBe(code);
  return error;
}

// Time bounds are the request's own limits plus a margin for a loaded machine: what is tested is
// that a render ends by itself, not how fast.
const MARGIN_MS = 25_000;

const TEXT = "<h1>Bounded</h1><p>" + "This paragraph is the text the page has. ".repeat(4) + "</p>";

describeWithBrowser("rendering stays bounded", () => {
  const suite = useRenderSuite();
  const render = (path: string, waitMs: number, limits = {}, timeoutMs = 10_000) =>
    suite.renderer({ limits }).render({ url: `https://app.example.com${path}`, waitMs, timeoutMs });

  it("reads a page that never goes quiet after the wait, marked truncated", async () => {
    suite.world.serve("/tick", (_req, res) => {
      res.writeHead(200, { "content-type": "text/plain" });
      res.end("tick");
    });
    suite.world.serve("/never-settles", html(`<!doctype html><body>${TEXT}<script>setInterval(() => fetch('/tick'), 100);</script></body>`));
    const started = Date.now();
    const page = await render("/never-settles", 1_500);
    expect(Date.now() - started).toBeLessThan(1_500 + MARGIN_MS);
    expect(page.truncated).toBe("render_wait");
    expect(page.body.toString("utf8")).toContain("<h1>Bounded</h1>");
  });

  it("reads a page whose script never gives the main thread back", async () => {
    suite.world.serve("/busy", html(`<!doctype html><body>${TEXT}<script>setTimeout(() => { for (;;) {} }, 50);</script></body>`));
    const started = Date.now();
    const page = await render("/busy", 1_500);
    expect(Date.now() - started).toBeLessThan(1_500 + MARGIN_MS);
    // The endless script was stopped before the read, so the DOM could be read at all.
    expect(page.body.toString("utf8")).toContain("<h1>Bounded</h1>");
  });

  it("stops a page that navigates in a loop", async () => {
    suite.world.serve("/loop", html(`<!doctype html><body>${TEXT}<script>location.replace('/loop?' + Math.random());</script></body>`));
    const started = Date.now();
    const page = await render("/loop", 3_000, { maxNavigations: 3 });
    expect(Date.now() - started).toBeLessThan(3_000 + MARGIN_MS);
    expect(page.truncated).toBe("render_navigations");
    expect(suite.world.origin.requests.filter((r) => r.url.startsWith("/loop")).length).toBeLessThanOrEqual(3);
  });

  it("fetches none of 10,000 images", async () => {
    const images = Array.from({ length: 10_000 }, (_, i) => `<img src="https://cdn.example.com/img/${i}.png" alt="">`).join("");
    suite.world.serve("/images", html(`<!doctype html><body>${TEXT}${images}</body>`));
    const before = suite.world.origin.requests.length;
    const started = Date.now();
    const page = await render("/images", 3_000);
    expect(Date.now() - started).toBeLessThan(10_000 + 3_000 + MARGIN_MS);
    expect(page.body.toString("utf8")).toContain("<h1>Bounded</h1>");
    const after = suite.world.origin.requests.slice(before).map((r) => r.url);
    expect(after.filter((url) => url.startsWith("/img/"))).toEqual([]);
  });

  it("stops a page past its byte budget", async () => {
    const chunk = "x".repeat(1_048_576);
    suite.world.serve("/big", (_req, res) => {
      res.writeHead(200, { "content-type": "text/plain", "cache-control": "no-store" });
      res.end(chunk);
    });
    suite.world.serve(
      "/greedy",
      html(`<!doctype html><body>${TEXT}<script>for (let i = 0; i < 40; i++) fetch('/big?' + i, { cache: 'no-store' });</script></body>`),
    );
    const page = await render("/greedy", 5_000, { maxPageBytes: 4_000_000 });
    expect(page.truncated).toBe("render_bytes");
    expect(page.proxyBytes).toBeLessThan(4_000_000 + 2_000_000);
    expect(page.body.toString("utf8")).toContain("<h1>Bounded</h1>");
  });

  it("stops a page past its connection budget", async () => {
    suite.world.serve("/ping", (_req, res) => {
      res.writeHead(200, { "content-type": "text/plain", "access-control-allow-origin": "*" });
      res.end("pong");
    });
    suite.world.serve(
      "/many-hosts",
      html(`<!doctype html><body>${TEXT}<script>for (let i = 0; i < 50; i++) fetch('https://h' + i + '.example.com/ping').catch(() => undefined);</script></body>`),
    );
    const page = await render("/many-hosts", 5_000, { maxConnections: 8 });
    expect(page.truncated).toBe("render_connections");
    expect(page.body.toString("utf8")).toContain("<h1>Bounded</h1>");
  });

  it("answers upstream_timeout when the page never answers, and reads a half-sent page as truncated", async () => {
    suite.world.serve("/silent", () => undefined);
    const started = Date.now();
    await expectCode(render("/silent", 1_000, {}, 2_000), "upstream_timeout");
    expect(Date.now() - started).toBeLessThan(2_000 + 1_000 + MARGIN_MS);

    suite.world.serve("/half", (_req, res) => {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.write(`<!doctype html><body>${TEXT}<div>`);
      // The rest never comes.
    });
    const half = await render("/half", 1_000, {}, 2_000);
    expect(half.truncated).toBe("render_wait");
    expect(half.body.toString("utf8")).toContain("<h1>Bounded</h1>");
  });

  it("refuses a top-level redirect loop with too_many_redirects", async () => {
    suite.world.serve("/hop", (req, res) => {
      const n = Number(new URL(req.url ?? "/", "https://x.example.com").searchParams.get("n") ?? "0");
      res.writeHead(302, { location: `/hop?n=${n + 1}` });
      res.end();
    });
    await expectCode(render("/hop", 1_000, { maxRedirects: 3 }), "too_many_redirects");
  });

  it("reuses one browser, and replaces it after a crash", async () => {
    suite.world.serve("/again", html(`<!doctype html><body>${TEXT}</body>`));
    const pool = new BrowserPool({ concurrency: 1, launch: createChromiumLauncher({ executablePath: TEST_CHROMIUM!, trustedSpkiHashes: [TEST_SPKI_HASH] }) });
    try {
      const renderer = createBrowserRenderer({ pool, resolver: suite.world.resolver, dialer: suite.world.dialer, policy: resolvePolicy({}) });
      const request = { url: "https://app.example.com/again", waitMs: 1_000, timeoutMs: 10_000 };
      await Promise.all([renderer.render(request), renderer.render(request)]);
      expect(pool.launches).toBe(1);
      await pool.use(AbortSignal.timeout(5_000), async (browser) => {
        const closed = new Promise((resolve) => browser.once("disconnected", resolve));
        browser.process()!.kill("SIGKILL");
        await closed;
      });
      const page = await renderer.render(request);
      expect(page.body.toString("utf8")).toContain("<h1>Bounded</h1>");
      expect(pool.launches).toBe(2);
    } finally {
      await pool.close();
    }
  });

  it("answers render_unavailable when the browser cannot start", async () => {
    const pool = new BrowserPool({ concurrency: 1, launch: createChromiumLauncher({ executablePath: "/nonexistent/chromium" }) });
    const renderer = createBrowserRenderer({ pool, resolver: suite.world.resolver, dialer: suite.world.dialer, policy: resolvePolicy({}) });
    const error = await expectCode(renderer.render({ url: "https://app.example.com/again", waitMs: 1_000, timeoutMs: 5_000 }), "render_unavailable");
    expect(error.retryable).toBe(true);
    expect(error.message).toContain("WEBGATE_CHROMIUM_PATH");
  });
});
