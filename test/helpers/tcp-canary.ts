/**
 * A TCP listener on one local address that only counts the connections it gets (and drops them):
 * a guard test asserts that no request reached it.
 */
import * as net from "node:net";
import type { AddressInfo } from "node:net";

export interface TcpCanary {
  host: string;
  port: number;
  connections: number;
  close(): Promise<void>;
}

/** Listens on `host`, port 0; `undefined` where the address is not available (no IPv6 loopback, 127.0.0.2 not on lo as on macOS). */
export async function startTcpCanary(host: string): Promise<TcpCanary | undefined> {
  const server = net.createServer((socket) => {
    canary.connections += 1;
    socket.destroy();
  });
  const canary: TcpCanary = { host, port: 0, connections: 0, close: () => new Promise((resolve) => server.close(() => resolve())) };
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, host, resolve);
    });
  } catch {
    return undefined;
  }
  canary.port = (server.address() as AddressInfo).port;
  return canary;
}
