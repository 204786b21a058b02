import { describe, expect, it } from "vitest";
import { recordFetch } from "../../../../shared/fetch/fetch-metrics";
import type { FetchObservation } from "../../../../shared/fetch/fetch-service";
import type { FetchResponse } from "../../../../shared/fetch/schema";
import type { Telemetry } from "../../../../shared/observability/telemetry";

function recorder() {
  const metrics: [string, string, number][] = [];
  const telemetry: Telemetry = {
    info: () => undefined,
    warn: () => undefined,
    error: () => undefined,
    metric: (name, unit, value) => metrics.push([name, unit, value]),
    flush: () => undefined,
  };
  const fields: Record<string, unknown> = {};
  return { telemetry, metrics, fields, ctx: { addLogFields: (more: Record<string, unknown>) => Object.assign(fields, more) } };
}

const observation = (over: Partial<FetchObservation>): FetchObservation => ({
  cache: "hit",
  finalHost: "example.com",
  urlSecret: undefined,
  bytes: 42,
  originMs: undefined,
  originBytes: undefined,
  ...over,
});

describe("recordFetch", () => {
  it("a hit: its log fields and one CacheHit, no origin figures", () => {
    const r = recorder();
    recordFetch(r.telemetry, r.ctx, { rendered: false } as FetchResponse, observation({}));
    expect(r.fields).toEqual({ cache: "hit", bytes: 42, final_host: "example.com", url_secret: undefined, rendered: false });
    expect(r.metrics).toEqual([["CacheHit", "Count", 1]]);
  });

  it("a miss of this request: CacheMiss plus the origin's latency and bytes", () => {
    const r = recorder();
    recordFetch(r.telemetry, r.ctx, { rendered: true } as FetchResponse, observation({ cache: "miss", urlSecret: "jwt", originMs: 120, originBytes: 5_000 }));
    expect(r.fields).toMatchObject({ cache: "miss", url_secret: "jwt", rendered: true });
    expect(r.metrics).toEqual([
      ["CacheMiss", "Count", 1],
      ["OriginLatencyMs", "Milliseconds", 120],
      ["OriginBytes", "Bytes", 5_000],
    ]);
  });

  it("a bypass: CacheBypass", () => {
    const r = recorder();
    recordFetch(r.telemetry, r.ctx, { rendered: false } as FetchResponse, observation({ cache: "bypass", originMs: 3, originBytes: 0 }));
    expect(r.metrics[0]).toEqual(["CacheBypass", "Count", 1]);
  });
});
