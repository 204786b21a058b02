/**
 * The "cost against size" section of `npm run bench` (issue 17): conversion time per MB of
 * ordinary article HTML at 10 KB, 100 KB, 1 MB and 5 MB, and of the pathological shapes
 * (scripts/lib/cost-shapes.ts) at the same sizes, with each one's ratio to ordinary HTML of the
 * same size (goal: at most 3x), in both main_content modes, single thread, in process. Beside
 * them, the anchors on the same ordinary HTML: plain turndown (goal: main_content false at least
 * 4x its MB/s) and Readability(linkedom) + turndown (goal: main_content true at least 1.5x).
 *
 * Times are CPU time of the converting thread (scripts/lib/cpu-clock.ts), not wall-clock: this
 * machine is shared, and under load wall-clock figures measured the scheduler. Each sample repeats
 * a conversion until it has taken {@link MIN_SAMPLE_MS} of CPU (a 10 KB page converts dozens of
 * times per sample), samples of every contender are interleaved round by round, and each cell is
 * the median of its samples' time per conversion.
 *
 * Then the local server during a long conversion: the latency of `/openapi.json` requests sent
 * one after another while a 5 MB page converts, with the conversion in worker threads (what
 * `npm start` runs) and on the event loop (what Lambda runs, one request per instance).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { availableParallelism, loadavg } from "node:os";
import { Readability } from "@mozilla/readability";
import { parseHTML } from "linkedom";
import TurndownService from "turndown";
import { inProcessConverter, type DocumentConverter } from "../../shared/content/converter";
import { renderDocument } from "../../shared/content/render";
import { createWorkerConverter } from "../../shared/content/worker-converter";
import type { Telemetry } from "../../shared/observability/telemetry";
import type { BenchSection } from "./bench-section";
import { cpuClock, measureCpu } from "./cpu-clock";
import { COST_SIZES, ORDINARY_SHAPE, PATHOLOGICAL_SHAPES } from "./cost-shapes";
import { startLocalApi } from "./local-api";
import { median } from "./quality";

const PAGE_URL = "https://example.com/article.html";
/** Issue 17's goal: no shape costs more than this times ordinary HTML of the same size. */
export const COST_RATIO_GOAL = 3;
/** The least CPU time one sample runs for: below it, one sample repeats the conversion. */
export const MIN_SAMPLE_MS = 40;

export interface CostCell {
  bytes: number;
  /** Conversions timed (all samples together). */
  runs: number;
  /** Samples (rounds); each is one or more conversions adding up to at least MIN_SAMPLE_MS of CPU. */
  samples: number;
  /** Median over the samples of CPU ms per conversion. */
  medianMs: number;
  /** The same from the wall clock, for comparison (it includes waiting for a core). */
  wallMedianMs: number;
  msPerMb: number;
  /** msPerMb over ordinary HTML's at the same size and mode (1 for ordinary itself). */
  ratio: number;
  /** What the conversion answered: "ok", or the error code. */
  outcome: string;
}

export interface CostRow {
  shape: string;
  mode: "main_content=false" | "main_content=true" | "anchor";
  cells: CostCell[];
}

const sizeLabel = (bytes: number) => (bytes >= 1_000_000 ? `${bytes / 1_000_000} MB` : `${bytes / 1_000} KB`);

/** One conversion through the pipeline; the error code when it throws. */
function webgateOnce(mainContent: boolean, html: string): string {
  try {
    renderDocument({ body: new TextEncoder().encode(html), contentType: "text/html; charset=utf-8", finalUrl: PAGE_URL, mainContent });
    return "ok";
  } catch (error) {
    return (error as { code?: string }).code ?? "throw";
  }
}

function anchors(): Array<{ name: string; convert: (html: string) => void }> {
  const plain = new TurndownService();
  const afterReadability = new TurndownService();
  return [
    { name: "turndown (defaults)", convert: (html) => void plain.turndown(html) },
    {
      name: "Readability(linkedom) + turndown",
      convert: (html) => {
        const { document } = parseHTML(html) as unknown as { document: never };
        const article = new Readability(document).parse();
        if (article?.content) afterReadability.turndown(article.content);
      },
    },
  ];
}

/** Latency of back-to-back `/openapi.json` requests while one 5 MB page converts through `/fetch`. */
async function blockingDuringConversion(converter: DocumentConverter, page: string): Promise<{ requests: number; p50Ms: number; maxMs: number; conversionMs: number }> {
  const origin = http.createServer((_req, res) => res.writeHead(200, { "content-type": "text/html" }).end(page));
  await new Promise<void>((resolve) => origin.listen(0, "127.0.0.1", resolve));
  const drop = () => undefined;
  const telemetry: Telemetry = { info: drop, warn: drop, error: drop, metric: drop, flush: drop };
  const api = await startLocalApi({ env: { WEBGATE_ALLOW_LOCALHOST: "true", WEBGATE_ROBOTS: "ignore" }, port: 0, telemetry, log: drop, converter, invocationTimeoutMs: 300_000 });
  try {
    const url = `http://127.0.0.1:${(origin.address() as AddressInfo).port}/page`;
    let done = false;
    const t0 = performance.now();
    const converting = fetch(`${api.url}/fetch`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ url, main_content: false, max_age: 0 }) })
      .then((res) => res.text())
      .finally(() => (done = true));
    const latencies: number[] = [];
    while (!done) {
      const t = performance.now();
      await (await fetch(`${api.url}/openapi.json`)).text();
      latencies.push(performance.now() - t);
    }
    await converting;
    return { requests: latencies.length, p50Ms: median(latencies), maxMs: Math.max(...latencies), conversionMs: performance.now() - t0 };
  } finally {
    await api.close();
    await new Promise<void>((resolve) => origin.close(() => resolve()));
  }
}

export async function benchCost(options: { progress?: (line: string) => void } = {}): Promise<{ section: BenchSection; rows: CostRow[] }> {
  const progress = options.progress ?? (() => undefined);
  const loadAtStart = loadavg()[0]!;
  // Warm-up: the first conversions pay for JIT compilation.
  for (let i = 0; i < 3; i++) webgateOnce(i % 2 === 0, ORDINARY_SHAPE.make(100_000));

  // Interleaved: at each size every shape (ordinary HTML and the anchors included) takes one
  // sample per round, so a change in machine load hits all of them alike; the median over the
  // rounds counts.
  const clock = cpuClock();
  const shapes = [ORDINARY_SHAPE, ...PATHOLOGICAL_SHAPES];
  const contenders = [
    ...shapes.flatMap((shape) => [false, true].map((mainContent) => ({ shape: shape.name, mode: mainContent ? ("main_content=true" as const) : ("main_content=false" as const), make: (bytes: number) => shape.make(bytes), run: (html: string) => webgateOnce(mainContent, html) }))),
    ...anchors().map((anchor) => ({ shape: anchor.name, mode: "anchor" as const, make: (bytes: number) => ORDINARY_SHAPE.make(bytes), run: (html: string) => (anchor.convert(html), "ok") })),
  ];
  const cellsOf = contenders.map(() => [] as CostCell[]);
  for (const bytes of COST_SIZES) {
    const pages = contenders.map((c) => c.make(bytes));
    const rounds = bytes >= 1_000_000 ? 3 : 5;
    const cpu = contenders.map(() => [] as number[]);
    const wall = contenders.map(() => [] as number[]);
    const runs = contenders.map(() => 0);
    const outcomes = contenders.map(() => "ok");
    // One untimed round first below 5 MB: the first run at a new size pays for heap growth and
    // compilation (at 5 MB the 1 MB rounds have grown the heap, and one run takes seconds).
    for (let round = bytes >= 5_000_000 ? 0 : -1; round < rounds; round++) {
      contenders.forEach((c, k) => {
        const sample = measureCpu(
          clock,
          () => {
            const outcome = c.run(pages[k]!);
            if (outcome !== "ok") outcomes[k] = outcome;
          },
          round >= 0 ? MIN_SAMPLE_MS : 0,
        );
        if (round < 0) return;
        cpu[k]!.push(sample.msPerRun);
        wall[k]!.push(sample.wallMsPerRun);
        runs[k]! += sample.runs;
      });
    }
    contenders.forEach((c, k) => {
      const medianMs = median(cpu[k]!);
      cellsOf[k]!.push({ bytes: pages[k]!.length, runs: runs[k]!, samples: rounds, medianMs, wallMedianMs: median(wall[k]!), msPerMb: medianMs / (pages[k]!.length / 1e6), ratio: Number.NaN, outcome: outcomes[k]! });
    });
    progress(`  cost ${sizeLabel(bytes)} (CPU ms per conversion): ${contenders.map((c, k) => `${c.shape} ${c.mode} ${cellsOf[k]!.at(-1)!.medianMs.toFixed(1)}`).join("; ")}`);
  }
  const all: CostRow[] = contenders.map((c, k) => ({ shape: c.shape, mode: c.mode, cells: cellsOf[k]! }));
  const rows = all.filter((r) => r.mode !== "anchor");
  const anchorRows = all.filter((r) => r.mode === "anchor");
  for (const row of rows) {
    const base = rows.find((r) => r.shape === ORDINARY_SHAPE.name && r.mode === row.mode)!;
    row.cells.forEach((cell, i) => (cell.ratio = cell.msPerMb / base.cells[i]!.msPerMb));
  }
  const speedup = (webgateMode: string, anchorName: string) =>
    COST_SIZES.map((_, i) => anchorRows.find((r) => r.shape === anchorName)!.cells[i]!.msPerMb / rows.find((r) => r.shape === ORDINARY_SHAPE.name && r.mode === webgateMode)!.cells[i]!.msPerMb);
  const falseVsTurndown = speedup("main_content=false", "turndown (defaults)");
  const trueVsReadability = speedup("main_content=true", "Readability(linkedom) + turndown");
  const worst = Math.max(...rows.flatMap((r) => r.cells.map((c) => c.ratio)));

  const blockingPage = PATHOLOGICAL_SHAPES.find((s) => s.name === "one-cell rows")!.make(5_000_000);
  const workers = createWorkerConverter();
  await workers.warm();
  const inWorkers = await blockingDuringConversion(workers, blockingPage);
  await workers.close();
  const inProcess = await blockingDuringConversion(inProcessConverter, blockingPage);
  progress(`  cost: /openapi.json during a 5 MB conversion: workers p50 ${inWorkers.p50Ms.toFixed(1)} ms, in process max ${inProcess.maxMs.toFixed(0)} ms`);

  const cell = (c: CostCell) => `${c.msPerMb.toFixed(0)}${Number.isNaN(c.ratio) ? "" : ` (${c.ratio.toFixed(2)}x)`}${c.outcome === "ok" ? "" : ` ${c.outcome}`}`;
  const list = (xs: number[]) => COST_SIZES.map((b, i) => `${sizeLabel(b)} ${xs[i]!.toFixed(2)}x`).join(", ");
  return {
    rows: [...rows, ...anchorRows],
    section: {
      title: "Cost against size: conversion CPU ms per MB (ratio to ordinary HTML of the same size and mode), single thread, in process",
      columns: ["shape", "mode", ...COST_SIZES.map((b) => `${sizeLabel(b)} ms/MB`)],
      rows: [...rows, ...anchorRows].map((r) => [r.shape, r.mode, ...r.cells.map(cell)]),
      notes: [
        `clock: ${clock.name}; each cell the median of ${COST_SIZES.map((b) => `${b >= 1_000_000 ? 3 : 5}`).join("/")} interleaved samples (10 KB/100 KB/1 MB/5 MB) of at least ${MIN_SAMPLE_MS} ms CPU each; 1-minute load average ${loadAtStart.toFixed(1)} at the start, ${loadavg()[0]!.toFixed(1)} at the end (${availableParallelism()} CPUs)`,
        `worst ratio to ordinary HTML: ${worst.toFixed(2)}x (goal <= ${COST_RATIO_GOAL}x): ${worst <= COST_RATIO_GOAL ? "met" : "missed"}`,
        `main_content=false MB/s over plain turndown on the same ordinary HTML: ${list(falseVsTurndown)} (goal >= 4x)`,
        `main_content=true MB/s over Readability(linkedom) + turndown on the same ordinary HTML: ${list(trueVsReadability)} (goal >= 1.5x)`,
        `local server, /openapi.json requests one after another while a 5 MB table converts through /fetch: conversion in worker threads (npm start) ${inWorkers.requests} answered, p50 ${inWorkers.p50Ms.toFixed(1)} ms, max ${inWorkers.maxMs.toFixed(0)} ms (conversion ${inWorkers.conversionMs.toFixed(0)} ms); on the event loop (as in Lambda) ${inProcess.requests} answered, max ${inProcess.maxMs.toFixed(0)} ms (conversion ${inProcess.conversionMs.toFixed(0)} ms)`,
        ...[ORDINARY_SHAPE, ...PATHOLOGICAL_SHAPES].map((s) => `${s.name}: ${s.description}`),
      ],
      data: { clock: clock.name, minSampleMs: MIN_SAMPLE_MS, loadAverage: { start: loadAtStart, end: loadavg()[0]! }, rows: [...rows, ...anchorRows], worstRatio: worst, falseVsTurndown, trueVsReadability, blocking: { inWorkers, inProcess } },
    },
  };
}
