/**
 * The guarded proxy: the only network a rendering browser has. webgate runs it in process on
 * 127.0.0.1, one per rendered page, and the browser context of that page is pointed at it for
 * every scheme (Chromium `proxyServer`, with loopback not bypassed: `<-loopback>`).
 *
 * Every request of the page comes through here, and each one goes through the same guard as a
 * plain fetch, before any byte leaves the process:
 * - `CONNECT host:port` (https, wss, and anything else tunnelled): the authority is checked as
 *   `https://host:port/` by the URL policy, the name is resolved once by {@link resolveChecked}
 *   (every answer checked by the address policy), and the tunnel is dialed to exactly one of the
 *   checked addresses. The browser then speaks TLS end to end with the origin and verifies its
 *   certificate itself.
 * - plain HTTP (`GET http://host/path`): the URL policy upgrades http to https, exactly as for a
 *   plain fetch, so the proxy answers a 308 to the https URL, which the browser follows through
 *   a checked tunnel. Only where the URL policy keeps http (loopback under the dev switch) is
 *   the request forwarded, over a socket to the checked address.
 * - anything else (origin-form requests, plain-HTTP upgrades) is refused.
 *
 * A refusal answers 403 with the refusing code in `X-Webgate-Refusal` and is recorded, by the
 * authority the page asked for (never the address a name resolved to), so the renderer can
 * answer a refused top-level navigation with the guard's own error.
 *
 * Budgets, per page: bytes relayed from origins to the browser across all requests, and
 * upstream connections opened. Past either, every tunnel is closed, every later request is
 * refused, and {@link GuardedProxy.exhausted} says which budget ran out.
 */
import http from "node:http";
import type net from "node:net";
import type { Duplex } from "node:stream";
import { WebgateError, isWebgateError, type ErrorCode } from "../errors";
import { resolveChecked } from "../guard/guarded-lookup";
import type { GuardPolicy } from "../guard/policy";
import type { Resolver } from "../guard/dns-resolver";
import { bareHostname, checkUrl, refuseLoopbackHop } from "../guard/url-policy";
import type { Dialer } from "../http/types";

export interface GuardedProxyOptions {
  resolver: Resolver;
  dialer: Dialer;
  policy: GuardPolicy;
  /** Each DNS lookup and each upstream connect. */
  connectTimeoutMs: number;
  /** Bytes relayed from origins to the browser, all requests of the page together. */
  maxBytes: number;
  /** Upstream connections the page may open in total. */
  maxConnections: number;
  /** The page's deadline: when it aborts, lookups and dials in flight fail and tunnels close. */
  signal: AbortSignal;
  /**
   * The page's own URL. Under the dev switch, a request the page makes (a subresource, a
   * redirect) reaches loopback only on this URL's port (refuseLoopbackHop): a local page cannot
   * reach the machine's other local services.
   */
  home?: URL;
}

export type ProxyBudget = "bytes" | "connections";

/** One request the proxy did not carry through, by the authority the page named. */
export interface ProxyFailure {
  /** `host:port` as the browser asked for it (a name or a literal, never a resolved address). */
  authority: string;
  code: ErrorCode;
  /** The address policy's reason, when an address was refused. */
  reason?: string;
}

export interface GuardedProxy {
  /** `http://127.0.0.1:<port>`, for the browser context's `proxyServer`. */
  readonly url: string;
  /** Upstream connections opened so far. */
  readonly connections: number;
  /** Bytes relayed from origins to the browser so far. */
  readonly bytes: number;
  /** Every refused or failed request, in order. */
  readonly failures: readonly ProxyFailure[];
  /** The budget that ran out, if one did. */
  readonly exhausted: ProxyBudget | undefined;
  /** The error of the last failed request to `authority` (`host:port`), for the top-level navigation. */
  failureFor(authority: string): WebgateError | undefined;
  /** Called once, when the first budget runs out. */
  onExhausted(listener: (budget: ProxyBudget) => void): void;
  /** Stops listening and closes every connection, browser side and origin side. */
  close(): Promise<void>;
}

const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "proxy-authorization",
  "proxy-authenticate",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
]);

/** Starts a proxy on 127.0.0.1 (a free port) for one page. */
export async function startGuardedProxy(options: GuardedProxyOptions): Promise<GuardedProxy> {
  const { policy, signal } = options;
  const sockets = new Set<Duplex>();
  const failures: ProxyFailure[] = [];
  const lastError = new Map<string, WebgateError>();
  const exhaustedListeners: Array<(budget: ProxyBudget) => void> = [];
  let connections = 0;
  let bytes = 0;
  let exhausted: ProxyBudget | undefined;
  let closed = false;

  const track = (socket: Duplex) => {
    sockets.add(socket);
    // A browser that hangs up mid-tunnel, or an origin that resets, is the end of that one
    // request, never an exception out of the proxy.
    socket.on("error", () => undefined);
    socket.on("close", () => sockets.delete(socket));
    if (closed) socket.destroy();
  };

  const exhaust = (budget: ProxyBudget) => {
    if (exhausted !== undefined) return;
    exhausted = budget;
    // Everything in flight stops: the budget is for the page as a whole.
    for (const socket of sockets) socket.destroy();
    for (const listener of exhaustedListeners) listener(budget);
  };

  const record = (authority: string, error: unknown): WebgateError => {
    const err = isWebgateError(error) ? error : new WebgateError("connect_failed", "Could not connect to the origin server.", { cause: error });
    const reason = typeof err.details.reason === "string" ? err.details.reason : undefined;
    failures.push(reason === undefined ? { authority, code: err.code } : { authority, code: err.code, reason });
    lastError.set(authority, err);
    return err;
  };

  const relay = (chunk: Buffer) => {
    bytes += chunk.length;
    if (bytes > options.maxBytes) exhaust("bytes");
  };

  /** URL policy, one checked lookup, a connection to a checked address, within the budgets. */
  const open = async (url: URL): Promise<Duplex> => {
    if (closed) throw new WebgateError("upstream_timeout", "The page's time ran out.");
    if (exhausted !== undefined) throw budgetError(exhausted, options);
    if (options.home !== undefined) refuseLoopbackHop(options.home, url, policy);
    const host = bareHostname(url);
    const addresses = await resolveChecked(host, { resolver: options.resolver, policy, signal, timeoutMs: options.connectTimeoutMs });
    if (exhausted !== undefined) throw budgetError(exhausted, options);
    if (connections >= options.maxConnections) {
      exhaust("connections");
      throw budgetError("connections", options);
    }
    connections += 1;
    const port = url.port === "" ? (url.protocol === "https:" ? 443 : 80) : Number(url.port);
    const upstream = await options.dialer.dial({
      hostname: host,
      addresses,
      port,
      tls: false,
      connectTimeoutMs: options.connectTimeoutMs,
      signal,
    });
    track(upstream);
    return upstream;
  };

  const server = http.createServer((req, res) => {
    handlePlain(req, res).catch(() => res.destroy());
  });
  server.on("connection", track);
  server.on("clientError", (_error, socket) => socket.destroy());

  async function handlePlain(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const target = req.url ?? "";
    // A proxy request names an absolute URL; anything else is someone using the port as a server.
    if (!/^http:\/\//i.test(target)) {
      refusePlain(res, record("", new WebgateError("url_not_allowed", "The proxy serves absolute http URLs only.")));
      return;
    }
    let url: URL;
    const authority = authorityOf(target);
    try {
      url = checkUrl(target, policy);
    } catch (error) {
      refusePlain(res, record(authority, error));
      return;
    }
    if (url.protocol === "https:") {
      // The guard upgrades http to https; the browser follows this through a checked tunnel.
      req.resume();
      res.writeHead(308, { location: url.href, "content-length": "0", connection: "close" });
      res.end();
      return;
    }
    let upstream: Duplex;
    try {
      upstream = await open(url);
    } catch (error) {
      refusePlain(res, record(authority, error));
      return;
    }
    forward(req, res, url, upstream);
  }

  function forward(req: http.IncomingMessage, res: http.ServerResponse, url: URL, upstream: Duplex): void {
    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = value;
    }
    headers.host = url.host;
    headers.connection = "close";
    const outgoing = http.request({
      method: req.method,
      path: `${url.pathname}${url.search}`,
      headers,
      createConnection: () => upstream,
      agent: undefined,
      setHost: false,
    });
    outgoing.on("error", () => res.destroy());
    outgoing.on("upgrade", (_r, socket: Duplex) => {
      socket.destroy();
      res.destroy();
    });
    outgoing.on("response", (incoming) => {
      const out: Record<string, string | string[]> = {};
      for (const [name, value] of Object.entries(incoming.headers)) {
        // X-Webgate-Refusal is the proxy's word alone: an origin cannot forge a refusal.
        if (value !== undefined && !HOP_BY_HOP.has(name) && name !== "x-webgate-refusal") out[name] = value;
      }
      out.connection = "close";
      res.writeHead(incoming.statusCode ?? 502, out);
      incoming.on("data", relay);
      incoming.pipe(res);
      incoming.on("error", () => res.destroy());
    });
    req.pipe(outgoing);
  }

  server.on("connect", (req: http.IncomingMessage, client: Duplex, head: Buffer) => {
    track(client);
    const authority = (req.url ?? "").toLowerCase();
    void (async () => {
      let upstream: Duplex;
      try {
        // The authority must be host:port; "https://" + it is then judged like any URL.
        if (!/^(?:\[[0-9a-f:.]+\]|[^\s/?#@[\]]+):\d{1,5}$/i.test(authority)) {
          throw new WebgateError("url_not_allowed", "The tunnel target is not host:port.");
        }
        upstream = await open(checkUrl(`https://${authority}/`, policy));
      } catch (error) {
        const err = record(authority, error);
        refuseRaw(client, refusalStatus(err), err.code);
        return;
      }
      if (client.destroyed) {
        upstream.destroy();
        return;
      }
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      if (head.length > 0) upstream.write(head);
      upstream.on("data", relay);
      upstream.pipe(client);
      client.pipe(upstream);
      upstream.on("close", () => client.destroy());
      client.on("close", () => upstream.destroy());
    })();
  });

  // Chromium tunnels WebSockets with CONNECT; an Upgrade in a plain proxy request is not a form
  // it uses, and is refused rather than half-supported.
  server.on("upgrade", (req: http.IncomingMessage, socket: Duplex) => {
    track(socket);
    record(authorityOf(req.url ?? ""), new WebgateError("url_not_allowed", "Protocol upgrades over plain proxy requests are refused."));
    refuseRaw(socket, 403, "url_not_allowed");
  });

  function refusePlain(res: http.ServerResponse, error: WebgateError): void {
    res.writeHead(refusalStatus(error), { "content-type": "text/plain; charset=utf-8", "x-webgate-refusal": error.code, connection: "close" });
    res.end(`Refused by webgate: ${error.code}\n`);
  }

  const onAbort = () => {
    for (const socket of sockets) socket.destroy();
  };
  signal.addEventListener("abort", onAbort, { once: true });

  const port = await listenOnLoopback(server);

  return {
    url: `http://127.0.0.1:${port}`,
    get connections() {
      return connections;
    },
    get bytes() {
      return bytes;
    },
    failures,
    get exhausted() {
      return exhausted;
    },
    failureFor: (authority) => lastError.get(authority.toLowerCase()),
    onExhausted: (listener) => {
      exhaustedListeners.push(listener);
    },
    close: () =>
      new Promise<void>((resolve) => {
        closed = true;
        signal.removeEventListener("abort", onAbort);
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** `host:port` of an absolute URL as the browser wrote it, the scheme's port filled in. */
export function authorityOf(href: string): string {
  try {
    const url = new URL(href);
    const port = url.port === "" ? (url.protocol === "https:" || url.protocol === "wss:" ? "443" : "80") : url.port;
    return `${url.hostname}:${port}`.toLowerCase();
  } catch {
    return "";
  }
}

function budgetError(budget: ProxyBudget, options: GuardedProxyOptions): WebgateError {
  return budget === "bytes"
    ? new WebgateError("upstream_too_large", `The page loaded more than ${options.maxBytes} bytes in total.`, { details: { limit_bytes: options.maxBytes } })
    : new WebgateError("connect_failed", `The page opened more than ${options.maxConnections} connections.`, { retryable: false });
}

/** Listens on 127.0.0.1, a free port (never another interface: the browser alone may reach it). */
function listenOnLoopback(server: http.Server): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      server.off("error", reject);
      resolve((server.address() as net.AddressInfo).port);
    });
  });
}

/**
 * Refuses a tunnel or an upgrade on its raw socket: an empty answer with the refusing code in
 * `X-Webgate-Refusal`, and the connection closed.
 */
function refuseRaw(socket: Duplex, status: 403 | 502, code: ErrorCode): void {
  socket.end(`HTTP/1.1 ${status} ${status === 403 ? "Forbidden" : "Bad Gateway"}\r\nX-Webgate-Refusal: ${code}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`);
}

/** Policy refusals answer 403; network failures answer 502 (what a gateway would say). */
function refusalStatus(error: WebgateError): 403 | 502 {
  return error.status === 403 || error.status === 400 ? 403 : 502;
}

export interface RefusingProxy {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /** Requests refused so far (the browser's own background traffic lands here). */
  readonly refused: number;
  close(): Promise<void>;
}

/**
 * The browser-wide proxy: refuses every request and every tunnel. Chromium sends its own
 * traffic (component updates, time sync, sign-in probes) through the browser's proxy, not a
 * page's, so none of it reaches any network.
 */
export async function startRefusingProxy(): Promise<RefusingProxy> {
  let refused = 0;
  const sockets = new Set<Duplex>();
  const server = http.createServer((req, res) => {
    refused += 1;
    req.resume();
    res.writeHead(403, { "x-webgate-refusal": "host_not_allowed", connection: "close", "content-length": "0" });
    res.end();
  });
  const refuse = (_req: http.IncomingMessage, socket: Duplex) => {
    refused += 1;
    socket.on("error", () => undefined);
    refuseRaw(socket, 403, "host_not_allowed");
  };
  server.on("connect", refuse);
  server.on("upgrade", refuse);
  server.on("clientError", (_error, socket) => socket.destroy());
  server.on("connection", (socket: Duplex) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  const port = await listenOnLoopback(server);
  return {
    url: `http://127.0.0.1:${port}`,
    get refused() {
      return refused;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
