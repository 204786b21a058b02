/**
 * Faults of /search's dependencies through the whole /search handler: Secrets Manager
 * unreachable, and a provider answering HTML, 429 with Retry-After, 500, or nothing. Each case
 * asserts the error code, no leaked socket or timer, and that the next request works. No key value
 * ever appears in a response or a log line. The time each took goes to the reliability summary,
 * not to an assertion: the invocation has INVOCATION_MS, beyond the test's own time limit, so a
 * hang fails the test by that limit, and the provider's limit shows in the logged attempt budget.
 */
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import type { APIGatewayProxyResult } from "aws-lambda";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { ENV, loadConfig } from "../../shared/config";
import type { Resolver } from "../../shared/guard/dns-resolver";
import { createMemoryTelemetry, type MemoryTelemetry } from "../../shared/observability/telemetry";
import { createSearchHandler } from "../../shared/search/search-route";
import { createSecretsManagerClient } from "../../shared/secrets/secrets-manager-client";
import { apiGatewayEvent, lambdaContext } from "../helpers/apigw-event";
import { expectNoLeaks, figureRecorder, trackHandles } from "./support";

/** Distinctive fake keys: any appearance outside the provider request is a leak. */
const ENV_BRAVE_KEY = "BSA-reliability-env-key-7f3a9c21d";
const SECRET_BRAVE_KEY = "BSA-reliability-secret-key-0b8e44e6";
const SECRET_ARN = "arn:aws:secretsmanager:us-east-1:123456789012:secret:webgate/reliability-Qx7Pz1";
// Kept-alive provider connections close after 300 ms idle, so the leak check sees them go.
const LIMITS = { timeoutMs: 1_000, connectTimeoutMs: 500, maxBytes: 2 * 1024 * 1024, idleConnectionMs: 300 };
/** The invocation's remaining time: ten minutes, beyond every test's time limit (60 s). */
const INVOCATION_MS = 600_000;
const noDns: Resolver = { resolve: () => Promise.reject(new Error("the stand-ins are addressed by IP literal")) };

const record = figureRecorder("search-faults");
const telemetries: MemoryTelemetry[] = [];
const visible: string[] = [];

type Answer = (req: http.IncomingMessage, res: http.ServerResponse) => void;

/** A loopback HTTP server with a swappable answer and a count of open connections. */
async function startServer(port = 0) {
  const sockets = new Set<Socket>();
  const state = { answer: ((_req, res) => res.writeHead(404).end()) as Answer, requests: [] as Array<{ headers: http.IncomingHttpHeaders; body: string }> };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      state.requests.push({ headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
      state.answer(req, res);
    });
  });
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return {
    state,
    port: (server.address() as AddressInfo).port,
    openSockets: () => sockets.size,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

const braveResults = {
  type: "search",
  web: { type: "search", results: [{ title: "Reliable result", url: "https://example.com/r", description: "It worked.", age: "1 day ago" }] },
};
const braveOk: Answer = (_req, res) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(braveResults));

let brave: Awaited<ReturnType<typeof startServer>>;

beforeAll(async () => {
  brave = await startServer();
});
afterEach(() => {
  vi.unstubAllEnvs();
});
afterAll(async () => {
  const everything = [...visible, ...telemetries.flatMap((t) => t.lines.map((l) => JSON.stringify(l)))].join("\n");
  for (const secret of [ENV_BRAVE_KEY, SECRET_BRAVE_KEY, SECRET_ARN]) expect(everything).not.toContain(secret);
  await brave?.close();
});

function searchHandler(env: Record<string, string>, secretsManager?: ReturnType<typeof createSecretsManagerClient>) {
  const telemetry = createMemoryTelemetry();
  telemetries.push(telemetry);
  const config = loadConfig({ [ENV.BRAVE_ENDPOINT]: `http://127.0.0.1:${brave.port}/res/v1/web/search`, ...env });
  const handler = createSearchHandler({ config, resolver: noDns, limits: LIMITS, telemetry, ...(secretsManager ? { secretsManager } : {}) });
  return async (query = "reliable search"): Promise<{ res: APIGatewayProxyResult; json: any; ms: number }> => {
    const started = performance.now();
    const res = await handler(apiGatewayEvent({ method: "POST", path: "/search", body: { query } }), lambdaContext({ getRemainingTimeInMillis: () => INVOCATION_MS }));
    visible.push(res.body, JSON.stringify(res.headers ?? {}));
    return { res, json: JSON.parse(res.body), ms: performance.now() - started };
  };
}

async function survive(
  name: string,
  search: ReturnType<typeof searchHandler>,
  expectation: (r: { res: APIGatewayProxyResult; json: any }) => void,
  open: () => number,
  recover: () => void | Promise<void>,
) {
  const before = trackHandles();
  let outcome: Awaited<ReturnType<typeof search>> | undefined;
  try {
    outcome = await search();
    expectation(outcome);
    await expectNoLeaks(before, { openOriginSockets: open });
    await recover();
    const next = await search();
    expect(next.res.statusCode).toBe(200);
    expect(next.json.results[0].title).toBe("Reliable result");
    record.fault({ name, survived: true, code: outcome.json.error?.code, ms: Math.round(outcome.ms) });
  } catch (error) {
    record.fault({ name, survived: false, code: outcome?.json?.error?.code, ms: outcome ? Math.round(outcome.ms) : undefined });
    throw error;
  }
}

describe("provider faults through the /search handler", () => {
  const search = () => searchHandler({ [ENV.BRAVE_API_KEY]: ENV_BRAVE_KEY });
  const recover = () => {
    brave.state.answer = braveOk;
  };

  it("a provider answering HTML instead of JSON: provider_bad_response", async () => {
    brave.state.answer = (_req, res) => res.writeHead(200, { "content-type": "text/html" }).end("<html><body>Service page</body></html>");
    await survive("provider answers HTML", search(), ({ res, json }) => {
      expect(res.statusCode).toBe(502);
      expect(json.error.code).toBe("provider_bad_response");
    }, () => brave.openSockets(), recover);
  });

  it("a provider answering 429 with Retry-After: provider_rate_limited passing Retry-After on", async () => {
    brave.state.answer = (_req, res) => res.writeHead(429, { "retry-after": "17", "content-type": "application/json" }).end('{"type":"ErrorResponse"}');
    await survive("provider 429 with Retry-After", search(), ({ res, json }) => {
      expect(res.statusCode).toBe(429);
      expect(json.error.code).toBe("provider_rate_limited");
      expect(Object.entries(res.headers ?? {}).find(([k]) => k.toLowerCase() === "retry-after")?.[1]).toBe("17");
    }, () => brave.openSockets(), recover);
  });

  it("a provider answering 500: provider_error", async () => {
    brave.state.answer = (_req, res) => res.writeHead(500, { "content-type": "text/plain" }).end("upstream exploded");
    await survive("provider 500", search(), ({ res, json }) => {
      expect(res.statusCode).toBe(502);
      expect(json.error.code).toBe("provider_error");
      expect(res.body).not.toContain("exploded");
    }, () => brave.openSockets(), recover);
  });

  it("a provider that never answers: provider_timeout at the provider limit", async () => {
    brave.state.answer = () => undefined;
    await survive("provider never answers", search(), ({ res, json }) => {
      expect(res.statusCode).toBe(504);
      expect(json.error.code).toBe("provider_timeout");
      // The one attempt had the provider limit, all of it: the limit, not the invocation's time,
      // is what ended it.
      const line = telemetries.at(-1)!.lines.find((l) => l.message === "request")!;
      expect(line.fields).toMatchObject({ attempt_budgets_ms: String(LIMITS.timeoutMs) });
    }, () => brave.openSockets(), recover);
  });
});

describe("Secrets Manager faults through the /search handler", () => {
  it("Secrets Manager unreachable: provider_error (retryable), and the next request loads the keys", async () => {
    // The SDK signs requests: a region and (fake) credentials from the environment, as in Lambda.
    vi.stubEnv("AWS_REGION", "us-east-1");
    vi.stubEnv("AWS_ACCESS_KEY_ID", "AKIDRELIABILITY");
    vi.stubEnv("AWS_SECRET_ACCESS_KEY", "reliability-fake-secret-access-key");
    brave.state.answer = braveOk;
    // Take a free port, then leave it with nothing listening: Secrets Manager is unreachable.
    const probe = await startServer();
    const port = probe.port;
    await probe.close();
    const client = createSecretsManagerClient({ endpoint: `http://127.0.0.1:${port}` });
    const search = searchHandler({ [ENV.PROVIDER_SECRET_ARN]: SECRET_ARN }, client);
    let sm: Awaited<ReturnType<typeof startServer>> | undefined;
    try {
      await survive("Secrets Manager unreachable", search, ({ res, json }) => {
        expect(res.statusCode).toBe(502);
        expect(json.error).toMatchObject({ code: "provider_error", retryable: true, provider_keys: "unavailable" });
        expect(brave.state.requests.at(-1)?.headers["x-subscription-token"]).not.toBe(SECRET_BRAVE_KEY);
      }, () => sm?.openSockets() ?? 0, async () => {
        // Secrets Manager comes back on the same endpoint: the failure was not cached.
        sm = await startServer(port);
        sm.state.answer = (req, res) => {
          expect(req.headers["x-amz-target"]).toBe("secretsmanager.GetSecretValue");
          res.writeHead(200, { "content-type": "application/x-amz-json-1.1" }).end(
            JSON.stringify({ ARN: SECRET_ARN, Name: "webgate/reliability", SecretString: JSON.stringify({ brave_api_key: SECRET_BRAVE_KEY }), VersionId: "v1" }),
          );
        };
      });
      expect(brave.state.requests.at(-1)?.headers["x-subscription-token"]).toBe(SECRET_BRAVE_KEY);
    } finally {
      client.destroy();
      await sm?.close();
    }
  });
});
