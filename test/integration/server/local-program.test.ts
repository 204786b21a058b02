/**
 * `npm start` as a program: the banner, start-up errors that name what failed, and a stop that
 * takes the whole server down when npm is told to stop.
 */
import { spawn } from "node:child_process";
import net from "node:net";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { startLocalApi } from "../../../scripts/lib/local-api";
import { localBanner } from "../../../scripts/lib/local-banner";
import { startHttpFrontend } from "../../../scripts/lib/local-server";
import { closedPort } from "../../helpers/provider-stand-in";

const REPO = path.resolve(__dirname, "../../..");

describe("the banner", () => {
  it("says where it listens, how to stop it, and whether API keys and the localhost switch are on", () => {
    const off = localBanner({ url: "http://127.0.0.1:8787", dynamoEndpoint: "http://127.0.0.1:4567", env: {}, pid: 42 });
    expect(off).toContain("webgate listening on http://127.0.0.1:8787");
    expect(off).toContain("API keys:         off");
    expect(off).toContain("localhost switch: off");
    expect(off).toContain("stop with Ctrl-C, or kill 42");
    const on = localBanner({ url: "http://127.0.0.1:1", dynamoEndpoint: "http://db:8000", env: { WEBGATE_API_KEYS: "a,b", WEBGATE_ALLOW_LOCALHOST: "true", WEBGATE_DYNAMODB_ENDPOINT: "http://db:8000" }, pid: 7 });
    expect(on).toContain("API keys:         on, 2 keys");
    expect(on).toContain("localhost switch: ON");
    expect(on).toContain("(WEBGATE_DYNAMODB_ENDPOINT)");
    expect(on).not.toContain(",b");
  });
});

describe("start-up errors name what failed", () => {
  it("a taken port names the port and PORT", async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    const port = (taken.address() as net.AddressInfo).port;
    try {
      await expect(startHttpFrontend({ routes: [], apiKeys: [], port, log: () => undefined })).rejects.toThrow(`Port ${port} on 127.0.0.1 is already in use. Set PORT`);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });

  it("an unreachable WEBGATE_DYNAMODB_ENDPOINT is named, with the network error's code", async () => {
    const dead = await closedPort();
    const error = await startLocalApi({ env: { WEBGATE_DYNAMODB_ENDPOINT: `http://127.0.0.1:${dead}` }, port: 0, log: () => undefined }).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(error?.name).toBe("StartupError");
    expect(error?.message).toContain(`WEBGATE_DYNAMODB_ENDPOINT (http://127.0.0.1:${dead}) cannot be used (ECONNREFUSED)`);
  });
});

describe("npm start stops as a whole", () => {
  it("kill -TERM <npm pid> stops the server and frees the port", async () => {
    const npm = spawn("npm", ["start"], { cwd: REPO, env: { ...process.env, PORT: "0" }, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    npm.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const url = await new Promise<string>((resolve, reject) => {
      npm.stdout.on("data", (chunk: Buffer) => {
        output += chunk.toString();
        const match = /webgate listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
        if (match && output.includes("stop with")) resolve(match[1]!);
      });
      npm.once("exit", () => reject(new Error(`npm start exited early:\n${output}`)));
    });
    const serverPid = Number(/kill (\d+)/.exec(output)![1]);
    expect((await fetch(`${url}/openapi.json`)).status).toBe(200);
    const npmExited = new Promise((resolve) => npm.once("exit", resolve));
    npm.kill("SIGTERM");
    await npmExited;
    // The server process goes too (it watches for the signal and for its parent going away).
    for (;;) {
      try {
        process.kill(serverPid, 0);
      } catch {
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await expect(fetch(`${url}/openapi.json`)).rejects.toThrow();
  }, 60_000);
});
