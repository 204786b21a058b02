/**
 * The render function's handler logic: a direct invocation from the fetch function (not an API
 * route) with a {@link RenderRequest}, answered with a {@link RenderResult}. Errors are answers,
 * not thrown: a thrown error would reach the fetch function only as an opaque FunctionError.
 */
import { WebgateError, isWebgateError } from "../errors";
import type { GuardPolicy } from "../guard/policy";
import { checkUrl } from "../guard/url-policy";
import type { Telemetry } from "../observability/telemetry";
import { hostOf } from "../observability/telemetry";
import { encodeRenderResult, renderRequestSchema, type RenderResult, type Renderer } from "./renderer";

export interface RenderRouteDeps {
  renderer: Renderer;
  policy: GuardPolicy;
  telemetry: Telemetry;
}

export type RenderHandler = (event: unknown) => Promise<RenderResult>;

export function createRenderHandler(deps: RenderRouteDeps): RenderHandler {
  return async (event) => {
    const started = performance.now();
    const parsed = renderRequestSchema().safeParse(event);
    if (!parsed.success) {
      return encodeRenderResult({ error: new WebgateError("invalid_request", "The render request is not { url, waitMs, timeoutMs }.") });
    }
    const request = parsed.data;
    let outcome: Parameters<typeof encodeRenderResult>[0];
    try {
      // The URL policy again: the render function takes no caller's word for a URL, not even
      // the fetch function's. The proxy then checks every request of the page.
      const url = checkUrl(request.url, deps.policy);
      const page = await deps.renderer.render({ ...request, url: url.href });
      deps.telemetry.info("render", {
        host: hostOf(page.finalUrl),
        ms: Math.round(performance.now() - started),
        proxy_bytes: page.proxyBytes,
        truncated: page.truncated,
        rendered: page.rendered,
      });
      outcome = { page };
    } catch (error) {
      const code = isWebgateError(error) ? error.code : "internal";
      const fields = { code, ms: Math.round(performance.now() - started), error: isWebgateError(error) ? error.message : error instanceof Error ? error.name : "unknown" };
      if (code === "internal" || code === "render_unavailable") deps.telemetry.error("render failed", fields);
      else deps.telemetry.info("render failed", fields);
      outcome = { error };
    }
    deps.telemetry.flush();
    return encodeRenderResult(outcome);
  };
}
