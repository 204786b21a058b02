/**
 * A small world for rendering tests: a TLS origin for the public names, canary listeners for
 * every refused place, DNS answers from a table (a name may answer differently on each lookup,
 * for rebinding), and a dialer that routes each checked address to the listener standing in for
 * it, as a test network would. If the guard ever let a refused address through, the dial would
 * land on that address's canary and the canary would record it.
 */
import { createHash, createPublicKey } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { createTestDialer } from "./test-dialer";
import type { Resolver } from "../../shared/guard/dns-resolver";
import type { DialTarget, Dialer } from "../../shared/http/types";
import { findChromium } from "../../shared/render/chromium";
import { TEST_CA, startOrigin, type Origin } from "./origin";

/** The public test address every public name resolves to (the test certificate names it). */
export const PUBLIC_ADDRESS = "93.184.215.14";
export const PRIVATE_ADDRESS = "10.0.0.5";
export const METADATA_ADDRESS = "169.254.169.254";

/** Base64 SHA-256 of the test certificate's public key, for Chromium's SPKI allow list. */
export const TEST_SPKI_HASH = createHash("sha256")
  .update(
    createPublicKey(fs.readFileSync(path.resolve(__dirname, "../fixtures/tls/server.pem")))
      .export({ type: "spki", format: "der" }),
  )
  .digest("base64");

/** The Chromium the tests run with, or undefined (the suite then skips with a notice). */
export const TEST_CHROMIUM = findChromium(process.env.WEBGATE_CHROMIUM_PATH);

export interface Canary {
  port: number;
  /** Every request and every raw connection that reached it. */
  hits: string[];
  close(): Promise<void>;
}

/** A loopback listener that records whatever reaches it, HTTP or not. */
export async function startCanary(): Promise<Canary> {
  const hits: string[] = [];
  const server = http.createServer((req, res) => {
    hits.push(`${req.method} ${req.url}`);
    res.writeHead(200, { "content-type": "text/plain", "access-control-allow-origin": "*" });
    res.end("CANARY-REACHED");
  });
  server.on("connection", () => hits.push("connection"));
  server.on("upgrade", (req, socket) => {
    hits.push(`UPGRADE ${req.url}`);
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    port,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * DNS from a table; a list of answers is used one per lookup, the last one repeating. Names
 * not in the table under `*.example.com` answer the public test address.
 */
export class SequenceResolver implements Resolver {
  readonly lookups: string[] = [];
  constructor(private readonly table: Record<string, string[][]>) {}
  resolve(hostname: string): Promise<string[]> {
    this.lookups.push(hostname);
    const answers = this.table[hostname] ?? (hostname.endsWith(".example.com") ? [[PUBLIC_ADDRESS]] : undefined);
    if (answers === undefined || answers.length === 0) {
      return Promise.reject(Object.assign(new Error("getaddrinfo ENOTFOUND"), { code: "ENOTFOUND" }));
    }
    const count = this.lookups.filter((name) => name === hostname).length;
    return Promise.resolve([...answers[Math.min(count, answers.length) - 1]!]);
  }
}

/** Routes each checked address to its stand-in listener and records every dial. */
export class WorldDialer implements Dialer {
  readonly dials: DialTarget[] = [];
  private readonly inner: Dialer;
  constructor(routes: Record<string, number>) {
    this.inner = createTestDialer({
      // The plain fetch dials TLS itself (the proxy never does): it trusts the test CA.
      ca: TEST_CA,
      route: (address, port) => {
        const routed = routes[address];
        // An address without a stand-in goes nowhere: port 9 of loopback refuses.
        return routed === undefined ? { host: "127.0.0.1", port: address === "127.0.0.1" ? port : 9 } : { host: "127.0.0.1", port: routed };
      },
    });
  }
  dial(target: DialTarget) {
    this.dials.push(target);
    return this.inner.dial(target);
  }
}

export interface RenderWorld {
  origin: Origin;
  /** Where 10.0.0.5, 169.254.169.254 and real loopback would be. */
  canaries: { private: Canary; metadata: Canary; loopback: Canary };
  resolver: SequenceResolver;
  dialer: WorldDialer;
  /** Sets the page served at `path` of every public name. */
  serve(path: string, handler: http.RequestListener): void;
  close(): Promise<void>;
}

/**
 * Starts the world. Public names (`*.example.com`) resolve to {@link PUBLIC_ADDRESS}, served by
 * one TLS origin; `dns` overrides names (e.g. one resolving to a private address).
 */
export async function startRenderWorld(dns: Record<string, string[][]> = {}): Promise<RenderWorld> {
  const routes = new Map<string, http.RequestListener>();
  const origin = await startOrigin(
    (req, res) => {
      const url = new URL(req.url ?? "/", "https://x.example.com");
      const handler = routes.get(url.pathname);
      if (handler) return handler(req, res);
      res.writeHead(404, { "content-type": "text/plain" });
      res.end("not found");
    },
    { tls: true },
  );
  const canaries = { private: await startCanary(), metadata: await startCanary(), loopback: await startCanary() };
  const resolver = new SequenceResolver(dns);
  const dialer = new WorldDialer({
    [PUBLIC_ADDRESS]: origin.port,
    [PRIVATE_ADDRESS]: canaries.private.port,
    [METADATA_ADDRESS]: canaries.metadata.port,
    "127.0.0.1": canaries.loopback.port,
  });
  return {
    origin,
    canaries,
    resolver,
    dialer,
    serve: (p, handler) => routes.set(p, handler),
    close: async () => {
      await origin.close();
      await Promise.all(Object.values(canaries).map((c) => c.close()));
    },
  };
}

/** A handler answering HTML. */
export function html(body: string, status = 200): http.RequestListener {
  return (_req, res) => {
    res.writeHead(status, { "content-type": "text/html; charset=utf-8" });
    res.end(body);
  };
}
