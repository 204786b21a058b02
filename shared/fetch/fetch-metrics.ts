/**
 * What one /fetch request leaves in its log line and its metrics, from the service's
 * {@link FetchObservation}: never a path, a query, userinfo, content or a resolved address.
 */
import type { ApiRequestContext } from "../middleware/api-handler";
import { METRIC } from "../observability/metric-names";
import type { Telemetry } from "../observability/telemetry";
import type { FetchObservation } from "./fetch-service";
import type { FetchResponse } from "./schema";

const CACHE_METRIC = { hit: METRIC.cacheHit, miss: METRIC.cacheMiss, bypass: METRIC.cacheBypass } as const;

/**
 * Adds the answer's log fields (cache outcome, bytes, final host, URL-secret rule, rendered) and
 * emits the cache outcome, plus the origin's latency and bytes when this request fetched the page.
 */
export function recordFetch(telemetry: Telemetry, ctx: Pick<ApiRequestContext, "addLogFields">, body: FetchResponse, observation: FetchObservation): void {
  ctx.addLogFields({ cache: observation.cache, bytes: observation.bytes, final_host: observation.finalHost, url_secret: observation.urlSecret, rendered: body.rendered });
  telemetry.metric(CACHE_METRIC[observation.cache], "Count", 1);
  if (observation.originMs !== undefined) telemetry.metric(METRIC.originLatency, "Milliseconds", observation.originMs);
  if (observation.originBytes !== undefined) telemetry.metric(METRIC.originBytes, "Bytes", observation.originBytes);
}
