/**
 * The fetch function's renderer in AWS: it invokes the render function (a separate Lambda
 * function with a Chromium of its own, more memory, the same VPC and locked-down egress), so the
 * fetch function's bundle and cold start carry no browser. The answer is the render function's
 * page, or its error rethrown with the same code (see {@link decodeRenderResult}).
 */
import { InvokeCommand, LambdaClient } from "@aws-sdk/client-lambda";
import { WebgateError } from "../errors";
import type { WebgateConfig } from "../config";
import { decodeRenderResult, unavailableRenderer, type RenderOptions, type RenderRequest, type Renderer } from "./renderer";

export interface LambdaRendererOptions {
  client: LambdaClient;
  functionName: string;
  /** Largest page accepted back (decompressed). */
  maxBodyBytes: number;
}

export function createLambdaRenderer(options: LambdaRendererOptions): Renderer {
  return {
    async render(request: RenderRequest, renderOptions: RenderOptions = {}) {
      const { signal } = renderOptions;
      // A function, not a property read: the SDK call in between may have aborted it.
      const aborted = () => signal?.aborted === true;
      const payload: RenderRequest = { url: request.url, waitMs: request.waitMs, timeoutMs: request.timeoutMs };
      if (aborted()) throw deadlinePassed(signal?.reason);
      let answer;
      try {
        answer = await options.client.send(
          new InvokeCommand({ FunctionName: options.functionName, InvocationType: "RequestResponse", Payload: Buffer.from(JSON.stringify(payload), "utf8") }),
          // The request's deadline aborts the invoke itself (the SDK closes the connection), so a
          // render function that overruns cannot hold the fetch function past its own answer.
          signal === undefined ? {} : { abortSignal: signal },
        );
      } catch (cause) {
        if (aborted()) throw deadlinePassed(cause);
        // Throttled, not found, not permitted, timed out: the renderer is not there for us.
        throw new WebgateError("render_unavailable", "The render function could not be invoked.", { cause });
      }
      const text = answer.Payload === undefined ? "" : Buffer.from(answer.Payload).toString("utf8");
      if (answer.FunctionError !== undefined) {
        // An unhandled error or a timeout inside the render function (its message stays in its log).
        throw new WebgateError("render_unavailable", "The render function failed.", { cause: new Error(`${answer.FunctionError}: ${text.slice(0, 500)}`) });
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch (cause) {
        throw new WebgateError("render_unavailable", "The render function gave an answer that is not JSON.", { cause });
      }
      return decodeRenderResult(parsed, options.maxBodyBytes);
    },
  };
}

/** The caller's deadline passed: its time is up, the render function is not at fault. */
function deadlinePassed(cause: unknown): WebgateError {
  return new WebgateError("upstream_timeout", "The render did not finish within the request's time limit.", { cause });
}

/** Options of {@link createLambdaClient}. */
export interface LambdaClientOptions {
  /** Another Lambda endpoint (tests); dummy credentials and us-east-1 are used with it. */
  endpoint?: string;
  /** Whole invoke limit: the render function's own timeout plus a margin. */
  requestTimeoutMs: number;
}

/**
 * The Lambda client the fetch function invokes the render function with: one attempt (a render
 * is not repeated behind the caller's back; `render_unavailable` is retryable for the caller),
 * and a request limit just past the render function's own timeout.
 */
export function createLambdaClient(options: LambdaClientOptions): LambdaClient {
  const local = options.endpoint !== undefined;
  return new LambdaClient({
    ...(local ? { endpoint: options.endpoint, region: "us-east-1", credentials: { accessKeyId: "local", secretAccessKey: "local" } } : {}),
    maxAttempts: 1,
    requestHandler: {
      connectionTimeout: 2_000,
      requestTimeout: options.requestTimeoutMs,
      throwOnRequestTimeout: true,
    },
  });
}

/**
 * The renderer a deployed function uses: the render function named in the configuration, or one
 * that answers `render_unavailable` where rendering is not deployed. Rendering runs in that
 * function, so the caller's bundle and cold start carry no browser. The invoke may take the
 * render's whole budget plus the render function's start.
 */
export function deployedRenderer(config: WebgateConfig): Renderer {
  const functionName = config.render.functionName;
  if (functionName === undefined) return unavailableRenderer("Rendering is not deployed in this environment.");
  return createLambdaRenderer({
    client: createLambdaClient({ requestTimeoutMs: config.fetch.timeoutMs + config.render.waitMs + 30_000 }),
    functionName,
    maxBodyBytes: config.fetch.maxResponseBytes,
  });
}
