/**
 * Hostile request framing at the local server (`npm start`'s frontend), over real sockets:
 * parameter and header names that are also members of Object.prototype, and requests Node's
 * HTTP parser refuses before any handler runs. Each gets the API's error body with a stable
 * code, never a 500 and never a bare status line.
 */
import http from "node:http";
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMemoryTelemetry } from "../../../shared/observability/telemetry";
import { startLocalApi, type LocalApi } from "../../../scripts/lib/local-api";
import { startHttpFrontend } from "../../../scripts/lib/local-server";
import { MapResolver } from "../../helpers/test-network";

let api: LocalApi;

beforeAll(async () => {
  // Names resolve nowhere and nothing is dialed: every request here is refused or invalid.
  api = await startLocalApi({ env: {}, port: 0, resolver: new MapResolver({}), telemetry: createMemoryTelemetry(), log: () => undefined });
});
afterAll(async () => {
  await api.close();
});

/** One request written byte for byte; resolves with the status, headers and body as received. */
function raw(request: string): Promise<{ status: number; headers: string; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(api.port, "127.0.0.1", () => socket.end(request));
    const chunks: Buffer[] = [];
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("error", reject);
    socket.on("close", () => {
      const bytes = Buffer.concat(chunks);
      const split = bytes.indexOf("\r\n\r\n");
      const head = (split === -1 ? bytes : bytes.subarray(0, split)).toString("latin1");
      const rest = split === -1 ? Buffer.alloc(0) : bytes.subarray(split + 4);
      const body = (/^transfer-encoding: chunked/im.test(head) ? unchunk(rest) : rest).toString("utf8");
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0), headers: head, body });
    });
  });
}

/** A chunked body's payload (sizes count bytes, so this works on bytes). */
function unchunk(body: Buffer): Buffer {
  const parts: Buffer[] = [];
  for (let at = 0; ; ) {
    const eol = body.indexOf("\r\n", at);
    const size = Number.parseInt(body.subarray(at, eol).toString("latin1"), 16);
    if (!(size > 0)) return Buffer.concat(parts);
    parts.push(body.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
}

const PROTOTYPE_NAMES = ["constructor", "__proto__", "hasOwnProperty", "toString", "valueOf"];

describe("names that are members of Object.prototype", () => {
  it.each(PROTOTYPE_NAMES)("a query parameter named %s is an unknown field (400), not a crash", async (name) => {
    const res = await fetch(`${api.url}/fetch?url=${encodeURIComponent("https://site.example.com/")}&${name}=1`);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: unknown }).error).toMatchObject({ code: "invalid_request", field: name });
  });

  it.each(PROTOTYPE_NAMES)("a request header named %s changes nothing on /fetch, /search and /mcp", async (name) => {
    const fetchAnswer = await raw(`GET /fetch?url=http://127.0.0.1/ HTTP/1.1\r\nhost: x\r\n${name}: 1\r\nconnection: close\r\n\r\n`);
    expect(fetchAnswer.status).toBe(403);
    expect(JSON.parse(fetchAnswer.body)).toMatchObject({ error: { code: "address_not_allowed" } });
    const body = JSON.stringify({ query: "a" });
    const searchAnswer = await raw(`POST /search HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n${name}: 1\r\nconnection: close\r\n\r\n${body}`);
    expect(searchAnswer.status).toBe(400);
    expect(JSON.parse(searchAnswer.body)).toMatchObject({ error: { code: "invalid_request", field: "query" } });
    const rpc = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" });
    const mcpAnswer = await raw(
      `POST /mcp HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\ncontent-length: ${rpc.length}\r\n${name}: 1\r\nconnection: close\r\n\r\n${rpc}`,
    );
    expect(mcpAnswer.status).toBe(200);
    expect(JSON.parse(mcpAnswer.body)).toMatchObject({ id: 1, result: { tools: expect.any(Array) } });
  });
});

describe("requests Node's parser refuses", () => {
  it("answers headers over 16 KiB with 413 request_too_large in the API's error body", async () => {
    const res = await raw(`GET /fetch?url=https://site.example.com/ HTTP/1.1\r\nhost: x\r\nx-big: ${"a".repeat(20_000)}\r\n\r\n`);
    expect(res.status).toBe(413);
    expect(res.headers).toMatch(/content-type: application\/json/i);
    expect(JSON.parse(res.body)).toMatchObject({ error: { code: "request_too_large", field: "headers", retryable: false, request_id: expect.any(String) } });
  });

  it("answers a request line over 16 KiB the same way", async () => {
    const res = await raw(`GET /fetch?url=https://site.example.com/${"b".repeat(20_000)} HTTP/1.1\r\nhost: x\r\n\r\n`);
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body)).toMatchObject({ error: { code: "request_too_large" } });
  });

  it.each([
    ["a request line that is not HTTP", "GARBAGE\r\n\r\n"],
    ["a header without a colon", "GET /fetch HTTP/1.1\r\nhost: x\r\nno colon here\r\n\r\n"],
    ["a bare LF inside a header value", "GET /fetch HTTP/1.1\r\nhost: x\r\nx-a: b\rc\r\n\r\n"],
    ["both Content-Length and chunked", "POST /fetch HTTP/1.1\r\nhost: x\r\ncontent-length: 3\r\ntransfer-encoding: chunked\r\n\r\n0\r\n\r\n"],
  ])("answers %s with 400 invalid_request in the API's error body", async (_name, request) => {
    const res = await raw(request);
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toMatchObject({ error: { code: "invalid_request", retryable: false } });
  });

  it("answers a body that never ends with 413 as soon as it passes the limit, and closes the connection", async () => {
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      let status = 0;
      let body = "";
      const req = http.request(`${api.url}/fetch`, { method: "POST", headers: { "content-type": "application/json", "transfer-encoding": "chunked" }, agent: false }, (res) => {
        status = res.statusCode ?? 0;
        res.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
        res.on("end", () => resolve({ status, body }));
      });
      // This client keeps writing until the connection closes, so a write can meet the closed
      // socket (EPIPE, ECONNRESET) after the answer arrived, on a busy machine before its end was
      // read: the answer counts; an error before any answer fails the test.
      req.on("error", (error) => (status !== 0 && body !== "" ? resolve({ status, body }) : reject(error)));
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      // Written on each drain, without end: only the server's answer can finish this.
      const pump = () => {
        while (!req.destroyed && req.write(chunk));
        if (!req.destroyed) req.once("drain", pump);
      };
      pump();
    });
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body)).toMatchObject({ error: { code: "request_too_large" } });
  });

  it("answers a request that arrives slower than its time to arrive with 400 invalid_request", async () => {
    const slow = await startHttpFrontend({
      routes: [{ method: "POST", path: "/fetch", handler: () => Promise.resolve({ statusCode: 200, body: "{}" }) }],
      apiKeys: [],
      port: 0,
      log: () => undefined,
      receiveTimeoutMs: 1_000,
    });
    try {
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = net.connect(slow.port, "127.0.0.1", () => socket.write("POST /fetch HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"));
        // One byte every 200 ms: the body would take 20 s.
        const drip = setInterval(() => socket.writable && socket.write(" "), 200);
        let received = "";
        socket.on("data", (chunk: Buffer) => (received += chunk.toString("utf8")));
        socket.on("error", reject);
        socket.on("close", () => {
          clearInterval(drip);
          resolve(received);
        });
      });
      expect(answer).toMatch(/^HTTP\/1\.1 400 /);
      expect(JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4))).toMatchObject({ error: { code: "invalid_request", message: "The request did not arrive within 1000 ms." } });
    } finally {
      await slow.close();
    }
  });

  it("still serves the next connection", async () => {
    const res = await fetch(`${api.url}/fetch?url=${encodeURIComponent("http://10.0.0.1/")}`);
    expect(res.status).toBe(403);
  });
});
