/**
 * The local server's converter: renderDocument in worker threads, with the request's deadline
 * kept on this thread. Real workers (loaded from source through tsx, as in `npm start`); the
 * deadlines are aborted by hand, so no assertion depends on how fast this machine converts.
 */
import { afterAll, describe, expect, it } from "vitest";
import { inProcessConverter, type ConversionInput } from "../../../shared/content/converter";
import { renderDocument } from "../../../shared/content/render";
import { createWorkerConverter } from "../../../shared/content/worker-converter";
import { createDeadline, type Deadline } from "../../../shared/deadline";
import { expectWebgateError } from "../../helpers/expect-error";

const utf8 = (s: string) => new TextEncoder().encode(s);
const URL_ = "https://example.com/a/page.html";

const html = (body: string, mainContent = false): ConversionInput => ({ body: utf8(body), contentType: "text/html; charset=utf-8", finalUrl: URL_, mainContent });

/** A table of `rows` one-cell rows: a page that takes a while to convert anywhere. */
function bigTable(rows: number, lastRow = ""): ConversionInput {
  let page = "<table>";
  for (let i = 0; i < rows; i++) page += `<tr><td>row ${i}</td></tr>`;
  return html(`${page}${lastRow}</table>`);
}

/** A deadline far away that the test passes by hand (`abort`). */
function manualDeadline(): Deadline & { abort(): void } {
  const controller = new AbortController();
  return Object.assign(createDeadline(60_000, { signal: controller.signal }), { abort: () => controller.abort() });
}

const converters: Array<{ close(): Promise<void> }> = [];
function converter(options: Parameters<typeof createWorkerConverter>[0] = {}) {
  const c = createWorkerConverter(options);
  converters.push(c);
  return c;
}
afterAll(async () => {
  await Promise.all(converters.map((c) => c.close()));
});

async function tooComplex(promise: Promise<unknown>, reason = "conversion_time_limit") {
  const error = await expectWebgateError(promise);
  expect({ code: error.code, status: error.status, retryable: error.retryable, details: error.details }).toEqual({ code: "content_too_complex", status: 502, retryable: false, details: { reason } });
}

describe("createWorkerConverter", () => {
  const workers = converter({ maxWorkers: 2 });

  it("converts exactly as renderDocument does in process, and carries its errors across with code and details", async () => {
    const inputs: ConversionInput[] = [
      html("<title>T</title><h1>Head</h1><p>Some <a href='b.html'>link</a> and <b>bold</b>.</p>"),
      html("<title>T</title><nav>menu</nav><article><h1>Head</h1><p>Body text of the article that is long enough to count.</p></article>", true),
      { ...html("<p>plain</p> & more"), format: "text" },
      { body: utf8('{"a": 1}'), contentType: "application/json", finalUrl: URL_, mainContent: true },
      { body: utf8("# Own\n\ntext"), contentType: "text/markdown", finalUrl: URL_, mainContent: true },
    ];
    for (const input of inputs) expect(await workers.convert(input, undefined)).toEqual(renderDocument(input));

    const unreadable = await expectWebgateError(workers.convert(html('<div id="app"></div><script src="/app.js"></script>'), undefined));
    expect({ code: unreadable.code, details: unreadable.details }).toEqual({ code: "no_readable_content", details: { reason: "js_required" } });
    const unsupported = await expectWebgateError(workers.convert({ ...html(""), contentType: "image/png", body: new Uint8Array([0x89, 0x50]) }, undefined));
    expect(unsupported.code).toBe("unsupported_content_type");
  });

  it("keeps this thread's event loop running while a large page converts (in process it would not)", async () => {
    const page = bigTable(20_000);
    const turnsDuring = async (convert: () => Promise<unknown>) => {
      let settled = false;
      const done = convert().then(() => (settled = true));
      // Timers that fire before the conversion settles: the event loop was free meanwhile.
      let turns = 0;
      while (!settled && turns < 3) {
        await new Promise((resolve) => setTimeout(resolve, 0));
        if (!settled) turns++;
      }
      await done;
      return turns;
    };
    await workers.convert(html("<p>warm</p>"), undefined);
    expect(await turnsDuring(() => workers.convert(page, undefined))).toBe(3);
    expect(await turnsDuring(() => inProcessConverter.convert(page, undefined))).toBe(0);
  });

  it("stops at the deadline with content_too_complex, and the next conversion works", async () => {
    const deadline = manualDeadline();
    const converting = workers.convert(bigTable(50_000), deadline);
    deadline.abort();
    await tooComplex(converting);
    expect((await workers.convert(html("<p>after</p>"), undefined)).content).toBe("after");
    // An expired deadline refuses before any work is sent.
    const expired = manualDeadline();
    expired.abort();
    await tooComplex(workers.convert(html("<p>late</p>"), expired));
  });
});

describe("createWorkerConverter's limits", () => {
  it("terminates a worker that has not stopped within the grace period, and replaces it", async () => {
    const strict = converter({ maxWorkers: 1, graceMs: 0 });
    const deadline = manualDeadline();
    const converting = strict.convert(bigTable(50_000), deadline);
    deadline.abort();
    await tooComplex(converting);
    expect((await strict.convert(html("<p>replaced</p>"), undefined)).content).toBe("replaced");
  });

  it("queues conversions over maxWorkers; a queued one whose deadline passes gives up, the others finish", async () => {
    const single = converter({ maxWorkers: 1 });
    const first = single.convert(bigTable(5_000), undefined);
    const deadline = manualDeadline();
    const queued = single.convert(html("<p>queued</p>"), deadline);
    const third = single.convert(html("<p>third</p>"), undefined);
    deadline.abort();
    await tooComplex(queued);
    expect((await first).content).toContain("row 4999");
    expect((await third).content).toBe("third");
  });

  it("answers content_too_complex when a conversion needs more memory than the worker's heap limit", async () => {
    const small = converter({ heapMb: 48 });
    expect((await small.convert(html("<p>fits</p>"), undefined)).content).toBe("fits");
    // With main_content and a credit line in its last cell the extractor builds the whole table to
    // clean it part by part (the plain conversion keeps such a table's cells out of the tree, and
    // fits; so does the extraction of a table whose parts all stay, which stays packed: below).
    await tooComplex(small.convert({ ...bigTable(200_000, "<tr><td>Photo: AP</td></tr>"), mainContent: true }, undefined), "conversion_memory_limit");
    expect((await small.convert({ ...bigTable(200_000), mainContent: true }, undefined)).content).toContain("row 199999");
  });
});
