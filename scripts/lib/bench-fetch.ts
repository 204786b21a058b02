/**
 * The /fetch section of `npm run bench`: latency through the local server (the same handler
 * Lambda runs, on the in-process DynamoDB emulator) against loopback origins serving a 100 KB
 * and a 1 MB article-like page. For each page: the bare origin GET, a miss (a URL never fetched
 * before), a hit (the stored snapshot's first page) and a later page read by `snapshot_id`.
 * Requests run one at a time over a keep-alive connection, so each figure is one request's
 * latency, not throughput.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { Telemetry } from "../../shared/observability/telemetry";
import { generateArticleHtml } from "./article-html";
import { startLocalApi } from "./local-api";
import { summarize, type Summary } from "./stats";
import type { BenchSection } from "./bench-section";

export interface FetchBenchOptions {
  /** Requests per series (at least 200 for issue 6). */
  requests: number;
  /** Time budget per series in milliseconds; a series stops early when it runs out. */
  budgetMs: number;
  /** Progress lines (stderr in the bench). */
  progress?: (line: string) => void;
}

export interface SeriesResult {
  page: string;
  series: "origin GET" | "miss" | "hit" | "page by snapshot_id";
  summary: Summary;
  requested: number;
  stoppedEarly: boolean;
  errors: number;
}

interface PageSpec {
  name: string;
  bytes: number;
}

const PAGES: PageSpec[] = [
  { name: "100 KB", bytes: 100_000 },
  { name: "1 MB", bytes: 1_000_000 },
];
/** Untimed requests before each series: the first ones pay for JIT compilation and connection set-up. */
const WARM_UP = 5;

/** A telemetry that drops everything: the handler's log lines would swamp the bench's output. */
function silentTelemetry(): Telemetry {
  // Not the memory telemetry: its arrays, never read here, would grow with every request.
  const drop = () => undefined;
  return { info: drop, warn: drop, error: drop, metric: drop, flush: drop };
}

interface Answer {
  status: number;
  body: string;
}

function request(agent: http.Agent, url: string, body?: unknown): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request(
      url,
      { agent, method: payload === undefined ? "GET" : "POST", headers: payload === undefined ? {} : { "content-type": "application/json" } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}

/**
 * Runs `one(i)` up to `count` times after {@link WARM_UP} untimed calls, one at a time, and stops
 * when `budgetMs` is spent. `one` returns whether the answer was the expected one.
 */
async function series(count: number, budgetMs: number, one: (i: number) => Promise<boolean>): Promise<{ samples: number[]; errors: number; stoppedEarly: boolean }> {
  for (let i = 0; i < WARM_UP; i++) await one(-1 - i);
  const samples: number[] = [];
  let errors = 0;
  const started = performance.now();
  for (let i = 0; i < count; i++) {
    if (performance.now() - started > budgetMs) return { samples, errors, stoppedEarly: true };
    const t0 = performance.now();
    const ok = await one(i);
    samples.push(performance.now() - t0);
    if (!ok) errors++;
  }
  return { samples, errors, stoppedEarly: false };
}

/** Measures /fetch latency; returns the bench section and the raw results. */
export async function benchFetch(options: FetchBenchOptions): Promise<{ section: BenchSection; results: SeriesResult[] }> {
  const progress = options.progress ?? (() => undefined);
  const bodies = new Map(PAGES.map((p, i) => [`/${p.bytes}`, Buffer.from(generateArticleHtml(p.bytes, i + 1))]));
  const origin = http.createServer((req, res) => {
    // Any query string serves the same page: distinct URLs are distinct cache keys (misses).
    const body = bodies.get(new URL(req.url ?? "/", "http://origin").pathname);
    if (!body) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { "content-type": "text/html; charset=utf-8", "content-length": body.length }).end(body);
  });
  await new Promise<void>((resolve) => origin.listen(0, "127.0.0.1", resolve));
  const originBase = `http://127.0.0.1:${(origin.address() as AddressInfo).port}`;
  const api = await startLocalApi({
    env: { WEBGATE_ALLOW_LOCALHOST: "true" },
    port: 0,
    telemetry: silentTelemetry(),
    log: () => undefined,
  });
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const results: SeriesResult[] = [];
  let run = 0;
  try {
    for (const page of PAGES) {
      const pageUrl = `${originBase}/${page.bytes}`;
      const record = (name: SeriesResult["series"], r: Awaited<ReturnType<typeof series>>) => {
        results.push({ page: page.name, series: name, summary: summarize(r.samples), requested: options.requests, stoppedEarly: r.stoppedEarly, errors: r.errors });
        progress(`  ${page.name} ${name}: ${r.samples.length} requests${r.stoppedEarly ? " (time budget reached)" : ""}, p50 ${summarize(r.samples).p50.toFixed(1)} ms`);
      };
      const fetchApi = (body: Record<string, unknown>) => request(agent, `${api.url}/fetch`, body);
      const cacheIs = (answer: Answer, expected: string) => answer.status === 200 && (JSON.parse(answer.body) as { cache?: string }).cache === expected;

      record("origin GET", await series(options.requests, options.budgetMs, async () => (await request(agent, pageUrl)).status === 200));
      run++;
      record("miss", await series(options.requests, options.budgetMs, async (i) => cacheIs(await fetchApi({ url: `${pageUrl}?run=${run}&n=${i}` }), "miss")));

      const first = await fetchApi({ url: pageUrl });
      const snapshot = JSON.parse(first.body) as { snapshot: { id: string }; total_chars: number; next_start: number | null };
      record("hit", await series(options.requests, options.budgetMs, async () => cacheIs(await fetchApi({ url: pageUrl }), "hit")));

      // Later pages: every page start after the first, in turn (the default max_chars of 30,000).
      const starts: number[] = [];
      for (let s = snapshot.next_start ?? snapshot.total_chars; s < snapshot.total_chars; s += 30_000) starts.push(s);
      if (starts.length === 0) starts.push(snapshot.total_chars);
      record(
        "page by snapshot_id",
        await series(options.requests, options.budgetMs, async (i) => {
          const start = starts[Math.abs(i) % starts.length]!;
          return cacheIs(await fetchApi({ url: pageUrl, snapshot_id: snapshot.snapshot.id, start }), "hit");
        }),
      );
    }
  } finally {
    agent.destroy();
    await api.close();
    await new Promise<void>((resolve) => {
      origin.closeAllConnections();
      origin.close(() => resolve());
    });
  }

  const p50 = (page: string, name: SeriesResult["series"]) => results.find((r) => r.page === page && r.series === name)!.summary.p50;
  const hitRatio = p50("1 MB", "hit") / p50("1 MB", "miss");
  const notes = [
    `target: 1 MB hit p50 <= 0.25 x miss p50: ${hitRatio.toFixed(3)}x (${hitRatio <= 0.25 ? "met" : "NOT met"})`,
    `100 KB hit p50 / miss p50: ${(p50("100 KB", "hit") / p50("100 KB", "miss")).toFixed(3)}x`,
    "one request at a time over keep-alive loopback connections; main_content true (the default); misses are URLs never fetched before",
    ...results.filter((r) => r.stoppedEarly).map((r) => `${r.page} ${r.series}: stopped after ${r.summary.n} of ${r.requested} requests (time budget ${(options.budgetMs / 1000).toFixed(0)} s)`),
    ...results.filter((r) => r.errors > 0).map((r) => `${r.page} ${r.series}: ${r.errors} unexpected answers`),
  ];
  return {
    results,
    section: {
      title: `/fetch through the local server (dynalite), loopback origins, up to ${options.requests} requests per series`,
      columns: ["page", "series", "requests", "p50 ms", "p95 ms", "max ms", "p50 / origin GET"],
      rows: results.map((r) => [
        r.page,
        r.series,
        r.summary.n,
        r.summary.p50.toFixed(1),
        r.summary.p95.toFixed(1),
        r.summary.max.toFixed(1),
        r.series === "origin GET" ? "1" : (r.summary.p50 / p50(r.page, "origin GET")).toFixed(1),
      ]),
      notes,
      data: { requests: options.requests, budgetMs: options.budgetMs, results, hitToMissP50Ratio1MB: hitRatio },
    },
  };
}
