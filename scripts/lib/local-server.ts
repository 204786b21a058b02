/**
 * The local API server: plain Node HTTP in front of the same handlers Lambda runs. Each request
 * becomes an API Gateway REST proxy event; the handler's result becomes the HTTP answer. API keys
 * (`WEBGATE_API_KEYS`) are checked the way API Gateway checks them, before any handler runs.
 */
import http from "node:http";
import { randomUUID, timingSafeEqual } from "node:crypto";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from "aws-lambda";
import { Logger } from "@aws-lambda-powertools/logger";
import { WebgateError, toErrorBody, type ErrorCode } from "../../shared/errors";

/** A start-up failure whose message names what failed and what to change. */
export class StartupError extends Error {
  override readonly name = "StartupError";
}

/**
 * The frontend's own log lines go through Powertools Logger like the handlers' (one format:
 * `level` in upper case, `service`, `timestamp`), so `npm start`'s output is one JSON shape.
 */
function powertoolsLog(): (line: Record<string, unknown>) => void {
  const logger = new Logger({ serviceName: "webgate-local" });
  return ({ level, message, ...fields }) => {
    const text = typeof message === "string" ? message : "local server";
    if (level === "error") logger.error(text, fields);
    else if (level === "warn") logger.warn(text, fields);
    else logger.info(text, fields);
  };
}

export type LambdaLike = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

export interface Route {
  method: "GET" | "POST" | "DELETE";
  path: string;
  handler: LambdaLike;
}

export interface LocalServerOptions {
  routes: Route[];
  /**
   * JSON documents served without a key (e.g. /openapi.json), each built from the server's own
   * URL once it listens (so the OpenAPI document's `servers` names the port actually in use).
   */
  documents?: Record<string, (serverUrl: string) => unknown>;
  apiKeys: string[];
  port: number;
  /** One line per request; defaults to stdout. */
  log?: (line: Record<string, unknown>) => void;
  /** Largest request body read (API Gateway's own limit is 10 MB; ours is far lower). */
  maxBodyBytes?: number;
  /**
   * What a Lambda function's timeout is in AWS: each request's context counts down from this
   * (from the moment the request arrived), and the handlers derive their deadline from it.
   * Default 30,000 ms.
   */
  invocationTimeoutMs?: number;
  /**
   * Requests handled at once; one more answers 429 `rate_limited` with `Retry-After: 1`, as API
   * Gateway's throttling would. Each request may hold a response body up to the body limit and
   * its conversion, so this bounds the server's memory. Default {@link MAX_CONCURRENT_REQUESTS}.
   */
  maxConcurrentRequests?: number;
}

export const MAX_CONCURRENT_REQUESTS = 32;

export interface RunningServer {
  url: string;
  port: number;
  server: http.Server;
  close(): Promise<void>;
}

export async function startHttpFrontend(options: LocalServerOptions): Promise<RunningServer> {
  const log = options.log ?? powertoolsLog();
  const maxBody = options.maxBodyBytes ?? 1_048_576;
  const invocationTimeoutMs = options.invocationTimeoutMs ?? 30_000;
  const maxConcurrent = options.maxConcurrentRequests ?? MAX_CONCURRENT_REQUESTS;
  let inFlight = 0;
  // A request must arrive (line, headers and body) within the invocation's time, as a Lambda's
  // event does; a client that drips it slower is answered and closed (see clientError below).
  const receiveMs = Math.max(1_000, invocationTimeoutMs);
  const serverOptions: http.ServerOptions = { requestTimeout: receiveMs, headersTimeout: receiveMs, connectionsCheckingInterval: Math.min(1_000, receiveMs) };
  const server = http.createServer(serverOptions, (req, res) => {
    const started = performance.now();
    const requestId = randomUUID();
    const url = parseTarget(req.url);
    const answer = (status: number, body: string, headers: Record<string, string> = {}) => {
      res.writeHead(status, { "content-type": "application/json; charset=utf-8", "x-request-id": requestId, ...headers });
      res.end(body);
      log({ level: "info", message: "request", path: url?.pathname ?? null, method: req.method, status, ms: Math.round(performance.now() - started), request_id: requestId });
    };
    // A target the URL parser refuses (e.g. `GET http://[ HTTP/1.1`) would otherwise throw out of
    // this listener and take the whole server down.
    if (url === undefined) {
      answer(400, errorBody("invalid_request", "The request target is not a valid URL.", requestId));
      return;
    }
    if (inFlight >= maxConcurrent) {
      answer(429, errorBody("rate_limited", `The local server is handling its limit of ${maxConcurrent} requests at once; retry shortly.`, requestId), { "retry-after": "1" });
      return;
    }
    inFlight += 1;
    res.once("close", () => (inFlight -= 1));
    const document = options.documents?.[url.pathname];
    if (document !== undefined && req.method === "GET") {
      answer(200, JSON.stringify(document(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)));
      return;
    }
    const candidates = options.routes.filter((r) => r.path === url.pathname);
    if (candidates.length === 0) {
      answer(404, errorBody("not_found", `No route ${url.pathname}.`, requestId));
      return;
    }
    // API Gateway checks the key before it routes by method or runs the integration.
    if (options.apiKeys.length > 0 && !keyMatches(req.headers["x-api-key"], options.apiKeys)) {
      res.writeHead(403, { "content-type": "application/json", "x-amzn-errortype": "ForbiddenException" });
      res.end(JSON.stringify({ message: "Forbidden" }));
      log({ level: "info", message: "request", path: url.pathname, method: req.method, status: 403, ms: 0, request_id: requestId });
      return;
    }
    const route = candidates.find((r) => r.method === req.method);
    if (!route) {
      answer(405, errorBody("method_not_allowed", `${req.method ?? "?"} is not allowed on ${url.pathname}.`, requestId), {
        allow: candidates.map((r) => r.method).join(", "),
      });
      return;
    }
    readBody(req, maxBody)
      .then(async (body) => {
        if (body === undefined) {
          // Answered as soon as the limit is passed, and the connection closed: a client that
          // keeps sending (an endless chunked body) would otherwise never get an answer. What it
          // still sends is read and dropped for a moment, so that closing does not reset the
          // connection before the answer arrives.
          answer(413, errorBody("request_too_large", `The request body is larger than ${maxBody} bytes.`, requestId), { connection: "close" });
          setTimeout(() => req.socket.destroy(), DRAIN_AFTER_REFUSAL_MS).unref();
          return;
        }
        const event = toEvent(req, url, body, requestId);
        const result = await route.handler(event, lambdaContext(requestId, started + invocationTimeoutMs));
        // The handler logs its own line; the frontend adds none for routed requests.
        res.writeHead(result.statusCode, flatHeaders(result.headers));
        res.end(result.body);
      })
      .catch((error: unknown) => {
        answer(500, errorBody("internal", "Internal error.", requestId));
        log({ level: "error", message: "local server failure", error: String(error), request_id: requestId });
      });
  });
  server.keepAliveTimeout = 5_000;
  // A request Node's parser refuses (a request line and headers over its 16 KiB limit, a
  // malformed request line) never reaches the listener above. Node's own answer is a bare status
  // line with no body; the caller gets the API's error body instead, with its stable code.
  server.on("clientError", (error: Error & { code?: string }, socket: Duplex) => {
    if (!socket.writable) {
      socket.destroy();
      return;
    }
    const requestId = randomUUID();
    const refused =
      error.code === "HPE_HEADER_OVERFLOW"
        ? new WebgateError("request_too_large", "The request line and headers are larger than 16 KiB.", { details: { field: "headers" } })
        : error.code === "ERR_HTTP_REQUEST_TIMEOUT"
          ? new WebgateError("invalid_request", `The request did not arrive within ${receiveMs} ms.`, { details: { field: null } })
          : new WebgateError("invalid_request", "The request is not valid HTTP/1.1.", { details: { field: null } });
    const { status, body } = toErrorBody(refused, requestId);
    const text = JSON.stringify(body);
    socket.end(
      `HTTP/1.1 ${status} ${http.STATUS_CODES[status] ?? ""}\r\ncontent-type: application/json; charset=utf-8\r\nx-request-id: ${requestId}\r\n` +
        `content-length: ${Buffer.byteLength(text)}\r\nconnection: close\r\n\r\n${text}`,
    );
    log({ level: "info", message: "request", path: null, method: null, status, ms: 0, request_id: requestId, reason: error.code ?? "client-error" });
  });
  await new Promise<void>((resolve, reject) => {
    const failed = (error: Error & { code?: string }) => {
      if (error.code === "EADDRINUSE") {
        reject(new StartupError(`Port ${options.port} on 127.0.0.1 is already in use. Set PORT to another port (PORT=0 picks a free one).`, { cause: error }));
      } else if (error.code === "EACCES") {
        reject(new StartupError(`Port ${options.port} on 127.0.0.1 needs privileges this process does not have. Set PORT to a port above 1023.`, { cause: error }));
      } else {
        reject(error);
      }
    };
    server.once("error", failed);
    server.listen(options.port, "127.0.0.1", () => {
      server.off("error", failed);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The request target as a URL, or undefined when it cannot be parsed. */
function parseTarget(target: string | undefined): URL | undefined {
  try {
    return new URL(target ?? "/", "http://local");
  } catch {
    return undefined;
  }
}

function keyMatches(given: string | string[] | undefined, keys: string[]): boolean {
  if (typeof given !== "string") return false;
  const a = Buffer.from(given);
  // Constant-time comparison against every key, so timing does not reveal a key's prefix.
  let ok = false;
  for (const key of keys) {
    const b = Buffer.from(key);
    if (a.length === b.length && timingSafeEqual(a, b)) ok = true;
  }
  return ok;
}

/** How long a connection refused for its body size is still read (and dropped) before it is closed. */
const DRAIN_AFTER_REFUSAL_MS = 1_000;

/** The whole body, or undefined as soon as it passes `max` (the rest is read and dropped). */
function readBody(req: http.IncomingMessage, max: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) {
        chunks.length = 0;
        resolve(undefined);
      } else chunks.push(chunk);
    });
    req.on("end", () => resolve(size > max ? undefined : Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

function toEvent(req: http.IncomingMessage, url: URL, body: Buffer, requestId: string): APIGatewayProxyEvent {
  // Maps without a prototype: a header or parameter named `constructor` or `__proto__` is a key
  // like any other (on `{}` it found Object's own members and crashed the request with a 500).
  const headers: Record<string, string> = Object.create(null) as Record<string, string>;
  const multiValueHeaders: Record<string, string[]> = Object.create(null) as Record<string, string[]>;
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i]!;
    const value = req.rawHeaders[i + 1]!;
    headers[name] = value;
    (multiValueHeaders[name] ??= []).push(value);
  }
  const query: Record<string, string> = Object.create(null) as Record<string, string>;
  const multiQuery: Record<string, string[]> = Object.create(null) as Record<string, string[]>;
  for (const [name, value] of url.searchParams) {
    query[name] = value;
    (multiQuery[name] ??= []).push(value);
  }
  const hasQuery = Object.keys(query).length > 0;
  const method = req.method ?? "GET";
  return {
    resource: url.pathname,
    path: url.pathname,
    httpMethod: method,
    headers,
    multiValueHeaders,
    queryStringParameters: hasQuery ? query : null,
    multiValueQueryStringParameters: hasQuery ? multiQuery : null,
    pathParameters: null,
    stageVariables: null,
    body: body.length > 0 ? body.toString("utf8") : null,
    isBase64Encoded: false,
    requestContext: {
      accountId: "local",
      apiId: "local",
      authorizer: null,
      protocol: `HTTP/${req.httpVersion}`,
      httpMethod: method,
      identity: {
        accessKey: null, accountId: null, apiKey: null, apiKeyId: null, caller: null, clientCert: null,
        cognitoAuthenticationProvider: null, cognitoAuthenticationType: null, cognitoIdentityId: null,
        cognitoIdentityPoolId: null, principalOrgId: null, sourceIp: req.socket.remoteAddress ?? "127.0.0.1", user: null,
        userAgent: req.headers["user-agent"] ?? null, userArn: null,
      },
      path: url.pathname,
      stage: "local",
      requestId,
      requestTimeEpoch: Date.now(),
      resourceId: "local",
      resourcePath: url.pathname,
    },
  };
}

/** A Lambda context whose remaining time counts down to `endsAt` (a `performance.now()` time). */
function lambdaContext(requestId: string, endsAt: number): Context {
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: "webgate-local",
    functionVersion: "$LATEST",
    invokedFunctionArn: "arn:aws:lambda:local:000000000000:function:webgate-local",
    memoryLimitInMB: "1024",
    awsRequestId: requestId,
    logGroupName: "local",
    logStreamName: "local",
    getRemainingTimeInMillis: () => Math.max(0, Math.floor(endsAt - performance.now())),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

function flatHeaders(headers: APIGatewayProxyResult["headers"]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) out[name] = String(value);
  return out;
}

function errorBody(code: ErrorCode, message: string, requestId: string): string {
  return JSON.stringify(toErrorBody(new WebgateError(code, message), requestId).body);
}
