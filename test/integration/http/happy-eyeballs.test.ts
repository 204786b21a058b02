/**
 * Happy Eyeballs over the checked list (RFC 8305): attempts start 250 ms apart or at once when the
 * latest fails, the first connection wins, every other attempt is destroyed.
 */
import net from "node:net";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CONNECTION_ATTEMPT_DELAY_MS, createDialer, interleaveFamilies } from "../../../shared/http/net-dialer";
import { createTestDialer } from "../../helpers/test-dialer";
import { closedPort } from "../../helpers/provider-stand-in";

let servers: net.Server[] = [];
const ports: number[] = [];

async function listen(): Promise<number> {
  const server = net.createServer((socket) => socket.on("error", () => undefined));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  servers.push(server);
  return (server.address() as AddressInfo).port;
}

beforeAll(async () => {
  ports.push(await listen(), await listen());
});
afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  servers = [];
});

const never = () => new AbortController().signal;

describe("interleaveFamilies (RFC 8305 §4)", () => {
  it("alternates families starting with the first address's", () => {
    expect(interleaveFamilies(["2001:db8::1", "2001:db8::2", "192.0.2.1", "192.0.2.2", "192.0.2.3"])).toEqual(["2001:db8::1", "192.0.2.1", "2001:db8::2", "192.0.2.2", "192.0.2.3"]);
    expect(interleaveFamilies(["192.0.2.1", "2001:db8::1"])).toEqual(["192.0.2.1", "2001:db8::1"]);
    expect(interleaveFamilies([])).toEqual([]);
  });
});

describe("the net dialer races the checked addresses", () => {
  it("an address that never connects does not hold up the next one: it starts after the attempt delay and wins", async () => {
    const stuck: net.Socket[] = [];
    const dialer = createDialer((address) => {
      if (address !== "2001:db8::1") return net.connect({ host: "127.0.0.1", port: ports[1]! });
      const socket = new net.Socket();
      stuck.push(socket);
      return socket;
    });
    const started = performance.now();
    // The stuck attempt's connect limit is beyond the test's own: only the second attempt,
    // started after the attempt delay, can end the dial (without the race the test times out,
    // instead of racing a wall-clock bound on a loaded machine).
    const socket = (await dialer.dial({ hostname: "x.example", addresses: ["2001:db8::1", "192.0.2.1"], port: 80, tls: false, connectTimeoutMs: 600_000, signal: never() })) as net.Socket;
    const elapsed = performance.now() - started;
    expect(socket.remotePort).toBe(ports[1]);
    // Waited the attempt delay (a timer never fires early, however loaded the machine).
    expect(elapsed).toBeGreaterThanOrEqual(CONNECTION_ATTEMPT_DELAY_MS - 5);
    expect(stuck).toHaveLength(1);
    expect(stuck[0]!.destroyed).toBe(true);
    socket.destroy();
  });

  it("a refused address starts the next attempt at once", async () => {
    const dead = await closedPort();
    const dialer = createTestDialer({ route: (address) => ({ host: "127.0.0.1", port: address === "192.0.2.1" ? dead : ports[0]! }) });
    const socket = (await dialer.dial({ hostname: "x.example", addresses: ["192.0.2.1", "192.0.2.2"], port: 80, tls: false, connectTimeoutMs: 5_000, signal: never() })) as net.Socket;
    expect(socket.remotePort).toBe(ports[0]);
    socket.destroy();
  });

  it("every address failing is connect_failed without an address in the message; an abort is upstream_timeout", async () => {
    const dead = await closedPort();
    const dialer = createTestDialer({ route: () => ({ host: "127.0.0.1", port: dead }) });
    const target = { hostname: "x.example", addresses: ["192.0.2.1", "2001:db8::1"], port: 80, tls: false, connectTimeoutMs: 5_000 };
    const error = (await dialer.dial({ ...target, signal: never() }).then(
      () => undefined,
      (e: unknown) => e,
    )) as { code: string; message: string };
    expect(error).toMatchObject({ code: "connect_failed" });
    expect(error.message).not.toContain("192.0.2.1");
    await expect(dialer.dial({ ...target, addresses: [], signal: never() })).rejects.toMatchObject({ code: "connect_failed" });

    const stuckDialer = createDialer(() => new net.Socket());
    const controller = new AbortController();
    const pending = stuckDialer.dial({ ...target, signal: controller.signal });
    controller.abort();
    await expect(pending).rejects.toMatchObject({ code: "upstream_timeout" });
    const aborted = new AbortController();
    aborted.abort();
    await expect(stuckDialer.dial({ ...target, signal: aborted.signal })).rejects.toMatchObject({ code: "upstream_timeout" });
  });
});
