// @ts-check
/**
 * Worker-thread entry that runs pdf.js (its legacy build, the one meant for Node) on one PDF at a
 * time and posts back the positioned text runs of its first pages. It runs in a worker thread so
 * that pdf.js's synchronous work (decoding a huge stream, walking deeply nested objects) can be
 * stopped from outside: the main thread (pdf.ts) terminates the worker at the time budget or when
 * memory grows past the limit, which no check inside the same thread could do.
 *
 * Plain JavaScript, type-checked by tsc (`@ts-check`, types from pdf-types.ts): a worker thread
 * gets no TypeScript loader, and pushing pdf.js's 3 MB through one (tsx) took seconds per cold
 * worker. From source this file runs as is; in Lambda it is bundled on its own as
 * `pdf-worker.mjs` beside the handler's `index.mjs` (infra/bundling.ts), so pdf.js is loaded only
 * when a PDF arrives and never adds to the HTML path's cold start.
 */
import { parentPort } from "node:worker_threads";

/** @typedef {import("./pdf-types").PdfJob} PdfJob */
/** @typedef {import("./pdf-types").PdfJobResult} PdfJobResult */
/** @typedef {import("./pdf-types").PdfPageText} PdfPageText */
/** @typedef {typeof import("pdfjs-dist/legacy/build/pdf.mjs")} PdfJs */
/** @typedef {import("pdfjs-dist/types/src/display/api").PDFDocumentProxy} PdfDocument */

/** @type {Promise<PdfJs> | undefined} */
let pdfjs;

/** pdf.js and its worker module, once per worker thread; its load-time warnings are silenced. */
function loadPdfJs() {
  pdfjs ??= (async () => {
    const { console } = globalThis;
    const log = console.log.bind(console);
    // At load, pdf.js warns that it cannot polyfill canvas classes, which text extraction never
    // uses: noise in every cold worker's log.
    console.log = () => undefined;
    try {
      const lib = await import("pdfjs-dist/legacy/build/pdf.mjs");
      // The "fake worker": pdf.js's own worker code, run in this thread (which is our worker).
      Object.assign(globalThis, { pdfjsWorker: await import("pdfjs-dist/legacy/build/pdf.worker.mjs") });
      return lib;
    } finally {
      console.log = log;
    }
  })();
  return pdfjs;
}

/**
 * @param {PdfJob} job
 * @returns {Promise<PdfJobResult>}
 */
export async function extractPdfRuns(job) {
  const lib = await loadPdfJs();
  const task = lib.getDocument({
    data: job.data,
    // No code generated from the document, no fonts loaded into anything, no system fonts.
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
    enableXfa: false,
    verbosity: lib.VerbosityLevel.ERRORS,
    stopAtErrors: false,
    ...(job.cMapDir === null ? {} : { cMapUrl: job.cMapDir, cMapPacked: true }),
  });
  /** @type {PdfDocument} */
  let doc;
  try {
    doc = await task.promise;
  } catch (error) {
    await task.destroy().catch(() => undefined);
    if (error instanceof Error && error.name === "PasswordException") return { ok: false, kind: "encrypted", message: "a password is needed" };
    return { ok: false, kind: "invalid", message: describe(error) };
  }
  try {
    const metadataTitle = await readTitle(doc);
    const pageCount = doc.numPages;
    /** @type {PdfPageText[]} */
    const pages = [];
    let failedPages = 0;
    for (let number = 1; number <= Math.min(pageCount, job.maxPages); number++) {
      try {
        pages.push(await readPage(doc, number));
      } catch {
        // A broken page (or a page count the page tree does not back) loses that page only.
        failedPages += 1;
        pages.push({ width: 0, height: 0, runs: [] });
      }
    }
    return { ok: true, pageCount, metadataTitle, pages, failedPages };
  } finally {
    await doc.destroy().catch(() => undefined);
  }
}

/**
 * The XMP dc:title, else the Info dictionary's Title, else "".
 * @param {PdfDocument} doc
 * @returns {Promise<string>}
 */
async function readTitle(doc) {
  try {
    const { info, metadata } = await doc.getMetadata();
    const fromXmp = /** @type {unknown} */ (metadata?.get("dc:title"));
    if (typeof fromXmp === "string" && fromXmp.trim() !== "") return fromXmp;
    /** @type {unknown} */
    const fromInfo = /** @type {{ Title?: unknown }} */ (info).Title;
    return typeof fromInfo === "string" ? fromInfo : "";
  } catch {
    return "";
  }
}

/**
 * @param {PdfDocument} doc
 * @param {number} number
 * @returns {Promise<PdfPageText>}
 */
async function readPage(doc, number) {
  const page = await doc.getPage(number);
  const [x0 = 0, y0 = 0, x1 = 0, y1 = 0] = page.view;
  const content = await page.getTextContent();
  /** @type {PdfPageText["runs"]} */
  const runs = [];
  for (const item of content.items) {
    // Marked-content items have no `str`; empty strings only mark line ends.
    if (!("str" in item) || item.str === "") continue;
    const transform = /** @type {unknown} */ (item.transform);
    const [a = 0, b = 0, c = 0, d = 0, e = 0, f = 0] = Array.isArray(transform) ? transform.map((v) => Number(v)) : [];
    runs.push({
      str: item.str,
      x: e - x0,
      y: f - y0,
      width: item.width,
      size: Math.round((Math.hypot(c, d) || Math.hypot(a, b) || item.height) * 100) / 100,
    });
  }
  page.cleanup();
  return { width: x1 - x0, height: y1 - y0, runs };
}

/**
 * @param {unknown} error
 * @returns {string}
 */
function describe(error) {
  const name = error instanceof Error ? error.name : "Error";
  const message = error instanceof Error ? error.message : String(error);
  return `${name}: ${message}`.slice(0, 200);
}

parentPort?.on("message", (/** @type {PdfJob} */ job) => {
  extractPdfRuns(job).then(
    (result) => parentPort?.postMessage(result),
    (/** @type {unknown} */ error) => parentPort?.postMessage(/** @type {PdfJobResult} */ ({ ok: false, kind: "invalid", message: describe(error) })),
  );
});
