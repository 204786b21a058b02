/**
 * The guarded proxy without a browser: raw CONNECT and proxy requests over loopback sockets,
 * DNS from a table, and a dialer that routes each checked address to its stand-in listener (so
 * a refused address the proxy dialed anyway would land on a canary).
 */
import http from "node:http";
import net from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { resolvePolicy } from "../../../shared/guard/policy";
import { createNetDialer } from "../../../shared/http/net-dialer";
import { startGuardedProxy, startRefusingProxy, authorityOf, type GuardedProxy, type GuardedProxyOptions } from "../../../shared/render/guarded-proxy";
import { PRIVATE_ADDRESS, PUBLIC_ADDRESS, SequenceResolver, WorldDialer, startCanary, type Canary } from "../../helpers/render-world";
import { startRawOrigin, type Origin } from "../../helpers/origin";

let echo: Origin;
let canary: Canary;
let proxies: GuardedProxy[] = [];

beforeAll(async () => {
  // An origin that answers every line it gets with "echo:<line>" and closes on "bye".
  echo = await startRawOrigin((socket) => {
    socket.on("data", (chunk: Buffer) => {
      const text = chunk.toString("utf8");
      if (text.startsWith("big")) socket.write(Buffer.alloc(64 * 1024, 0x61));
      else socket.write(`echo:${text}`);
    });
  });
  canary = await startCanary();
});
afterAll(async () => {
  await echo.close();
  await canary.close();
});
afterEach(async () => {
  await Promise.all(proxies.map((p) => p.close()));
  proxies = [];
});

function world(overrides: Partial<GuardedProxyOptions> = {}) {
  const resolver = new SequenceResolver({ "private.example.com": [[PRIVATE_ADDRESS]] });
  const dialer = new WorldDialer({ [PUBLIC_ADDRESS]: echo.port, [PRIVATE_ADDRESS]: canary.port, "127.0.0.1": canary.port });
  const controller = new AbortController();
  const options: GuardedProxyOptions = {
    resolver,
    dialer,
    policy: resolvePolicy({ allowedPorts: [80, 443, canary.port] }),
    connectTimeoutMs: 2_000,
    maxBytes: 1_000_000,
    maxConnections: 10,
    signal: controller.signal,
    ...overrides,
  };
  return { resolver, dialer, controller, options };
}

async function start(overrides: Partial<GuardedProxyOptions> = {}) {
  const w = world(overrides);
  const proxy = await startGuardedProxy(w.options);
  proxies.push(proxy);
  return { ...w, proxy, port: Number(new URL(proxy.url).port) };
}

/** Sends a CONNECT; resolves with the status line, the headers and the open socket. */
function connect(port: number, authority: string): Promise<{ status: number; head: string; socket: net.Socket }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1", () => socket.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n\r\n`));
    let buffered = "";
    const onData = (chunk: Buffer) => {
      buffered += chunk.toString("latin1");
      const end = buffered.indexOf("\r\n\r\n");
      if (end === -1) return;
      socket.off("data", onData);
      const head = buffered.slice(0, end);
      resolve({ status: Number(head.split(" ")[1]), head, socket });
    };
    socket.on("data", onData);
    socket.on("error", reject);
    // Closed before any answer (the proxy stopped the page): status 0.
    socket.on("close", () => resolve({ status: 0, head: buffered, socket }));
  });
}

function through(socket: net.Socket, line: string): Promise<string> {
  return new Promise((resolve) => {
    socket.once("data", (chunk: Buffer) => resolve(chunk.toString("utf8")));
    socket.write(line);
  });
}

/** A plain proxy request (absolute-form target). */
function proxyGet(port: number, target: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port, method: "GET", path: target, headers, agent: false }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (body += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("guarded proxy: CONNECT", () => {
  it("tunnels to the checked public address of a name, and counts the bytes", async () => {
    const { port, dialer, proxy } = await start();
    const tunnel = await connect(port, "app.example.com:443");
    expect(tunnel.status).toBe(200);
    expect(await through(tunnel.socket, "hello")).toBe("echo:hello");
    tunnel.socket.destroy();
    expect(dialer.dials).toHaveLength(1);
    expect(dialer.dials[0]).toMatchObject({ hostname: "app.example.com", addresses: [PUBLIC_ADDRESS], port: 443, tls: false });
    expect(proxy.connections).toBe(1);
    expect(proxy.bytes).toBe("echo:hello".length);
  });

  it.each([
    ["a loopback literal", () => `127.0.0.1:${canary.port}`, "address_not_allowed", "loopback"],
    ["a name that resolves to a private address", () => `private.example.com:${canary.port}`, "address_not_allowed", "resolves-to-refused-address"],
    ["the metadata address", () => "169.254.169.254:443", "address_not_allowed", "link-local"],
    ["an IPv6 loopback literal", () => "[::1]:443", "address_not_allowed", "loopback"],
    ["localhost", () => "localhost:443", "host_not_allowed", undefined],
    ["a port the policy does not allow", () => "app.example.com:8080", "url_not_allowed", undefined],
    ["a target that is not host:port", () => "app.example.com", "url_not_allowed", undefined],
    ["a target with a user name", () => "user@app.example.com:443", "url_not_allowed", undefined],
  ])("refuses %s with 403 and the guard's code, dialing nothing", async (_name, target, code, reason) => {
    const { port, dialer, proxy } = await start();
    const refused = await connect(port, target());
    expect(refused.status).toBe(403);
    expect(refused.head).toContain(`X-Webgate-Refusal: ${code}`);
    expect(dialer.dials).toEqual([]);
    expect(proxy.failures).toEqual([reason === undefined ? { authority: target().toLowerCase(), code } : { authority: target().toLowerCase(), code, reason }]);
    expect(proxy.failureFor(target())?.code).toBe(code);
    expect(canary.hits).toEqual([]);
  });

  it("answers 502 for a name that does not resolve, and records dns_failed", async () => {
    const { port, proxy } = await start();
    const failed = await connect(port, "missing.example.org:443");
    expect(failed.status).toBe(502);
    expect(proxy.failureFor("missing.example.org:443")?.code).toBe("dns_failed");
  });

  it("closes every tunnel and refuses new ones once the page's byte budget is spent", async () => {
    const { port, proxy } = await start({ maxBytes: 100_000 });
    const exhausted = new Promise((resolve) => proxy.onExhausted(resolve));
    const first = await connect(port, "app.example.com:443");
    const closed = new Promise((resolve) => first.socket.once("close", resolve));
    first.socket.write("big");
    first.socket.write("big");
    expect(await exhausted).toBe("bytes");
    await closed;
    expect(proxy.exhausted).toBe("bytes");
    const next = await connect(port, "app.example.com:443");
    expect(next.status).toBe(502);
    expect(next.head).toContain("X-Webgate-Refusal: upstream_too_large");
  });

  it("refuses connections past the page's connection budget", async () => {
    const { port, proxy, dialer } = await start({ maxConnections: 2 });
    const a = await connect(port, "a.example.com:443");
    const b = await connect(port, "b.example.com:443");
    const c = await connect(port, "c.example.com:443");
    expect([a.status, b.status]).toEqual([200, 200]);
    // The third one stops the page: refused, and the open tunnels are closed with it.
    expect(c.status === 502 || c.status === 0).toBe(true);
    expect(proxy.exhausted).toBe("connections");
    expect((await connect(port, "d.example.com:443")).status).toBe(502);
    expect(dialer.dials).toHaveLength(2);
    a.socket.destroy();
    b.socket.destroy();
  });

  it("closes the tunnels when the page's deadline aborts", async () => {
    const { port, controller } = await start();
    const tunnel = await connect(port, "app.example.com:443");
    const closed = new Promise((resolve) => tunnel.socket.once("close", resolve));
    controller.abort();
    await closed;
  });
});

describe("guarded proxy: plain HTTP", () => {
  it("answers an http URL with a 308 to the https URL the guard upgraded it to", async () => {
    const { port, dialer } = await start();
    const answer = await proxyGet(port, "http://app.example.com/page?q=1");
    expect(answer.status).toBe(308);
    expect(answer.headers.location).toBe("https://app.example.com/page?q=1");
    expect(dialer.dials).toEqual([]);
  });

  it("refuses loopback, metadata and origin-form requests", async () => {
    const { port, proxy } = await start();
    const loopback = await proxyGet(port, `http://127.0.0.1:${canary.port}/x`);
    expect(loopback.status).toBe(403);
    expect(loopback.headers["x-webgate-refusal"]).toBe("address_not_allowed");
    const metadata = await proxyGet(port, "http://169.254.169.254/latest/meta-data/");
    expect(metadata.headers["x-webgate-refusal"]).toBe("address_not_allowed");
    const originForm = await proxyGet(port, "/x");
    expect(originForm.headers["x-webgate-refusal"]).toBe("url_not_allowed");
    expect(proxy.failures.map((f) => f.code)).toEqual(["address_not_allowed", "address_not_allowed", "url_not_allowed"]);
    expect(canary.hits).toEqual([]);
  });

  it("forwards http to loopback only under the dev switch, without any refusal header the origin sets", async () => {
    const origin = http.createServer((req, res) => {
      res.writeHead(200, { "content-type": "text/plain", "x-webgate-refusal": "forged", "x-seen-proxy-auth": String(req.headers["proxy-authorization"] ?? "none") });
      res.end(`path ${req.url}`);
    });
    await new Promise<void>((resolve) => origin.listen(0, "127.0.0.1", resolve));
    const originPort = (origin.address() as net.AddressInfo).port;
    try {
      const w = world({ policy: resolvePolicy({ allowLocalhost: true }) });
      // Under the dev switch the loopback origin is real: dial it as it is.
      const proxy = await startGuardedProxy({ ...w.options, dialer: new WorldDialer({ "127.0.0.1": originPort }) });
      proxies.push(proxy);
      const port = Number(new URL(proxy.url).port);
      const answer = await proxyGet(port, `http://127.0.0.1:${originPort}/dev?x=1`, { "proxy-authorization": "Basic secret" });
      expect(answer).toMatchObject({ status: 200, body: "path /dev?x=1" });
      expect(answer.headers["x-webgate-refusal"]).toBeUndefined();
      expect(answer.headers["x-seen-proxy-auth"]).toBe("none");
      expect(proxy.bytes).toBe("path /dev?x=1".length);
    } finally {
      await new Promise((resolve) => origin.close(resolve));
    }
  });

  it("under the dev switch, keeps a local page's requests on its own port (no other local service, in any spelling)", async () => {
    const origin = http.createServer((req, res) => res.writeHead(200, { "content-type": "text/plain" }).end(`path ${req.url}`));
    await new Promise<void>((resolve) => origin.listen(0, "127.0.0.1", resolve));
    const originPort = (origin.address() as net.AddressInfo).port;
    const hits: string[] = [];
    const canary = net.createServer((socket) => {
      hits.push("canary");
      socket.destroy();
    });
    await new Promise<void>((resolve) => canary.listen(0, "127.0.0.1", resolve));
    const canaryPort = (canary.address() as net.AddressInfo).port;
    try {
      const w = world({ policy: resolvePolicy({ allowLocalhost: true }) });
      // The real loopback network: a dial that got through would reach the canary.
      const proxy = await startGuardedProxy({ ...w.options, dialer: createNetDialer(), home: new URL(`http://localhost:${originPort}/page`) });
      proxies.push(proxy);
      const port = Number(new URL(proxy.url).port);
      expect(await proxyGet(port, `http://127.0.0.1:${originPort}/api`)).toMatchObject({ status: 200, body: "path /api" });
      for (const target of [`http://127.0.0.1:${canaryPort}/`, `http://localhost:${canaryPort}/`, `http://2130706433:${canaryPort}/`, `http://[::ffff:127.0.0.1]:${canaryPort}/`]) {
        const refused = await proxyGet(port, target);
        expect(refused.headers["x-webgate-refusal"], target).toMatch(/^(address|host)_not_allowed$/);
      }
      const tunnel = await connect(port, `127.0.0.1:${canaryPort}`);
      expect(tunnel.status).toBe(403);
      tunnel.socket.destroy();
      expect(hits).toEqual([]);
    } finally {
      await new Promise((resolve) => origin.close(resolve));
      await new Promise((resolve) => canary.close(resolve));
    }
  });

  it("refuses a protocol upgrade in a plain proxy request", async () => {
    const { port } = await start();
    const answer = await new Promise<number>((resolve, reject) => {
      const req = http.request({ host: "127.0.0.1", port, path: "http://app.example.com/ws", headers: { connection: "upgrade", upgrade: "websocket" }, agent: false });
      req.on("response", (res) => resolve(res.statusCode ?? 0));
      req.on("upgrade", (res) => resolve(res.statusCode ?? 0));
      req.on("error", reject);
      req.end();
    });
    expect(answer).toBe(403);
  });
});

describe("refusing proxy (the browser-wide one)", () => {
  it("refuses every request and every tunnel, and counts them", async () => {
    const refusing = await startRefusingProxy();
    try {
      const port = Number(new URL(refusing.url).port);
      expect((await proxyGet(port, "http://update.example.com/x")).status).toBe(403);
      const tunnel = await connect(port, "accounts.example.com:443");
      expect(tunnel.status).toBe(403);
      expect(refusing.refused).toBe(2);
    } finally {
      await refusing.close();
    }
  });
});

describe("authorityOf", () => {
  it.each([
    ["https://Example.com/x", "example.com:443"],
    ["http://example.com/x", "example.com:80"],
    ["wss://example.com/x", "example.com:443"],
    ["http://[::1]:8080/", "[::1]:8080"],
    ["not a url", ""],
  ])("%s → %s", (href, expected) => {
    expect(authorityOf(href)).toBe(expected);
  });
});
