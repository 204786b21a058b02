/**
 * Faults through the whole /fetch handler (middy stack, guard, page store on dynalite): broken
 * origins, broken DNS, a broken page store. Each case asserts the error code (or the bypass), that
 * no socket or timer outlives the request, and that the next request works. The time each took
 * goes to the reliability summary with the rest of the figures ("faults survived N of N"), not to
 * an assertion: the invocation has INVOCATION_MS, far beyond the test's own time limit, so a
 * timeout code or a bypass can only come from the limit the case is about (the fetch limit, the
 * lookup limit, the page store client's), and a limit that does not work fails the test by its
 * time limit instead of racing a wall-clock bound on a loaded machine.
 */
import zlib from "node:zlib";
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { DeleteItemCommand, type DynamoDBClient } from "@aws-sdk/client-dynamodb";
import type { APIGatewayProxyResult } from "aws-lambda";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DYNAMO_CLIENT_DEFAULTS, createDynamoClient } from "../../shared/cache/dynamo-client";
import { loadConfig } from "../../shared/config";
import { createFetchHandler } from "../../shared/fetch/fetch-route";
import type { Resolver } from "../../shared/guard/dns-resolver";
import { createMemoryTelemetry, type MemoryTelemetry } from "../../shared/observability/telemetry";
import { apiGatewayEvent, lambdaContext } from "../helpers/apigw-event";
import { createTestTable, startTestDynamo, type LocalDynamo } from "../helpers/dynalite";
import { ManualClock } from "../helpers/fetch-app";
import { closedPort } from "../helpers/provider-stand-in";
import { RoutingDialer } from "../helpers/test-network";
import { expectNoLeaks, figureRecorder, trackHandles, respond, startRawOrigin, type RawBehaviour, type RawOrigin } from "./support";

/** The limits of the cases about them: the fetch limit, and the connect limit that also bounds DNS. */
const TIMED = { fetchMs: 1_500, connectMs: 1_000 };
/**
 * The limits of every other case: far beyond the test's own time limit, so that a loaded machine
 * (a brotli bomb decoding on a starved core took more than 1.5 s) cannot turn a fault into a
 * timeout; the configuration's maxima.
 */
const ROOMY = { fetchMs: 120_000, connectMs: 60_000 };
/** The invocation's remaining time: ten minutes, beyond every test's time limit (at most 60 s). */
const INVOCATION_MS = 600_000;
const MAX_BYTES = 5_242_880;
const PUBLIC_ADDRESS = "93.184.215.14";

const record = figureRecorder("faults");
let dynamo: LocalDynamo;
let dynamoPort = 0;
let origin: RawOrigin;
let routes: Record<string, RawBehaviour> = {};
/** Every log line and response body of this file, checked for resolved addresses at the end. */
const visible: string[] = [];
const telemetries: MemoryTelemetry[] = [];

const page = (text: string): RawBehaviour => (socket) => respond(socket, 200, { "content-type": "text/html; charset=utf-8" }, `<title>ok</title><p>${text}</p>`);

/** DNS with one name per failure mode; every other name is NXDOMAIN. */
const resolver: Resolver = {
  resolve(hostname, signal) {
    if (hostname === "site.example.com") return Promise.resolve([PUBLIC_ADDRESS]);
    if (hostname === "servfail.example.com") return Promise.reject(Object.assign(new Error("queryA ESERVFAIL"), { code: "ESERVFAIL" }));
    if (hostname === "timeout.example.com") return Promise.reject(Object.assign(new Error("queryA ETIMEOUT"), { code: "ETIMEOUT" }));
    if (hostname === "hang.example.com") {
      // A resolver that never answers and ignores the abort signal: the guard's own limit must end it.
      void signal;
      return new Promise<string[]>(() => undefined);
    }
    return Promise.reject(Object.assign(new Error("getaddrinfo ENOTFOUND"), { code: "ENOTFOUND" }));
  },
};

/** `storePort`: the page store endpoint's port, whose keep-alive connections may stay open. */
function handlerFor(client: DynamoDBClient, tableName: string, storePort?: number, limits = ROOMY) {
  const telemetry = createMemoryTelemetry();
  telemetries.push(telemetry);
  const config = loadConfig({ WEBGATE_TABLE_NAME: tableName, WEBGATE_FETCH_TIMEOUT_MS: String(limits.fetchMs), WEBGATE_CONNECT_TIMEOUT_MS: String(limits.connectMs) });
  const handler = createFetchHandler({ config, dynamo: client, resolver, dialer: new RoutingDialer({ plain: origin.port }), clock: new ManualClock(), telemetry });
  return {
    telemetry,
    storePort,
    async post(body: object): Promise<{ res: APIGatewayProxyResult; json: any; ms: number }> {
      const started = performance.now();
      const res = await handler(apiGatewayEvent({ method: "POST", path: "/fetch", body }), lambdaContext({ getRemainingTimeInMillis: () => INVOCATION_MS }));
      const ms = performance.now() - started;
      visible.push(res.body);
      return { res, json: JSON.parse(res.body), ms };
    },
  };
}

let app: ReturnType<typeof handlerFor>;
/** The handler with the {@link TIMED} limits, on the same table. */
let timed: ReturnType<typeof handlerFor>;
let counter = 0;
/** A fresh path per call, so the page store never answers for the origin. */
const fresh = (path: string) => `https://site.example.com${path}${path.includes("?") ? "&" : "?"}n=${++counter}`;

beforeAll(async () => {
  dynamo = await startTestDynamo();
  dynamoPort = Number(new URL(dynamo.endpoint).port);
  origin = await startRawOrigin(() => routes, page("fallback"));
  const tableName = await createTestTable(dynamo.client);
  app = handlerFor(dynamo.client, tableName);
  timed = handlerFor(dynamo.client, tableName, undefined, TIMED);
  // Warm up: the first request opens the page store's keep-alive connection that later requests reuse.
  routes = { "/ok": page("warm") };
  await app.post({ url: fresh("/ok"), max_age: 0 });
  await timed.post({ url: fresh("/ok"), max_age: 0 });
});
afterAll(async () => {
  const logs = telemetries.flatMap((t) => t.lines.map((l) => JSON.stringify(l)));
  const everything = [...visible, ...logs].join("\n");
  // Only the fake DNS produced 93.184.215.14; it must never reach a caller or a log line.
  expect(everything).not.toContain(PUBLIC_ADDRESS);
  await origin?.close();
  await dynamo?.close();
});

/**
 * Runs one fault: the request must end with `expectation`, leave no handle open, and the next
 * request must work.
 */
async function survive(
  name: string,
  request: string | object,
  expectation: (r: { res: APIGatewayProxyResult; json: any }) => void,
  via: ReturnType<typeof handlerFor> = app,
) {
  const before = trackHandles({ ignorePorts: [dynamoPort, ...(via.storePort === undefined ? [] : [via.storePort])] });
  let outcome: { res: APIGatewayProxyResult; json: any; ms: number } | undefined;
  try {
    outcome = await via.post(typeof request === "string" ? { url: request, max_age: 0 } : request);
    expectation(outcome);
    await expectNoLeaks(before, { openOriginSockets: () => origin.openSockets() });
    routes = { ...routes, "/ok": page("next request works") };
    const next = await via.post({ url: fresh("/ok"), max_age: 0 });
    expect(next.res.statusCode).toBe(200);
    expect(next.json.content).toContain("next request works");
    record.fault({ name, survived: true, code: outcome.json.error?.code ?? `cache:${outcome.json.cache}`, ms: Math.round(outcome.ms) });
  } catch (error) {
    record.fault({ name, survived: false, code: outcome?.json?.error?.code, ms: outcome ? Math.round(outcome.ms) : undefined });
    throw error;
  }
}

const failsWith = (code: string, status: number) => ({ res, json }: { res: APIGatewayProxyResult; json: any }) => {
  expect(json.error?.code).toBe(code);
  expect(res.statusCode).toBe(status);
};

const headersOnly = (socket: Socket, headers: string) => socket.write(`HTTP/1.1 200 OK\r\n${headers}\r\n`);

describe("origin faults through the /fetch handler", () => {
  it("an origin that accepts and never answers: upstream_timeout", async () => {
    routes = { "/never": () => undefined };
    await survive("origin accepts, never answers", fresh("/never"), failsWith("upstream_timeout", 504), timed);
  });

  it("an origin that sends headers then stalls: upstream_timeout", async () => {
    routes = { "/stall": (s) => headersOnly(s, "content-type: text/html\r\ncontent-length: 1000\r\n") };
    await survive("headers then stall", fresh("/stall"), failsWith("upstream_timeout", 504), timed);
  });

  it("an origin that drips one byte a second: upstream_timeout (the limit covers the whole fetch)", async () => {
    routes = {
      "/drip": (socket) => {
        headersOnly(socket, "content-type: text/plain\r\ntransfer-encoding: chunked\r\n");
        const timer = setInterval(() => socket.write("1\r\nx\r\n"), 1_000);
        socket.on("close", () => clearInterval(timer));
      },
    };
    await survive("drips one byte a second", fresh("/drip"), failsWith("upstream_timeout", 504), timed);
  });

  it("an origin with an endless body: upstream_too_large at the byte limit", async () => {
    let sent = 0;
    routes = {
      "/endless": (socket) => {
        headersOnly(socket, "content-type: text/plain\r\nconnection: close\r\n");
        const block = Buffer.alloc(64 * 1024, "a");
        const pump = () => {
          while (!socket.destroyed && socket.write(block)) sent += block.length;
        };
        socket.on("drain", pump);
        pump();
      },
    };
    await survive("endless body", fresh("/endless"), failsWith("upstream_too_large", 502));
    // The client stopped reading near the limit instead of draining the stream to the end.
    expect(sent).toBeLessThan(MAX_BYTES * 4);
  });

  const bomb = Buffer.alloc(64 * 1024 * 1024);
  it.each([
    ["gzip", () => zlib.gzipSync(bomb, { level: 9 })],
    ["br", () => zlib.brotliCompressSync(bomb, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4 } })],
  ])("a %s bomb: upstream_too_large, memory bounded", async (encoding, make) => {
    const body = make();
    expect(body.length).toBeLessThan(MAX_BYTES / 20);
    routes = { "/bomb": (s) => respond(s, 200, { "content-type": "text/html", "content-encoding": encoding }, body) };
    const rssBefore = process.memoryUsage().rss;
    await survive(`${encoding} bomb (64 MiB inflated)`, fresh("/bomb"), failsWith("upstream_too_large", 502));
    // Stopping at 5 MiB of decoded bytes keeps the heap far below the 64 MiB the bomb inflates to.
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(48 * 1024 * 1024);
  });

  it("Content-Length shorter than the body: refused as a broken response, the extra bytes never served", async () => {
    routes = {
      "/short": (s) =>
        s.end("HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: 12\r\nconnection: close\r\n\r\ndeclared-ok!SMUGGLED-EXTRA-BYTES"),
    };
    await survive("Content-Length shorter than body", fresh("/short"), ({ res, json }) => {
      // Node's parser rejects bytes after a complete "connection: close" response (a response
      // smuggling shape); either outcome is safe as long as the extra bytes are never content.
      if (res.statusCode === 200) expect(json.content).toBe("declared-ok!");
      else failsWith("connect_failed", 502)({ res, json });
      expect(res.body).not.toContain("SMUGGLED");
    });
  });

  it("Content-Length longer than the body, then close: a 502 code, nothing stored", async () => {
    routes = { "/long": (s) => s.end("HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: 5000\r\n\r\nonly-this-much") };
    const url = fresh("/long");
    await survive("Content-Length longer than body", url, failsWith("connect_failed", 502));
    // The truncated body was not stored: the same URL with a cache-friendly max_age fetches again.
    routes = { ...routes, "/long": page("complete now") };
    const again = await app.post({ url });
    expect(again.json.cache).toBe("miss");
    expect(again.json.content).toContain("complete now");
  });

  it("broken chunked encoding: a 502 code", async () => {
    routes = { "/chunked": (s) => s.end("HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ntransfer-encoding: chunked\r\n\r\n5\r\nhello\r\nZZZ\r\nnot a chunk\r\n") };
    await survive("broken chunked encoding", fresh("/chunked"), failsWith("connect_failed", 502));
  });

  it("an origin that closes mid-body: a 502 code", async () => {
    routes = {
      "/cut": (s) => {
        headersOnly(s, "content-type: text/plain\r\ncontent-length: 100000\r\n");
        s.write("a".repeat(20_000), () => s.destroy());
      },
    };
    await survive("closes mid-body", fresh("/cut"), failsWith("connect_failed", 502));
  });

  it("response headers over Node's 16 KiB header limit: a 502 code", async () => {
    routes = { "/fat-headers": (s) => s.end(`HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\nx-padding: ${"p".repeat(64 * 1024)}\r\ncontent-length: 2\r\n\r\nok`) };
    await survive("oversized response headers", fresh("/fat-headers"), failsWith("connect_failed", 502));
  });

  it("an answer that is not HTTP at all: a 502 code", async () => {
    routes = { "/garbage": (s) => s.end("SSH-2.0-OpenSSH_9.6\r\n\u0000\u0001binary noise\r\n\r\n") };
    await survive("not HTTP at all", fresh("/garbage"), failsWith("connect_failed", 502));
  });

  it("a deeply nested page without <html> (20,000 levels): converted, at a CPU cost far from a sink's", async () => {
    const deep = `<title>Deep</title><p>intro</p>${"<div>".repeat(20_000)}bottom text`;
    routes = { "/deep": (s) => respond(s, 200, { "content-type": "text/html; charset=utf-8" }, deep) };
    // CPU time of this process (the handler, the origin and the page store all run in it), not
    // wall time: what a quadratic conversion would spend, unchanged when other processes load
    // the machine. About 0.3 s here; a sink at this depth spends minutes.
    const cpu = process.cpuUsage();
    await survive("deeply nested page (main content)", { url: fresh("/deep") }, ({ res, json }) => {
      expect(res.statusCode).toBe(200);
      expect(json.extractor).toBe("full");
      expect(json.content).toContain("bottom text");
    });
    const spent = process.cpuUsage(cpu);
    expect((spent.user + spent.system) / 1_000).toBeLessThan(10_000);
  });

  it("a redirect loop: too_many_redirects", async () => {
    routes = { "/loop": (s) => respond(s, 302, { location: "/loop" }) };
    const before = origin.requests.length;
    await survive("redirect loop", "https://site.example.com/loop", failsWith("too_many_redirects", 502));
    // The guard remembers the URLs of the chain: the loop is refused at its first repeat.
    expect(origin.requests.slice(before).filter((r) => r.path === "/loop")).toHaveLength(1);
  });

  it("a 3xx without Location: redirect_without_location", async () => {
    routes = { "/nowhere": (s) => respond(s, 302, {}) };
    await survive("3xx without Location", fresh("/nowhere"), failsWith("redirect_without_location", 502));
  });

  it("20 redirects: stops at the limit, not at the 20th", async () => {
    const chain: Record<string, RawBehaviour> = {};
    for (let i = 0; i < 20; i += 1) chain[`/r/${i}`] = (s) => respond(s, 301, { location: `/r/${i + 1}` });
    chain["/r/20"] = page("end of chain");
    routes = chain;
    const before = origin.requests.length;
    await survive("20 redirects", "https://site.example.com/r/0", failsWith("too_many_redirects", 502));
    // The default limit of 5 redirects: the first request and 5 follows, then the refusal.
    expect(origin.requests.slice(before).filter((r) => r.path.startsWith("/r/"))).toHaveLength(6);
  });
});

describe("DNS faults through the /fetch handler", () => {
  it.each([
    ["NXDOMAIN", "nxdomain.example.com"],
    ["SERVFAIL", "servfail.example.com"],
    ["a resolver timeout error", "timeout.example.com"],
  ])("%s: dns_failed, no connection made", async (label, host) => {
    const before = origin.requests.length;
    await survive(`DNS ${label}`, `https://${host}/`, failsWith("dns_failed", 502));
    expect(origin.requests.length - before).toBe(1); // only the follow-up /ok request
  });

  it("a resolver that never answers: dns_failed at the lookup limit (the connect limit), no connection made", async () => {
    const before = origin.requests.length;
    await survive("DNS never answers", "https://hang.example.com/", failsWith("dns_failed", 502), timed);
    expect(origin.requests.length - before).toBe(1); // only the follow-up /ok request
  });
});

/** A loopback HTTP server standing in for DynamoDB. */
async function startDynamoStandIn(onRequest: http.RequestListener) {
  const server = http.createServer(onRequest);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

describe("page store faults through the /fetch handler: the page is still served", () => {
  const bypass = ({ res, json }: { res: APIGatewayProxyResult; json: any }) => {
    expect(res.statusCode).toBe(200);
    expect(json.cache).toBe("bypass");
    expect(json.content).toContain("served anyway");
  };

  it("DynamoDB endpoint down (nothing listening): bypass", async () => {
    const client = createDynamoClient({ endpoint: `http://127.0.0.1:${await closedPort()}` });
    const down = handlerFor(client, "webgate-pages");
    routes = { "/p": page("served anyway") };
    try {
      await survive("DynamoDB down", fresh("/p"), bypass, down);
      expect(down.telemetry.lines.some((l) => l.level === "warn")).toBe(true);
    } finally {
      client.destroy();
    }
  });

  it("DynamoDB endpoint slow (accepts, never answers): bypass within the client's limits", async () => {
    const stall = await startDynamoStandIn(() => undefined);
    const client = createDynamoClient({ endpoint: stall.endpoint });
    const slow = handlerFor(client, "webgate-pages");
    routes = { "/p": page("served anyway") };
    try {
      // Default client: 2 attempts × 2 s request limit per call, then the bypass; without those
      // limits nothing else would end the store calls before the invocation's ten minutes.
      await survive("DynamoDB slow", fresh("/p"), bypass, slow);
    } finally {
      client.destroy();
      await stall.close();
    }
  }, 30_000);

  it("DynamoDB throttling (ProvisionedThroughputExceededException): bypass", async () => {
    const calls: string[] = [];
    const throttle = await startDynamoStandIn((req, res) => {
      req.resume();
      req.on("end", () => {
        calls.push(String(req.headers["x-amz-target"]));
        res.writeHead(400, { "content-type": "application/x-amz-json-1.0", "x-amzn-ErrorType": "ProvisionedThroughputExceededException" });
        res.end(
          JSON.stringify({
            __type: "com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException",
            message: "The level of configured provisioned throughput for the table was exceeded.",
          }),
        );
      });
    });
    const client = createDynamoClient({ endpoint: throttle.endpoint });
    const throttled = handlerFor(client, "webgate-pages", Number(new URL(throttle.endpoint).port));
    routes = { "/p": page("served anyway") };
    try {
      let during: string[] = [];
      await survive("DynamoDB throttling", fresh("/p"), (outcome) => {
        bypass(outcome);
        during = [...calls];
      }, throttled);
      expect(during.length).toBeGreaterThan(0);
      // The faulty request's store calls, one after another: each tried at most maxAttempts times
      // (the retries, not a wall-clock bound, are what could pile up behind throttling).
      const runs = during.reduce<Array<[string, number]>>((acc, target) => {
        const last = acc.at(-1);
        if (last?.[0] === target) last[1] += 1;
        else acc.push([target, 1]);
        return acc;
      }, []);
      expect(Math.max(...runs.map(([, n]) => n))).toBe(DYNAMO_CLIENT_DEFAULTS.maxAttempts);
      expect(throttled.telemetry.lines.some((l) => l.level === "warn")).toBe(true);
    } finally {
      client.destroy();
      await throttle.close();
    }
  }, 30_000);

  it("a chunk deleted between reading the manifest and reading the chunk: a miss, never corrupt content", async () => {
    const tableName = await createTestTable(dynamo.client);
    const client = createDynamoClient({ endpoint: dynamo.endpoint });
    let armed = false;
    let deleted = 0;
    // Deletes the requested chunks just before the BatchGetItem that reads them leaves the client.
    client.middlewareStack.add(
      (next, context) => async (args) => {
        if (armed && context.commandName === "BatchGetItemCommand") {
          armed = false;
          const input = args.input as { RequestItems: Record<string, { Keys: Array<Record<string, any>> }> };
          for (const key of input.RequestItems[tableName]!.Keys) {
            await dynamo.client.send(new DeleteItemCommand({ TableName: tableName, Key: key }));
            deleted += 1;
          }
        }
        return next(args);
      },
      { step: "initialize", name: "deleteChunksFirst" },
    );
    const racing = handlerFor(client, tableName);
    const text = Array.from({ length: 4_000 }, (_, i) => `line ${i} of the original page`).join("\n");
    routes = { "/big": (s) => respond(s, 200, { "content-type": "text/plain" }, text) };
    try {
      const first = await racing.post({ url: "https://site.example.com/big", max_chars: 100_000 });
      expect(first.json.cache).toBe("miss");
      armed = true;
      routes = { ...routes, "/big": (s) => respond(s, 200, { "content-type": "text/plain" }, text.replace("original", "refetched")) };
      await survive("chunk deleted mid-read", { url: "https://site.example.com/big", max_chars: 100_000 }, ({ res, json }) => {
        expect(res.statusCode).toBe(200);
        expect(json.cache).toBe("miss");
        // Served from the new fetch, whole and consistent with its own hash; never a stitched page.
        expect(json.content).toContain("refetched");
        expect(json.content).toBe(text.replace("original", "refetched").slice(0, json.end));
      }, racing);
      expect(deleted).toBeGreaterThan(0);
      expect(racing.telemetry.lines.some((l) => l.message.includes("corrupt") || l.level === "warn")).toBe(true);
    } finally {
      client.destroy();
    }
  });
});
