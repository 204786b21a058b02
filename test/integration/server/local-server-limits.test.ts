/**
 * The local server's cap on concurrent requests: one over the cap answers 429 `rate_limited`
 * with Retry-After at once, and the slot comes back when a request ends.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { APIGatewayProxyResult } from "aws-lambda";
import { startHttpFrontend, type RunningServer } from "../../../scripts/lib/local-server";

let server: RunningServer;
const release: Array<() => void> = [];
let entered = 0;

beforeAll(async () => {
  server = await startHttpFrontend({
    routes: [
      {
        method: "GET",
        path: "/hold",
        handler: () =>
          new Promise<APIGatewayProxyResult>((resolve) => {
            entered += 1;
            release.push(() => resolve({ statusCode: 200, body: "{}" }));
          }),
      },
    ],
    apiKeys: [],
    port: 0,
    log: () => undefined,
    maxConcurrentRequests: 2,
  });
});
afterAll(async () => {
  for (const r of release) r();
  await server.close();
});

describe("the local server caps concurrent requests", () => {
  it("answers 429 rate_limited beyond the cap and admits again once a request ends", async () => {
    const first = fetch(`${server.url}/hold`);
    const second = fetch(`${server.url}/hold`);
    while (entered < 2) await new Promise((resolve) => setTimeout(resolve, 5));
    const third = await fetch(`${server.url}/hold`);
    expect(third.status).toBe(429);
    expect(third.headers.get("retry-after")).toBe("1");
    expect(((await third.json()) as { error: { code: string } }).error.code).toBe("rate_limited");
    release.shift()!();
    expect((await first).status).toBe(200);
    const fourth = fetch(`${server.url}/hold`);
    while (entered < 3) await new Promise((resolve) => setTimeout(resolve, 5));
    for (const r of release.splice(0)) r();
    expect((await second).status).toBe(200);
    expect((await fourth).status).toBe(200);
  });
});
