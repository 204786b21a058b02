/**
 * The main-content extraction looks at the conversion's deadline as it walks the page, so in
 * Lambda, where the conversion runs in process on the request's thread, an extraction that runs
 * past its budget stops there with 502 `content_too_complex` while the request still has time to
 * answer, instead of running on past the request's own deadline (which the snapshot cache then
 * answers with 504 `upstream_timeout`).
 *
 * "Slow" is faked, not waited for: `performance.now` (the clock of every deadline) is the real
 * clock plus an offset, and while the extraction runs each look at the clock finds it STEP_MS
 * further on, as if the 1,024 units of work between two looks took that long. The rest of the
 * request costs no fake time, so the only way to reach the budget is the extractor's own looks.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type * as MainContent from "../../../shared/content/extract/main-content";
import { loadConfig } from "../../../shared/config";
import { createFetchHandler } from "../../../shared/fetch/fetch-route";
import { createMemoryTelemetry } from "../../../shared/observability/telemetry";
import { ORDINARY_SHAPE } from "../../../scripts/lib/cost-shapes";
import { apiGatewayEvent, lambdaContext } from "../../helpers/apigw-event";
import { createTestTable, startTestDynamo, type LocalDynamo } from "../../helpers/dynalite";
import { ManualClock } from "../../helpers/fetch-app";
import { startOrigin, type Origin } from "../../helpers/origin";
import { MapResolver, RoutingDialer } from "../../helpers/test-network";

/** The fake time each look at the clock costs while the extraction runs. */
const STEP_MS = 250;
/** What the invocation has left when the request starts (the Lambda context reports it once). */
const REMAINING_MS = 8_000;

const slow = vi.hoisted(() => ({ active: false, offsetMs: 0, looks: 0, finished: 0, stopped: 0 }));

vi.mock("../../../shared/content/extract/main-content", async (importOriginal) => {
  const actual = await importOriginal<typeof MainContent>();
  return {
    ...actual,
    extractMainContent: (...args: Parameters<typeof actual.extractMainContent>) => {
      slow.active = true;
      try {
        const result = actual.extractMainContent(...args);
        slow.finished++;
        return result;
      } catch (error) {
        slow.stopped++;
        throw error;
      } finally {
        slow.active = false;
      }
    },
  };
});

// About 1 MB of article HTML: some 30,000 elements, so the extraction's walks look at the clock
// well over a hundred times (8 s of fake time at 250 ms a look is 32 looks).
const page = ORDINARY_SHAPE.make(1_000_000);
const resolver = new MapResolver({ "site.example.com": ["93.184.215.14"] });
let dynamo: LocalDynamo;
let origin: Origin;

beforeAll(async () => {
  dynamo = await startTestDynamo();
  origin = await startOrigin((_req, res) => res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(page));
  const realNow = performance.now.bind(performance);
  vi.spyOn(performance, "now").mockImplementation(() => {
    if (slow.active) {
      slow.looks++;
      slow.offsetMs += STEP_MS;
    }
    return realNow() + slow.offsetMs;
  });
});
afterAll(async () => {
  vi.restoreAllMocks();
  await origin?.close();
  await dynamo?.close();
});

describe("a main-content extraction slower than the conversion budget, in the Lambda handler", () => {
  it("stops at the extractor's checkpoints and answers 502 content_too_complex within the request's time", async () => {
    const config = loadConfig({ WEBGATE_TABLE_NAME: await createTestTable(dynamo.client), WEBGATE_ROBOTS: "ignore" });
    // No converter given: the handler converts in process, as Lambda does.
    const handler = createFetchHandler({ config, dynamo: dynamo.client, resolver, dialer: new RoutingDialer({ plain: origin.port }), clock: new ManualClock(), telemetry: createMemoryTelemetry() });
    const call = async (mainContent: boolean) => {
      const res = await handler(
        apiGatewayEvent({ method: "POST", path: "/fetch", body: { url: "https://site.example.com/article", max_age: 0, main_content: mainContent } }),
        lambdaContext({ getRemainingTimeInMillis: () => REMAINING_MS }),
      );
      return { status: res.statusCode, json: JSON.parse(res.body) as { error?: Record<string, unknown>; content?: string } };
    };

    const answer = await call(true);
    expect(answer.status).toBe(502);
    expect(answer.json.error).toMatchObject({ code: "content_too_complex", retryable: false, reason: "conversion_time_limit" });
    // The extraction itself stopped (not a check after it), partway: fewer looks than the
    // request's whole budget would allow, and less fake time than the request had.
    expect({ stopped: slow.stopped, finished: slow.finished }).toEqual({ stopped: 1, finished: 0 });
    expect(slow.looks).toBeGreaterThan(0);
    expect(slow.looks).toBeLessThanOrEqual(Math.ceil(REMAINING_MS / STEP_MS));
    expect(slow.offsetMs).toBeLessThan(REMAINING_MS);

    // Without the extraction, the same page in the same budget converts.
    const whole = await call(false);
    expect(whole.status).toBe(200);
    expect(whole.json.content).toContain("# Rivers of the world");
    expect(slow.stopped).toBe(1);
  });
});
