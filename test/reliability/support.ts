/**
 * Shared parts of the reliability suite: a raw loopback origin that misbehaves on purpose, process
 * health checks (sockets, timers), latency percentiles, and the figures each test file records for
 * the summary that `summary-setup.ts` prints at the end of the run.
 */
import { createHook } from "node:async_hooks";
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

/** Handle kinds a request could leak: sockets (plain and TLS) and timers. */
const TRACKED = new Set(["TCPWRAP", "TLSWRAP", "PIPEWRAP", "Timeout"]);

/** Live handles created since a {@link trackHandles} call, by kind. */
export interface HandleTracker {
  open(): Record<string, number>;
  stop(): void;
}

/**
 * Records every socket and timer created from now on (async_hooks init/destroy), so a check
 * after the request sees exactly what the request left behind, whatever the test runner's own
 * timers do meanwhile. Timers that no longer keep the process alive (unref'd idle timers) are
 * not counted: they cannot hold a Lambda or a test process open. `ignorePorts`: connections
 * to or from these ports are expected to stay (the page store client's keep-alive pool to the
 * in-process emulator, which may swap one pooled connection for another).
 */
export function trackHandles(options: { ignorePorts?: number[] } = {}): HandleTracker {
  const ignored = new Set(options.ignorePorts ?? []);
  // A TCP handle's own and peer port (tcp_wrap's getsockname/getpeername fill an object).
  const ports = (resource: unknown): number[] => {
    // Node's http Agent re-announces a socket it takes from its keep-alive pool as a new TCPWRAP
    // whose resource is a ReusedHandle wrapping the real handle.
    const handle = (resource as { handle?: unknown }).handle ?? resource;
    const h = handle as { getsockname?: (out: { port?: number }) => void; getpeername?: (out: { port?: number }) => void };
    const mine: { port?: number } = {};
    const peer: { port?: number } = {};
    h.getsockname?.(mine);
    h.getpeername?.(peer);
    return [mine.port, peer.port].filter((p): p is number => p !== undefined);
  };
  const live = new Map<number, { type: string; resource: unknown }>();
  const hook = createHook({
    init(id, type, _trigger, resource) {
      if (TRACKED.has(type)) live.set(id, { type, resource });
    },
    destroy(id) {
      live.delete(id);
    },
  }).enable();
  return {
    open() {
      const counts: Record<string, number> = {};
      for (const { type, resource } of live.values()) {
        if (type === "Timeout") {
          const timer = resource as { hasRef?: () => boolean; _destroyed?: boolean };
          if (timer._destroyed === true || timer.hasRef?.() === false) continue;
        }
        if (type === "TCPWRAP" && ports(resource).some((p) => ignored.has(p))) continue;
        counts[type] = (counts[type] ?? 0) + 1;
      }
      return counts;
    },
    stop: () => void hook.disable(),
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Waits (up to `withinMs`) until every socket and timer created since `tracker` started is gone
 * (and the origin holds no open connection), and fails naming what stayed open. A leaked handle
 * never goes away, so waiting does not hide a leak; it only lets closes under way finish.
 */
export async function expectNoLeaks(tracker: HandleTracker, extra: { openOriginSockets?: () => number } = {}, withinMs = 3_000) {
  const excess = () => {
    const over = tracker.open();
    const origin = extra.openOriginSockets?.() ?? 0;
    if (origin > 0) over.originSockets = origin;
    return over;
  };
  const deadline = Date.now() + withinMs;
  let over = excess();
  while (Object.keys(over).length > 0 && Date.now() < deadline) {
    // This poll's own timer is created after the check and destroyed before the next one.
    await sleep(50);
    over = excess();
  }
  tracker.stop();
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
