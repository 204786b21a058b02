/**
 * PDF bodies → text, with pdf.js in a worker thread (pdf-worker.ts) under a time and memory
 * watchdog, then laid out by the pure {@link layoutPdf}.
 *
 * Limits, so that a hostile PDF ("PDF bomb": a huge page count, deep object nesting, a stream
 * that inflates to gigabytes) costs bounded time and memory:
 * - at most `maxPages` pages are read (`WEBGATE_PDF_MAX_PAGES`); the rest is reported as
 *   `truncated`;
 * - the worker is terminated when the time budget runs out (what is left of the fetch's time
 *   limit) → `content_too_complex`;
 * - the worker's JavaScript heap is capped ({@link PDF_WORKER_HEAP_MB}) and the process's
 *   resident memory is watched while it runs: growth over {@link PDF_MEMORY_BUDGET_BYTES}
 *   (typed arrays of decoded streams live outside the heap) terminates it → `content_too_complex`.
 */
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { WebgateError } from "../errors";
import { neutralizeBoundaryMarkers } from "./neutralize";
import { layoutPdf, type PdfLayout } from "./pdf-layout";
import type { RenderedDocument } from "./render";
import type { PdfJob, PdfJobResult } from "./pdf-types";
import { workerExecArgv } from "./worker-exec-argv";

/** Media types that mean PDF. */
const PDF_MEDIA_TYPES = new Set(["application/pdf", "application/x-pdf"]);

/** Heap limit of the PDF worker thread. */
export const PDF_WORKER_HEAP_MB = 256;
/** Resident-memory growth allowed while a PDF is read (Lambda's fetch function has 1,024 MB). */
export const PDF_MEMORY_BUDGET_BYTES = 384 * 1024 * 1024;
/** How often the watchdog samples resident memory. */
const MEMORY_POLL_MS = 10;

export interface PdfReadOptions {
  maxPages: number;
  /** Wall-clock budget for the worker, start-up included. */
  timeoutMs: number;
  format: "markdown" | "text";
  /** Overrides {@link PDF_MEMORY_BUDGET_BYTES} (tests). */
  memoryBudgetBytes?: number;
}

/** True for a declared PDF media type, or a body that starts with the `%PDF-` header. */
export function isPdf(body: Uint8Array, mediaType: string): boolean {
  if (PDF_MEDIA_TYPES.has(mediaType)) return true;
  // Whitespace before the header is tolerated as readers tolerate it; nothing else is, so an
  // HTML page that merely mentions "%PDF-" is not taken for a PDF.
  let i = 0;
  while (i < body.length && i < 64 && (body[i] === 0x20 || body[i] === 0x0a || body[i] === 0x0d || body[i] === 0x09)) i++;
  return body.length - i >= 5 && Buffer.from(body.buffer, body.byteOffset + i, 5).toString("latin1") === "%PDF-";
}

/**
 * Reads a PDF's text.
 *
 * @throws WebgateError `pdf_encrypted` (a password is needed), `decode_failed` (not a readable
 *   PDF), `no_readable_content` with `reason: "pdf_no_text"` (no text layer, e.g. scanned pages),
 *   `content_too_complex` (time or memory limit).
 */
export async function readPdf(body: Uint8Array, options: PdfReadOptions): Promise<PdfLayout> {
  const result = await runJob({ data: new Uint8Array(body), maxPages: options.maxPages, cMapDir: cMapDirectory() }, options);
  if (!result.ok) {
    if (result.kind === "encrypted") throw new WebgateError("pdf_encrypted", "The PDF is encrypted with a password and cannot be read.");
    throw new WebgateError("decode_failed", `The body is not a readable PDF (${result.message}).`, { details: { content_type: "application/pdf" } });
  }
  if (result.pages.length > 0 && result.failedPages === result.pages.length) {
    throw new WebgateError("decode_failed", "None of the PDF's pages could be read.", { details: { content_type: "application/pdf" } });
  }
  const layout = layoutPdf({ pages: result.pages, pageCount: result.pageCount, metadataTitle: result.metadataTitle, format: options.format });
  if (layout.textChars === 0) {
    throw new WebgateError("no_readable_content", "The PDF has no text layer (scanned pages or images only); webgate does not run OCR.", {
      details: { reason: "pdf_no_text" },
    });
  }
  return layout;
}

let idle: Worker | undefined;

/** One job on a warm worker (or a new one), watched for time and memory. */
function runJob(job: PdfJob, options: PdfReadOptions): Promise<PdfJobResult> {
  const worker = idle ?? startWorker();
  idle = undefined;
  worker.ref();
  const budget = options.memoryBudgetBytes ?? PDF_MEMORY_BUDGET_BYTES;
  const baseline = process.memoryUsage.rss();
  return new Promise<PdfJobResult>((resolve, reject) => {
    let settled = false;
    const finish = (outcome: { result: PdfJobResult } | { error: WebgateError }, reusable: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearInterval(watch);
      worker.off("message", onMessage);
      worker.off("error", onError);
      worker.off("exit", onExit);
      if (reusable && idle === undefined) {
        worker.unref();
        idle = worker;
      } else {
        void worker.terminate();
      }
      if ("result" in outcome) resolve(outcome.result);
      else reject(outcome.error);
    };
    const tooComplex = (limit: "time" | "memory") =>
      new WebgateError(
        "content_too_complex",
        limit === "time" ? "Reading the PDF did not finish within the time budget." : "Reading the PDF needed more memory than allowed.",
        { details: { reason: limit === "time" ? "pdf_time_limit" : "pdf_memory_limit" } },
      );
    const onMessage = (result: PdfJobResult) => finish({ result }, true);
    const onError = (error: Error & { code?: string }) =>
      finish(
        {
          error:
            error.code === "ERR_WORKER_OUT_OF_MEMORY"
              ? tooComplex("memory")
              : new WebgateError("decode_failed", "The PDF could not be read.", { cause: error, details: { content_type: "application/pdf" } }),
        },
        false,
      );
    const onExit = () => finish({ error: new WebgateError("decode_failed", "The PDF reader stopped unexpectedly.", { details: { content_type: "application/pdf" } }) }, false);
    const timer = setTimeout(() => finish({ error: tooComplex("time") }, false), Math.max(1, options.timeoutMs));
    const watch = setInterval(() => {
      if (process.memoryUsage.rss() - baseline > budget) finish({ error: tooComplex("memory") }, false);
    }, MEMORY_POLL_MS);
    worker.on("message", onMessage);
    worker.on("error", onError);
    worker.on("exit", onExit);
    worker.postMessage(job, [job.data.buffer as ArrayBuffer]);
  });
}

function startWorker(): Worker {
  // The same file name from source and in the Lambda bundle (infra/bundling.ts builds it there).
  // Not the parent's execArgv (worker-exec-argv.ts says why); the environment is the process's.
  const worker = new Worker(new URL(`./${PDF_WORKER_FILE}`, import.meta.url), {
    execArgv: workerExecArgv(process.execArgv),
    resourceLimits: { maxOldGenerationSizeMb: PDF_WORKER_HEAP_MB },
  });
  // An idle worker that dies (or is killed) is simply not reused.
  worker.on("exit", () => {
    if (idle === worker) idle = undefined;
  });
  worker.on("error", () => {
    if (idle === worker) idle = undefined;
  });
  return worker;
}

/** File name of the bundled worker beside the function's index.mjs. */
export const PDF_WORKER_FILE = "pdf-worker.mjs";
/** Directory of pdf.js's CMaps beside the function's index.mjs. */
export const PDF_CMAP_DIR = "pdf-cmaps";

let cMapDir: string | null | undefined;

/** pdf.js's packed CMaps: shipped beside the bundle, or in node_modules when run from source. */
function cMapDirectory(): string | null {
  if (cMapDir !== undefined) return cMapDir;
  const bundled = fileURLToPath(new URL(`./${PDF_CMAP_DIR}/`, import.meta.url));
  if (existsSync(bundled)) return (cMapDir = bundled);
  try {
    const pkg = createRequire(import.meta.url).resolve("pdfjs-dist/package.json");
    cMapDir = path.join(path.dirname(pkg), "cmaps") + path.sep;
  } catch {
    cMapDir = null;
  }
  return cMapDir;
}

/** A PDF as /fetch stores it: the laid-out text, boundary markers neutralized. */
export async function renderPdfDocument(body: Uint8Array, options: PdfReadOptions): Promise<RenderedDocument & { truncated: boolean }> {
  const layout = await readPdf(body, options);
  return {
    content: neutralizeBoundaryMarkers(layout.content),
    title: neutralizeBoundaryMarkers(layout.title),
    // pdf.js decodes the document's own font encodings; there is no one charset to report.
    charset: "binary",
    contentType: "application/pdf",
    extractor: "pdf",
    truncated: layout.truncated,
  };
}
