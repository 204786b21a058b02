/**
 * The local server keeps answering while a large page converts: conversions run in worker
 * threads (worker-converter.ts), not on the event loop that serves every request. The order of
 * events is asserted, not their timing: another /fetch and the OpenAPI document are answered
 * after the large conversion has started and before it has finished.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DocumentConverter } from "../../../shared/content/converter";
import { createWorkerConverter } from "../../../shared/content/worker-converter";
import { createMemoryTelemetry } from "../../../shared/observability/telemetry";
import { startLocalApi, type LocalApi } from "../../../scripts/lib/local-api";
import { PATHOLOGICAL_SHAPES } from "../../../scripts/lib/cost-shapes";
import { startOrigin, type Origin } from "../../helpers/origin";

/**
 * A page that takes a second or more to convert on any machine (and several here), read with
 * main_content: the extractor walks its whole tree (the plain conversion keeps the cells of such
 * a table out of the tree and reads them straight from the input, in a tenth of that).
 */
const large = PATHOLOGICAL_SHAPES.find((s) => s.name === "one-cell rows")!.make(4_000_000);

let api: LocalApi;
let origin: Origin;
const workers = createWorkerConverter({ maxWorkers: 2 });
let largeStarted: () => void = () => undefined;
const largeConverting = new Promise<void>((resolve) => (largeStarted = resolve));

/** The real worker converter, telling the test when the large page's conversion begins. */
const observed: DocumentConverter = {
  convert: (input, deadline) => {
    const converting = workers.convert(input, deadline);
    if (input.finalUrl.endsWith("/large")) largeStarted();
    return converting;
  },
};

beforeAll(async () => {
  // Both workers loaded first: a cold worker from source is slow, and that is not under test.
  await workers.warm();
  origin = await startOrigin((req, res) => {
    if (req.url === "/large") res.writeHead(200, { "content-type": "text/html" }).end(large);
    else res.writeHead(200, { "content-type": "text/html" }).end("<title>Small</title><p>A small page.</p>");
  });
  api = await startLocalApi({ env: { WEBGATE_ALLOW_LOCALHOST: "true" }, port: 0, telemetry: createMemoryTelemetry(), log: () => undefined, converter: observed });
});
afterAll(async () => {
  await api?.close();
  await workers.close();
  await origin?.close();
});

const fetchPage = (path: string, mainContent = false) =>
  fetch(`${api.url}/fetch`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ url: `${origin.base}${path}`, main_content: mainContent, max_age: 0 }) });

describe("the local server during a long conversion", () => {
  it("answers a small /fetch and the OpenAPI document while a large page converts", async () => {
    let largeDone = false;
    const largeAnswer = fetchPage("/large", true).then(async (res) => {
      largeDone = true;
      return { status: res.status, json: (await res.json()) as { content: string } };
    });
    await largeConverting;

    const small = await fetchPage("/small");
    expect(small.status).toBe(200);
    expect(((await small.json()) as { content: string }).content).toBe("A small page.");
    expect(largeDone).toBe(false);

    const openapi = await fetch(`${api.url}/openapi.json`);
    expect(openapi.status).toBe(200);
    expect(largeDone).toBe(false);

    const { status, json } = await largeAnswer;
    expect(status).toBe(200);
    expect(json.content).toContain("row 1");
  });
});
