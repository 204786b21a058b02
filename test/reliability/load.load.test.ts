/**
 * Load against the local server on loopback (only under `npm run test:reliability`): 1,000
 * cache-hit /fetch requests at concurrency 50, 200 concurrent misses of one URL, and three
 * rounds of the hit load for memory. Every phase is bounded in count and in time; the figures
 * (p50, p99, peak RSS, RSS and heap per round) go to the reliability summary.
 */
import { setMaxListeners } from "node:events";
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ENV } from "../../shared/config";
import type { Telemetry } from "../../shared/observability/telemetry";
import { startLocalApi, type LocalApi } from "../../scripts/lib/local-api";
import { ManualClock } from "../helpers/fetch-app";
import { startOrigin, type Origin } from "../helpers/origin";
import { MapResolver, RoutingDialer } from "../helpers/test-network";
import { figureRecorder, percentile, runPool } from "./support";

const HITS = 1_000;
const CONCURRENCY = 50;
const MISSES = 200;
const ROUNDS = 3;
/** Documented bound on heap growth between round 2 and round 3 (after a full GC). */
const GROWTH_BOUND_BYTES = 50 * 1024 * 1024;
/** No phase may run longer than this, whatever the machine. */
const PHASE_LIMIT_MS = 90_000;

const record = figureRecorder("load");
const ARTICLE = `<!doctype html><title>Load page</title><article><h1>Load</h1>${Array.from({ length: 200 }, (_, i) => `<p>Paragraph ${i} of a page served many times from the page store.</p>`).join("")}</article>`;

/** Telemetry that counts instead of keeping lines, so thousands of requests hold no memory. */
function countingTelemetry(): Telemetry & { errors: number } {
  const t = {
    errors: 0,
    info: () => undefined,
    warn: () => undefined,
    error: () => {
      t.errors += 1;
    },
    metric: () => undefined,
    flush: () => undefined,
  };
  return t;
}

let origin: Origin;
let api: LocalApi;
let agent: http.Agent;
let release: () => void = () => undefined;
const telemetry = countingTelemetry();

beforeAll(async () => {
  let gate = Promise.resolve();
  origin = await startOrigin((req, res) => {
    if (req.url === "/contended") {
      // Holds the one origin request until every concurrent miss has arrived at the server.
      void gate.then(() => res.writeHead(200, { "content-type": "text/html" }).end(ARTICLE.replace("Load page", "Contended page")));
      return;
    }
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(ARTICLE);
  });
  gate = new Promise<void>((resolve) => (release = resolve));
  api = await startLocalApi({
    env: { [ENV.FETCH_TIMEOUT_MS]: "10000" },
    port: 0,
    resolver: new MapResolver({ "site.example.com": ["93.184.215.14"] }),
    dialer: new RoutingDialer({ plain: origin.port }),
    clock: new ManualClock(),
    telemetry,
    log: () => undefined,
    // The handlers under load, not the server's admission cap (32 at once by default, which
    // test/integration/server/local-server-limits.test.ts covers): every miss must be inside.
    maxConcurrentRequests: MISSES,
  });
  agent = new http.Agent({ keepAlive: true, maxSockets: MISSES });
});
afterAll(async () => {
  release();
  agent?.destroy();
  await api?.close();
  await origin?.close();
});

function postFetch(body: object, signal: AbortSignal): Promise<{ status: number; json: any; ms: number }> {
  const payload = JSON.stringify(body);
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${api.url}/fetch`,
      { method: "POST", agent, signal, headers: { "content-type": "application/json", "content-length": Buffer.byteLength(payload) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const ms = performance.now() - started;
          try {
            resolve({ status: res.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString("utf8")), ms });
          } catch (error) {
            reject(error instanceof Error ? error : new Error(String(error)));
          }
        });
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}

/** HITS cache-hit requests at CONCURRENCY; returns the latencies and the error count. */
/** One deadline for a whole phase, shared by its requests (each adds one abort listener). */
function phaseSignal(): AbortSignal {
  const signal = AbortSignal.timeout(PHASE_LIMIT_MS);
  setMaxListeners(MISSES + CONCURRENCY, signal);
  return signal;
}

async function hitLoad(): Promise<{ latencies: number[]; errors: number }> {
  const signal = phaseSignal();
  let errors = 0;
  const latencies = await runPool(HITS, CONCURRENCY, async (i) => {
    try {
      const r = await postFetch({ url: "https://site.example.com/article", start: (i % 5) * 1_000, max_chars: 1_000 }, signal);
      if (r.status !== 200 || r.json.cache !== "hit") errors += 1;
      return r.ms;
    } catch {
      errors += 1;
      return Number.NaN;
    }
  });
  return { latencies: latencies.filter((ms) => !Number.isNaN(ms)), errors };
}

function collect(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  gc?.();
}

describe("load on the local server (loopback)", () => {
  it(`${HITS} cache-hit /fetch requests at concurrency ${CONCURRENCY}: zero errors`, async () => {
    const warm = await postFetch({ url: "https://site.example.com/article" }, phaseSignal());
    expect(warm.json.cache).toBe("miss");
    const before = origin.requests.length;
    const started = performance.now();
    const { latencies, errors } = await hitLoad();
    const seconds = (performance.now() - started) / 1000;
    const p50 = Math.round(percentile(latencies, 50) * 10) / 10;
    const p99 = Math.round(percentile(latencies, 99) * 10) / 10;
    record.load({ hit_requests: HITS, hit_concurrency: CONCURRENCY, hit_errors: errors, hit_p50_ms: p50, hit_p99_ms: p99, hit_rps: Math.round(HITS / seconds) });
    expect(errors).toBe(0);
    expect(latencies).toHaveLength(HITS);
    // Every one of them came from the page store: the origin saw none.
    expect(origin.requests.length).toBe(before);
    expect(telemetry.errors).toBe(0);
  }, PHASE_LIMIT_MS + 10_000);

  it(`${MISSES} concurrent misses for one URL: exactly one origin request`, async () => {
    const signal = phaseSignal();
    let arrived = 0;
    // Hold the single origin answer until every request has reached the server: the server's own
    // 'request' events say when, however long a loaded machine takes (the test's limit bounds it).
    const allArrived = new Promise<void>((resolve) => {
      api.server.on("request", (req: http.IncomingMessage) => {
        if (req.url === "/fetch" && ++arrived === MISSES) resolve();
      });
    });
    const calls = Array.from({ length: MISSES }, () => postFetch({ url: "https://site.example.com/contended" }, signal).catch(() => undefined));
    await allArrived;
    release();
    const results = await Promise.all(calls);
    const ok = results.filter((r) => r?.status === 200 && String(r.json.content).includes("Paragraph 199"));
    const originRequests = origin.requests.filter((r) => r.url === "/contended").length;
    record.load({ miss_requests: MISSES, miss_errors: MISSES - ok.length, miss_origin_requests: originRequests });
    expect(ok).toHaveLength(MISSES);
    expect(originRequests).toBe(1);
    expect(new Set(ok.map((r) => r!.json.snapshot.id)).size).toBe(1);
  }, PHASE_LIMIT_MS + 10_000);

  it(`memory: no growth across ${ROUNDS} rounds of the hit load`, async () => {
    const rss: number[] = [];
    const heap: number[] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      const { errors } = await hitLoad();
      expect(errors).toBe(0);
      collect();
      const usage = process.memoryUsage();
      rss.push(usage.rss);
      heap.push(usage.heapUsed);
    }
    const peak = process.resourceUsage().maxRSS * 1024;
    record.load({ peak_rss: peak, rss_per_round: rss, heap_per_round: heap, gc_exposed: String(typeof (globalThis as { gc?: unknown }).gc === "function"), growth_bound: GROWTH_BOUND_BYTES });
    // Round 1 warms caches and JIT; a leak shows as growth from round 2 to round 3.
    expect(heap[2]! - heap[1]!).toBeLessThan(GROWTH_BOUND_BYTES);
    expect(rss[2]! - rss[1]!).toBeLessThan(GROWTH_BOUND_BYTES);
  }, 3 * PHASE_LIMIT_MS);
});
