/**
 * The guard around the browser: a real Chromium renders pages whose scripts try to reach
 * refused places. A canary listener stands where each refused place would be (real loopback,
 * and, through the test dialer's routes, the private and metadata addresses): nothing may
 * arrive at any of them, while the page itself still renders.
 */
import { expect, it } from "vitest";
import { expectWebgateError } from "../helpers/expect-error";

async function expectCode(promise: Promise<unknown>, code: string) {
  const error = await expectWebgateError(promise);
  expect(error.code, error.message).toBe(code);
  return error;
}
import { METADATA_ADDRESS, PRIVATE_ADDRESS, PUBLIC_ADDRESS, html } from "../helpers/render-world";
import { describeWithBrowser, useRenderSuite } from "../helpers/render-suite";

describeWithBrowser("rendering behind the guard", () => {
  const suite = useRenderSuite({
    "private.example.com": [[PRIVATE_ADDRESS]],
    "metadata.example.com": [[METADATA_ADDRESS]],
    // A rebinding name: public on the first lookup, loopback on every later one.
    "rebind.example.com": [[PUBLIC_ADDRESS], ["127.0.0.1"]],
  });
  const render = (path: string, waitMs = 4_000) =>
    suite.renderer().render({ url: `https://app.example.com${path}`, waitMs, timeoutMs: 10_000 });
  const canaryHits = () => Object.fromEntries(Object.entries(suite.world.canaries).map(([name, canary]) => [name, canary.hits]));

  it("renders an application shell whose text a script writes", async () => {
    suite.world.serve(
      "/shell",
      html(`<!doctype html><html><head><title>Shell</title></head><body><div id="root"></div>
<script>document.getElementById('root').innerHTML = '<h1>Written by script</h1><p>' + 'Text that only exists once the script ran. '.repeat(5) + '</p>';</script>
</body></html>`),
    );
    const page = await render("/shell");
    const dom = page.body.toString("utf8");
    expect(dom).toContain("<h1>Written by script</h1>");
    expect(page).toMatchObject({ status: 200, rendered: true, truncated: null, contentType: "text/html; charset=utf-8", finalUrl: "https://app.example.com/shell" });
    expect(page.proxyBytes).toBeGreaterThan(0);
  });

  it("refuses every request of the page to refused places, and the page still renders", async () => {
    const { loopback: L, private: P, metadata: M } = suite.world.canaries;
    suite.world.serve("/redirect-to-loopback", (_req, res) => {
      res.writeHead(302, { location: `http://127.0.0.1:${L.port}/xhr-redirected`, "access-control-allow-origin": "*" });
      res.end();
    });
    suite.world.serve("/rebind-1", (_req, res) => {
      res.writeHead(200, { "content-type": "text/plain", "access-control-allow-origin": "*" });
      res.end("first");
    });
    suite.world.serve(
      "/attacks",
      html(`<!doctype html><html><head><title>Attacks</title>
<script src="https://metadata.example.com:${M.port}/script.js"></script>
<link rel="stylesheet" href="http://169.254.169.254:${M.port}/style.css">
<link rel="dns-prefetch" href="https://prefetch.example.net"><link rel="preconnect" href="https://preconnect.example.net">
</head><body><h1>Attack page</h1><p>This page tries to reach places it must not reach, and still renders its own text.</p>
<img src="http://169.254.169.254:${M.port}/latest/meta-data/">
<iframe src="http://127.0.0.1:${L.port}/frame"></iframe>
<ul id="out"></ul>
<script>
const out = (t) => { const li = document.createElement('li'); li.textContent = t; document.getElementById('out').append(li); };
const attempt = (name, run) => Promise.resolve().then(run).then((v) => out(name + ': reached ' + String(v).slice(0, 20)), () => out(name + ': blocked'));
const ws = (url) => new Promise((resolve, reject) => { const s = new WebSocket(url); s.onopen = () => resolve('open'); s.onerror = () => reject(new Error('ws')); });
const xhr = (url) => new Promise((resolve, reject) => { const r = new XMLHttpRequest(); r.open('GET', url); r.onload = () => resolve(r.responseText); r.onerror = () => reject(new Error('xhr')); r.send(); });
const text = (url) => fetch(url).then((r) => r.text());
navigator.sendBeacon('http://127.0.0.1:${L.port}/beacon', 'x');
Promise.all([
  attempt('fetch loopback', () => text('http://127.0.0.1:${L.port}/fetch')),
  attempt('fetch localhost', () => text('http://localhost:${L.port}/fetch-name')),
  attempt('fetch metadata', () => text('http://169.254.169.254:${M.port}/latest/meta-data/')),
  attempt('fetch metadata name', () => text('https://metadata.example.com:${M.port}/latest/')),
  attempt('ws private name', () => ws('wss://private.example.com:${P.port}/socket')),
  attempt('ws private literal', () => ws('ws://10.0.0.5:${P.port}/socket')),
  attempt('xhr redirect to loopback', () => xhr('https://api.example.com/redirect-to-loopback')),
  attempt('rebind first', () => text('https://rebind.example.com/rebind-1')),
  attempt('rebind second', () => text('https://rebind.example.com:8443/rebind-2')),
  attempt('webrtc', () => { if (typeof RTCPeerConnection === 'undefined') throw new Error('no webrtc'); return new RTCPeerConnection(); }),
  attempt('popup', () => { const w = window.open('https://cdn.example.com/popup'); if (!w) throw new Error('no popup'); return 'window'; }),
  attempt('service worker', () => navigator.serviceWorker.register('/sw.js')),
]).then(() => out('all attempts settled'));
</script></body></html>`),
    );
    const page = await render("/attacks");
    const dom = page.body.toString("utf8");
    expect(dom).toContain("<h1>Attack page</h1>");
    expect(dom).toContain("all attempts settled");
    for (const name of [
      "fetch loopback",
      "fetch localhost",
      "fetch metadata",
      "fetch metadata name",
      "ws private name",
      "ws private literal",
      "xhr redirect to loopback",
      "rebind second",
      "webrtc",
      "popup",
      "service worker",
    ]) {
      expect(dom, name).toContain(`${name}: blocked`);
    }
    // The allowed half of the rebinding pair went through: the page did have a network.
    expect(dom).toContain("rebind first: reached first");
    expect(canaryHits()).toEqual({ private: [], metadata: [], loopback: [] });
    // The proxy dialed only checked public addresses, and it (not the browser) resolved names.
    expect(new Set(suite.world.dialer.dials.flatMap((d) => d.addresses))).toEqual(new Set([PUBLIC_ADDRESS]));
    expect(suite.world.resolver.lookups).toEqual(expect.arrayContaining(["metadata.example.com", "private.example.com", "rebind.example.com"]));
    expect(suite.world.resolver.lookups.filter((name) => name === "rebind.example.com")).toHaveLength(2);
    expect(suite.world.resolver.lookups).not.toContain("prefetch.example.net");
    expect(suite.world.origin.requests.map((r) => r.url)).not.toContain("/rebind-2");
    expect(suite.world.origin.requests.map((r) => r.url)).not.toContain("/popup");
  });

  it("does not follow the page to file: or data: documents", async () => {
    suite.world.serve(
      "/to-file",
      html(`<!doctype html><body><h1>Stays here</h1><p>The page tries to leave for a local file.</p>
<script>setTimeout(() => { location.href = 'file:///etc/passwd'; }, 10);</script></body>`),
    );
    suite.world.serve(
      "/to-data",
      html(`<!doctype html><body><h1>Stays here too</h1><p>The page tries to leave for a data: document.</p>
<script>setTimeout(() => { location.href = 'data:text/html,<p>DATA-' + 'DOCUMENT</p>'; }, 10);</script></body>`),
    );
    const file = await render("/to-file", 1_500);
    expect(file.body.toString("utf8")).toContain("Stays here");
    expect(file.body.toString("utf8")).not.toContain("root:");
    expect(file.finalUrl).toBe("https://app.example.com/to-file");
    const data = await render("/to-data", 1_500);
    expect(data.body.toString("utf8")).toContain("Stays here too");
    expect(data.body.toString("utf8")).not.toContain("DATA-DOCUMENT");
    expect(data.finalUrl).toBe("https://app.example.com/to-data");
  });

  it("answers a refused top-level navigation with the guard's own error", async () => {
    const renderer = suite.renderer();
    const go = (url: string) => renderer.render({ url, waitMs: 1_000, timeoutMs: 10_000 });
    const privateName = await expectCode(go("https://private.example.com/"), "address_not_allowed");
    expect(privateName.details).toMatchObject({ reason: "resolves-to-refused-address" });
    expect(privateName.message).not.toContain(PRIVATE_ADDRESS);

    suite.world.serve("/top-redirect-to-loopback", (_req, res) => {
      res.writeHead(302, { location: `http://127.0.0.1:${suite.world.canaries.loopback.port}/top` });
      res.end();
    });
    const redirected = await expectCode(go("https://app.example.com/top-redirect-to-loopback"), "address_not_allowed");
    expect(redirected.message).toMatch(/^Redirect 1 refused/);
    expect(redirected.details).toMatchObject({ redirect: 1, reason: "loopback" });

    suite.world.serve("/top-redirect-to-metadata-name", (_req, res) => {
      res.writeHead(301, { location: `https://metadata.example.com/latest/` });
      res.end();
    });
    const metadata = await expectCode(go("https://app.example.com/top-redirect-to-metadata-name"), "address_not_allowed");
    expect(metadata.details).toMatchObject({ redirect: 1, reason: "resolves-to-refused-address" });

    await expectCode(go("https://missing.example.org/"), "dns_failed");
    expect(canaryHits()).toEqual({ private: [], metadata: [], loopback: [] });
  });
});
