/**
 * One deadline per request: slow origins answer 504 `upstream_timeout` within the invocation's
 * limit, in the Lambda handler (the limit is the context's remaining time) and through the local
 * server (the limit is the configured one), never 500 `internal` from middy's early timeout.
 *
 * The configured fetch limit stays at its 30 s default on purpose: the invocation's remaining
 * time, not the fetch limit, is what must end these requests.
 */
import type { Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../../shared/config";
import { createFetchHandler } from "../../../shared/fetch/fetch-route";
import { createMemoryTelemetry } from "../../../shared/observability/telemetry";
import { createLambdaClient, createLambdaRenderer } from "../../../shared/render/lambda-renderer";
import { startLocalApi, type LocalApi } from "../../../scripts/lib/local-api";
import { apiGatewayEvent, lambdaContext } from "../../helpers/apigw-event";
import { createTestTable, startTestDynamo, type LocalDynamo } from "../../helpers/dynalite";
import { ManualClock } from "../../helpers/fetch-app";
import { startLambdaStandIn } from "../../helpers/lambda-stand-in";
import { startRawOrigin, type Origin } from "../../helpers/origin";
import { MapResolver, RoutingDialer } from "../../helpers/test-network";

/** The invocation's limit in these tests (a Lambda timeout, or the local server's limit). */
const LIMIT_MS = 1_200;
/**
 * What the outcome proves, without a wall-clock bound that a loaded machine breaks (timers fire
 * late there, but in order): a 504 `upstream_timeout` comes from webgate's own deadline or, at the
 * latest, from middy's early timeout, both scheduled before the invocation's time is up; an
 * answer in less than half the 30 s fetch limit means the invocation's limit, not the fetch
 * limit, ended the request (a machine would have to stall for 15 s to blur that).
 */
const NOT_THE_FETCH_LIMIT_MS = 15_000;
const STEP_MS = 100;
/**
 * The invocation's limit in the render case: the invoke must have left before the deadline for
 * its abort to be seen, and on a loaded machine the work before it (the page store's lookup and
 * lease on the emulator) took longer than 1.2 s less the answer's reserve, so the handler answered
 * 504 without ever invoking (and the test waited for a hang-up that could not come).
 */
const RENDER_CASE_LIMIT_MS = 5_000;

let dynamo: LocalDynamo;
let origin: Origin;
let api: LocalApi;
const timers = new Set<ReturnType<typeof setInterval>>();

/** Writes `text` one byte per STEP_MS (a drip that never lets an idle timer fire). */
function drip(socket: Socket, text: string): void {
  let i = 0;
  const timer = setInterval(() => {
    if (i >= text.length || socket.destroyed) return clearInterval(timer);
    socket.write(text[i]!);
    i += 1;
  }, STEP_MS);
  timers.add(timer);
  socket.on("close", () => clearInterval(timer));
}

/** Calls `write` every STEP_MS until the socket closes. */
function every(socket: Socket, write: () => void): void {
  const timer = setInterval(() => (socket.destroyed ? clearInterval(timer) : write()), STEP_MS);
  timers.add(timer);
  socket.on("close", () => clearInterval(timer));
}

/** The six slow origins of the attack battery, by request path. */
function slowOrigin(socket: Socket): void {
  let head = "";
  socket.on("data", (chunk: Buffer) => {
    if (head.includes("\r\n\r\n")) return;
    head += chunk.toString("latin1");
    if (!head.includes("\r\n\r\n")) return;
    const path = head.split(" ")[1] ?? "";
    if (path.startsWith("/headers-drip")) drip(socket, "HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-length: 5\r\n\r\nhello");
    else if (path.startsWith("/body-drip")) {
      socket.write("HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-length: 4000\r\n\r\n");
      drip(socket, "x".repeat(4000));
    } else if (path.startsWith("/status-then-silence")) socket.write("HTTP/1.1 200 OK\r\n");
    else if (path.startsWith("/endless-continue")) every(socket, () => socket.write("HTTP/1.1 100 Continue\r\n\r\n"));
    else if (path.startsWith("/silent")) return;
    else if (path.startsWith("/hop/")) {
      // Five redirect hops, each answered after 300 ms: together longer than the limit.
      const hop = Number(path.split("/")[2]);
      const timer = setTimeout(() => {
        socket.end(`HTTP/1.1 302 Found\r\nlocation: /hop/${hop + 1}\r\ncontent-length: 0\r\nconnection: close\r\n\r\n`);
      }, 300);
      socket.on("close", () => clearTimeout(timer));
    }
  });
}

const CASES = [
  ["headers at one byte per step", "/headers-drip"],
  ["body at one byte per step", "/body-drip"],
  ["a status line, then silence", "/status-then-silence"],
  ["endless 100 Continue", "/endless-continue"],
  ["no answer at all", "/silent"],
  ["redirect hops slower together than the limit", "/hop/1"],
] as const;

const resolver = new MapResolver({ "slow.example.com": ["93.184.215.14"] });

beforeAll(async () => {
  dynamo = await startTestDynamo();
  origin = await startRawOrigin(slowOrigin);
  api = await startLocalApi({
    env: { WEBGATE_TABLE_NAME: "webgate-pages" },
    port: 0,
    resolver,
    dialer: new RoutingDialer({ plain: origin.port }),
    telemetry: createMemoryTelemetry(),
    log: () => undefined,
    invocationTimeoutMs: LIMIT_MS,
  });
});
afterAll(async () => {
  for (const timer of timers) clearInterval(timer);
  await api?.close();
  await origin?.close();
  await dynamo?.close();
});

describe.concurrent("slow origins through the Lambda handler: 504 before the function's time is up", () => {
  it.each(CASES)("%s", async (_name, path) => {
    const telemetry = createMemoryTelemetry();
    const config = loadConfig({ WEBGATE_TABLE_NAME: await createTestTable(dynamo.client) });
    expect(config.fetch.timeoutMs).toBe(30_000);
    const handler = createFetchHandler({ config, dynamo: dynamo.client, resolver, dialer: new RoutingDialer({ plain: origin.port }), clock: new ManualClock(), telemetry });
    const started = performance.now();
    const endsAt = started + LIMIT_MS;
    const res = await handler(
      apiGatewayEvent({ method: "POST", path: "/fetch", body: { url: `https://slow.example.com${path}`, max_age: 0 } }),
      lambdaContext({ getRemainingTimeInMillis: () => Math.max(0, Math.floor(endsAt - performance.now())) }),
    );
    const elapsed = performance.now() - started;
    expect(res.statusCode).toBe(504);
    expect(JSON.parse(res.body).error.code).toBe("upstream_timeout");
    expect(elapsed).toBeLessThan(NOT_THE_FETCH_LIMIT_MS);
  });
});

describe.concurrent("slow origins through the local server: 504 within the configured limit", () => {
  it.each(CASES)("%s", async (_name, path) => {
    const started = performance.now();
    const res = await fetch(`${api.url}/fetch`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ url: `https://slow.example.com${path}`, max_age: 0 }),
    });
    const elapsed = performance.now() - started;
    expect(res.status).toBe(504);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("upstream_timeout");
    expect(elapsed).toBeLessThan(NOT_THE_FETCH_LIMIT_MS);
  });
});

describe("a render function that never answers, through the Lambda handler", () => {
  it("answers 504 before the function's time is up, and abandons the invoke", async () => {
    const lambda = await startLambdaStandIn("never");
    try {
      const config = loadConfig({ WEBGATE_TABLE_NAME: await createTestTable(dynamo.client) });
      const handler = createFetchHandler({
        config,
        dynamo: dynamo.client,
        resolver,
        dialer: new RoutingDialer({ plain: origin.port }),
        clock: new ManualClock(),
        telemetry: createMemoryTelemetry(),
        // The fetch function's renderer as deployed, its request limit far beyond the test:
        // only the request's deadline can end the invoke.
        renderer: createLambdaRenderer({ client: createLambdaClient({ endpoint: lambda.endpoint, requestTimeoutMs: 600_000 }), functionName: "webgate-render", maxBodyBytes: 1_000_000 }),
      });
      const started = performance.now();
      const endsAt = started + RENDER_CASE_LIMIT_MS;
      const res = await handler(
        apiGatewayEvent({ method: "POST", path: "/fetch", body: { url: "https://slow.example.com/app", render: "always", max_age: 0 } }),
        lambdaContext({ getRemainingTimeInMillis: () => Math.max(0, Math.floor(endsAt - performance.now())) }),
      );
      // As above: the 504 itself shows the invocation's limit ended it (both of its sources are
      // scheduled before that limit); a wall-clock bound at the limit failed on a loaded machine.
      expect(performance.now() - started).toBeLessThan(NOT_THE_FETCH_LIMIT_MS);
      expect(res.statusCode).toBe(504);
      expect(JSON.parse(res.body).error.code).toBe("upstream_timeout");
      // The invoke itself was aborted: the fetch function does not wait on in the background.
      await lambda.firstHangUp;
      expect(lambda.events).toEqual(["invoke webgate-render", "hang-up"]);
    } finally {
      await lambda.close();
    }
  });
});
