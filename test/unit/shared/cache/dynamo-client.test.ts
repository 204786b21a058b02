import { once } from "node:events";
import net from "node:net";
import { GetItemCommand } from "@aws-sdk/client-dynamodb";
import { describe, expect, it } from "vitest";
import { DYNAMO_CLIENT_DEFAULTS, createDynamoClient } from "../../../../shared/cache/dynamo-client";

describe("createDynamoClient", () => {
  it("fails fast by default and signs local requests with dummy credentials", async () => {
    const client = createDynamoClient({ endpoint: "http://127.0.0.1:1" });
    try {
      expect(await client.config.maxAttempts()).toBe(DYNAMO_CLIENT_DEFAULTS.maxAttempts);
      expect(await client.config.region()).toBe("us-east-1");
      const credentials = await client.config.credentials();
      expect(credentials.accessKeyId).toBe("local");
      const endpoint = await client.config.endpoint!();
      expect(endpoint.hostname).toBe("127.0.0.1");
    } finally {
      client.destroy();
    }
  });

  it("hands its default time limits to the HTTP handler every request goes through", async () => {
    const client = createDynamoClient({ endpoint: "http://127.0.0.1:1" });
    try {
      // Nobody listens on port 1: refused at once, after the handler has read its options.
      await client.send(new GetItemCommand({ TableName: "t", Key: { pk: { S: "k" } } })).catch(() => undefined);
      const handler = client.config.requestHandler as { httpHandlerConfigs(): Record<string, unknown> };
      expect(handler.httpHandlerConfigs()).toMatchObject({
        connectionTimeout: DYNAMO_CLIENT_DEFAULTS.connectTimeoutMs,
        requestTimeout: DYNAMO_CLIENT_DEFAULTS.requestTimeoutMs,
        throwOnRequestTimeout: true,
      });
    } finally {
      client.destroy();
    }
  });

  it("hands the time limits it is given to the HTTP handler", async () => {
    const client = createDynamoClient({ endpoint: "http://127.0.0.1:1", connectTimeoutMs: 123, requestTimeoutMs: 456 });
    try {
      await client.send(new GetItemCommand({ TableName: "t", Key: { pk: { S: "k" } } })).catch(() => undefined);
      const handler = client.config.requestHandler as { httpHandlerConfigs(): Record<string, unknown> };
      expect(handler.httpHandlerConfigs()).toMatchObject({ connectionTimeout: 123, requestTimeout: 456 });
    } finally {
      client.destroy();
    }
  });

  it("takes the region and limits it is given", async () => {
    const client = createDynamoClient({ region: "eu-west-1", maxAttempts: 1 });
    try {
      expect(await client.config.region()).toBe("eu-west-1");
      expect(await client.config.maxAttempts()).toBe(1);
      expect(client.config.endpoint).toBeUndefined();
    } finally {
      client.destroy();
    }
  });

  it("gives up on an endpoint that accepts and never answers after the request timeout, with no retry beyond maxAttempts", async () => {
    // A loopback listener that takes the connection and stays silent: only the client's own
    // request timeout can end the call.
    const sockets: net.Socket[] = [];
    const silent = net.createServer((socket) => sockets.push(socket));
    silent.listen(0, "127.0.0.1");
    await once(silent, "listening");
    const { port } = silent.address() as net.AddressInfo;
    const client = createDynamoClient({ endpoint: `http://127.0.0.1:${port}`, requestTimeoutMs: 300, maxAttempts: 2 });
    try {
      const failure = await client.send(new GetItemCommand({ TableName: "t", Key: { pk: { S: "k" } } })).then(
        () => undefined,
        (error: unknown) => error as Error,
      );
      // The request timeout ended it, by name and by its value (without one the SDK waits forever,
      // and the test's own time limit fails it): the outcome, not a wall-clock bound.
      expect(failure?.name).toMatch(/Timeout/i);
      expect(failure?.message).toContain("300 ms requestTimeout");
      // A connection of our own after the client gave up: the listener accepts in order, so once
      // it arrives every connection the client opened has arrived too, however late a loaded
      // machine runs the accept callbacks.
      const barrier = net.connect(port, "127.0.0.1");
      const arrived = new Promise<void>((resolve) => silent.on("connection", (socket) => socket.localPort === port && socket.remotePort === barrier.localPort && resolve()));
      await arrived;
      barrier.destroy();
      expect(sockets.length - 1).toBe(2);
    } finally {
      client.destroy();
      for (const socket of sockets) socket.destroy();
      silent.close();
    }
  });
});
