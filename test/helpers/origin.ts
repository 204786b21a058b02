import http from "node:http";
import https from "node:https";
import fs from "node:fs";
import path from "node:path";
import net, { type AddressInfo, type Socket } from "node:net";

const TLS_DIR = path.resolve(__dirname, "../fixtures/tls");
export const TEST_CA = fs.readFileSync(path.join(TLS_DIR, "ca.pem"));
const TLS_KEY = fs.readFileSync(path.join(TLS_DIR, "server.key"));
const TLS_CERT = fs.readFileSync(path.join(TLS_DIR, "server.pem"));

export interface Origin {
  port: number;
  /** `http(s)://127.0.0.1:port` */
  base: string;
  /** Requests received so far (method, url, headers). */
  requests: Array<{ method: string; url: string; headers: http.IncomingHttpHeaders }>;
  /** TCP connections accepted so far. */
  connections: number;
  close(): Promise<void>;
}

/** A loopback origin server (127.0.0.1, a free port); `tls` serves the test certificate. */
export async function startOrigin(handler: http.RequestListener, options: { tls?: boolean } = {}): Promise<Origin> {
  const requests: Origin["requests"] = [];
  const sockets = new Set<Socket>();
  const listener: http.RequestListener = (req, res) => {
    requests.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers });
    handler(req, res);
  };
  const server = options.tls ? https.createServer({ key: TLS_KEY, cert: TLS_CERT }, listener) : http.createServer(listener);
  const origin: Origin = {
    port: 0,
    base: "",
    requests,
    connections: 0,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
  server.on("connection", (socket: Socket) => {
    origin.connections += 1;
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin.port = (server.address() as AddressInfo).port;
  origin.base = `${options.tls ? "https" : "http"}://127.0.0.1:${origin.port}`;
  return origin;
}

/** A raw TCP server for origins that break HTTP itself (stalls, lies, bad framing). */
export async function startRawOrigin(onSocket: (socket: Socket) => void): Promise<Origin> {
  const sockets = new Set<Socket>();
  const origin: Origin = { port: 0, base: "", requests: [], connections: 0, close: () => Promise.resolve() };
  const server = net.createServer((socket) => {
    origin.connections += 1;
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => undefined);
    onSocket(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin.port = (server.address() as AddressInfo).port;
  origin.base = `http://127.0.0.1:${origin.port}`;
  origin.close = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    });
  return origin;
}
