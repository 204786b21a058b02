/**
 * The middy stack every route shares: header normalization, request parsing, one JSON response
 * shape, one error body, one structured log line and the request metrics per request.
 *
 * Handlers stay wiring: they give a `parse` (event → typed input, throwing `invalid_request`)
 * and a `handle` (input → body). Errors of any kind become
 * `{ "error": { code, message, retryable, request_id, ... } }` with the status from the error
 * table; a 5xx message is replaced by a generic one and the detail goes to the log line only.
 */
import middy, { type MiddlewareObj, type MiddyfiedHandler } from "@middy/core";
import httpHeaderNormalizer from "@middy/http-header-normalizer";
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from "aws-lambda";
import { deadlineFromContext, type Deadline } from "../deadline";
import { WebgateError, isWebgateError, toErrorBody } from "../errors";
import { DIMENSION, METRIC } from "../observability/metric-names";
import type { LogFields, Telemetry } from "../observability/telemetry";

export interface ApiRequestContext {
  requestId: string;
  /** The middy/Lambda context; middlewares such as secrets-manager put values on it. */
  context: Context & Record<string, unknown>;
  /**
   * The request's deadline: the invocation's remaining time minus {@link ANSWER_MARGIN_MS}.
   * Every budget of the request (lease, waiting, origin fetch, conversion, store write, search
   * attempts) is taken from it, and its signal is the one to pass down.
   */
  deadline: Deadline;
  /** Adds fields to this request's log line (never URLs with queries, addresses or secrets). */
  addLogFields(fields: LogFields): void;
}

export interface ApiResult {
  body: unknown;
  headers?: Record<string, string>;
  /**
   * A body already serialized by a protocol layer (the MCP transport), sent as is instead of
   * `JSON.stringify(body)`, with that layer's `statusCode` (200 when absent). Its headers
   * (e.g. its own content type) override the JSON defaults.
   */
  raw?: { statusCode: number; body: string };
}

export interface ApiHandlerOptions<T> {
  route: string;
  parse: (event: APIGatewayProxyEvent) => T;
  handle: (input: T, ctx: ApiRequestContext) => Promise<ApiResult>;
  telemetry: Telemetry;
  /** Extra middlewares that run before parsing (e.g. @middy/secrets-manager). */
  middlewares?: MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult>[];
}

export type ApiHandler = MiddyfiedHandler<APIGatewayProxyEvent, APIGatewayProxyResult, Error, Context>;

/**
 * Time kept after the request deadline to write the answer and its log line. The handler's own
 * work ends at `remaining - ANSWER_MARGIN_MS` with a typed error; middy's early timeout
 * ({@link MIDDY_TIMEOUT_EARLY_MS}) is only the backstop for work that ignores the signal.
 */
export const ANSWER_MARGIN_MS = 250;

/**
 * middy answers `upstream_timeout` this long before the platform would kill the function (its
 * default, 5 ms, gave a 500 `internal` 5 ms before the guard's own timeout fired). Less than
 * {@link ANSWER_MARGIN_MS}, so a request that honours its deadline answers first.
 */
export const MIDDY_TIMEOUT_EARLY_MS = 100;

/** The budget when a context cannot say how much time is left (hand-made test contexts). */
const FALLBACK_REMAINING_MS = 30_000;

const JSON_HEADERS = { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" } as const;

interface RequestState {
  started: number;
  requestId: string;
  fields: LogFields;
  deadline: Deadline;
}

export function createApiHandler<T>(options: ApiHandlerOptions<T>): ApiHandler {
  const { route, telemetry } = options;
  // Keyed by the Lambda context object, which middy hands unchanged to every phase and to the
  // handler of the same invocation.
  const states = new WeakMap<object, RequestState>();

  const stateOf = (event: APIGatewayProxyEvent, context: Context): RequestState => {
    let state = states.get(context);
    if (!state) {
      state = {
        started: performance.now(),
        requestId: event.requestContext?.requestId ?? context.awsRequestId,
        fields: {},
        // Not middy's handler signal: middy 6 shares one AbortController between all invocations
        // of a process (module-level `handlerAbort` in @middy/core 6.4.5), so in the local server,
        // which runs many requests at once, one request's timeout would abort every other request
        // too. middy's early timeout (below) stays as the backstop; no route keeps a deadline of
        // its own (fetch and search both take this one).
        deadline: deadlineFromContext(context, { marginMs: ANSWER_MARGIN_MS, fallbackMs: FALLBACK_REMAINING_MS }),
      };
      states.set(context, state);
    }
    return state;
  };

  const observe: MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult> = {
    before: (request) => {
      stateOf(request.event, request.context);
    },
    after: (request) => {
      if (request.response) finishRequest(stateOf(request.event, request.context), request.response, undefined);
    },
    onError: (request) => {
      const state = stateOf(request.event, request.context);
      const { status, body, headers } = toErrorBody(request.error, state.requestId);
      request.response = {
        statusCode: status,
        headers: { ...JSON_HEADERS, ...headers, "x-request-id": state.requestId },
        body: JSON.stringify(body),
      };
      finishRequest(state, request.response, request.error ?? undefined);
    },
  };

  function finishRequest(state: RequestState, response: APIGatewayProxyResult, error: Error | undefined) {
    state.deadline.dispose();
    const ms = Math.round(performance.now() - state.started);
    const fields: LogFields = { route, status: response.statusCode, ms, request_id: state.requestId, ...state.fields };
    let level: "info" | "warn" | "error" = "info";
    if (error !== undefined) {
      const code = isWebgateError(error) ? error.code : "internal";
      fields.code = code;
      // The exact rule for operators; callers may have seen a coarser one (see errors.ts logReason).
      const reason = isWebgateError(error) ? (error.logReason ?? stringDetail(error.details.reason)) : undefined;
      if (reason !== undefined) fields.reason = reason;
      // Only what webgate itself got wrong is an error; an origin's or provider's failure (their
      // 4xx/5xx, timeouts, refused connections) is a warning, a caller's mistake is info.
      level = code === "internal" ? "error" : response.statusCode >= 500 ? "warn" : "info";
      if (code === "internal") {
        // The cause of an unexpected error goes to the log, never to the caller.
        fields.error_name = error.name;
        fields.error_message = error.message.slice(0, 500);
      }
      if (isWebgateError(error) && error.status < 500) {
        telemetry.metric(METRIC.refusals, "Count", 1, { [DIMENSION.route]: route, [DIMENSION.code]: code, [DIMENSION.reason]: reason ?? "none" });
      }
    }
    if (response.statusCode >= 500) {
      // By code, so that alarms can tell webgate's own faults from origin failures.
      const code = error !== undefined && isWebgateError(error) ? error.code : "internal";
      telemetry.metric(METRIC.serverErrors, "Count", 1, { [DIMENSION.route]: route, [DIMENSION.code]: code });
    }
    telemetry.metric(METRIC.requests, "Count", 1, { [DIMENSION.route]: route, [DIMENSION.status]: String(response.statusCode) });
    telemetry[level]("request", fields);
    // Why this flush and not Powertools' `logMetrics(metrics)` / `injectLambdaContext(logger)`
    // middlewares (checked against @aws-lambda-powertools 2.36):
    // - logMetrics calls `publishStoredMetrics()` after every invocation, which logs a WARN "No
    //   application metrics to publish" when nothing is buffered; here most requests buffer
    //   nothing (the request and refusal counts are dimensioned single-metric documents written
    //   at once, so one request's dimensions never land on another metric), and `flush` skips an
    //   empty buffer. The publish must also come after the two metrics above, which this
    //   middleware records in its own after/onError.
    // - injectLambdaContext adds cold_start, function_name, function_arn, function_memory_size,
    //   function_request_id and xray_trace_id to every line, which changes the log line every
    //   route writes today (its request_id is API Gateway's, the one callers get back), and
    //   outside the Lambda invoke store (the local server, which
    //   runs requests concurrently through one handler) Powertools keeps those keys in one
    //   process-wide slot, so concurrent requests would overwrite each other's context.
    // - Both need the Powertools instances; routes see only the Telemetry interface, which the
    //   tests replace with an in-memory sink.
    telemetry.flush();
  }

  function stringDetail(value: unknown): string | undefined {
    return typeof value === "string" ? value : undefined;
  }

  const core = async (event: APIGatewayProxyEvent, context: Context): Promise<APIGatewayProxyResult> => {
    const state = stateOf(event, context);
    const input = options.parse(event);
    const result = await options.handle(input, {
      requestId: state.requestId,
      context: context as Context & Record<string, unknown>,
      deadline: state.deadline,
      addLogFields: (fields) => Object.assign(state.fields, fields),
    });
    return {
      statusCode: result.raw?.statusCode ?? 200,
      headers: { ...JSON_HEADERS, ...result.headers, "x-request-id": state.requestId },
      body: result.raw?.body ?? JSON.stringify(result.body),
    };
  };

  return middy<APIGatewayProxyEvent, APIGatewayProxyResult, Error, Context>({
    timeoutEarlyInMillis: MIDDY_TIMEOUT_EARLY_MS,
    timeoutEarlyResponse: () => {
      throw new WebgateError("upstream_timeout", "The request took longer than its time limit.");
    },
  })
    .use(observe)
    .use(httpHeaderNormalizer())
    .use(options.middlewares ?? [])
    .handler(core);
}
