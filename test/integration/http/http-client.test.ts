import type { Socket } from "node:net";
import type { TLSSocket } from "node:tls";
import zlib from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import type { WebgateError } from "../../../shared/errors";
import { createHttpClient, createSlotLimiter } from "../../../shared/http/http-client";
import type { HttpRequest } from "../../../shared/http/types";
import { TEST_CA, startOrigin, startRawOrigin, type Origin } from "../../helpers/origin";
import { codeOf, expectWebgateError } from "../../helpers/expect-error";
import { checkedAddresses, createTestDialer } from "../../helpers/test-dialer";

const LOOPBACK = await checkedAddresses("127.0.0.1");
const PUBLIC = await checkedAddresses("93.184.215.14");
const origins: Origin[] = [];
afterEach(async () => {
  await Promise.all(origins.splice(0).map((o) => o.close()));
});

async function origin(...args: Parameters<typeof startOrigin>) {
  const o = await startOrigin(...args);
  origins.push(o);
  return o;
}
async function raw(onSocket: Parameters<typeof startRawOrigin>[0]) {
  const o = await startRawOrigin(onSocket);
  origins.push(o);
  return o;
}

function req(url: string, overrides: Partial<HttpRequest> = {}): HttpRequest {
  return { url: new URL(url), addresses: LOOPBACK, signal: AbortSignal.timeout(5_000), connectTimeoutMs: 2_000, maxBytes: 1_000_000, ...overrides };
}


const client = createHttpClient();

describe("http client: one exchange over a dialed socket", () => {
  it("sends the given headers and returns status, lower-case headers and body", async () => {
    const o = await origin((req, res) => {
      res.setHeader("X-Thing", "yes");
      res.end(`hello ${String(req.headers["x-test"])} ${String(req.headers.host)}`);
    });
    const res = await client.request(req(`${o.base}/a?b=1`, { headers: { "X-Test": "v" } }));
    expect(res.status).toBe(200);
    expect(res.headers["x-thing"]).toBe("yes");
    expect(res.body.toString()).toBe(`hello v 127.0.0.1:${o.port}`);
    expect(o.requests[0]!.url).toBe("/a?b=1");
  });

  it("sends a POST body with its length", async () => {
    const o = await origin((req, res) => {
      let data = "";
      req.on("data", (c: Buffer) => (data += c.toString()));
      req.on("end", () => res.end(`${req.method} ${req.headers["content-length"]} ${data}`));
    });
    const res = await client.request(req(`${o.base}/`, { method: "POST", body: '{"q":"é"}' }));
    expect(res.body.toString()).toBe('POST 10 {"q":"é"}');
  });

  it.each([
    ["gzip", (b: Buffer) => zlib.gzipSync(b)],
    ["x-gzip", (b: Buffer) => zlib.gzipSync(b)],
    ["br", (b: Buffer) => zlib.brotliCompressSync(b)],
    ["deflate", (b: Buffer) => zlib.deflateSync(b)],
    ["deflate", (b: Buffer) => zlib.deflateRawSync(b)],
  ])("decompresses %s", async (encoding, compress) => {
    const text = "webgate ".repeat(5_000);
    const o = await origin((_req, res) => {
      res.setHeader("Content-Encoding", encoding);
      res.end(compress(Buffer.from(text)));
    });
    const res = await client.request(req(o.base));
    expect(res.body.toString()).toBe(text);
  });

  it("refuses a declared Content-Length over the limit before reading the body", async () => {
    const o = await origin((_req, res) => {
      res.setHeader("Content-Length", "2000001");
      res.write("x");
    });
    expect(await codeOf(client.request(req(o.base, { maxBytes: 2_000_000 })))).toBe("upstream_too_large");
  });

  it.each([
    ["gzip", (b: Buffer) => zlib.gzipSync(b)],
    // Quality 1: the bomb is as small, and brotli's default quality 11 spent seconds of CPU making it.
    ["br", (b: Buffer) => zlib.brotliCompressSync(b, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 1 } })],
    ["deflate", (b: Buffer) => zlib.deflateSync(b)],
  ])("stops a %s bomb at the limit counted after decompression", { timeout: 60_000 }, async (encoding, compress) => {
    const bomb = compress(Buffer.alloc(64 * 1024 * 1024));
    expect(bomb.length).toBeLessThan(1_000_000);
    const o = await origin((_req, res) => {
      res.setHeader("Content-Encoding", encoding);
      res.end(bomb);
    });
    const before = process.memoryUsage().rss;
    expect(await codeOf(client.request(req(o.base, { maxBytes: 5_242_880 })))).toBe("upstream_too_large");
    // Memory stays bounded: nowhere near the 64 MiB the bomb expands to.
    expect(process.memoryUsage().rss - before).toBeLessThan(48 * 1024 * 1024);
  });

  it("stops an endless identity body at the limit", async () => {
    const o = await origin((_req, res) => {
      const chunk = Buffer.alloc(64 * 1024, 97);
      const pump = () => {
        while (res.write(chunk)) {
          /* keep writing until the socket pushes back */
        }
      };
      res.on("drain", pump);
      res.on("error", () => undefined);
      pump();
    });
    expect(await codeOf(client.request(req(o.base, { maxBytes: 1_000_000 })))).toBe("upstream_too_large");
  });

  it("keeps the head of a longer body with overLimit truncate: declared, endless, compressed", async () => {
    const text = Array.from({ length: 4_000 }, (_, i) => `line ${i}\n`).join("");
    const declared = await origin((_req, res) => res.end(text));
    const cut = await client.request(req(declared.base, { maxBytes: 1_000, overLimit: "truncate" }));
    expect(cut).toMatchObject({ status: 200, truncated: true });
    expect(cut.body.toString()).toBe(text.slice(0, 1_000));

    const endless = await origin((_req, res) => {
      const chunk = Buffer.alloc(64 * 1024, 97);
      const pump = () => {
        while (res.write(chunk)) {
          /* keep writing until the socket pushes back */
        }
      };
      res.on("drain", pump);
      res.on("error", () => undefined);
      pump();
    });
    const head = await client.request(req(endless.base, { maxBytes: 100_000, overLimit: "truncate" }));
    expect(head.truncated).toBe(true);
    expect(head.body.equals(Buffer.alloc(100_000, 97))).toBe(true);

    const gzip = await origin((_req, res) => {
      res.setHeader("Content-Encoding", "gzip");
      res.end(zlib.gzipSync(Buffer.from(text)));
    });
    const inflated = await client.request(req(gzip.base, { maxBytes: 1_000, overLimit: "truncate" }));
    expect(inflated.truncated).toBe(true);
    expect(inflated.body.toString()).toBe(text.slice(0, 1_000));
  });

  it("bounds the compressed bytes too when truncating: endless gzip members that decode to nothing", async () => {
    const empty = zlib.gzipSync(Buffer.alloc(0));
    const o = await origin((_req, res) => {
      res.setHeader("Content-Encoding", "gzip");
      const chunk = Buffer.concat(Array.from({ length: 1_000 }, () => empty));
      const pump = () => {
        while (res.write(chunk)) {
          /* keep writing until the socket pushes back */
        }
      };
      res.on("drain", pump);
      res.on("error", () => undefined);
      pump();
    });
    const res = await client.request(req(o.base, { maxBytes: 10_000, overLimit: "truncate" }));
    expect(res).toMatchObject({ status: 200, truncated: true });
    expect(res.body.length).toBe(0);
  });

  it("does not mark a body of exactly the limit as truncated", async () => {
    const o = await origin((_req, res) => res.end("x".repeat(1_000)));
    const res = await client.request(req(o.base, { maxBytes: 1_000, overLimit: "truncate" }));
    expect(res.truncated).toBeUndefined();
    expect(res.body.length).toBe(1_000);
  });

  it("answers decode_failed for a corrupt gzip body and for an unknown encoding", async () => {
    const corrupt = await origin((_req, res) => {
      res.setHeader("Content-Encoding", "gzip");
      res.end(Buffer.from("this is not gzip at all"));
    });
    expect(await codeOf(client.request(req(corrupt.base)))).toBe("decode_failed");
    const unknown = await origin((_req, res) => {
      res.setHeader("Content-Encoding", "zstd-ish");
      res.end("x");
    });
    expect(await codeOf(client.request(req(unknown.base)))).toBe("decode_failed");
  });

  it.each(["gzip", "br", "deflate"])("returns an empty body declared as %s as empty, not as a decode failure", async (encoding) => {
    for (const answer of [`HTTP/1.1 204 No Content\r\nContent-Encoding: ${encoding}\r\n\r\n`, `HTTP/1.1 200 OK\r\nContent-Encoding: ${encoding}\r\nContent-Length: 0\r\n\r\n`]) {
      const o = await raw((socket) => socket.once("data", () => socket.end(answer)));
      const res = await client.request(req(o.base));
      expect(res.body.length).toBe(0);
      expect(res.status).toBe(Number(answer.slice(9, 12)));
    }
  });

  it("still refuses a non-empty body that does not decode", async () => {
    const o = await raw((socket) => socket.once("data", () => socket.end("HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: 3\r\n\r\nabc")));
    expect(await codeOf(client.request(req(o.base)))).toBe("decode_failed");
  });

  it("returns a 3xx with its Location and no body", async () => {
    const o = await origin((_req, res) => {
      res.writeHead(302, { Location: "/next" });
      res.end("moved");
    });
    const res = await client.request(req(o.base));
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe("/next");
    expect(res.body.length).toBe(0);
  });

  it("never hands on a body shorter than its Content-Length", async () => {
    const o = await raw((socket) => {
      socket.once("data", () => {
        socket.end("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly a part");
      });
    });
    expect(await codeOf(client.request(req(o.base)))).toBe("connect_failed");
  });

  it("refuses a Content-Length shorter than the body sent with it", async () => {
    // The bytes after the declared length are not a valid next response: the origin lied, and
    // the first N bytes would be a truncated page served as if whole.
    const o = await raw((socket) => {
      socket.once("data", () => socket.end("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello and more"));
    });
    expect(await codeOf(client.request(req(o.base)))).toBe("connect_failed");
  });

  it("refuses broken chunked encoding", async () => {
    const o = await raw((socket) => {
      socket.once("data", () => socket.end("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nZZZ\r\nhello\r\n0\r\n\r\n"));
    });
    expect(await codeOf(client.request(req(o.base)))).toBe("connect_failed");
  });

  it("answers connect_failed for a 101 Switching Protocols instead of hanging to the time limit", async () => {
    const o = await raw((socket) => {
      socket.once("data", () => socket.write("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n"));
    });
    // Before the fix this only ended when the signal fired, as upstream_timeout.
    expect(await codeOf(client.request(req(o.base, { signal: AbortSignal.timeout(2_000) })))).toBe("connect_failed");
  });

  it("closes the dialed socket when a header value cannot be sent", async () => {
    let closed!: () => void;
    const serverSideClosed = new Promise<string>((resolve) => (closed = () => resolve("closed")));
    const o = await raw((socket) => socket.on("close", closed));
    // A key pasted with a line break in it: Node refuses the header after the socket is open.
    const failure = await client.request(req(o.base, { headers: { Authorization: "Bearer abc\ndef" } })).then(
      () => undefined,
      (error: unknown) => error as Error,
    );
    expect(failure?.message).toContain("Authorization");
    expect(failure?.message).not.toContain("abc");
    // The origin's own 'close' event, however late a loaded machine delivers it: a socket left
    // open never closes and the test fails by its time limit, not by a 2 s race.
    expect(await serverSideClosed).toBe("closed");
  });

  it("refuses a connection closed mid-body", async () => {
    const o = await raw((socket) => {
      socket.once("data", () => {
        socket.write("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n");
        setTimeout(() => socket.destroy(), 20);
      });
    });
    expect(await codeOf(client.request(req(o.base)))).toBe("connect_failed");
  });

  it.each([
    ["accepts and never answers", (_s: Socket) => undefined],
    ["sends headers then stalls", (s: Socket) => s.once("data", () => s.write("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nab"))],
  ])("times out when the origin %s", async (_name, behaviour) => {
    const o = await raw(behaviour);
    // Only the signal can end it (the origin stays silent and the client has no limit of its
    // own): the code shows it did; a broken abort fails the test by its time limit.
    expect(await codeOf(client.request(req(o.base, { signal: AbortSignal.timeout(300) })))).toBe("upstream_timeout");
  });

  it("answers connect_failed when nothing listens", async () => {
    const o = await raw(() => undefined);
    await o.close();
    origins.splice(origins.indexOf(o), 1);
    expect(await codeOf(client.request(req(o.base)))).toBe("connect_failed");
  });

  it("dials the checked addresses only: a copied or cast list is refused before any connection", async () => {
    const o = await origin((_req, res) => res.end("ok"));
    const asked: string[] = [];
    const dialer = createTestDialer({ route: (address) => (asked.push(address), { host: "127.0.0.1", port: o.port }) });
    const guarded = createHttpClient({ dialer });
    expect((await guarded.request(req(`http://www.example.com:${o.port}/`, { addresses: PUBLIC }))).body.toString()).toBe("ok");
    expect(asked).toEqual(["93.184.215.14"]);
    const forged = ["93.184.215.14"] as unknown as HttpRequest["addresses"];
    await expect(guarded.request(req(`http://www.example.com:${o.port}/`, { addresses: forged }))).rejects.toThrow(TypeError);
    await expect(guarded.request(req(`http://www.example.com:${o.port}/`, { addresses: [...PUBLIC] as unknown as HttpRequest["addresses"] }))).rejects.toThrow(TypeError);
    expect(asked).toHaveLength(1);
    expect(o.requests).toHaveLength(1);
    // The list cannot be changed after the check either.
    expect(() => (PUBLIC as unknown as string[]).push("10.0.0.1")).toThrow(TypeError);
  });
});

describe("net dialer: TLS verifies the URL's host name on the checked address", () => {
  it("connects to the checked address and verifies the certificate for the host name", async () => {
    const o = await origin((_req, res) => res.end("secure"), { tls: true });
    const dialer = createTestDialer({ ca: TEST_CA, route: () => ({ host: "127.0.0.1", port: o.port }) });
    const tlsClient = createHttpClient({ dialer });
    const res = await tlsClient.request(req("https://www.example.com/", { addresses: PUBLIC }));
    expect(res.body.toString()).toBe("secure");
    expect(dialer.opened).toEqual(["93.184.215.14"]);
    expect(o.requests[0]!.headers.host).toBe("www.example.com");
  });

  it("refuses a certificate that does not cover the host name", async () => {
    const o = await origin((_req, res) => res.end("secure"), { tls: true });
    const dialer = createTestDialer({ ca: TEST_CA, route: () => ({ host: "127.0.0.1", port: o.port }) });
    const tlsClient = createHttpClient({ dialer });
    const error = await tlsClient.request(req("https://other.test/", { addresses: PUBLIC })).catch((e: unknown) => e);
    expect((error as WebgateError).code).toBe("connect_failed");
    expect((error as WebgateError).message).toContain("TLS");
    expect((error as WebgateError).message).not.toContain("127.0.0.1");
  });

  it("refuses a certificate from an untrusted issuer", async () => {
    const o = await origin((_req, res) => res.end("secure"), { tls: true });
    const dialer = createTestDialer({ route: () => ({ host: "127.0.0.1", port: o.port }) });
    const tlsClient = createHttpClient({ dialer });
    expect(await codeOf(tlsClient.request(req("https://example.com/", { addresses: PUBLIC })))).toBe("connect_failed");
  });

  it("sends no SNI for an IP-literal host and verifies the certificate for the address (RFC 6066 §3)", async () => {
    let servername: unknown = "not seen";
    const o = await origin((request, res) => {
      servername = (request.socket as TLSSocket).servername;
      res.end("secure");
    }, { tls: true });
    const tlsClient = createHttpClient({ dialer: createTestDialer({ ca: TEST_CA, route: () => ({ host: "127.0.0.1", port: o.port }) }) });
    expect((await tlsClient.request(req(`https://127.0.0.1:${o.port}/`))).body.toString()).toBe("secure");
    expect(servername).toBe(false);
  });

  it("bounds the TLS handshake: connect_failed after the connect timeout, upstream_timeout when the signal fires first", async () => {
    // Accepts the connection and never answers the ClientHello.
    const silent = await raw(() => undefined);
    const dialer = createTestDialer({ ca: TEST_CA, route: () => ({ host: "127.0.0.1", port: silent.port }) });
    const tlsClient = createHttpClient({ dialer });
    const slow = await expectWebgateError(tlsClient.request(req("https://www.example.com/", { addresses: PUBLIC, connectTimeoutMs: 50 })));
    expect(slow.code).toBe("connect_failed");
    expect(slow.message).toBe("The TLS handshake with the origin failed.");
    expect(await codeOf(tlsClient.request(req("https://www.example.com/", { addresses: PUBLIC, signal: AbortSignal.timeout(50) })))).toBe("upstream_timeout");
  });

  it("tries the next checked address when one does not answer", async () => {
    const o = await origin((_req, res) => res.end("second"));
    const dead = await raw(() => undefined);
    await dead.close();
    origins.splice(origins.indexOf(dead), 1);
    const dialer = createTestDialer({ route: (address) => ({ host: "127.0.0.1", port: address === "93.184.215.14" ? dead.port : o.port }) });
    const c = createHttpClient({ dialer });
    const res = await c.request(req("http://example.com/", { addresses: await checkedAddresses("93.184.215.14", "93.184.215.15") }));
    expect(res.body.toString()).toBe("second");
  });
});

describe("http client: edges", () => {
  it("answers upstream_timeout for a signal that has already fired, without connecting", async () => {
    const o = await origin((_req, res) => res.end("ok"));
    const fired = new AbortController();
    fired.abort();
    expect(await codeOf(client.request(req(o.base, { signal: fired.signal })))).toBe("upstream_timeout");
    expect(o.connections).toBe(0);
  });

  it("joins a repeated header (Set-Cookie, which Node keeps as a list) with a comma", async () => {
    const o = await origin((_req, res) => {
      res.setHeader("Set-Cookie", ["a=1", "b=2"]);
      res.end("ok");
    });
    expect((await client.request(req(o.base))).headers["set-cookie"]).toBe("a=1, b=2");
  });

  it("inflates a deflate body that arrives a byte, then pieces, at a time", async () => {
    const text = "webgate ".repeat(2_000);
    const deflated = zlib.deflateSync(Buffer.from(text));
    const o = await origin((_req, res) => {
      res.writeHead(200, { "Content-Encoding": "deflate" });
      // Chunked: each write is its own chunk, and the parser hands each on as its own piece.
      res.write(deflated.subarray(0, 1));
      res.write(deflated.subarray(1, 40));
      res.end(deflated.subarray(40));
    });
    expect((await client.request(req(o.base))).body.toString()).toBe(text);
  });

  it.each([
    ["a single byte", Buffer.from([0x78])],
    ["a zlib header and garbage", Buffer.concat([Buffer.from([0x78, 0x9c]), Buffer.from("not deflate at all, not at all")])],
  ])("answers decode_failed for a deflate body of %s", async (_label, body) => {
    const o = await origin((_req, res) => res.writeHead(200, { "Content-Encoding": "deflate" }).end(body));
    expect(await codeOf(client.request(req(o.base)))).toBe("decode_failed");
  });

  it("gives back a decompression slot it is granted after its exchange already failed", async () => {
    const slots = createSlotLimiter(1);
    const hold = await slots.acquire(new AbortController().signal);
    const o = await raw((socket) =>
      socket.once("data", () => {
        socket.write("HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: 100\r\n\r\n");
        socket.destroy();
      }),
    );
    const limited = createHttpClient({ decompression: slots });
    // The connection breaks while the exchange waits for the slot: it fails at once.
    expect(await codeOf(limited.request(req(o.base)))).toBe("connect_failed");
    expect(slots.waiting).toBe(1);
    hold();
    expect(slots.waiting).toBe(0);
    // The grant reaches the failed exchange as a promise continuation, which gives it back.
    await new Promise((resolve) => setImmediate(resolve));
    expect(slots.active).toBe(0);
    expect(slots.peak).toBe(1);
  });
});

describe("createSlotLimiter", () => {
  it("counts a release once however often it is called, and refuses an aborted signal at once", async () => {
    const slots = createSlotLimiter(1);
    const release = await slots.acquire(new AbortController().signal);
    release();
    release();
    expect(slots.active).toBe(0);
    const both = [await slots.acquire(new AbortController().signal)];
    expect(slots.active).toBe(1);
    const fired = new AbortController();
    fired.abort();
    await expect(slots.acquire(fired.signal)).rejects.toThrow("aborted");
    const waiting = new AbortController();
    const queued = slots.acquire(waiting.signal);
    expect(slots.waiting).toBe(1);
    waiting.abort();
    await expect(queued).rejects.toThrow("aborted");
    expect(slots.waiting).toBe(0);
    both[0]!();
    expect(slots.active).toBe(0);
    expect(slots.size).toBe(1);
  });
});
