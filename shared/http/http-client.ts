/**
 * The guarded HTTP client of webgate: Node's `http` speaking over a socket that a {@link Dialer}
 * opened to one of the addresses the guard checked. It performs one exchange, never follows
 * redirects (the guard does that hop by hop) and never resolves a name: a request carries the
 * guard's {@link CheckedAddresses} or is refused. Bodies are decompressed while they stream and
 * counted after decompression, so a compression bomb stops at the limit with memory bounded.
 * Global `fetch` is never used for this: it ignores agents and lookups.
 */
import http from "node:http";
import zlib from "node:zlib";
import { Transform, type Duplex, type Readable, type TransformCallback } from "node:stream";
import { WebgateError } from "../errors";
import { isCheckedAddresses } from "../guard/guarded-lookup";
import { bareHostname } from "../guard/url-policy";
import { createNetDialer, timeoutError } from "./net-dialer";
import type { Dialer, HttpClient, HttpExchange, HttpRequest, HttpResponse } from "./types";

export interface HttpClientOptions {
  dialer?: Dialer;
  /** Bounds concurrent decompressions; default: the one process-wide {@link decompressionSlots}. */
  decompression?: SlotLimiter;
}

/**
 * A counting semaphore: at most `size` holders at once, the others wait in order until a slot is
 * free or their signal aborts. `peak` is the most holders there ever were (for tests and bench).
 */
export interface SlotLimiter {
  readonly size: number;
  readonly active: number;
  /** Holders waiting for a slot now. */
  readonly waiting: number;
  readonly peak: number;
  /** Resolves with the release function once a slot is held; rejects when `signal` aborts first. */
  acquire(signal: AbortSignal): Promise<() => void>;
}

export function createSlotLimiter(size: number): SlotLimiter {
  let active = 0;
  let peak = 0;
  const waiting: Array<() => void> = [];
  const grant = (): (() => void) => {
    active += 1;
    peak = Math.max(peak, active);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      active -= 1;
      waiting.shift()?.();
    };
  };
  return {
    size,
    get active() {
      return active;
    },
    get peak() {
      return peak;
    },
    get waiting() {
      return waiting.length;
    },
    acquire(signal) {
      if (signal.aborted) return Promise.reject(new Error("aborted"));
      if (active < size) return Promise.resolve(grant());
      return new Promise((resolve, reject) => {
        const turn = () => {
          signal.removeEventListener("abort", onAbort);
          resolve(grant());
        };
        const onAbort = () => {
          const index = waiting.indexOf(turn);
          if (index !== -1) waiting.splice(index, 1);
          reject(new Error("aborted"));
        };
        waiting.push(turn);
        signal.addEventListener("abort", onAbort, { once: true });
      });
    },
  };
}

/**
 * How many response bodies the process decompresses at once. A brotli stream may declare a
 * 16 MiB window, which its decoder allocates whatever the body's size: forty concurrent 809-byte
 * brotli bombs took the local server from 175 to 748 MiB, though each was correctly cut at the
 * body limit. With this bound the decoders' memory is at most 4 × 16 MiB; the other responses
 * wait with their socket paused (the origin's bytes stay in the kernel's buffers) until a slot is
 * free or their deadline passes. Plain bodies are not limited here: they cost only their own
 * bytes, bounded by the body limit and the number of requests the server admits.
 */
export const MAX_CONCURRENT_DECOMPRESSIONS = 4;

/** The process-wide limiter every client shares unless given its own. */
export const decompressionSlots: SlotLimiter = createSlotLimiter(MAX_CONCURRENT_DECOMPRESSIONS);

export function createHttpClient(options: HttpClientOptions = {}): HttpClient {
  const dialer = options.dialer ?? createNetDialer();
  const decompression = options.decompression ?? decompressionSlots;
  return {
    async request(request: HttpRequest): Promise<HttpResponse> {
      // The type already demands the guard's list; this catches a cast or a copy (a plain
      // JavaScript caller, a test), which would otherwise dial addresses nobody checked.
      if (!isCheckedAddresses(request.addresses)) {
        throw new TypeError("The guarded HTTP client was given addresses the guard did not check.");
      }
      if (request.signal.aborted) throw timeoutError(request.signal);
      const socket = await dialer.dial({ ...dialPoint(request.url), addresses: request.addresses, connectTimeoutMs: request.connectTimeoutMs, signal: request.signal });
      return exchange({ socket }, request, decompression);
    },
  };
}

/** Host name (bare), port and TLS flag of a URL's origin. */
export function dialPoint(url: URL): { hostname: string; port: number; tls: boolean } {
  const tls = url.protocol === "https:";
  return { hostname: bareHostname(url), port: url.port === "" ? (tls ? 443 : 80) : Number(url.port), tls };
}

/**
 * The connection an exchange speaks over. Without `release` (the guarded client) it is the
 * exchange's own socket, asked to close (`Connection: close`) and destroyed when the exchange
 * ends. With `release` (a pooled connection of the trusted client) the request asks to keep it
 * alive, and once Node's http frees the socket (the response read to its end, neither side asked
 * to close) it goes back through `release`; from then on the exchange never touches it. An
 * exchange that ends any other way destroys it.
 */
export interface Connection {
  socket: Duplex;
  release?: ((keepAlive?: string) => void) | undefined;
  /** The socket served an earlier exchange; see {@link isStaleConnectionFailure}. */
  reused?: boolean | undefined;
}

/** Failures {@link exchange} marked as a reused connection's, before any answer. */
const staleFailures = new WeakSet<Error>();

/**
 * True for the failure of an exchange on a reused keep-alive connection that broke (ECONNRESET,
 * EPIPE, Node's "socket hang up") before the response's status line arrived, while the exchange
 * was still within its time: the typical mark of a server that closed the idle connection as it
 * was being reused. Whether the request may be sent again is the caller's decision: the request
 * may or may not have reached the server (see trusted-http-client.ts).
 */
export function isStaleConnectionFailure(error: unknown): boolean {
  return error instanceof Error && staleFailures.has(error);
}

const STALE_CODES = new Set(["ECONNRESET", "EPIPE"]);

export function exchange(connection: Connection, request: HttpExchange, decompression: SlotLimiter): Promise<HttpResponse> {
  return new Promise<HttpResponse>((resolve, reject) => {
    const { url, signal, maxBytes } = request;
    const truncate = request.overLimit === "truncate";
    const { socket, release } = connection;
    let settled = false;
    let decoder: Transform | undefined;
    let releaseSlot: (() => void) | undefined;
    let responded = false;
    let keepAlive: string | undefined;
    // Set once Node's http has freed a pooled socket: it belongs to the pool from then on.
    let freed = false;
    const onFree = () => {
      freed = true;
      release!(keepAlive);
    };

    /** `whole`: the body was read to its end, so a pooled socket may be freed and reused. */
    const finish = (error: Error | undefined, response?: HttpResponse, whole = false) => {
      if (settled) return;
      settled = true;
      releaseSlot?.();
      signal.removeEventListener("abort", onAbort);
      if (error !== undefined) {
        decoder?.destroy();
        req.destroy();
        close();
        reject(error instanceof Error ? error : new Error(String(error)));
      } else {
        // Guarded: one exchange per connection, nothing pooled, so nothing can be reused by a
        // later request to another host. Pooled: Node's http frees a socket whose body was read
        // whole (or closes it when either side asked); one cut short (a redirect's unread body,
        // a truncated one) is closed, never reused with bytes of this answer still on it.
        if (release === undefined || !whole) close();
        resolve(response!);
      }
    };
    const close = () => {
      if (freed) return;
      socket.removeListener("free", onFree);
      socket.destroy();
    };
    const onAbort = () => finish(timeoutError(signal));
    const body = request.body === undefined ? undefined : Buffer.from(request.body, "utf8");
    const headers: Record<string, string> = {
      Host: url.host,
      Connection: release === undefined ? "close" : "keep-alive",
      ...request.headers,
    };
    if (body !== undefined) headers["Content-Length"] = String(body.length);

    let req: http.ClientRequest;
    try {
      req = http.request({
        method: request.method ?? "GET",
        path: `${url.pathname}${url.search}`,
        headers,
        createConnection: () => socket,
        // No agent: the socket above is the only one this request may use.
        agent: undefined,
        setHost: false,
      });
    } catch (error) {
      // A header value Node refuses (e.g. a configured key with a line break) throws here, after
      // the dial: close the socket, which nothing else would ever close. Node's message names
      // the header, never its value.
      socket.destroy();
      reject(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    signal.addEventListener("abort", onAbort, { once: true });
    if (release !== undefined) socket.once("free", onFree);

    req.on("error", (error: Error & { code?: string }) => {
      const mapped = connectionError(error, signal);
      if (connection.reused === true && !responded && !signal.aborted && STALE_CODES.has(error.code ?? "")) staleFailures.add(mapped);
      finish(mapped);
    });
    // A 101 answer is announced only as "upgrade"; without a listener the request would neither
    // answer nor fail, and the exchange would hang until the overall time limit.
    req.on("upgrade", (res: http.IncomingMessage) => {
      res.socket.destroy();
      finish(new WebgateError("connect_failed", "The origin switched to another protocol (HTTP 101) instead of answering."));
    });
    req.on("response", (res) => {
      responded = true;
      // Always set on a client's response (the parser read the status line).
      const status = res.statusCode!;
      const responseHeaders = flattenHeaders(res.headers);
      keepAlive = responseHeaders["keep-alive"];
      if (status >= 300 && status < 400) {
        res.resume();
        finish(undefined, { status, headers: responseHeaders, body: Buffer.alloc(0) });
        return;
      }
      const declared = Number(responseHeaders["content-length"]);
      if (Number.isFinite(declared) && declared > maxBytes && !truncate) {
        finish(tooLarge(maxBytes));
        return;
      }
      const encoding = contentEncoding(responseHeaders["content-encoding"]);
      if (encoding === undefined) {
        readBody(res, status, responseHeaders);
        return;
      }
      if (!SUPPORTED_ENCODINGS.has(encoding)) {
        finish(new WebgateError("decode_failed", `The response uses an unsupported content encoding (${encoding.slice(0, 40)}).`));
        return;
      }
      // Nothing is read until a decompression slot is held: the paused socket keeps the body in
      // the kernel's buffers, not in this process.
      res.pause();
      // While waiting, a connection that breaks still ends the exchange at once.
      res.on("error", (error) => finish(connectionError(error, signal)));
      res.on("aborted", () => finish(incomplete()));
      res.on("close", () => {
        if (!res.complete) finish(incomplete());
      });
      decompression.acquire(signal).then(
        (release) => {
          if (settled) return release();
          releaseSlot = release;
          decoder = createDecoder(encoding);
          readBody(res, status, responseHeaders);
        },
        // Only an abort rejects, and the abort listener has already answered the timeout.
        () => finish(timeoutError(signal)),
      );
    });
    const readBody = (res: http.IncomingMessage, status: number, responseHeaders: Record<string, string>) => {
      const stream: Readable = decoder ? res.pipe(decoder) : res;
      const chunks: Buffer[] = [];
      let counted = 0;
      let raw = 0;
      // The first maxBytes, and the connection closed: nothing more of the body is read.
      const keepHead = () => finish(undefined, { status, headers: responseHeaders, body: Buffer.concat(chunks, counted), truncated: true });
      // Compressed bytes are bounded too. When truncating, the bound is looser (the decoder's
      // output lags its input by its buffers, and the decoded head is what is kept); without a
      // decoder the counting below sees the same bytes and cuts them exactly.
      const rawLimit = truncate ? 2 * maxBytes + 65_536 : maxBytes;
      res.on("data", (chunk: Buffer) => {
        raw += chunk.length;
        if (raw <= rawLimit) return;
        if (!truncate) finish(tooLarge(maxBytes));
        else if (decoder) keepHead();
      });
      stream.on("data", (chunk: Buffer) => {
        if (counted + chunk.length > maxBytes) {
          if (!truncate) return finish(tooLarge(maxBytes));
          chunks.push(chunk.subarray(0, maxBytes - counted));
          counted = maxBytes;
          return keepHead();
        }
        counted += chunk.length;
        chunks.push(chunk);
      });
      stream.on("error", (error) => {
        if (decoder && stream === decoder && raw === 0 && res.complete) {
          // No body at all (a 204, or an empty 200) is empty whatever Content-Encoding says; the
          // decoders call zero bytes a truncated stream.
          finish(undefined, { status, headers: responseHeaders, body: Buffer.alloc(0) });
        } else if (decoder && stream === decoder) {
          finish(new WebgateError("decode_failed", "The response body could not be decompressed.", { cause: error }));
        } else {
          finish(connectionError(error, signal));
        }
      });
      res.on("aborted", () => finish(incomplete()));
      res.on("close", () => {
        // A body that ends before its declared length, or a connection that closes mid-body,
        // is never handed on as if it were whole.
        if (!res.complete) finish(incomplete());
      });
      stream.on("end", () => finish(undefined, { status, headers: responseHeaders, body: Buffer.concat(chunks, counted) }, true));
      res.resume();
    };
    req.end(body);
  });
}

const SUPPORTED_ENCODINGS = new Set(["gzip", "x-gzip", "br", "deflate"]);

/** The content coding in lower case, or undefined for none (absent, empty or identity). */
function contentEncoding(header: string | undefined): string | undefined {
  const value = (header ?? "").trim().toLowerCase();
  return value === "" || value === "identity" ? undefined : value;
}

/** A decoder for one of {@link SUPPORTED_ENCODINGS}. */
function createDecoder(encoding: string): Transform {
  if (encoding === "gzip" || encoding === "x-gzip") return zlib.createGunzip();
  if (encoding === "br") return zlib.createBrotliDecompress();
  // "deflate" means the zlib format (RFC 9110 §8.4.1.2), but some servers send raw deflate:
  // unzip detects the zlib header; a raw stream falls back to inflateRaw.
  return new DeflateDecoder();
}

/** Inflates "deflate" bodies, choosing the zlib or raw format from the first two bytes. */
class DeflateDecoder extends Transform {
  private inner: zlib.Inflate | zlib.InflateRaw | undefined;
  private head = Buffer.alloc(0);

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    if (this.inner) {
      this.inner.write(chunk, () => callback());
      return;
    }
    this.head = Buffer.concat([this.head, chunk]);
    if (this.head.length < 2) return callback();
    // A zlib header: compression method 8 and a check value divisible by 31 (RFC 1950 §2.2).
    const zlibWrapped = (this.head[0]! & 0x0f) === 8 && ((this.head[0]! << 8) | this.head[1]!) % 31 === 0;
    const inner = zlibWrapped ? zlib.createInflate() : zlib.createInflateRaw();
    inner.on("data", (data: Buffer) => this.push(data));
    inner.on("error", (error) => this.destroy(error));
    this.inner = inner;
    inner.write(this.head, () => callback());
  }

  override _flush(callback: TransformCallback): void {
    if (!this.inner) return callback(new Error("truncated deflate stream"));
    this.inner.once("end", () => callback());
    this.inner.end();
  }
}

function flattenHeaders(headers: http.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : value;
  }
  return out;
}

function tooLarge(maxBytes: number): WebgateError {
  return new WebgateError("upstream_too_large", `The response is larger than the limit of ${maxBytes} bytes.`, {
    details: { limit_bytes: maxBytes },
  });
}

function incomplete(): WebgateError {
  return new WebgateError("connect_failed", "The origin closed the connection before the response was complete.");
}

function connectionError(error: Error & { code?: string }, signal: AbortSignal): WebgateError {
  if (signal.aborted) return timeoutError(signal);
  // HTTP parser errors (malformed chunked encoding, oversized headers) and resets: the origin
  // broke the exchange. The parser's code says how, without any address.
  const code = typeof error.code === "string" ? ` (${error.code})` : "";
  return new WebgateError("connect_failed", `The connection to the origin failed${code}.`, { cause: error });
}
