/**
 * Decompression memory is bounded across concurrent requests: at most a fixed number of bodies
 * are decompressed at once, the others wait (socket paused) until a slot frees or their deadline
 * passes; bodies without a content coding are not held up.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import zlib from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHttpClient, createSlotLimiter, decompressionSlots, MAX_CONCURRENT_DECOMPRESSIONS } from "../../../shared/http/http-client";
import { checkedAddresses } from "../../helpers/test-dialer";

let server: http.Server;
let port = 0;
let bomb: Buffer;
const stalled = new Set<http.ServerResponse>();

beforeAll(async () => {
  // 8 MiB of zeros in a 16 MiB-window brotli stream: a few hundred bytes on the wire, more than
  // the 5 MiB body limit once decoded.
  bomb = zlib.brotliCompressSync(Buffer.alloc(8 * 1024 * 1024), {
    params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 5, [zlib.constants.BROTLI_PARAM_LGWIN]: 24 },
  });
  server = http.createServer((req, res) => {
    if (req.url === "/bomb") res.writeHead(200, { "content-type": "text/html", "content-encoding": "br" }).end(bomb);
    else if (req.url === "/stall-br") {
      // Headers and the first bytes of a brotli body, then nothing: holds a decompression slot.
      res.writeHead(200, { "content-type": "text/html", "content-encoding": "br" });
      res.write(bomb.subarray(0, 8));
      stalled.add(res);
    } else res.writeHead(200, { "content-type": "text/html" }).end("<p>plain</p>");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  for (const res of stalled) res.destroy();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const LOOPBACK = await checkedAddresses("127.0.0.1");
const request = (path: string, signal: AbortSignal) => ({
  url: new URL(`http://127.0.0.1:${port}${path}`),
  addresses: LOOPBACK,
  signal,
  connectTimeoutMs: 2_000,
  maxBytes: 5_242_880,
});

describe("concurrent decompressions", () => {
  it("forty brotli bombs at once: each cut at the limit, never more than the slot count decoding", async () => {
    const slots = createSlotLimiter(4);
    const client = createHttpClient({ decompression: slots });
    const outcomes = await Promise.allSettled(Array.from({ length: 40 }, () => client.request(request("/bomb", AbortSignal.timeout(20_000)))));
    for (const outcome of outcomes) {
      expect(outcome.status).toBe("rejected");
      expect((outcome as PromiseRejectedResult).reason).toMatchObject({ code: "upstream_too_large" });
    }
    expect(slots.peak).toBe(4);
    expect(slots.active).toBe(0);
  });

  it("a plain body is not held up by busy slots; a compressed one waits for a slot, and its deadline still ends the wait", async () => {
    const slots = createSlotLimiter(2);
    const client = createHttpClient({ decompression: slots });
    const holders = [new AbortController(), new AbortController()];
    const held = holders.map((controller) => client.request(request("/stall-br", controller.signal)).catch((error: unknown) => error));
    while (slots.active < 2) await new Promise((resolve) => setImmediate(resolve));

    const plain = await client.request(request("/plain", AbortSignal.timeout(5_000)));
    expect(plain.body.toString()).toBe("<p>plain</p>");

    const waiting = new AbortController();
    const queued = client.request(request("/bomb", waiting.signal));
    while (slots.waiting < 1) await new Promise((resolve) => setImmediate(resolve));
    waiting.abort();
    await expect(queued).rejects.toMatchObject({ code: "upstream_timeout" });
    expect(slots.peak).toBe(2);

    for (const controller of holders) controller.abort();
    for (const outcome of await Promise.all(held)) expect(outcome).toMatchObject({ code: "upstream_timeout" });
    expect(slots.active).toBe(0);
  });

  it("a slot freed by one response goes to the next in line", async () => {
    const slots = createSlotLimiter(1);
    const client = createHttpClient({ decompression: slots });
    const results = await Promise.allSettled([1, 2, 3].map(() => client.request(request("/bomb", AbortSignal.timeout(20_000)))));
    expect(results.every((r) => r.status === "rejected" && (r.reason as { code: string }).code === "upstream_too_large")).toBe(true);
    expect(slots.peak).toBe(1);
    expect(slots.active).toBe(0);
  });

  it("one limiter serves the whole process by default", () => {
    expect(decompressionSlots.size).toBe(MAX_CONCURRENT_DECOMPRESSIONS);
    const aborted = new AbortController();
    aborted.abort();
    return expect(createSlotLimiter(1).acquire(aborted.signal)).rejects.toThrow("aborted");
  });
});
