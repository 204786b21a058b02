import { beforeAll, describe, expect, it, vi } from "vitest";
import { isPdf, readPdf } from "../../../shared/content/pdf";
import { expectWebgateError } from "../../helpers/expect-error";

async function rejection(promise: Promise<unknown>, code: string) {
  const error = await expectWebgateError(promise);
  expect(error.code).toBe(code);
  return error;
}
import {
  ENCRYPTED_PDF,
  bodyLines,
  corruptPdf,
  deepNestingPdf,
  lyingPageCountPdf,
  manyPagesPdf,
  noTextPdf,
  streamBombPdf,
  textPdf,
  twoColumnPdf,
} from "../../helpers/pdf-fixtures";

const options = { maxPages: 500, timeoutMs: 20_000, format: "markdown" as const };

describe("isPdf", () => {
  it.each([
    ["application/pdf", "anything", true],
    ["application/x-pdf", "", true],
    ["application/octet-stream", "%PDF-1.7\n", true],
    ["", "\n %PDF-1.4", true],
    ["text/html", "<p>%PDF-1.7 is a version</p>", false],
    ["", "%PD", false],
  ])("%s with %j → %s", (type, body, expected) => expect(isPdf(Buffer.from(body), type)).toBe(expected));
});

describe("readPdf (pdf.js in a worker thread)", () => {
  // 4 GiB of spaces in one content stream, deflated to 4.1 MiB: inside the default 5 MiB response cap.
  let bomb: Buffer;
  beforeAll(async () => {
    bomb = await streamBombPdf(4096);
  });

  it("reads a multi-page document in order with its metadata title", async () => {
    const pdf = await textPdf(
      [
        { lines: bodyLines(["The first page explains the infor-", "mation model in some detail."]) },
        { lines: bodyLines(["The second page continues."]) },
        { lines: bodyLines(["The third page ends it."]) },
      ],
      { title: "Model Handbook" },
    );
    const result = await readPdf(pdf, options);
    expect(result.title).toBe("Model Handbook");
    expect(result.truncated).toBe(false);
    expect(result.content).toBe(
      "<!-- page 1 -->\n\nThe first page explains the information model in some detail.\n\n<!-- page 2 -->\n\nThe second page continues.\n\n<!-- page 3 -->\n\nThe third page ends it.\n",
    );
  });

  it("reads a two-column page column by column", async () => {
    const left = ["Left column opens", "the argument and", "keeps going down."];
    const right = ["Right column has", "the conclusion of", "the whole story."];
    const result = await readPdf(await twoColumnPdf(left, right, "Columns"), options);
    expect(result.content).toContain("# Columns");
    expect(result.content).toContain("Left column opens the argument and keeps going down.");
    expect(result.content).toContain("Right column has the conclusion of the whole story.");
    expect(result.content.indexOf("keeps going down")).toBeLessThan(result.content.indexOf("Right column has"));
    expect(result.title).toBe("Columns");
  });

  it("applies the text format", async () => {
    const result = await readPdf(await textPdf([{ lines: bodyLines(["Plain words."]) }]), { ...options, format: "text" });
    expect(result.content).toBe("[page 1]\n\nPlain words.\n");
  });

  it("stops at the page cap and says so", async () => {
    const result = await readPdf(await manyPagesPdf(12), { ...options, maxPages: 5 });
    expect(result.truncated).toBe(true);
    expect(result.content).toContain("Page 5 body");
    expect(result.content).not.toContain("Page 6 body");
    expect(result.content).toContain("pages 1-5 of 12");
  });

  it("refuses an encrypted PDF with pdf_encrypted", async () => {
    await rejection(readPdf(ENCRYPTED_PDF(), options), "pdf_encrypted");
  });

  it("answers pdf_no_text for a PDF without a text layer", async () => {
    const error = await rejection(readPdf(await noTextPdf(), options), "no_readable_content");
    expect(error.details).toEqual({ reason: "pdf_no_text" });
  });

  it("answers decode_failed for a corrupt PDF", async () => {
    await rejection(readPdf(corruptPdf(), options), "decode_failed");
  });

  it("reads the real page of a page tree that claims a million pages, within the cap", async () => {
    const result = await readPdf(await lyingPageCountPdf(1_000_000), { ...options, maxPages: 50 });
    expect(result.content).toContain("The only real page");
  });

  it("answers a typed error, quickly, for 100,000 nested arrays in a content stream", async () => {
    const pdf = await deepNestingPdf(100_000);
    // CPU time of this process (pdf.js's worker thread included), not wall time: what a CPU sink
    // would spend, unchanged when other processes load the machine.
    const started = process.cpuUsage();
    // pdf.js gives up on the page's content; the page then has no text.
    await rejection(readPdf(pdf, options), "no_readable_content");
    const spent = process.cpuUsage(started);
    expect((spent.user + spent.system) / 1_000).toBeLessThan(10_000);
  });

  it("stops a stream bomb at the memory budget, leaving the process healthy", async () => {
    expect(bomb.length).toBeLessThan(5_242_880);
    // A time budget 80 times what the read takes on an idle machine: the memory watchdog ends the
    // read long before it, and the reason shows which limit did (a wall-clock bound would only
    // measure how loaded the machine is).
    const error = await rejection(readPdf(bomb, { ...options, timeoutMs: 60_000, memoryBudgetBytes: 48 * 1024 * 1024 }), "content_too_complex");
    expect(error.details).toEqual({ reason: "pdf_memory_limit" });
    // The next PDF gets a fresh worker and reads normally.
    const after = await readPdf(await textPdf([{ lines: bodyLines(["Still working."]) }]), options);
    expect(after.content).toContain("Still working.");
  }, 120_000);

  it("stops a stream bomb at the time budget, to the millisecond of the budget, leaving the process healthy", async () => {
    // The watchdog's timer on a fake clock (the worker thread keeps real time and keeps inflating):
    // the read is still running 1 ms before the budget and ends exactly at it, however slowly
    // a loaded machine runs the worker.
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    try {
      let settled = false;
      const reading = readPdf(bomb, { ...options, timeoutMs: 1_500, memoryBudgetBytes: 2 ** 40 }).finally(() => (settled = true));
      reading.catch(() => undefined);
      await vi.advanceTimersByTimeAsync(1_499);
      expect(settled).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      await new Promise((resolve) => setImmediate(resolve));
      expect(settled).toBe(true);
      const error = await rejection(reading, "content_too_complex");
      expect(error.details).toEqual({ reason: "pdf_time_limit" });
    } finally {
      vi.useRealTimers();
    }
    const after = await readPdf(await textPdf([{ lines: bodyLines(["Still working."]) }]), options);
    expect(after.content).toContain("Still working.");
  });
});
