/**
 * A loopback HTTP server that plays a search provider (or Secrets Manager) in tests. Each test
 * sets `reply` to decide the answer; every request is recorded with its headers and body.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface RecordedRequest {
  method: string;
  url: URL;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface Reply {
  status: number;
  headers?: Record<string, string>;
  body?: string | object;
}

/** `"hang"` accepts the request and never answers. */
export type Responder = (request: RecordedRequest) => Reply | "hang";

export interface StandIn {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  requests: RecordedRequest[];
  reply: Responder;
  close(): Promise<void>;
}

export async function startStandIn(reply: Responder = () => ({ status: 404 })): Promise<StandIn> {
  const requests: RecordedRequest[] = [];
  const standIn: StandIn = { origin: "", requests, reply, close: () => Promise.resolve() };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const recorded: RecordedRequest = {
        method: req.method ?? "",
        url: new URL(req.url ?? "/", "http://127.0.0.1"),
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
      };
      requests.push(recorded);
      const answer = standIn.reply(recorded);
      if (answer === "hang") return;
      const body = answer.body === undefined ? "" : typeof answer.body === "string" ? answer.body : JSON.stringify(answer.body);
      const headers = { ...(typeof answer.body === "object" ? { "content-type": "application/json" } : {}), ...answer.headers };
      res.writeHead(answer.status, headers);
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  standIn.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  standIn.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return standIn;
}

/** A loopback port with nothing listening (bound, then released). */
export async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
