/**
 * Shared parts of the reliability suite: a raw loopback origin that misbehaves on purpose, process
 * health checks (sockets, timers), latency percentiles, and the figures each test file records for
 * the summary that `summary-setup.ts` prints at the end of the run.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import net, { type AddressInfo, type Socket } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "vitest";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
/** Where each test file leaves its figures; the global teardown merges them. */
export const FIGURES_DIR = path.join(repoRoot, ".bench", "reliability");
export const FIGURES_FILE = path.join(repoRoot, ".bench", "reliability.json");

/** Figures one test file contributes; every field is optional and summed across files. */
export interface Figures {
  faults?: Array<{ name: string; survived: boolean; code?: string; ms?: number }>;
  abuse?: { tried: number; handled: number; groups: Record<string, { tried: number; handled: number }> };
  load?: Record<string, number | number[] | string>;
}

/**
 * Collects one test file's figures and writes them to `.bench/reliability/<name>.json` after
 * every change, so a file that dies midway still leaves what it measured.
 */
export function figureRecorder(name: string) {
  const figures: Figures = {};
  const save = () => {
    mkdirSync(FIGURES_DIR, { recursive: true });
    writeFileSync(path.join(FIGURES_DIR, `${name}.json`), JSON.stringify(figures, null, 2));
  };
  return {
    figures,
    fault(entry: { name: string; survived: boolean; code?: string; ms?: number }) {
      (figures.faults ??= []).push(entry);
      save();
    },
    abuse(group: string, handled: boolean) {
      figures.abuse ??= { tried: 0, handled: 0, groups: {} };
      const g = (figures.abuse.groups[group] ??= { tried: 0, handled: 0 });
      figures.abuse.tried += 1;
      g.tried += 1;
      if (handled) {
        figures.abuse.handled += 1;
        g.handled += 1;
      }
      save();
    },
    load(values: Record<string, number | number[] | string>) {
      figures.load = { ...figures.load, ...values };
      save();
    },
  };
}

/** Counts of the process's live handles by kind (`TCPSocketWrap`, `Timeout`, ...). */
export function resourceCounts(): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const kind of process.getActiveResourcesInfo()) counts[kind] = (counts[kind] ?? 0) + 1;
  return counts;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Waits (up to `withinMs`) until no socket or timer is alive beyond the `before` counts, and fails
 * naming the kinds that stayed above. Sockets and timers a request leaks never go back down, so
 * waiting does not hide a leak; it only lets closes that are already under way finish.
 */
export async function expectNoLeaks(before: Record<string, number>, extra: { openOriginSockets?: () => number } = {}, withinMs = 3_000) {
  const kinds = ["TCPSocketWrap", "TCPWRAP", "Timeout", "TLSWrap", "PipeWrap"];
  const excess = () => {
    const now = resourceCounts();
    const over: Record<string, number> = {};
    for (const kind of kinds) {
      const diff = (now[kind] ?? 0) - (before[kind] ?? 0);
      if (diff > 0) over[kind] = diff;
    }
    const origin = extra.openOriginSockets?.() ?? 0;
    if (origin > 0) over.originSockets = origin;
    return over;
  };
  const deadline = Date.now() + withinMs;
  let over = excess();
  // The poll's own timer is one of the counted Timeouts: it is gone by the time excess() runs.
  while (Object.keys(over).length > 0 && Date.now() < deadline) {
    await sleep(50);
    over = excess();
  }
  expect(over, "handles still open after the request").toEqual({});
}

/** One misbehaviour of {@link startRawOrigin}: gets the socket once the request head has arrived. */
export type RawBehaviour = (socket: Socket, request: { method: string; path: string; host: string }) => void;

export interface RawOrigin {
  port: number;
  /** Request heads received, in order. */
  requests: Array<{ method: string; path: string; host: string }>;
  /** Connections still open on the origin side. */
  openSockets(): number;
  close(): Promise<void>;
}

/**
 * A TCP server that reads each request head and hands the socket to the behaviour routed by path
 * (`routes[path]`, else `fallback`). Raw sockets let an origin break HTTP itself: stall, lie in
 * Content-Length, corrupt chunked framing. The origin-side open-socket count proves the client
 * closed its end after a failure.
 */
export async function startRawOrigin(routes: () => Record<string, RawBehaviour>, fallback: RawBehaviour): Promise<RawOrigin> {
  const sockets = new Set<Socket>();
  const requests: RawOrigin["requests"] = [];
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => undefined);
    let head = "";
    const onData = (chunk: Buffer) => {
      head += chunk.toString("latin1");
      const end = head.indexOf("\r\n\r\n");
      if (end < 0) return;
      socket.off("data", onData);
      const [line = "", ...headerLines] = head.slice(0, end).split("\r\n");
      const [method = "", target = "/"] = line.split(" ");
      const hostLine = headerLines.find((h) => h.toLowerCase().startsWith("host:")) ?? "";
      const request = { method, path: target, host: hostLine.slice(5).trim().replace(/:\d+$/, "") };
      requests.push(request);
      (routes()[target.split("?")[0]!] ?? fallback)(socket, request);
    };
    socket.on("data", onData);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    requests,
    openSockets: () => sockets.size,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Writes a complete HTTP/1.1 response and closes the connection. */
export function respond(socket: Socket, status: number, headers: Record<string, string>, body: Buffer | string = ""): void {
  const payload = typeof body === "string" ? Buffer.from(body) : body;
  const lines = [`HTTP/1.1 ${status} X`, ...Object.entries({ "content-length": String(payload.length), connection: "close", ...headers }).map(([k, v]) => `${k}: ${v}`)];
  socket.end(Buffer.concat([Buffer.from(`${lines.join("\r\n")}\r\n\r\n`), payload]));
}

/** The p-th percentile (0–100) of `values`, nearest-rank. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

/** Runs `task(i)` for i in [0, count) with at most `concurrency` in flight. */
export async function runPool<T>(count: number, concurrency: number, task: (i: number) => Promise<T>): Promise<T[]> {
  const results: T[] = new Array<T>(count);
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      results[i] = await task(i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  return results;
}
